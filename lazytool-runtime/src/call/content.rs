//! Results that are more than JSON: [`Content`], made of [`ContentPart`]s (text, images,
//! audio, embedded resources, resource links), in the shapes of MCP's content blocks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::size::escaped_len;

/// One piece of a tool's [`Content`]. Serialized, it is the MCP content block of the same
/// kind (`{"type": "image", "data", "mimeType"}`, ...), so that an MCP server sends it as it
/// is; each [provider](crate::provider) renders it the way its API takes it in a tool result.
///
/// Binary data (`data`, `blob`) is base64, as MCP and every model API carry it.
///
/// ```
/// use lazytool_runtime::ContentPart;
/// use serde_json::json;
///
/// let image = ContentPart::image("iVBORw0KGgo=", "image/png");
/// assert_eq!(
///     serde_json::to_value(&image).unwrap(),
///     json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentPart {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    #[serde(rename_all = "camelCase")]
    Image {
        /// The image's bytes in base64.
        data: String,
        /// Its media type, such as `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded.
    #[serde(rename_all = "camelCase")]
    Audio {
        /// The audio's bytes in base64.
        data: String,
        /// Its media type, such as `audio/wav`.
        mime_type: String,
    },
    /// A resource whose contents come with the result.
    Resource {
        /// The resource.
        resource: ResourceContents,
    },
    /// A link to a resource the client can read (MCP `resources/read`).
    #[serde(rename_all = "camelCase")]
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its media type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

/// The contents of an embedded resource (MCP `TextResourceContents` or
/// `BlobResourceContents`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// A text resource.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The resource's URI.
        uri: String,
        /// Its media type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its text.
        text: String,
    },
    /// A binary resource, base64-encoded.
    #[serde(rename_all = "camelCase")]
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its media type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its bytes in base64.
        blob: String,
    },
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text { text: text.into() }
    }

    /// An image: its bytes in base64 and its media type (`image/png`, `image/jpeg`, ...).
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentPart::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// Audio: its bytes in base64 and its media type (`audio/wav`, `audio/mpeg`, ...).
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentPart::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An embedded text resource.
    ///
    /// ```
    /// use lazytool_runtime::ContentPart;
    ///
    /// let part = ContentPart::resource_text("file:///notes.md", "# Notes");
    /// assert_eq!(serde_json::to_value(&part).unwrap()["resource"]["text"], "# Notes");
    /// ```
    pub fn resource_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ContentPart::Resource {
            resource: ResourceContents::Text {
                uri: uri.into(),
                mime_type: None,
                text: text.into(),
            },
        }
    }

    /// An embedded binary resource: its bytes in base64 and its media type.
    pub fn resource_blob(
        uri: impl Into<String>,
        base64: impl Into<String>,
        mime_type: impl Into<String>,
    ) -> Self {
        ContentPart::Resource {
            resource: ResourceContents::Blob {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                blob: base64.into(),
            },
        }
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentPart::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// The part as text, for formats that take only text: a text part as it is, an embedded
    /// text resource as its URI and text, anything else as a placeholder naming its kind,
    /// media type and size (`[image: image/png, 1024 bytes of base64]`).
    ///
    /// ```
    /// use lazytool_runtime::ContentPart;
    ///
    /// assert_eq!(ContentPart::image("AAAA", "image/png").as_text(), "[image: image/png, 4 bytes of base64]");
    /// ```
    pub fn as_text(&self) -> String {
        match self {
            ContentPart::Text { text } => text.clone(),
            ContentPart::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes of base64]", data.len())
            }
            ContentPart::Audio { data, mime_type } => {
                format!("[audio: {mime_type}, {} bytes of base64]", data.len())
            }
            ContentPart::Resource {
                resource: ResourceContents::Text { uri, text, .. },
            } => format!("[resource: {uri}]\n{text}"),
            ContentPart::Resource {
                resource:
                    ResourceContents::Blob {
                        uri,
                        mime_type,
                        blob,
                    },
            } => format!(
                "[resource: {uri}, {}, {} bytes of base64]",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                blob.len()
            ),
            ContentPart::ResourceLink { uri, name, .. } => {
                format!("[resource link: {name} <{uri}>]")
            }
        }
    }

    /// The bytes the part takes once sent, as the output limit counts them: text escaped as
    /// JSON, binary data by its base64 length, plus the part's other strings.
    pub(crate) fn sent_len(&self) -> usize {
        let optional = |text: &Option<String>| text.as_deref().map_or(0, escaped_len);
        match self {
            ContentPart::Text { text } => escaped_len(text),
            ContentPart::Image { data, mime_type } | ContentPart::Audio { data, mime_type } => {
                data.len() + escaped_len(mime_type)
            }
            ContentPart::Resource {
                resource:
                    ResourceContents::Text {
                        uri,
                        mime_type,
                        text,
                    },
            } => escaped_len(uri) + optional(mime_type) + escaped_len(text),
            ContentPart::Resource {
                resource:
                    ResourceContents::Blob {
                        uri,
                        mime_type,
                        blob,
                    },
            } => escaped_len(uri) + optional(mime_type) + blob.len(),
            ContentPart::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => escaped_len(uri) + escaped_len(name) + optional(description) + optional(mime_type),
        }
    }
}

