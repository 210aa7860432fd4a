//! Why a tool's input schema cannot be used: [`SchemaError`].

/// Why a tool's input schema cannot be used
/// ([`RegistryProblem::InvalidSchema`](crate::RegistryProblem::InvalidSchema)).
///
/// ```
/// use lazytool_runtime::{DynamicTool, Registry, RegistryProblem, SchemaError};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("list", "Lists things.", json!({"type": "array"}),
///     |_, _| async { Ok::<_, String>(json!([])) });
/// let error = Registry::builder().without_inventory().tool(tool).build().unwrap_err();
/// assert!(matches!(
///     &error.problems()[0],
///     RegistryProblem::InvalidSchema { reason: SchemaError::NotAnObject, .. }
/// ));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// The root is not an object schema: tool arguments are a JSON object.
    NotAnObject,
    /// The JSON Schema validator rejects the schema (an unresolvable `$ref`, a keyword with a
    /// value of the wrong type, ...); the text is the validator's.
    DoesNotCompile(String),
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaError::NotAnObject => f.write_str(
                "the root of an input schema must be an object schema (`\"type\": \"object\"`)",
            ),
            SchemaError::DoesNotCompile(reason) => {
                write!(f, "the schema does not compile: {reason}")
            }
        }
    }
}

impl std::error::Error for SchemaError {}
