//! Which [`ArgumentCheck`] a tool gets: [`ArgumentValidation`].

use std::sync::Arc;

use serde_json::Value;

use super::argument_check::ArgumentCheck;
use super::schema_error::SchemaError;

/// How a tool's arguments are checked, chosen where the tool is made: only a tool that needs
/// the JSON Schema validator names it, so that a binary whose tools need none does not link
/// it (BENCHMARKS.md, "Compile time").
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ArgumentValidation(pub(crate) fn(&Value) -> Result<Arc<dyn ArgumentCheck>, SchemaError>);

impl ArgumentValidation {
    /// The JSON Schema validator (draft 2020-12, the bounds of Rust integer types in it).
    #[cfg(feature = "json-schema")]
    pub const JSON_SCHEMA: ArgumentValidation =
        ArgumentValidation(super::json_schema_check::json_schema_check);
    /// Without feature `json-schema`: no validator, and a tool that needs one is refused.
    #[cfg(not(feature = "json-schema"))]
    pub const JSON_SCHEMA: ArgumentValidation = ArgumentValidation(|_| {
        Err(SchemaError::DoesNotCompile(
            "the tool needs the JSON Schema validator: enable lazytool-runtime's feature `json-schema`".to_owned(),
        ))
    });
    /// The typed check of a `#[tool]` whose parameters are all of plain types.
    pub const TYPED: ArgumentValidation = ArgumentValidation(super::typed_check::typed_check);

    /// The check of the canonical schema `input`.
    pub(crate) fn check_of(self, input: &Value) -> Result<Arc<dyn ArgumentCheck>, SchemaError> {
        (self.0)(input)
    }
}