/// A tool's value made of [`ContentPart`]s — an image, audio, an embedded resource, text,
/// several of them — with, optionally, a structured JSON value. Return it from a `#[tool]`
/// (alone or as the `Ok` of a `Result`) or from a [`DynamicTool`](crate::DynamicTool)'s
/// handler.
///
/// The model sees the parts, in order: each [provider](crate::provider) renders them as its
/// API takes them in a tool result (see the README's table; text-only formats get a
/// placeholder per part they cannot carry), MCP sends them as the call's `content`. The
/// structured value is MCP's `structuredContent`; providers send it as a text part (its
/// compact JSON) before the parts, and [`ToolResult::content`](crate::ToolResult::content)
/// returns it. Without one, `content()` is the parts as text
/// ([`ContentPart::as_text`], one per line).
///
/// The output limit ([`CallLimits::max_output_bytes`](crate::CallLimits)) counts every part,
/// images by their base64 length: parts that do not fit are left out, and a text part at
/// the end says which.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, Content, ContentPart, Registry};
///
/// /// Draws the chart of a series.
/// #[tool]
/// async fn chart(points: Vec<f64>) -> Content {
///     let png_base64 = String::from("iVBORw0KGgo="); // render `points` here
///     Content::new([
///         ContentPart::text(format!("{} points", points.len())),
///         ContentPart::image(png_base64, "image/png"),
///     ])
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::from_inventory().unwrap();
/// let result = registry.call("chart", serde_json::json!({"points": [1.0, 2.0]})).await;
/// assert_eq!(result.parts().len(), 2);
/// assert_eq!(result.text(), "2 points\n[image: image/png, 12 bytes of base64]");
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    pub(crate) parts: Vec<ContentPart>,
    pub(crate) structured: Option<Value>,
}

impl Content {
    /// Content made of `parts`, in order.
    pub fn new(parts: impl IntoIterator<Item = ContentPart>) -> Self {
        Content {
            parts: parts.into_iter().collect(),
            structured: None,
        }
    }

    /// The same content with a structured value (MCP `structuredContent`).
    ///
    /// ```
    /// use lazytool_runtime::{Content, ContentPart, ToolResult};
    /// use serde_json::json;
    ///
    /// let content = Content::new([ContentPart::image("AAAA", "image/png")]).with_structured(json!({"width": 1}));
    /// let result = ToolResult::from(content);
    /// assert_eq!(result.content(), &json!({"width": 1}));
    /// assert_eq!(result.structured(), Some(&json!({"width": 1})));
    /// ```
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[ContentPart] {
        &self.parts
    }

    /// The structured value, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.structured.as_ref()
    }
}

/// The parts as text, one per line (see [`ContentPart::as_text`]).
pub(crate) fn parts_text(parts: &[ContentPart]) -> String {
    let lines: Vec<String> = parts.iter().map(ContentPart::as_text).collect();
    lines.join("\n")
}
