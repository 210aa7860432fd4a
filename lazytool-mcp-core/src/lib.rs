//! What lazytool's two sides of MCP share: the server ([`lazytool-mcp`]) and the upstream
//! client ([`lazytool-mcp-client`]). Use those crates: each re-exports what its users need
//! of this one.
//!
//! - The request a tool runs for: [`McpRequest`] (who sent it, its progress token, the
//!   client to ask), the [`Principal`] who sent it, the [`LogLevel`] it asked for.
//! - Limits on tool calls, per principal and per upstream server: [`CallQuota`], [`Rate`],
//!   [`LimitExceeded`]; with feature `redis`, decided through a [`SharedStore`] every
//!   replica shares.
//! - What a server offers besides tools: [`PromptProvider`], [`ResourceProvider`] (served
//!   by `lazytool-mcp`, implemented over upstreams by `lazytool-mcp-client`).
//! - What clients announced, for upstreams to ask them: [`Relay`].
//! - Tool results as MCP content: [`McpContent`].
//!
//! The modules hidden from these docs (`jsonrpc`, `limit`'s limiter, `call_note`, ...) are
//! the two sides' shared internals: no promise is made of them beyond the lazytool crates
//! of the same version, which depend on this one by its exact version.
//!
//! [`lazytool-mcp`]: https://docs.rs/lazytool-mcp
//! [`lazytool-mcp-client`]: https://docs.rs/lazytool-mcp-client
//!
//! # Features
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | (none) | everything above but the shared store | rmcp's server model |
//! | `redis` | [`SharedStore`]: limits shared by replicas through Redis | redis (tokio, rustls for `rediss://`) |

#![cfg_attr(docsrs, feature(doc_cfg))]

// The README (the crate's page on crates.io) is tested as a doc example.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;

#[doc(hidden)]
pub mod call_note;
#[doc(hidden)]
pub mod canonical;
#[doc(hidden)]
pub mod capabilities;
#[doc(hidden)]
pub mod content;
#[doc(hidden)]
pub mod jsonrpc;
#[doc(hidden)]
pub mod limit;
mod log_level;
mod principal;
mod providers;
#[doc(hidden)]
pub mod relay;
mod request;
#[cfg(feature = "redis")]
#[doc(hidden)]
pub mod shared;

pub use content::McpContent;
pub use jsonrpc::lines::DEFAULT_MAX_LINE_BYTES;
pub use limit::{CallQuota, InvalidLimit, LimitExceeded, LimitKind, LimitScope, LimitsHit, Rate};
pub use log_level::{LogLevel, UnknownLogLevel};
pub use principal::{ISSUER_PRINCIPAL_PREFIX, Principal};
pub use providers::completion::CompletionFuture;
pub use providers::prompts::{PromptFuture, PromptProvider};
pub use providers::resources::{ReadFuture, ResourceProvider, WatchFuture};
pub use relay::Relay;
pub use request::McpRequest;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use shared::{
    DEFAULT_KEY_PREFIX, FailurePolicy, InvalidStoreUrl, LEASE_MARGIN, SharedStore, StoreHealth,
};

/// The rmcp this crate is built on (3.11.x, feature `server`).
///
/// ```
/// use lazytool_mcp_core::rmcp::model::ProtocolVersion;
///
/// assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V_2026_07_28);
/// ```
pub use rmcp;
