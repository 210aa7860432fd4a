//! Serve a lazytool [`Registry`](lazytool_runtime::Registry) to MCP clients, with lazy
//! discovery per connection, on [rmcp](https://docs.rs/rmcp) (the official Rust SDK,
//! pinned to 3.11.x and re-exported as [`rmcp`]).
//!
//! ```rust,no_run,standalone_crate
//! use lazytool_mcp::McpServer;
//! use lazytool_runtime::{Registry, tool};
//!
//! /// Get all products from the catalog.
//! #[tool(name = "getProducts", read_only)]
//! async fn get_products() -> Vec<String> {
//!     vec!["desk".into(), "chair".into()]
//! }
//!
//! /// Calculate monthly payment plans for a product.
//! #[tool(lazy, name = "calculateFinancing")]
//! async fn calculate_financing(price: f64, months: u32) -> f64 {
//!     price / f64::from(months)
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let registry = Registry::from_inventory()?;
//!     // stdout carries the protocol: log to stderr.
//!     McpServer::new(registry).serve_stdio().await?;
//!     Ok(())
//! }
//! ```
//!
//! Each connection gets its own [`Session`](lazytool_runtime::Session):
//!
//! - `tools/list` is [`Session::active_tools`](lazytool_runtime::Session::active_tools):
//!   eager tools, the discovery tool while some lazy tool is undiscovered, then the
//!   discovered tools; each with its [annotations](lazytool_runtime::ToolAnnotations) and,
//!   for tools that have one, its output schema (wrapped in an object when it is not one:
//!   [`WRAPPED_RESULT_KEY`]). Listing starts the next model turn: a tool discovered during a
//!   turn can be called once the client lists the tools again.
//! - The server announces `tools.listChanged` and, after a discovery call that discovered
//!   something new, sends `notifications/tools/list_changed` (from protocol 2026-07-28 on,
//!   on the client's `subscriptions/listen` streams).
//! - `tools/call` answers failures the model can act on (an undiscovered lazy tool,
//!   invalid arguments, the tool's `Err` or panic) with `isError` results, and an unknown
//!   tool with the JSON-RPC error `-32602`. A tool with an output schema returns
//!   `structuredContent` and the same JSON as text. `notifications/cancelled` cancels the
//!   call's [`ToolContext`](lazytool_runtime::ToolContext) and stops awaiting it.
//! - Prompts and resources are offered when the server has a provider of them
//!   ([`McpServer::prompts`], [`McpServer::resources`]): listed page by page, got and read,
//!   their changes announced. Without one, `prompts/list`, `resources/list` and the like are
//!   `-32601` (method not found).
//!
//! Discovery state lives in the connection, so lazy discovery needs a stateful transport:
//! stdio ([`McpServer::serve_stdio`]), any byte stream ([`McpServer::serve`], which also
//! answers every malformed line), or another rmcp transport such as streamable HTTP with
//! sessions, one [`McpServer::connection`] per session.
//!
//! The [`guide`] goes from a first stdio server to replicas behind a balancer.

//! # Features
//!
//! Each side of MCP is a feature, as in tokio and hyper, so that a program builds only the
//! side it uses. Only `json-schema` and `search` are on by default: a stdio server builds no
//! HTTP stack and no HTTP client (BENCHMARKS.md, "Build", has each path's crates and cold build
//! time).
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | (none) | a server on stdio or any byte stream: [`McpServer`], [`McpConnection`] | rmcp's server |
//! | `json-schema` (default) | the runtime's JSON Schema validator, for dynamic tools and `#[tool]`s with a parameter beyond the plain types; without it (and without lazytool-runtime's default features) a server of plain `#[tool]`s links none of it, and a tool that needs it is refused when its registry is built | jsonschema |
//! | `search` (default) | the runtime's search by words, for `DiscoveryMode::Search` and `DiscoveryMode::Auto` (which falls back to it); without it (and without lazytool-runtime's default features) a server of eager tools links none of the index, its sorts or its table of related words, and code that names either mode does not compile | nothing |
//! | `server-http` | streamable HTTP serving: `McpHttp`, `McpServer::serve_http` | axum, hyper, prometheus-client |
//! | `cli` | `HttpArgs`, the HTTP serving flags as clap arguments (implies `server-http`) | clap, toml |
//! | `oidc` | bearer tokens that are JWTs of an OpenID Connect issuer: `Oidc`, `McpHttp::oidc` (implies `server-http`) | jsonwebtoken, reqwest with rustls |
//! | `code-mode` | the runtime's `code-mode`: served sessions with `SessionOptions::code_mode` offer `__lazy__code__` | rquickjs (QuickJS, from source) |
//! | `redis` | `SharedStore`: limits per principal and sessions (`McpHttp::shared_store`) shared by replicas through Redis | redis (tokio, rustls for `rediss://`) |
//!
//! The upstream side of MCP (other MCP servers as tool sources: `McpSource`, `McpCatalog`,
//! `Lock`, OAuth) is [lazytool-mcp-client](https://docs.rs/lazytool-mcp-client); what both
//! sides share is lazytool-mcp-core's, re-exported here. `lazytool-gateway` turns on `cli`,
//! `oidc` and `redis` here and every feature of lazytool-mcp-client, and `code-mode` with its
//! own.

