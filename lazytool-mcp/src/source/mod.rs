//! MCP servers as tool sources: [`McpSource`], and a registry of `#[tool]`s and MCP sources
//! that follows their changes: [`McpCatalog`]. The rooms: the connection to an upstream and
//! its life ([`connection`]), what it offers and how it is cleaned and admitted ([`offers`]),
//! what it asks of its client during a call ([`requests`]), the lock and its pins ([`lock`]),
//! OAuth ([`oauth`]).

mod catalog;
pub(crate) mod connection;
pub(crate) mod lock;
mod mcp_source;
#[cfg(feature = "oauth")]
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
pub use offers::admission::ToolNote;
pub use offers::offered::PromptsAndResources;
pub use offers::selection::{PatternError, ToolSelection};
pub use reconcile::Reconciled;
pub use redact::Redactor;
pub use requests::elicitor::{Elicited, Elicitor};
pub use requests::relay::Relay;
pub use server_state::ServerState;
