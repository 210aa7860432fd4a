//! How big one tool's definition is as a model reads it, and the default bound on it.

use std::io;

use serde::Serialize;
use serde_json::Value;

use super::{DynamicTool, ToolAnnotations};

/// The default bound on one tool's definition, in bytes (64 KiB, about 16,000 tokens): see
/// [`DynamicTool::definition_bytes`]. A catalog's tool whose definition is larger is left
/// out ([`CatalogReader::max_definition_bytes`](crate::CatalogReader::max_definition_bytes);
/// `McpSource::max_definition_bytes` in lazytool-mcp).
///
/// ```
/// assert_eq!(lazytool_runtime::DEFAULT_MAX_DEFINITION_BYTES, 65_536);
/// ```
pub const DEFAULT_MAX_DEFINITION_BYTES: usize = 64 * 1024;

/// The tool as an MCP `tools/list` entry carries it: the most a client or model is sent.
#[derive(Serialize)]
struct Listed<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a Value,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Hints<'a>>,
    /// Counted as a catalog carries them; each format sends about as much.
    #[serde(rename = "inputExamples", skip_serializing_if = "<[Value]>::is_empty")]
    input_examples: &'a [Value],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hints<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_only_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    destructive_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_world_hint: Option<bool>,
}

impl DynamicTool {
    /// The size of the tool's definition as a model reads it: the bytes of the compact JSON
    /// of `{"name", "description", "inputSchema"}`, with `"outputSchema"`, `"title"` and
    /// `"annotations"` (title and hints) and `"inputExamples"` when the tool has them — the tool as an MCP
    /// `tools/list` entry carries it, and a discovery answer a little less. Counted as it
    /// is written, without keeping the text.
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("echo", "Returns its input.", json!({"type": "object"}),
    ///     |arguments, _| async move { Ok::<_, String>(arguments) });
    /// let listed = r#"{"name":"echo","description":"Returns its input.","inputSchema":{"type":"object"}}"#;
    /// assert_eq!(tool.definition_bytes(), listed.len());
    /// ```
    pub fn definition_bytes(&self) -> usize {
        let ToolAnnotations {
            title,
            read_only,
            destructive,
            idempotent,
            open_world,
        } = &self.metadata.annotations;
        let title = title.as_deref();
        let annotations = (!self.metadata.annotations.is_empty()).then_some(Hints {
            title,
            read_only_hint: *read_only,
            destructive_hint: *destructive,
            idempotent_hint: *idempotent,
            open_world_hint: *open_world,
        });
        serialized_size(&Listed {
            name: &self.name,
            description: &self.description,
            input_schema: &self.input_schema,
            output_schema: self.output_schema.as_ref(),
            title,
            annotations,
            input_examples: &self.metadata.examples,
        })
    }

    /// Why this tool cannot be sent under a bound of `max_bytes` on its
    /// [`definition_bytes`](Self::definition_bytes): `None` when it is within it, else the
    /// reason a report shows.
    ///
    /// ```
    /// use lazytool_runtime::DynamicTool;
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("echo", "Returns its input.", json!({"type": "object"}),
    ///     |arguments, _| async move { Ok::<_, String>(arguments) });
    /// assert_eq!(tool.oversized(82), None);
    /// assert_eq!(tool.oversized(50).as_deref(), Some("its definition is 82 bytes, over the bound of 50 bytes"));
    /// ```
    pub fn oversized(&self, max_bytes: usize) -> Option<String> {
        let bytes = self.definition_bytes();
        (bytes > max_bytes).then(|| {
            format!(
                "its definition is {} bytes, over the bound of {} bytes",
                grouped(bytes),
                grouped(max_bytes)
            )
        })
    }
}

/// `count` with its digits in groups of three: 1,145,839.
fn grouped(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The bytes of `value`'s compact JSON, counted as it is written, without keeping it.
pub(crate) fn serialized_size(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}
