//! MCP authorization (OAuth 2.1) for HTTP upstreams, on rmcp's `auth` support: the
//! configuration ([`OAuth`]), where tokens live ([`TokenStore`]), who approves
//! ([`Approver`]), the one-time [`login`], and what goes wrong ([`OAuthError`]).

mod approver;
mod client;
mod config;
mod error;
mod flow;
mod login;
mod store;

pub use approver::{Approval, Approver};
pub(crate) use client::OAuthHttp;
pub use config::{Grant, OAuth, SigningAlgorithm};
pub use error::{OAuthError, Step};
pub use login::{LOGIN_TIMEOUT, login, login_with};
pub use store::TokenStore;
