//! Integration and UI tests of lazytool. The library part declares tools in a crate of their
//! own, to prove that tools from other crates are collected at link time, and holds what
//! several tests share: the schema dialects' rules, the shared tool catalog, captured
//! `tracing` events and spans.

use lazytool_runtime::tool;

pub mod dialect_rules;
pub mod events;
pub mod github_catalog;
pub mod github_queries;
pub mod spans;

/// Declared in the `lazytool-tests` library crate, collected by binaries that link it.
#[tool(lazy)]
pub async fn cross_crate_echo(text: String) -> String {
    text
}
