//! The gateway guide: lazy discovery in front of MCP servers you did not write, from five
//! minutes to the lock, OAuth and what a misbehaving server cannot do.
//!
//! Serving MCP (flags, bounds, replicas) is in
//! [`lazytool_mcp::guide`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/guide/), which
//! the gateway's `--http` shares.
//!
//! - [`five_minutes`]: the gateway in five minutes, from an `mcpServers` file to a client.
//! - [`config`]: commands, the configuration file, names, faults and protocols.
//! - [`clients`]: registering with clients, one-shot clients, the same from Rust, figures, tests.
//! - [`prompts_resources`]: upstreams' prompts and resources, served together.
//! - [`upstream_requests`]: sampling, elicitation and progress passed on to the client.
//! - [`lock`]: servers started on first use, definitions approved once.
//! - [`oauth`]: OAuth upstreams, `login`, the token store.
//! - [`team`]: a team's shared gateway: identities from an OIDC provider, rules over their
//!   claims, clients that log in by themselves.
//! - [`misbehaving`]: what a misbehaving server cannot do.
//! - [`limits_audit`]: limits per principal and per upstream server, the audit trail.
//! - [`reload`]: the configuration reloaded on SIGHUP, without a restart.
//! - [`status_page`]: `--status-page`, a read-only page of servers, calls and limits.

#[doc = include_str!("guide/five_minutes.md")]
pub mod five_minutes {}

#[doc = include_str!("guide/config.md")]
pub mod config {}

#[doc = include_str!("guide/clients.md")]
pub mod clients {}

#[doc = include_str!("guide/prompts_resources.md")]
pub mod prompts_resources {}

#[doc = include_str!("guide/upstream_requests.md")]
pub mod upstream_requests {}

#[doc = include_str!("guide/lock.md")]
pub mod lock {}

#[doc = include_str!("guide/oauth.md")]
pub mod oauth {}

#[doc = include_str!("guide/team.md")]
pub mod team {}

#[doc = include_str!("guide/misbehaving.md")]
pub mod misbehaving {}

#[doc = include_str!("guide/limits_audit.md")]
pub mod limits_audit {}

#[doc = include_str!("guide/reload.md")]
pub mod reload {}

#[doc = include_str!("guide/status_page.md")]
pub mod status_page {}
