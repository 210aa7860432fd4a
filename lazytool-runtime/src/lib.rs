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
//! # Install
//!
//! Depend on the repository with git (pin a `rev` or a `tag` for reproducible builds), plus an
//! async runtime, serde for your argument types, and serde_json:
//!
//! ```toml
//! [dependencies]
//! lazytool-runtime = { git = "https://github.com/lazytool/lazytool" }
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! serde = { version = "1", features = ["derive"] }
//! serde_json = "1"
//! ```
//!
//! Argument types derive schemars' `JsonSchema` through the re-export [`schemars`] (no
//! dependency of your own needed). The optional features are listed under
//! [Features](#features). MCP is the crate `lazytool-mcp`, from the same repository:
//! `lazytool-mcp = { git = "https://github.com/lazytool/lazytool" }`.
//!
//! # The pieces
//!
//! - [`guide`]: the user guide, a chapter per capability, every example compiled by `cargo test`.
//! - [`tool`] / [`tools`]: the attributes, with every key they take.
//! - [`Registry`] / [`RegistryBuilder`]: the tools of the application, states for
//!   [`State<T>`] parameters, [`DynamicTool`]s built from a JSON Schema at run time
//!   ([`catalog_tools`] builds them from an MCP `tools/list` catalog), [`CallLimits`].
//! - [`Session`]: one conversation. [`Registry::session`] starts one,
//!   [`Session::active_tools`] gives the tools of the next request,
//!   [`Session::call`] / [`Session::call_turn`] run the model's calls under the discovery
//!   rules, [`Session::from_history`] and [`Session::resume`] rebuild one (stateless
//!   servers). [`SessionOptions`] sets the [`DiscoveryMode`], the [`DiscoveryListing`] and
//!   gating.
//! - [`provider`]: each LLM API's wire format, every module with a complete agent loop on
//!   its page: [`openai_chat`](provider::openai_chat),
//!   [`openai_responses`](provider::openai_responses), [`anthropic`](provider::anthropic),
//!   [`gemini`](provider::gemini), [`tanstack`](provider::tanstack). Each renders the tools
//!   (`render_tools`), runs a response's calls (`run_response`, `run_turn`) and assembles
//!   streamed calls (`StreamAssembler`).
//! - [`Tool`]: one tool's name, description, schemas and call; [`ToolDefinition`]: what a
//!   request carries of it.
//! - [`ToolCall`]: what the model asked for; [`ToolResult`]: what a call gives back,
//!   [`Content`] for results with images, audio and resources ([`ToolOutput`]: what a tool
//!   may return); [`ToolContext`]: the call id and cancellation a tool can take.
//! - [`schema`]: canonical schemas and the providers' dialects; [`source`]: catalogs behind a
//!   network call ([`CachedSource`](source::CachedSource)).
//!
//! # Features
//!
//! Only `json-schema` and `search` are on by default (`tests/tests/architecture.rs` holds this
//! table to `Cargo.toml`).
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | `json-schema` (default) | the JSON Schema validator, which checks the arguments of [`DynamicTool`]s, catalogs' tools and `#[tool]`s with a parameter of a type beyond the plain ones (booleans, strings, numbers, and `Option`s and `Vec`s of them, which get a typed check with the same messages). Without it a crate of plain `#[tool]`s links none of it (BENCHMARKS.md, "Compile time": its debug binary is 0.72× rmcp's), and a tool that needs it is refused when the registry is built, naming this feature | jsonschema |
//! | `search` (default) | search by words over the lazy tools: [`DiscoveryMode::Search`], [`DiscoveryMode::Auto`] (which falls back to it), [`AutoBudget`], [`Registry::search`]. Without it a server of eager tools links none of the index, its sorts or its table of related words (BENCHMARKS.md, "Compile time": 4 MB of a 200-tool stdio server's debug binary), and code that names either mode does not compile (`no variant named Search`) | nothing |
//! | `tokens` | `lazytool_runtime::tokens`, token counts with tiktoken-rs's `o200k_base`; also sharpens [`DiscoveryMode::Auto`] | tiktoken-rs (about 8 MB of tables) |
//! | `signing` | HMAC-SHA256 signatures on discoveries and compaction markers (`SessionOptions::signing_key`, `SigningKey`) | hmac |
//! | `search-features` | what a search weighs per query (`Registry::search_features`), for fitting the ranking outside the index (implies `search`) | nothing |
//! | `embeddings` | search by meaning as well as by words: the `Embedder` trait, tool vectors, their fusion with the words' ranking (implies `search`) | pulp |
//! | `embed-local` | `LocalEmbedder`: a sentence-transformers model run in-process on the CPU (implies `embeddings`) | candle, tokenizers (minutes of cold build) |
//! | `embed-http` | `HttpEmbedder`: an OpenAI-compatible `/v1/embeddings` endpoint (implies `embeddings`) | reqwest |
//! | `async-openai` | `provider::async_openai`: tools, calls and results in async-openai's types | async-openai's types |
//! | `code-mode` | `SessionOptions::code_mode`: one tool runs a JavaScript script against the session's tools, in worker processes the OS confines | rquickjs (QuickJS, from source), seccompiler |
//! | `code-worker-test-hook` | tests only: a script may try a file, a socket or a program from inside its worker, to see the filter refuse it (implies `code-mode`) | nothing |
//!
//! # Tracing
//!
//! Every tool execution is a `tracing` span named after OpenTelemetry's GenAI conventions:
//! `execute_tool` with `otel.name = "execute_tool {tool}"`, `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type = "function"` and, on
//! failure, `error.type` (target `lazytool::call`, level `INFO`; the README's "Tracing and
//! OpenTelemetry" section).

