//! What checks a tool's arguments against its input schema: [`ArgumentCheck`].

use serde_json::Value;

/// What checks a call's arguments against a tool's canonical input schema before the tool
/// runs: the JSON Schema validator, or the typed check of a `#[tool]` whose parameters' types
/// say everything its schema does. Both report the same violations in the same order.
pub(crate) trait ArgumentCheck: Send + Sync {
    /// Whether `arguments` are valid.
    fn is_valid(&self, arguments: &Value) -> bool;

    /// Every violation of `arguments`, in the validator's order.
    fn violations(&self, arguments: &Value) -> Vec<Violation>;
}

/// One thing wrong with a call's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The JSON Pointer of the offending value (empty for the arguments themselves).
    pub(crate) path: String,
    /// What is wrong with it, in the validator's words.
    pub(crate) message: String,
}
