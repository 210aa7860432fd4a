//! What `#[tool]` registers: a static, const-constructed [`ToolSpec`] per tool.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use serde_json::Value;

use super::argument_validation::ArgumentValidation;
use super::schema_error::SchemaError;
use super::schemas::CompiledSchemas;
use super::state::{ResolvedStates, StateRequirement};
use super::{SourceLocation, ToolAnnotations};
use crate::call::{ToolContext, ToolResult};

/// The future of one tool call.
#[doc(hidden)]
pub type CallFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

/// What a generated call function receives: arguments already normalized to an object and
/// validated against the schema, the tool's states, and the call context (borrowed: the
/// runtime learns from it whether the tool took a handle on it).
#[doc(hidden)]
pub struct Invocation<'a> {
    pub arguments: Value,
    pub states: &'a ResolvedStates,
    pub context: &'a ToolContext,
}

/// A tool declared with `#[tool]`, as collected at link time by `inventory`.
///
/// Generated code builds it in a `const` context; read it through the accessors. Registries
/// built with [`RegistryBuilder::filter`](crate::RegistryBuilder::filter) show each spec to
/// the filter before the tool is built.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{Registry, tool};
///
/// /// Refunds an order.
/// #[tool(lazy)]
/// async fn refund(order: u64) -> String {
///     format!("refunded {order}")
/// }
///
/// let registry = Registry::builder()
///     .filter(|spec| {
///         assert_eq!((spec.name(), spec.description(), spec.is_lazy()), ("refund", "Refunds an order.", true));
///         assert!(spec.module_path().starts_with("rust_out"));
///         assert!(spec.location().file().ends_with(".rs"));
///         !spec.is_lazy() // leave the lazy ones out
///     })
///     .build()
///     .unwrap();
/// assert!(registry.get("refund").is_none());
/// ```
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
    /// `#[tool(example(...))]`s, each serialized when called.
    #[doc(hidden)]
    pub examples: &'static [fn() -> Result<Value, String>],
    /// One entry per injected parameter, the receiver of a method first; `None` for a
    /// `ToolContext`.
    #[doc(hidden)]
    pub states: &'static [Option<StateRequirement>],
    #[doc(hidden)]
    pub call: fn(Invocation<'_>) -> Result<CallFuture, ToolResult>,
    /// How the arguments are checked: the typed check, or the JSON Schema validator for a
    /// parameter whose type needs it (chosen by the parameters' types; see `__private::Probe`).
    #[doc(hidden)]
    pub validation: fn() -> ArgumentValidation,
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

    /// For a method of a `#[tools]` impl, the type whose instance it runs on.
    pub(crate) fn instance(&self) -> Option<&StateRequirement> {
        self.states
            .first()
            .and_then(Option::as_ref)
            .filter(|requirement| requirement.is_instance())
    }
}

/// A type with a `#[tools]` impl block: its `#[tool]` methods run on an instance registered
/// with [`RegistryBuilder::tools_of`](crate::RegistryBuilder::tools_of).
///
/// Implemented by `#[tools]`; there is nothing to implement by hand.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tools, ToolMethods};
///
/// struct Counter;
///
/// #[tools]
/// impl Counter {
///     /// Says hello.
///     #[tool]
///     fn hello(&self) -> &'static str {
///         "hello"
///     }
/// }
///
/// fn assert_has_tools<T: ToolMethods>() {}
/// assert_has_tools::<Counter>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[tools]` impl block, so it has no tool methods to register",
    label = "no `#[tools]` impl for this type",
    note = "mark an inherent impl of `{Self}` with `#[tools]` and its tool methods with `#[tool]`"
)]
pub trait ToolMethods: Send + Sync + 'static {}

/// The per-process cache of a spec's compiled schemas: built on first use, shared by every
/// registry built afterwards.
#[doc(hidden)]
pub struct SpecCache(OnceLock<Result<CompiledSchemas, SchemaError>>);

impl SpecCache {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        SpecCache(OnceLock::new())
    }

    pub(crate) fn get_or_build(&self, spec: &ToolSpec) -> Result<CompiledSchemas, SchemaError> {
        self.0
            .get_or_init(|| {
                CompiledSchemas::build(
                    (spec.input_schema)(),
                    spec.output_schema.map(|f| f()),
                    (spec.validation)(),
                )
            })
            .clone()
    }
}
