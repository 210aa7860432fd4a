//! Resources an `McpServer` offers: [`ResourceProvider`].

use std::future::Future;
use std::pin::Pin;

use std::collections::HashMap;

use rmcp::model::{ErrorData, ReadResourceResult, Resource, ResourceTemplate};
use tokio::sync::{broadcast, watch};

use super::completion::CompletionFuture;

/// What [`ResourceProvider::read_resource`] returns: the resource's contents, or the JSON-RPC
/// error the client gets (`-32002`, [`ErrorData::resource_not_found`], for a URI that is no
/// resource's).
pub type ReadFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ReadResourceResult, ErrorData>> + Send + 'a>>;

/// What [`ResourceProvider::watch`] returns: whether the provider can now announce the
/// resource's updates, or the JSON-RPC error the subscribing client gets.
pub type WatchFuture<'a> = Pin<Box<dyn Future<Output = Result<(), ErrorData>> + Send + 'a>>;

/// The resources a server offers (MCP `resources/list`, `resources/templates/list` and
/// `resources/read`): a program's own, or an MCP gateway's upstreams'
/// (`McpCatalog` is one).
///
/// Given to `McpServer::resources`, it makes the server
/// announce the `resources` capability (with `listChanged`, and `subscribe` when it
/// announces [`updates`](ResourceProvider::updates)), list [`resources`](ResourceProvider::resources) and
/// [`resource_templates`](ResourceProvider::resource_templates) page by page, answer
/// `resources/read` with [`read_resource`](ResourceProvider::read_resource), and send
/// `notifications/resources/list_changed` on each change of
/// [`changes`](ResourceProvider::changes).
///
/// ```
/// use lazytool_mcp_core::rmcp::model::{ErrorData, ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
/// use lazytool_mcp_core::{ReadFuture, ResourceProvider};
///
/// /// The shop's price list, and each product by id.
/// struct Shop;
///
/// impl ResourceProvider for Shop {
///     fn resources(&self) -> Vec<Resource> {
///         vec![Resource::new("shop://prices", "prices").with_mime_type("text/csv")]
///     }
///
///     fn resource_templates(&self) -> Vec<ResourceTemplate> {
///         vec![ResourceTemplate::new("shop://products/{id}", "product")]
///     }
///
///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
///         Box::pin(async move {
///             let text = match uri.as_str() {
///                 "shop://prices" => "desk,120\nchair,80\n".to_owned(),
///                 _ if uri.starts_with("shop://products/") => format!("product {}", &uri[16..]),
///                 _ => return Err(ErrorData::resource_not_found(format!("no resource at {uri}"), None)),
///             };
///             Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]))
///         })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// assert_eq!(Shop.read_resource("shop://products/7".into()).await.unwrap().contents.len(), 1);
/// assert_eq!(Shop.read_resource("shop://nothing".into()).await.unwrap_err().code.0, -32002);
/// # }
/// ```
pub trait ResourceProvider: Send + Sync + 'static {
    /// Every resource offered now, in the order clients list them (URIs unique).
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, Resource};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// struct Nothing;
    /// impl ResourceProvider for Nothing {
    ///     fn resources(&self) -> Vec<Resource> {
    ///         Vec::new()
    ///     }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move { Err(ErrorData::resource_not_found(format!("no resource at {uri}"), None)) })
    ///     }
    /// }
    /// assert!(Nothing.resources().is_empty());
    /// ```
    fn resources(&self) -> Vec<Resource>;

    /// Every resource template offered now (RFC 6570 URI templates); none by default.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, Resource};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// # struct Nothing;
    /// # impl ResourceProvider for Nothing {
    /// #     fn resources(&self) -> Vec<Resource> { Vec::new() }
    /// #     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    /// #         Box::pin(async move { Err(ErrorData::resource_not_found(format!("no resource at {uri}"), None)) })
    /// #     }
    /// # }
    /// assert!(Nothing.resource_templates().is_empty());
    /// ```
    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    /// The contents at `uri`: a listed resource's, or one a template describes. A URI that
    /// is no resource's should be `-32002` ([`ErrorData::resource_not_found`]), as the MCP
    /// specification says; clients of 2026-07-28 get it as `-32602`.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, ReadResourceResult, Resource, ResourceContents};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// struct Motd;
    /// impl ResourceProvider for Motd {
    ///     fn resources(&self) -> Vec<Resource> {
    ///         vec![Resource::new("motd://today", "today")]
    ///     }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move { Ok(ReadResourceResult::new(vec![ResourceContents::text("Be kind.", uri)])) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// assert_eq!(Motd.read_resource("motd://today".into()).await.unwrap().contents.len(), 1);
    /// # }
    /// ```
    fn read_resource(&self, uri: String) -> ReadFuture<'_>;

    /// A receiver that changes whenever [`resources`](ResourceProvider::resources) or
    /// [`resource_templates`](ResourceProvider::resource_templates) do; `None` (the
    /// default) for resources that never change.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, Resource};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// # struct Nothing;
    /// # impl ResourceProvider for Nothing {
    /// #     fn resources(&self) -> Vec<Resource> { Vec::new() }
    /// #     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    /// #         Box::pin(async move { Err(ErrorData::resource_not_found(format!("no resource at {uri}"), None)) })
    /// #     }
    /// # }
    /// // A fixed set: the server never sends `notifications/resources/list_changed`.
    /// assert!(Nothing.changes().is_none());
    /// ```
    fn changes(&self) -> Option<watch::Receiver<u64>> {
        None
    }

    /// A receiver of the URIs of resources whose contents changed; `None` (the default) for
    /// resources that never change. With one, the server announces `resources.subscribe`,
    /// accepts `resources/subscribe` and `resources/unsubscribe` from 2025-11-25 clients, and
    /// sends each subscriber `notifications/resources/updated` for the URIs it subscribed to.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ReadResourceResult, Resource, ResourceContents};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// use std::sync::Mutex;
    /// use tokio::sync::broadcast;
    ///
    /// /// A note a program rewrites while it serves.
    /// struct Note {
    ///     text: Mutex<String>,
    ///     updated: broadcast::Sender<String>,
    /// }
    ///
    /// impl Note {
    ///     fn write(&self, text: &str) {
    ///         *self.text.lock().unwrap() = text.to_owned();
    ///         let _ = self.updated.send("notes://today".to_owned());
    ///     }
    /// }
    ///
    /// impl ResourceProvider for Note {
    ///     fn resources(&self) -> Vec<Resource> {
    ///         vec![Resource::new("notes://today", "today")]
    ///     }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         let text = self.text.lock().unwrap().clone();
    ///         Box::pin(async move { Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)])) })
    ///     }
    ///     fn updates(&self) -> Option<broadcast::Receiver<String>> {
    ///         Some(self.updated.subscribe())
    ///     }
    /// }
    ///
    /// let note = Note { text: Mutex::default(), updated: broadcast::Sender::new(16) };
    /// let mut updates = note.updates().unwrap();
    /// note.write("Buy milk.");
    /// assert_eq!(updates.try_recv().unwrap(), "notes://today");
    /// ```
    fn updates(&self) -> Option<broadcast::Receiver<String>> {
        None
    }

    /// Called when a client subscribes to `uri` (a resource the requester may see), before
    /// the subscription is accepted: a provider that must ask someone for that resource's
    /// [`updates`](ResourceProvider::updates) does so here (a gateway subscribes on the
    /// server that offers it); an error refuses the subscription. Default: nothing to ask.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::Resource;
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider, WatchFuture};
    /// struct Static;
    /// impl ResourceProvider for Static {
    ///     fn resources(&self) -> Vec<Resource> { Vec::new() }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_resource(&uri)) })
    ///     }
    ///     fn watch(&self, uri: String) -> WatchFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_resource(&uri)) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// assert!(Static.watch("notes://1".into()).await.is_err());
    /// # }
    /// ```
    fn watch(&self, uri: String) -> WatchFuture<'_> {
        let _ = uri;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Values that complete the parameter `argument` of the template `uri_template` (as
    /// [`resource_templates`](ResourceProvider::resource_templates) lists it), whose text so
    /// far is `value` (MCP `completion/complete`), best first; `context` holds the parameters
    /// the client has filled already. Asked only for a template that is listed and the
    /// requester may see. Default: no values.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # use lazytool_mcp_core::rmcp::model::{Resource, ResourceTemplate};
    /// # use lazytool_mcp_core::{CompletionFuture, ReadFuture, ResourceProvider};
    /// struct Products;
    /// impl ResourceProvider for Products {
    ///     fn resources(&self) -> Vec<Resource> { Vec::new() }
    ///     fn resource_templates(&self) -> Vec<ResourceTemplate> {
    ///         vec![ResourceTemplate::new("shop://products/{id}", "product")]
    ///     }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_resource(&uri)) })
    ///     }
    ///     fn complete(&self, _template: String, _id: String, value: String, _: HashMap<String, String>) -> CompletionFuture<'_> {
    ///         Box::pin(async move { Ok(["17", "170", "23"].iter().filter(|id| id.starts_with(&value)).map(|id| id.to_string()).collect()) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let ids = Products.complete("shop://products/{id}".into(), "id".into(), "17".into(), HashMap::new()).await.unwrap();
    /// assert_eq!(ids, ["17", "170"]);
    /// # }
    /// ```
    fn complete(
        &self,
        uri_template: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        let _ = (uri_template, argument, value, context);
        Box::pin(async { Ok(Vec::new()) })
    }

    /// The error for a resource `uri` that does not exist, also answered for one the
    /// requester may not see (`McpServer::allow_offers_for`),
    /// so that the two cannot be told apart; default: "no resource at URI" with the URI as its
    /// data (`{"uri": URI}`), code `-32002` (sent as `-32602` to 2026-07-28 clients, which
    /// SEP-2164 gives that code).
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{Resource, ErrorData};
    /// # use lazytool_mcp_core::{ReadFuture, ResourceProvider};
    /// struct Nothing;
    /// impl ResourceProvider for Nothing {
    ///     fn resources(&self) -> Vec<Resource> { Vec::new() }
    ///     fn read_resource(&self, uri: String) -> ReadFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_resource(&uri)) })
    ///     }
    /// }
    /// let error = Nothing.unknown_resource("file:///x");
    /// assert!(error.message.contains("file:///x"));
    /// assert_eq!(error.data, Some(serde_json::json!({"uri": "file:///x"})));
    /// ```
    fn unknown_resource(&self, uri: &str) -> ErrorData {
        ErrorData::resource_not_found(
            format!("no resource at {uri}"),
            Some(serde_json::json!({ "uri": uri })),
        )
    }
}