#![warn(unreachable_pub)]
// docs.rs (`--cfg docsrs`, nightly) labels each item with the features that gate it.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The README (the crate's page on crates.io) is tested as a doc example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

// The layers, lowest first: tokens, schema, call, tool, dispatch, discovery, registry,
// session (code mode below it), then source and provider. Each imports only layers below it (ARCHITECTURE.md;
// tests/tests/architecture.rs checks it).
mod call;
#[cfg(feature = "code-mode")]
mod code;
mod discovery;
mod dispatch;
pub mod guide;
pub mod provider;
mod registry;
pub mod schema;
mod session;
pub mod source;
#[cfg(all(test, feature = "search"))]
mod testing;
#[cfg(feature = "tokens")]
pub mod tokens;
mod tool;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

/// Declares an LLM tool: typed argument parsing, its JSON Schema and a link-time registration
/// are generated from a plain function.
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
/// | `blocking` | a synchronous fn's body runs on tokio's blocking pool (see "Blocking tools") |
/// | `name = "..."` | the tool's name (default: the fn's name); must match `^[a-zA-Z0-9_-]{1,64}$` |
/// | `description = "..."` | the description (default: the prose of the fn's doc comment, see "Descriptions"); one of the two is required |
/// | `rename_all = "camelCase"` | property names in one of serde's cases: `lowercase`, `UPPERCASE`, `PascalCase`, `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`, `kebab-case`, `SCREAMING-KEBAB-CASE` |
/// | `strict` | unknown properties are rejected, and the schema says so (`additionalProperties: false`) |
/// | `output_schema` | publish the JSON Schema of the returned value (then it must implement `JsonSchema`) |
/// | `title = "..."`, `read_only`, `destructive`, `idempotent`, `open_world` | MCP tool annotations (`title`, `readOnlyHint`, ...); each hint also takes `= false` |
/// | `tags = ["...", ...]` | keywords for search discovery |
/// | `skill = "..."` | extended instructions sent only with discovery (also: a `# Skill` section in the docs); any `&'static str` expression, such as `include_str!("skill.md")` |
/// | `example(param = value, ...)` | example arguments shown to the model, repeatable; checked by rustc and, when the registry is built, against the schema ([the guide](crate::guide::declaring_tools)) |
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
///   and the call applies; since the default is written into the schema, `T` must also
///   implement `Serialize`. A `null` given for an optional parameter counts as absent.
/// - `#[schemars(...)]` attributes on a parameter are applied to its schema and enforced:
///   `#[schemars(length(min = 2))] ids: Vec<u32>` rejects a one-element list.
/// - `#[args] query: Query` uses one struct of your own as the whole argument object.
/// - Injected, never part of the schema: [`State<T>`] (registered with
///   [`RegistryBuilder::state`]) and [`ToolContext`] (call id and cancellation).
///
/// A macro sees names, not types: a parameter is injected when its type is written
/// `State<...>` or `ToolContext` (any path before it) or when it is marked `#[inject]`;
/// every other parameter is an argument, and so is one marked `#[arg]` or `#[args]`. The
/// generated code checks each type, so a wrong guess is one compile error on the parameter,
/// saying which mark to add:
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, State as Shared};
///
/// struct Db;
/// type DbState = lazytool_runtime::State<Db>;
///
/// /// A type of the application that happens to be called `State`.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct State {
///     step: u32,
/// }
///
/// /// Advances the workflow.
/// #[tool]
/// async fn advance(#[arg] state: State, #[inject] db: DbState, #[inject] shared: Shared<Db>) -> u32 {
///     # let _ = (db, shared);
///     state.step + 1
/// }
/// ```
///
/// # Descriptions
///
/// The description is the prose of the fn's doc comment. What is written for rustdoc stays
/// out: the `# Examples`, `# Errors`, `# Panics` and `# Safety` sections (up to the next
/// heading of their level), Rust code blocks (doctests; a `json` or `text` block stays),
/// reference definitions, and link syntax (`` [`unarchive`] ``, `[Registry]` and
/// `[text](path)` become `` `unarchive` ``, `Registry` and `text`). `# Arguments` describes the
/// parameters and `# Skill` holds the skill. Parameters' `///` docs are read the same way.
///
/// # Return values
///
/// `Result<T, E>` (also through aliases such as `anyhow::Result<T>`) with `T: Serialize` and
/// `E: Display`: `Ok` becomes the result, `Err` an error result with the error's text. Any
/// other `T: Serialize` is the result as is; no return type gives `null`.
///
/// # Where it goes
///
/// On free functions, `async` or not, and on `&self` methods of an impl block marked
/// [`#[tools]`](tools), whose instance is registered with
/// [`RegistryBuilder::tools_of`]. The future of an `async` tool must be `Send`. Tools of
/// other crates are collected as long as the crate is linked: if nothing else refers to it,
/// add `use that_crate as _;`.
///
/// # Blocking tools
///
/// A synchronous tool runs on the calling task: while its body blocks, neither its timeout
/// nor the other calls of its turn make progress. `#[tool(blocking)]` runs the body on
/// tokio's blocking pool instead (`spawn_blocking`): the caller gets the timeout's error
/// result on time, and the other calls of a turn finish meanwhile. A thread cannot be
/// stopped: after a timeout the body runs to completion and its result is dropped; the call's
/// cancellation token is cancelled, so a loop can take a [`ToolContext`] and stop when
/// `ctx.is_cancelled()`. Arguments, states and result cross threads and must be `Send`.
/// Outside a tokio runtime the body runs in place.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::tool;
///
/// /// Counts the lines of a file.
/// #[tool(blocking)]
/// fn count_lines(path: String) -> std::io::Result<usize> {
///     Ok(std::fs::read_to_string(path)?.lines().count())
/// }
/// ```
///
/// # Mistakes
///
/// Every mistake is a compile error at the offending token, reported once: unknown or
/// duplicate keys, invalid or reserved names, a missing description, generics, `impl Trait`,
/// references, patterns, argument types lacking `Deserialize` or `JsonSchema`, results
/// lacking `Serialize`, errors lacking `Display`, defaults that are mistyped or not
/// `Serialize`, injected types taken for arguments and the reverse, futures that are not
/// `Send`, `blocking` on an `async fn`, two parameters with the same JSON name, misuse of
/// `#[args]`, `#[arg]` and `#[inject]`, a receiver other than `&self`, and a method outside a
/// `#[tools]` impl.
pub use lazytool_macros::tool;