#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs of what every build has link to what features add; docs.rs has all features.
#![cfg_attr(
    not(all(feature = "cli", feature = "oidc", feature = "redis")),
    allow(rustdoc::broken_intra_doc_links)
)]

// The README (the crate's page on crates.io) is tested as a doc example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

mod access_epoch;
mod audit;
mod bound_session;
mod call_result;
mod connection;
mod connection_state;
mod error;
pub mod guide;
mod input;
mod listing;
mod offers;
mod principal_gates;
mod request_facts;
mod server;
mod session_share;
#[cfg(all(feature = "redis", feature = "server-http"))]
mod shared;
mod shutdown_signal;
mod stdio;
#[cfg(feature = "server-http")]
mod streamable_http;
mod structured;

// The pieces this side shares with the upstream side (lazytool-mcp-client), by their paths.
use lazytool_mcp_core::{call_note, canonical, jsonrpc, limit};

pub use audit::{
    AUDIT_CHANNEL_BOUND, AuditLog, CallCounts, CallTally, MAX_TALLIED_NAMES, Rotation, TALLY_OTHERS,
};
pub use connection::McpConnection;
pub use error::McpError;
// What a server's users need of what it shares with the upstream side.
pub use lazytool_mcp_core::{
    CallQuota, CompletionFuture, ISSUER_PRINCIPAL_PREFIX, InvalidLimit, LimitExceeded, LimitKind,
    LimitScope, LimitsHit, LogLevel, McpContent, McpRequest, Principal, PromptFuture,
    PromptProvider, Rate, ReadFuture, Relay, ResourceProvider, UnknownLogLevel, WatchFuture,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use lazytool_mcp_core::{
    DEFAULT_KEY_PREFIX, FailurePolicy, InvalidStoreUrl, LEASE_MARGIN, SharedStore, StoreHealth,
};
pub use server::{
    DEFAULT_LIST_TTL, DEFAULT_MAX_LINE_BYTES, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_STATE_TTL,
    McpServer,
};
pub use shutdown_signal::shutdown_signal;
pub use stdio::transport::MAX_REQUESTS_IN_FLIGHT;
#[cfg(feature = "server-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
pub use streamable_http::{
    AccessReload, DEFAULT_BODY_READ_TIMEOUT, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_MAX_TRACKED_PRINCIPALS, DEFAULT_SESSION_IDLE_TIMEOUT,
    HEALTHZ_PATH, HttpLimits, MCP_PATH, METRICS_PATH, McpHttp, McpHttpService, OpenFilesLimit,
    OriginPattern, OriginPatternError, PrincipalLimits, PublicUrlError, READYZ_PATH, Readiness,
    raise_open_files_limit,
};
#[cfg(feature = "oidc")]
#[cfg_attr(docsrs, doc(cfg(feature = "oidc")))]
pub use streamable_http::{
    ClaimRule, DEFAULT_KEY_REFRESH, DEFAULT_LEEWAY, MAX_TOKEN_BYTES, METADATA_PATH, Oidc, OidcError,
};
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub use streamable_http::{
    HttpArgs, HttpArgsError, PreparedHttp, Principals, PrincipalsError, TOKEN_ENV,
    parse_listen_addr,
};
pub use structured::WRAPPED_RESULT_KEY;

/// The rmcp this crate is built on (3.11.x, feature `server`): its types for serving an
/// [`McpConnection`] over rmcp's other transports, and the protocol's model.
///
/// ```
/// use lazytool_mcp::rmcp::model::ProtocolVersion;
///
/// // The protocol versions a connection speaks are rmcp's.
/// assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V_2026_07_28);
/// ```
pub use rmcp;

/// The prometheus-client `GET /metrics` is written with, for an application's own metrics
/// ([`McpHttp::register_metrics`]).
///
/// ```
/// use lazytool_mcp::prometheus_client::metrics::counter::Counter;
///
/// let calls = Counter::<u64>::default();
/// calls.inc();
/// assert_eq!(calls.get(), 1);
/// ```
#[cfg(feature = "server-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
pub use prometheus_client;
