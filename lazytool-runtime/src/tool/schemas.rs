//! A tool's schemas as calls use them: [`CompiledSchemas`].

use std::sync::{Arc, OnceLock};

use serde_json::Value;

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

/// A tool's compiled validator: compiled up front (`#[tool]`s, once per process), or on the
/// tool's first call (dynamic tools: a catalog of thousands, of which a conversation calls a
/// few, would otherwise keep about 10 KB of validator per tool).
#[derive(Clone)]
pub(crate) enum ValidatorCell {
    Compiled(Arc<jsonschema::Validator>),
    OnFirstCall(Arc<OnceLock<Option<jsonschema::Validator>>>),
}

impl ValidatorCell {
    /// The validator for `input` (the schema it was built from); `None` only if a schema that
    /// compiled when the registry was built no longer does, which cannot happen.
    pub(crate) fn get(&self, input: &Value) -> Option<&jsonschema::Validator> {
        match self {
            ValidatorCell::Compiled(validator) => Some(validator),
            ValidatorCell::OnFirstCall(cell) => cell.get_or_init(|| compile(input).ok()).as_ref(),
        }
    }
}

/// The validator of a canonical input schema (JSON Schema 2020-12, the bounds of Rust
/// integer types in it).
fn compile(input: &Value) -> Result<jsonschema::Validator, SchemaError> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(input)
        .map_err(|error| SchemaError::DoesNotCompile(error.to_string()))
}

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

impl CompiledSchemas {
    /// Checks that `input` describes an argument object and compiles its validator.
    pub(crate) fn build(input: Value, output: Option<Value>) -> Result<Self, SchemaError> {
        Self::build_with(input, output, |validator| {
            ValidatorCell::Compiled(Arc::new(validator))
        })
    }

    /// [`build`](Self::build), the validator compiled now only to report a schema that does
    /// not compile, and kept for the tool's first call.
    pub(crate) fn build_deferred(input: Value, output: Option<Value>) -> Result<Self, SchemaError> {
        Self::build_with(input, output, |_| {
            ValidatorCell::OnFirstCall(Arc::new(OnceLock::new()))
        })
    }

    fn build_with(
        input: Value,
        output: Option<Value>,
        keep: impl FnOnce(jsonschema::Validator) -> ValidatorCell,
    ) -> Result<Self, SchemaError> {
        let declared = input.clone();
        let input = crate::schema::canonicalize(input);
        match input.get("type") {
            Some(Value::String(kind)) if kind == "object" => {}
            _ => return Err(SchemaError::NotAnObject),
        }
        let validator = keep(compile(&input)?);
        Ok(CompiledSchemas {
            declared: (declared != input).then(|| Arc::new(declared)),
            has_optional: crate::schema::has_optional_properties(&input),
            input: Arc::new(input),
            validator,
            output: output.map(|schema| Arc::new(crate::schema::canonicalize(schema))),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn deferred_validators_report_bad_schemas_now_and_compile_on_first_use() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let deferred = CompiledSchemas::build_deferred(schema.clone(), None).expect("compiles");
        let ValidatorCell::OnFirstCall(cell) = &deferred.validator else {
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
        let error = CompiledSchemas::build_deferred(broken, None)
            .err()
            .expect("an unresolvable reference is reported when the registry is built");
        assert!(matches!(error, SchemaError::DoesNotCompile(_)), "{error}");
    }
}
