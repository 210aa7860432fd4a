//! MCP servers as lazytool tool sources, the upstream side of MCP (the serving side is
//! [lazytool-mcp](https://docs.rs/lazytool-mcp)): [`McpSource`], and a registry of `#[tool]`s
//! and MCP sources that follows their changes: [`McpCatalog`]. The rooms: the connection to
//! an upstream and its life (`connection/`), what it offers and how it is cleaned and admitted
//! (`offers/`), what it asks of its client during a call (`requests/`), the lock and its pins
//! (`lock/`), OAuth (`oauth/`).
//!
//! # Features
//!
//! None is on by default: upstreams run as commands need none.
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | `http` | streamable HTTP upstreams: `Upstream::url` | reqwest with rustls |
//! | `oauth` | MCP authorization of HTTP upstreams: `OAuth`, `login` (implies `http`) | oauth2, jsonwebtoken, axum |
//! | `redis` | `McpSource::shared_store`: limits per upstream server shared by replicas through Redis | redis (tokio, rustls for `rediss://`) |

#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs of what every build has link to what features add; docs.rs has all features.
#![cfg_attr(not(feature = "oauth"), allow(rustdoc::broken_intra_doc_links))]

// The README (the crate's page on crates.io) is tested as a doc example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

mod catalog;
pub(crate) mod connection;
pub(crate) mod lock;
mod mcp_source;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub(crate) mod oauth;
pub(crate) mod offers;
mod reconcile;
mod redact;
pub(crate) mod requests;
mod server_state;
mod slots;
mod source_report;

pub use catalog::{McpCatalog, SourceReport};
pub use connection::child::InheritEnv;
pub use connection::upstream::Upstream;
pub use lock::{
    ChangedDefinition, LOCK_VERSION, Lock, LockError, LockState, Pin, Pinned, Repinned, ServerLock,
};
pub use mcp_source::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_START_TIMEOUT, McpSource,
};
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use oauth::{
    Approval, Approver, Grant, LOGIN_TIMEOUT, OAuth, OAuthError, SigningAlgorithm, Step,
    TokenStore, login, login_with,
};
pub use offers::admission::ToolNote;
pub use offers::offered::PromptsAndResources;
pub use offers::selection::{PatternError, ToolSelection};
pub use reconcile::Reconciled;
pub use redact::Redactor;
pub use requests::elicitor::{Elicited, Elicitor};
pub use server_state::ServerState;

// What the serving side shares with this one, for a program that uses this crate alone.
pub use lazytool_mcp_core::{
    CallQuota, InvalidLimit, LimitExceeded, LimitKind, LimitScope, LimitsHit, McpContent,
    McpRequest, Principal, PromptProvider, Rate, Relay, ResourceProvider,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use lazytool_mcp_core::{FailurePolicy, SharedStore};

/// The rmcp this crate is built on (3.11.x, features `client` and `transport-child-process`).
///
/// ```
/// use lazytool_mcp_client::rmcp::model::ProtocolVersion;
///
/// assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V_2026_07_28);
/// ```
pub use rmcp;
