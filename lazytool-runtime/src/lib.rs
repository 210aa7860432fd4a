//! Declare LLM tools at compile time and serve them lazily.
//!
//! Write plain functions with [`#[tool]`](tool); every tool linked into the binary is
//! collected into a [`Registry`], which validates, dispatches and describes them:
//!
//! ```rust,standalone_crate
//! use lazytool_runtime::{tool, Registry};
//!
//! /// Adds two numbers.
//! #[tool]
//! async fn add(
//!     /// The first number.
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let registry = Registry::from_inventory().expect("valid tools");
//! let add = registry.get("add").unwrap();
//! assert_eq!(add.description(), "Adds two numbers.");
//! assert_eq!(add.input_schema()["required"], serde_json::json!(["a", "b"]));
//!
//! // Arguments as providers send them: an object or a JSON-encoded string.
//! let result = registry.call("add", serde_json::json!("{\"a\": 2, \"b\": 3}")).await;
//! assert_eq!(result.content(), &serde_json::json!(5));
//!
//! // Every failure is an error result the model can act on, never a panic.
//! let result = registry.call("add", serde_json::json!({"a": "two"})).await;
//! assert!(result.is_error());
//! # }
//! ```
//!
//! The pieces:
//! - [`tool`]: the attribute, with every key it takes.
//! - [`Registry`] / [`RegistryBuilder`]: the tools of the application, states for
//!   [`State<T>`] parameters, [`DynamicTool`]s built from a JSON Schema at run time.
//! - [`Tool`]: one tool's name, description, schemas and call.
//! - [`ToolResult`]: what a call gives back.

#![warn(unreachable_pub)]

// The layers, lowest first: tokens, schema, call, tool, dispatch, discovery, registry,
// session, then source and provider. Each imports only layers below it (ARCHITECTURE.md;
// tests/tests/architecture.rs checks it).
mod call;
mod discovery;
mod dispatch;
pub mod provider;
mod registry;
pub mod schema;
mod session;
pub mod source;
#[cfg(test)]
mod testing;
#[cfg(feature = "tokens")]
pub mod tokens;
mod tool;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Declares an LLM tool: a typed argument struct, its JSON Schema and a link-time
/// registration are generated from a plain function.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, State, ToolContext};
///
/// struct Db;
///
/// /// Search products by keyword in name or description.
/// #[tool(lazy)]
/// async fn search_products(
///     /// Search keyword or phrase.
///     query: String,
///     /// Maximum number of results.
///     limit: Option<u32>,
///     #[arg(default = 1)] page: u32,
///     db: State<Db>,
///     ctx: ToolContext,
/// ) -> Result<Vec<String>, std::io::Error> {
///     # let _ = (limit, page, db, ctx);
///     Ok(vec![query])
/// }
/// ```
///
/// # Keys of `#[tool(...)]`
///
/// | key | effect |
/// |---|---|
/// | `lazy` | not sent to the model up front; listed by the discovery tool instead |
/// | `name = "..."` | the tool's name (default: the fn's name); must match `^[a-zA-Z0-9_-]{1,64}$` |
/// | `description = "..."` | the description (default: the fn's doc comment, without its `# Arguments` section); one of the two is required |
/// | `rename_all = "camelCase"` | property names in one of serde's cases: `lowercase`, `UPPERCASE`, `PascalCase`, `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`, `kebab-case`, `SCREAMING-KEBAB-CASE` |
/// | `strict` | unknown properties are rejected, and the schema says so (`additionalProperties: false`) |
/// | `output_schema` | publish the JSON Schema of the returned value (then it must implement `JsonSchema`) |
/// | `title = "..."`, `read_only`, `destructive`, `idempotent`, `open_world` | MCP tool annotations (`title`, `readOnlyHint`, ...); each hint also takes `= false` |
/// | `tags = ["...", ...]` | keywords for search discovery |
/// | `skill = "..."` | extended instructions sent only with discovery (also: a `# Skill` section in the docs); any `&'static str` expression, such as `include_str!("skill.md")` |
/// | `crate = path` | where the runtime is, if not `::lazytool_runtime` (for re-exports) |
///
/// # Parameters
///
/// - Each parameter is a property of the argument object, named after the parameter (or
///   `#[arg(rename = "...")]`, or `rename_all`). Its type must implement `Deserialize` and
///   `JsonSchema`.
/// - Descriptions come from `///` comments on the parameter, from the fn's rustdoc
///   `# Arguments` list (`` * `name` - text ``), or from `#[arg(description = "...")]`.
/// - `Option<T>` parameters are optional. `#[arg(default = expr)]` (or `#[arg(default)]` for
///   `Default::default()`) makes a parameter optional with a default that the schema shows
///   and the call applies. A `null` given for an optional parameter counts as absent.
/// - `#[schemars(...)]` attributes on a parameter are applied to its schema and enforced:
///   `#[schemars(length(min = 2))] ids: Vec<u32>` rejects a one-element list.
/// - `#[args] query: Query` uses one struct of your own as the whole argument object.
/// - Injected, never part of the schema: [`State<T>`] (registered with
///   [`RegistryBuilder::state`]) and [`ToolContext`] (call id and cancellation).
///
/// # Return values
///
/// `Result<T, E>` (also through aliases such as `anyhow::Result<T>`) with `T: Serialize` and
/// `E: Display`: `Ok` becomes the result, `Err` an error result with the error's text. Any
/// other `T: Serialize` is the result as is; no return type gives `null`.
///
/// # Where it goes
///
/// On free functions, `async` or not (a synchronous tool runs on the calling task; move
/// blocking work to `spawn_blocking`). The future of an `async` tool must be `Send`. Tools of
/// other crates are collected as long as the crate is linked: if nothing else refers to it,
/// add `use that_crate as _;`.
///
/// Every mistake is a compile error at the offending token: unknown or duplicate keys,
/// invalid or reserved names, a missing description, `self`, generics, `impl Trait`,
/// references, patterns, argument types lacking `Deserialize` or `JsonSchema`, results
/// lacking `Serialize`, errors lacking `Display`, futures that are not `Send`, two
/// parameters with the same JSON name, and misuse of `#[args]` and `#[arg]`.
pub use lazytool_macros::tool;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

pub use call::{
    CallLimits, CancellationToken, DiscoveredSet, ToolCall, ToolContext, ToolErrorKind, ToolResult,
};
pub use discovery::{AutoBudget, DiscoveryListing, DiscoveryMode, ResolvedMode};
pub use registry::{Registry, RegistryBuilder, RegistryError, RegistryProblem};
pub use session::{CatalogChange, Session, SessionOptions};
pub use tool::{
    CALL_THROUGH_TOOL_NAME, CatalogError, DISCOVERY_TOOL_NAME, DynamicTool, MAX_TOOL_NAME_LEN,
    SourceLocation, State, Tool, ToolAnnotations, ToolDefinition, ToolNameError, ToolSpec,
    catalog_tools, validate_tool_name,
};
