//! What the formats share to render a result's [`ContentPart`]s: the parts each format takes
//! natively, the rest as text, never dropped.

use serde_json::Value;

use crate::call::{ContentPart, ResourceContents, ToolResult};

/// The image types OpenAI, Anthropic and Gemini all take.
const COMMON_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];

/// Whether `mime_type` is in `accepted` (`image/jpg` counts as `image/jpeg`).
pub(super) fn accepts(accepted: &[&str], mime_type: &str) -> bool {
    let mime_type = mime_type.trim().to_ascii_lowercase();
    let mime_type = if mime_type == "image/jpg" {
        "image/jpeg"
    } else {
        mime_type.as_str()
    };
    accepted.contains(&mime_type)
}

/// Whether an image of `mime_type` is one every provider's API takes.
pub(super) fn common_image(mime_type: &str) -> bool {
    accepts(COMMON_IMAGE_TYPES, mime_type)
}

/// A `data:` URL of base64 data.
pub(super) fn data_url(mime_type: &str, base64: &str) -> String {
    format!("data:{mime_type};base64,{base64}")
}

/// A binary resource's name for formats that want a file name: the last segment of its URI.
pub(super) fn file_name(resource: &ResourceContents) -> &str {
    let uri = match resource {
        ResourceContents::Text { uri, .. } | ResourceContents::Blob { uri, .. } => uri,
    };
    uri.rsplit('/')
        .find(|segment| !segment.is_empty())
        .unwrap_or("resource")
}

/// A result's content as a format that takes either a string or a list of blocks wants it:
/// [`ToolResult::text`] for a result without parts; for one with parts, a list of blocks:
/// the structured value's compact JSON as text first (if any), then each part as `native`
/// renders it, or as text
/// ([`ContentPart::as_text`], a placeholder for what the format cannot carry) when `native`
/// gives `None`; `text` makes a text block. Empty text parts are left out (Anthropic refuses
/// empty text blocks, and they say nothing).
pub(super) fn text_or_blocks(
    result: &ToolResult,
    native: impl Fn(&ContentPart) -> Option<Value>,
    text: impl Fn(String) -> Value,
) -> Value {
    if result.parts().is_empty() {
        return Value::String(result.text());
    }
    let structured = result.structured().map(|value| text(value.to_string()));
    structured
        .into_iter()
        .chain(
            result
                .parts()
                .iter()
                .filter(|part| !matches!(part, ContentPart::Text { text } if text.is_empty()))
                .map(|part| native(part).unwrap_or_else(|| text(part.as_text()))),
        )
        .collect()
}
