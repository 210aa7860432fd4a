//! `lazytool-gateway`: lazy discovery in front of any MCP servers. Point it at the
//! `mcpServers` file your MCP client already has:
//!
//! ```sh
//! lazytool-gateway --config ~/.cursor/mcp.json              # MCP on stdio
//! lazytool-gateway --config mcp.json --http 127.0.0.1:8080  # streamable HTTP at /mcp
//! lazytool-gateway --config mcp.json --check                # tool count and token cost per server
//! lazytool-gateway --config mcp.json lock                   # pin every server in lazytool.lock
//! lazytool-gateway --config mcp.json login linear           # authorize an OAuth server once
//! ```
//!
//! Every upstream tool is offered as `SERVER__TOOL`, lazy unless the `lazytool` section makes
//! it eager, and every upstream prompt as `SERVER__PROMPT`, every resource under its URI; the
//! [`guide`] has the configuration and everything else.
//!
//! # Features
//!
//! None is on by default: `cargo install lazytool-gateway` builds neither engine.
//!
//! | feature | what it adds | what it builds |
//! |---|---|---|
//! | `code-mode` | `"mode": "code"`: scripts against the upstreams' tools | rquickjs (QuickJS, from source: about 31 s more of a cold build) |
//! | `embed-local` | `lazytool.search.embeddings.modelDir`: a sentence-transformers model run in-process | candle, tokenizers (minutes of cold build) |

#![warn(unreachable_pub)]
// docs.rs (`--cfg docsrs`, nightly) labels each item with the features that gate it.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod audit;
mod check;
mod cli;
mod config;
pub mod guide;
mod lock;
mod login;

use lazytool_mcp_client::McpCatalog;
use lazytool_runtime::{CallLimits, Registry, RegistryBuilder};

pub use audit::open_audit;
pub use check::{check, definition_tokens};
pub use cli::{Cli, Command, HttpServing};
pub use config::{
    AuditSettings, Config, ConfigError, Fingerprints, RequestStateSettings, parse,
    parse_with_token_store,
};
pub use lock::lock;
pub use login::login;

/// Results up to this size pass whole (an upstream's image, a file): the size of the longest
/// message the gateway accepts.
const MAX_OUTPUT_BYTES: usize = lazytool_mcp::DEFAULT_MAX_LINE_BYTES;

/// The registry every upstream tool joins: no tools of its own, no time limit of the
/// registry (each server's `callTimeoutMs` applies), results up to 4 MiB (the longest message accepted).
///
/// ```
/// let registry = lazytool_gateway::base().build().unwrap();
/// assert!(registry.is_empty());
/// ```
pub fn base() -> RegistryBuilder {
    let limits = CallLimits::default()
        .timeout(None)
        .max_output_bytes(MAX_OUTPUT_BYTES);
    Registry::builder().without_inventory().limits(limits)
}

/// Starts every server of `config` at once and returns the catalog of their tools.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, |_| None)?;
/// let catalog = lazytool_gateway::start(config.servers).await?;
/// assert!(catalog.registry().get("time__get_current_time").is_some());
/// # Ok(()) }
/// ```
pub async fn start(
    servers: Vec<lazytool_mcp_client::McpSource>,
) -> Result<McpCatalog, lazytool_runtime::RegistryError> {
    McpCatalog::start(base, servers).await
}

/// [`start`], the lazy tools searched by meaning as well as by words with `embeddings`
/// (`lazytool.search.embeddings`): each registry the catalog builds (at start, and when an
/// upstream's tools change) embeds only the tools that the handle, or its cache on disk, has
/// not seen.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let config = lazytool_gateway::parse(r#"{
///     "mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}},
///     "lazytool": {"mode": "search", "search": {"embeddings": {"url": "http://127.0.0.1:11434", "model": "all-minilm"}}}
/// }"#, |_| None)?;
/// let catalog = lazytool_gateway::start_with_embeddings(config.servers, config.embeddings).await?;
/// # let _ = catalog;
/// # Ok(()) }
/// ```
pub async fn start_with_embeddings(
    servers: Vec<lazytool_mcp_client::McpSource>,
    embeddings: Option<lazytool_runtime::Embeddings>,
) -> Result<McpCatalog, lazytool_runtime::RegistryError> {
    match embeddings {
        None => start(servers).await,
        Some(embeddings) => {
            McpCatalog::start(move || base().embeddings(embeddings.clone()), servers).await
        }
    }
}
