//! What checks a tool's arguments against its input schema: [`ArgumentCheck`].

use serde_json::Value;

use crate::call::quote;

/// What checks a call's arguments against a tool's canonical input schema before the tool
/// runs: the JSON Schema validator, or the typed check of a `#[tool]` whose parameters' types
/// say everything its schema does. Both report the same violations in the same order.
pub(crate) trait ArgumentCheck: Send + Sync {
    /// Whether `arguments` are valid.
    fn is_valid(&self, arguments: &Value) -> bool;

    /// Every violation of `arguments`, in the validator's order.
    fn violations(&self, arguments: &Value) -> Vec<Violation>;
}

/// The longest one violation's message is reported (an `additionalProperties` error lists
/// every unexpected key; an instance may be large).
pub(crate) const MAX_VIOLATION_BYTES: usize = 1000;

/// One thing wrong with a call's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The JSON Pointer of the offending value (empty for the arguments themselves).
    pub(crate) path: String,
    /// What is wrong with it, in the validator's words.
    pub(crate) message: String,
}

impl Violation {
    /// How the model (a call's error) and the developer (an invalid example) read it:
    /// `at /path: message`, or the message alone for the arguments themselves, the message cut
    /// to [`MAX_VIOLATION_BYTES`].
    pub(crate) fn located(&self) -> String {
        let message = quote(&self.message, MAX_VIOLATION_BYTES);
        match self.path.as_str() {
            "" => message.into_owned(),
            path => format!("at {path}: {message}"),
        }
    }
}