/// Marks an impl block whose `#[tool]` methods are tools, run on an instance registered with
/// [`RegistryBuilder::tools_of`].
///
/// A tool method takes `&self` and has everything a free [`tool`] fn has: keys, parameters,
/// descriptions, checks, dispatch; `Self` may appear in its types and defaults. Other items of
/// the impl are left alone. The type must be `Send + Sync + 'static`: calls run concurrently
/// on the one shared instance, so keep what changes behind a `Mutex` or an atomic. The only
/// key is `crate = path` (as for `#[tool]`). Compile errors: `&mut self`, `self` by value or
/// `self: Arc<Self>`, an associated fn without `self`, a generic or trait impl, an impl
/// without `#[tool]` methods, and a `#[tool]` method in an impl not marked `#[tools]`.
/// Building a registry that takes a method whose instance was never registered is a
/// [`RegistryError`] ([`RegistryProblem::MissingInstance`]), never a panic.
///
/// ```rust,standalone_crate
/// use std::sync::Arc;
/// use lazytool_runtime::{tools, Registry};
///
/// struct Greeter {
///     greeting: String,
/// }
///
/// #[tools]
/// impl Greeter {
///     /// Greets someone.
///     #[tool]
///     async fn greet(&self, name: String) -> String {
///         format!("{}, {name}!", self.greeting)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let greeter = Greeter { greeting: "Hello".into() };
/// let registry = Registry::builder().tools_of(Arc::new(greeter)).build().unwrap();
/// let result = registry.call("greet", serde_json::json!({"name": "Ada"})).await;
/// assert_eq!(result.content(), "Hello, Ada!");
/// # }
/// ```
pub use lazytool_macros::tools;

