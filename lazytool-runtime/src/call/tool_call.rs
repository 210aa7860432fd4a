//! A call the model asked for: [`ToolCall`].

use serde_json::Value;

/// A tool call the model asked for, as the provider parsers read it out of a response
/// ([`provider`](crate::provider)) and [`Session::call_turn`](crate::Session::call_turn) runs
/// it.
///
/// ```
/// use lazytool_runtime::ToolCall;
/// use serde_json::json;
///
/// let call = ToolCall {
///     id: "call_1".into(),
///     name: "add".into(),
///     arguments: json!("{\"a\": 2, \"b\": 3}"),
/// };
/// assert_eq!(call.name, "add");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The id the result must be sent back under (for Gemini calls that carry no id, a
    /// synthesized `gemini-call-{index}`).
    pub id: String,
    /// The name of the tool to call.
    pub name: String,
    /// The arguments as the provider sent them: a JSON object, or, for OpenAI (whose
    /// arguments are a JSON-encoded string), that string as-is.
    pub arguments: Value,
}
