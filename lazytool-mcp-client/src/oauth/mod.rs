//! MCP authorization (OAuth 2.1) for HTTP upstreams, on rmcp's `auth` support: the
//! configuration ([`OAuth`]), where tokens live ([`TokenStore`]), who approves
//! ([`Approver`]), the one-time [`login`], and what goes wrong ([`OAuthError`]).

pub(crate) mod approver;
pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod error;
pub(crate) mod flow;
pub(crate) mod login;
pub(crate) mod store;

pub use approver::{Approval, Approver};
pub use config::{Grant, OAuth, SigningAlgorithm};
pub use error::{OAuthError, Step};
pub use login::{LOGIN_TIMEOUT, login, login_with};
pub use store::TokenStore;
