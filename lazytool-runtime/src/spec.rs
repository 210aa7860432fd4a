//! What `#[tool]` registers: a static, const-constructed [`ToolSpec`] per tool.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::annotations::ToolAnnotations;
use crate::context::ToolContext;
use crate::registry::SourceLocation;
use crate::result::ToolResult;
use crate::state::{ResolvedStates, StateRequirement};

/// The future of one tool call.
pub type CallFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// What a generated call function receives: arguments already normalized to an object and
/// validated against the schema, the tool's states, and the call context.
#[doc(hidden)]
pub struct Invocation<'a> {
    pub arguments: Value,
    pub states: &'a ResolvedStates,
    pub context: ToolContext,
}

/// A tool declared with `#[tool]`, as collected at link time by `inventory`.
///
/// Generated code builds it in a `const` context; read it through the accessors. Registries
/// built with [`RegistryBuilder::filter`](crate::RegistryBuilder::filter) show each spec to
/// the filter before the tool is built.
pub struct ToolSpec {
    #[doc(hidden)]
    pub name: &'static str,
    #[doc(hidden)]
    pub description: &'static str,
    #[doc(hidden)]
    pub lazy: bool,
    #[doc(hidden)]
    pub annotations: ToolAnnotations,
    #[doc(hidden)]
    pub tags: &'static [&'static str],
    #[doc(hidden)]
    pub skill: Option<&'static str>,
    #[doc(hidden)]
    pub input_schema: fn() -> Value,
    #[doc(hidden)]
    pub output_schema: Option<fn() -> Value>,
    #[doc(hidden)]
    pub states: &'static [StateRequirement],
    #[doc(hidden)]
    pub call: fn(Invocation<'_>) -> Result<CallFuture, ToolResult>,
    #[doc(hidden)]
    pub cache: &'static SpecCache,
    #[doc(hidden)]
    pub module_path: &'static str,
    #[doc(hidden)]
    pub file: &'static str,
    #[doc(hidden)]
    pub line: u32,
    #[doc(hidden)]
    pub column: u32,
}

/// What `#[tool]` submits to `inventory`: a pointer to the tool's `static` spec. (Submitting
/// the spec itself would pass its whole literal through `inventory::submit!`'s rounds of
/// `macro_rules` for every tool: slower builds.)
#[doc(hidden)]
pub struct Registration(pub &'static ToolSpec);

inventory::collect!(Registration);

impl ToolSpec {
    /// The tool's name as the model sees it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The tool's description.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// Whether the tool was declared `#[tool(lazy)]`.
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// The module the tool's function is in, such as `my_app::tools::search`.
    pub fn module_path(&self) -> &'static str {
        self.module_path
    }

    /// Where the tool's function is declared.
    pub fn location(&self) -> SourceLocation {
        SourceLocation::new(self.file, self.line, self.column)
    }
}

/// The per-process cache of a spec's compiled schemas: built on first use, shared by every
/// registry built afterwards.
#[doc(hidden)]
pub struct SpecCache(OnceLock<Result<CompiledSchemas, String>>);

impl SpecCache {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        SpecCache(OnceLock::new())
    }

    pub(crate) fn get_or_build(&self, spec: &ToolSpec) -> Result<CompiledSchemas, String> {
        self.0
            .get_or_init(|| {
                CompiledSchemas::build((spec.input_schema)(), spec.output_schema.map(|f| f()))
            })
            .clone()
    }
}

/// A tool's canonical input schema with its compiled validator, and its output schema.
#[derive(Clone)]
pub(crate) struct CompiledSchemas {
    pub(crate) input: Arc<Value>,
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

/// The validator of a canonical input schema: JSON Schema 2020-12, with the bounds of Rust
/// integer formats enforced.
fn compile(input: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&crate::schema::with_integer_bounds(input))
        .map_err(|error| format!("the schema does not compile: {error}"))
}

static SCHEMA_BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many times any tool schema was compiled in this process (tests check that each one is
/// built once).
#[doc(hidden)]
pub fn schema_builds() -> usize {
    SCHEMA_BUILDS.load(std::sync::atomic::Ordering::Relaxed)
}

impl CompiledSchemas {
    /// Checks that `input` describes an argument object and compiles its validator.
    pub(crate) fn build(input: Value, output: Option<Value>) -> Result<Self, String> {
        Self::build_with(input, output, |validator| {
            ValidatorCell::Compiled(Arc::new(validator))
        })
    }

    /// [`build`](Self::build), the validator compiled now only to report a schema that does
    /// not compile, and kept for the tool's first call.
    pub(crate) fn build_deferred(input: Value, output: Option<Value>) -> Result<Self, String> {
        Self::build_with(input, output, |_| {
            ValidatorCell::OnFirstCall(Arc::new(OnceLock::new()))
        })
    }

    fn build_with(
        input: Value,
        output: Option<Value>,
        keep: impl FnOnce(jsonschema::Validator) -> ValidatorCell,
    ) -> Result<Self, String> {
        SCHEMA_BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let input = crate::schema::canonicalize(input);
        match input.get("type") {
            Some(Value::String(kind)) if kind == "object" => {}
            _ => {
                return Err(
                    "the root of an input schema must be an object schema (`\"type\": \"object\"`)"
                        .to_owned(),
                );
            }
        }
        let validator = keep(compile(&input)?);
        Ok(CompiledSchemas {
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
        assert!(error.starts_with("the schema does not compile"), "{error}");
    }
}