/// The [schemars](https://docs.rs/schemars/1) crate this runtime is built with: schemars
/// 1.x (1.2 or later; `Cargo.lock` has 1.2.3), whose `JsonSchema` every argument type of a
/// [`tool`] must implement.
///
/// Use it to derive `JsonSchema` without a schemars dependency of your own, and so always
/// with the version `#[tool]` checks against: a type deriving another major version's
/// `JsonSchema` (schemars 0.8) implements another trait, and `#[tool]` rejects it with
/// "`T` cannot be a tool argument: it must implement `serde::Deserialize` and
/// `schemars::JsonSchema`". (A dependency of your own on `schemars = "1"` works too: cargo
/// unifies it with this one.)
///
/// The derive refers to its crate as `schemars::…`, a path relative to where it is used, so
/// the name `schemars` must be in scope there:
///
/// - `use lazytool_runtime::schemars::{self, JsonSchema};` in the module, then
///   `#[derive(JsonSchema)]` as usual, or
/// - `#[schemars(crate = "lazytool_runtime::schemars")]` on each type, when `schemars` is
///   not imported (only `JsonSchema` is).
///
/// Without either, and without a dependency of your own, the derive fails with
/// "cannot find module or crate `schemars` in this scope". serde works
/// the same way, but is not re-exported: depend on `serde` with the `derive` feature.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::schemars::{self, JsonSchema};
/// use lazytool_runtime::{Registry, tool};
/// use serde::Deserialize;
///
/// /// A date range.
/// #[derive(Deserialize, JsonSchema)]
/// struct Range {
///     /// The first day, `YYYY-MM-DD`.
///     from: String,
///     /// The number of nights.
///     #[schemars(range(min = 1))]
///     nights: u32,
/// }
///
/// mod rooms {
///     // Only the trait is imported here: the type names the crate instead.
///     use lazytool_runtime::schemars::JsonSchema;
///
///     #[derive(serde::Deserialize, JsonSchema)]
///     #[schemars(crate = "lazytool_runtime::schemars")]
///     pub enum Room {
///         Single,
///         Double,
///     }
/// }
///
/// /// Books a room.
/// #[tool]
/// async fn book(range: Range, room: rooms::Room) -> String {
///     let room = match room {
///         rooms::Room::Single => "single",
///         rooms::Room::Double => "double",
///     };
///     format!("{room} room, {} nights from {}", range.nights, range.from)
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::from_inventory().unwrap();
/// let schema = registry.get("book").unwrap().input_schema();
/// assert_eq!(schema["properties"]["range"]["properties"]["nights"]["minimum"], 1);
/// assert_eq!(schema["properties"]["room"]["enum"], serde_json::json!(["Single", "Double"]));
///
/// let arguments = serde_json::json!({"range": {"from": "2026-05-01", "nights": 2}, "room": "Double"});
/// let result = registry.call("book", arguments).await;
/// assert_eq!(result.content(), "double room, 2 nights from 2026-05-01");
/// let result = registry.call("book", serde_json::json!({"range": {"from": "2026-05-01", "nights": 0}, "room": "Single"})).await;
/// assert!(result.is_error()); // the schema's bound is enforced
/// # }
/// ```
pub use schemars;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

pub use call::{
    CallLimits, CancellationToken, Content, ContentPart, DiscoveredSet, ElicitAction, Elicited,
    InputChannel, InputError, InputFuture, InputRequest, ResourceContents, Root, Sampled, ToolCall,
    ToolContext, ToolErrorKind, ToolResult,
};
#[cfg(feature = "code-mode")]
pub use code::{CODE_TOOL_NAME, CodeMode, ScriptRunner};
#[cfg(feature = "search")]
pub use discovery::AutoBudget;
#[cfg(all(feature = "embeddings", feature = "search-features"))]
pub use discovery::ExplainedSearch;
#[cfg(feature = "embed-http")]
pub use discovery::HttpEmbedder;
#[cfg(feature = "embed-local")]
pub use discovery::LocalEmbedder;
pub use discovery::{DiscoveryListing, DiscoveryMode, ResolvedMode};
#[cfg(feature = "embeddings")]
pub use discovery::{
    EmbedError, EmbedFuture, Embedder, Embeddings, Fusion, Leaning, MAX_QUERY_BYTES, Signals,
    TestEmbedder,
};
#[cfg(feature = "search-features")]
pub use discovery::{FeatureCandidate, FeatureTerm, SearchFeatures};
#[cfg(feature = "signing")]
pub use discovery::{SigningKey, SigningKeyError};
pub use dispatch::ToolOutput;
pub use registry::{Registry, RegistryBuilder, RegistryError, RegistryProblem};
pub use session::{CatalogChange, Session, SessionOptions};
pub use tool::{
    CALL_THROUGH_TOOL_NAME, CatalogError, CatalogReader, DEFAULT_MAX_DEFINITION_BYTES,
    DISCOVERY_TOOL_NAME, DynamicTool, MAX_TOOL_NAME_LEN, SchemaError, SourceLocation, State, Tool,
    ToolAnnotations, ToolDefinition, ToolMethods, ToolNameError, ToolSpec, catalog_tools,
    validate_tool_name,
};
