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
//! side it uses. None is on by default: a stdio server builds no HTTP stack and no HTTP
//! client (BENCHMARKS.md, "Build", has each path's crates and cold build time).
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | (none) | a server on stdio or any byte stream: [`McpServer`], [`McpConnection`] | rmcp's server |
//! | `server-http` | streamable HTTP serving: `McpHttp`, `McpServer::serve_http` | axum, hyper, prometheus-client |
//! | `cli` | `HttpArgs`, the HTTP serving flags as clap arguments (implies `server-http`) | clap, toml |
//! | `client` | upstream servers as child processes: `McpSource`, `McpCatalog`, `Lock`, `Relay` | rmcp's client |
//! | `client-http` | streamable HTTP upstreams: `Upstream::url` (implies `client`) | reqwest with rustls |
//! | `oauth` | MCP authorization of HTTP upstreams: `OAuth`, `login` (implies `client-http`) | oauth2, jsonwebtoken, axum |
//! | `code-mode` | the runtime's `code-mode`: served sessions with `SessionOptions::code_mode` offer `__lazy__code__` | rquickjs (QuickJS, from source) |
//! | `redis` | `SharedStore`: limits per principal (`McpHttp::shared_store`) and per upstream server (`McpSource::shared_store`) shared by replicas through Redis | redis (tokio, rustls for `rediss://`) |
//!
//! `lazytool-gateway` turns on `cli`, `client-http`, `oauth`, `oidc` and `redis`, and `code-mode` with its own.

#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs of what every build has link to what features add; docs.rs has all features.
#![cfg_attr(
    not(all(feature = "cli", feature = "oauth")),
    allow(rustdoc::broken_intra_doc_links)
)]

// The README (the crate's page on crates.io) is tested as a doc example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

mod access_epoch;
mod audit;
mod bound_session;
mod call_note;
mod call_result;
mod canonical;
mod connection;
mod connection_state;
mod content;
mod error;
pub mod guide;
mod input;
mod jsonrpc;
mod limit;
mod listing;
mod log_level;
mod offers;
mod principal;
mod request;
mod request_facts;
mod server;
mod session_share;
#[cfg(feature = "redis")]
mod shared;
mod shutdown_signal;
#[cfg(feature = "client")]
mod source;
mod stdio;
#[cfg(feature = "server-http")]
mod streamable_http;
mod structured;

pub use audit::{
    AUDIT_CHANNEL_BOUND, AuditLog, CallCounts, CallTally, MAX_TALLIED_NAMES, Rotation, TALLY_OTHERS,
};
pub use connection::McpConnection;
pub use content::McpContent;
pub use error::McpError;
pub use limit::{CallQuota, InvalidLimit, LimitExceeded, LimitKind, LimitScope, LimitsHit, Rate};
#[cfg(feature = "server-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
pub use limit::{DEFAULT_MAX_TRACKED_PRINCIPALS, PrincipalLimits};
pub use log_level::{LogLevel, UnknownLogLevel};
pub use offers::completion::CompletionFuture;
pub use offers::prompts::{PromptFuture, PromptProvider};
pub use offers::resources::{ReadFuture, ResourceProvider, WatchFuture};
pub use principal::{ISSUER_PRINCIPAL_PREFIX, Principal};
pub use request::McpRequest;
pub use server::{
    DEFAULT_LIST_TTL, DEFAULT_MAX_LINE_BYTES, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_STATE_TTL,
    McpServer,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use shared::{
    DEFAULT_KEY_PREFIX, FailurePolicy, InvalidStoreUrl, LEASE_MARGIN, SharedStore, StoreHealth,
};
pub use shutdown_signal::shutdown_signal;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use source::oauth::{
    Approval, Approver, Grant, LOGIN_TIMEOUT, OAuth, OAuthError, SigningAlgorithm, Step,
    TokenStore, login, login_with,
};
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use source::{
    ChangedDefinition, DEFAULT_CALL_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_START_TIMEOUT, Elicited,
    Elicitor, InheritEnv, LOCK_VERSION, Lock, LockError, LockState, McpCatalog, McpSource,
    PatternError, Pin, Pinned, PromptsAndResources, Reconciled, Redactor, Relay, Repinned,
    ServerLock, ServerState, SourceReport, ToolNote, ToolSelection, Upstream,
};
pub use stdio::transport::MAX_REQUESTS_IN_FLIGHT;
#[cfg(feature = "server-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
pub use streamable_http::{
    AccessReload, DEFAULT_BODY_READ_TIMEOUT, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_SESSION_IDLE_TIMEOUT, HEALTHZ_PATH, HttpLimits,
    MCP_PATH, METRICS_PATH, McpHttp, McpHttpService, OpenFilesLimit, OriginPattern,
    OriginPatternError, PublicUrlError, READYZ_PATH, Readiness, raise_open_files_limit,
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
