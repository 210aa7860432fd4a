//! The conformance suite's resources, as a program would offer its own: a
//! [`ResourceProvider`] with two static resources, one that changes ([`WATCHED`]), and a
//! template.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use lazytool_mcp::rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use lazytool_mcp::{ReadFuture, ResourceProvider};
use serde_json::json;
use tokio::sync::broadcast;

use crate::RED_PIXEL_PNG;

/// `test://static-text`, `test://static-binary`, `test://watched-resource` and the template
/// `test://template/{id}/data`.
pub struct Resources;

const WATCHED_URI: &str = "test://watched-resource";

/// `test://watched-resource`: its version, which the tool `test_update_watched_resource`
/// moves on, and who is told.
pub struct Watched {
    version: AtomicU64,
    updated: broadcast::Sender<String>,
}

pub static WATCHED: LazyLock<Watched> = LazyLock::new(|| Watched {
    version: AtomicU64::new(1),
    updated: broadcast::Sender::new(16),
});

impl Watched {
    /// Changes the resource and tells its subscribers; its new version.
    pub fn update(&self) -> u64 {
        let version = self.version.fetch_add(1, Ordering::AcqRel) + 1;
        let _ = self.updated.send(WATCHED_URI.to_owned());
        version
    }
}

impl ResourceProvider for Resources {
    fn resources(&self) -> Vec<Resource> {
        vec![
            Resource::new("test://static-text", "static-text")
                .with_description("A static text resource.")
                .with_mime_type("text/plain"),
            Resource::new("test://static-binary", "static-binary")
                .with_description("A static binary resource (a PNG image).")
                .with_mime_type("image/png"),
            Resource::new(WATCHED_URI, "watched-resource")
                .with_description("A resource clients may subscribe to.")
                .with_mime_type("text/plain"),
        ]
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        vec![
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .with_description("Data for one id.")
                .with_mime_type("application/json"),
        ]
    }

    fn read_resource(&self, uri: String) -> ReadFuture<'_> {
        Box::pin(async move {
            let contents = match uri.as_str() {
                "test://static-text" => {
                    ResourceContents::text("This is the content of the static text resource.", &uri)
                        .with_mime_type("text/plain")
                }
                "test://static-binary" => {
                    ResourceContents::blob(RED_PIXEL_PNG, &uri).with_mime_type("image/png")
                }
                WATCHED_URI => {
                    let version = WATCHED.version.load(Ordering::Acquire);
                    ResourceContents::text(
                        format!("The watched resource, version {version}."),
                        &uri,
                    )
                    .with_mime_type("text/plain")
                }
                _ => match template_id(&uri) {
                    Some(id) => {
                        let data = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                        ResourceContents::text(data.to_string(), &uri)
                            .with_mime_type("application/json")
                    }
                    None => return Err(self.unknown_resource(&uri)),
                },
            };
            Ok(ReadResourceResult::new(vec![contents]))
        })
    }

    fn updates(&self) -> Option<broadcast::Receiver<String>> {
        Some(WATCHED.updated.subscribe())
    }
}

/// The id in `test://template/{id}/data`, if `uri` is one of the template's.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}
