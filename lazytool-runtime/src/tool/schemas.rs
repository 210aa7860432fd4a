//! A tool's schemas as calls use them: [`CompiledSchemas`].

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::argument_check::ArgumentCheck;
use super::argument_validation::ArgumentValidation;
use super::schema_error::SchemaError;

/// A tool's canonical input schema with its compiled validator, the schema as declared where
/// that differs, and its output schema.
#[derive(Clone)]
pub(crate) struct CompiledSchemas {
    pub(crate) input: Arc<Value>,
    /// The input schema as the tool declared it (`$schema`, `$defs`, `$ref`s kept), when it
    /// is not the canonical one: what MCP sends (SEP-2106).
    pub(crate) declared: Option<Arc<Value>>,
    /// Whether nulls of optional properties may need stripping (see `drop_null_optionals`).
    pub(crate) has_optional: bool,
    pub(crate) validator: ValidatorCell,
    pub(crate) output: Option<Arc<Value>>,
}

/// A tool's argument check: built up front (`#[tool]`s, once per process), or on the tool's
/// first call (dynamic tools: a catalog of thousands, of which a conversation calls a few,
/// would otherwise keep about 10 KB of validator per tool).
#[derive(Clone)]
pub(crate) enum ValidatorCell {
    Compiled(Arc<dyn ArgumentCheck>),
    OnFirstCall(
        ArgumentValidation,
        Arc<OnceLock<Option<Arc<dyn ArgumentCheck>>>>,
    ),
}

impl ValidatorCell {
    /// The check for `input` (the schema it was built from); `None` only if a schema that
    /// compiled when the registry was built no longer does, which cannot happen.
    pub(crate) fn get(&self, input: &Value) -> Option<&dyn ArgumentCheck> {
        match self {
            ValidatorCell::Compiled(check) => Some(&**check),
            ValidatorCell::OnFirstCall(validation, cell) => cell
                .get_or_init(|| validation.check_of(input).ok())
                .as_deref(),
        }
    }
}

impl CompiledSchemas {
    /// Checks that `input` describes an argument object and builds its argument check.
    pub(crate) fn build(
        input: Value,
        output: Option<Value>,
        validation: ArgumentValidation,
    ) -> Result<Self, SchemaError> {
        Self::build_with(input, output, validation, |check| {
            ValidatorCell::Compiled(check)
        })
    }

    /// [`build`](Self::build), the check built now only to report a schema that does not
    /// compile, and kept for the tool's first call.
    pub(crate) fn build_deferred(
        input: Value,
        output: Option<Value>,
        validation: ArgumentValidation,
    ) -> Result<Self, SchemaError> {
        Self::build_with(input, output, validation, |_| {
            ValidatorCell::OnFirstCall(validation, Arc::new(OnceLock::new()))
        })
    }

    fn build_with(
        input: Value,
        output: Option<Value>,
        validation: ArgumentValidation,
        keep: impl FnOnce(Arc<dyn ArgumentCheck>) -> ValidatorCell,
    ) -> Result<Self, SchemaError> {
        let declared = input.clone();
        let input = crate::schema::canonicalize(input);
        match input.get("type") {
            Some(Value::String(kind)) if kind == "object" => {}
            _ => return Err(SchemaError::NotAnObject),
        }
        let validator = keep(validation.check_of(&input)?);
        Ok(CompiledSchemas {
            declared: (declared != input).then(|| Arc::new(declared)),
            has_optional: crate::schema::has_optional_properties(&input),
            input: Arc::new(input),
            validator,
            output: output.map(|schema| Arc::new(crate::schema::canonicalize(schema))),
        })
    }
}

#[cfg(all(test, feature = "json-schema"))]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn deferred_validators_report_bad_schemas_now_and_compile_on_first_use() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let deferred =
            CompiledSchemas::build_deferred(schema.clone(), None, ArgumentValidation::JSON_SCHEMA)
                .expect("compiles");
        let ValidatorCell::OnFirstCall(_, cell) = &deferred.validator else {
            panic!("a dynamic tool's validator waits for the first call");
        };
        assert!(cell.get().is_none());
        let validator = deferred
            .validator
            .get(&deferred.input)
            .expect("a validator");
        assert!(validator.is_valid(&json!({"n": 1})));
        assert!(!validator.is_valid(&json!({"n": "one"})));
        assert!(cell.get().is_some(), "kept after the first use");

        let broken = json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Missing"}}});
        let error = CompiledSchemas::build_deferred(broken, None, ArgumentValidation::JSON_SCHEMA)
            .err()
            .expect("an unresolvable reference is reported when the registry is built");
        assert!(matches!(error, SchemaError::DoesNotCompile(_)), "{error}");
    }
}
