//! The MCP guide: serving a lazytool registry to MCP clients, from a first stdio server to
//! replicas behind a balancer, with examples that `cargo test` compiles.
//!
//! Declaring tools, discovery and providers are in
//! [`lazytool_runtime::guide`](https://docs.rs/lazytool-runtime/latest/lazytool_runtime/guide/);
//! the gateway in
//! [`lazytool_gateway::guide`](https://docs.rs/lazytool-gateway/latest/lazytool_gateway/guide/).
//!
//! - [`first_server`]: your first MCP server, a crate of its own on stdio.
//! - [`stdio`]: the server on stdio: features, clients, what a client sees, prompts and resources.
#![cfg_attr(
    feature = "server-http",
    doc = "- [`http`]: over streamable HTTP: the server, clients, security checks."
)]
#![cfg_attr(
    not(feature = "server-http"),
    doc = "- `http`: over streamable HTTP (built with the feature `server-http`)."
)]
//! - [`production`]: serving in production: flags, bounds, health, metrics, shutdown.
//! - [`replicas`]: running replicas behind haproxy or nginx, rolling restarts.
//! - [`protocol_versions`]: what a client sees per protocol version, the official conformance
//!   suite's results, and the tests with real clients.
//! - [`asking`]: a tool or prompt that asks the client for input (elicitation, sampling,
//!   roots) on both revisions: input-required results and their signed state.

#[doc = include_str!("guide/first_server.md")]
pub mod first_server {}

#[doc = include_str!("guide/stdio.md")]
pub mod stdio {}

#[cfg(feature = "server-http")]
#[cfg_attr(docsrs, doc(cfg(feature = "server-http")))]
#[doc = include_str!("guide/http.md")]
pub mod http {}

#[doc = include_str!("guide/production.md")]
pub mod production {}

#[doc = include_str!("guide/replicas.md")]
pub mod replicas {}

#[doc = include_str!("guide/protocol_versions.md")]
pub mod protocol_versions {}

#[doc = include_str!("guide/asking.md")]
pub mod asking {}
