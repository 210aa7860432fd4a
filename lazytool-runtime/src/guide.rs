//! The guide: every capability of lazytool, chapter by chapter, with examples that
//! `cargo test` compiles and runs.
//!
//! The README has the quick start, one complete example and install. Each chapter is a module
//! here, written in `src/guide/*.md` beside this file. MCP is in
//! [`lazytool_mcp::guide`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/guide/), the
//! gateway in
//! [`lazytool_gateway::guide`](https://docs.rs/lazytool-gateway/latest/lazytool_gateway/guide/).
//!
//! - [`declaring_tools`]: `#[tool]`, `#[tools]`, parameters, injected state, compile errors.
//! - [`registry`]: collecting tools, building a registry, dispatching calls, canonical schemas.
//! - [`discovery`]: the discovery protocol, side by side with TanStack AI.
//! - [`modes`]: names, search, auto and cache-stable discovery; native deferral, compaction.
//! - [`search`]: search discovery's quality and cost, and search by meaning.
//! - [`providers`]: OpenAI Chat and Responses, Anthropic, Gemini: tools, calls, results, dialects.
//! - [`rich_results`]: images, audio and resources in tool results, per provider.
//! - [`agent_loop`]: streamed tool calls, running a turn, a complete streaming loop.
#![cfg_attr(
    feature = "async-openai",
    doc = "- [`async_openai`]: tools, tool calls and results in async-openai's types."
)]
#![cfg_attr(
    not(feature = "async-openai"),
    doc = "- `async_openai`: tools, tool calls and results in async-openai's types (feature `async-openai`)."
)]
//! - [`reliability`]: the bounds on every call, gating and signed discoveries.
//! - `code_mode` (feature `code-mode`): one script against typed tools, its answer alone back.
//! - [`telemetry`]: tracing spans shaped by OpenTelemetry's GenAI conventions.
//! - [`performance`]: the figures in short, pointing at `BENCHMARKS.md`.
//! - [`workspace`]: the repository's crates, tests and examples, and what CI runs.

#[doc = include_str!("guide/declaring_tools.md")]
pub mod declaring_tools {}

#[doc = include_str!("guide/registry.md")]
pub mod registry {}

#[doc = include_str!("guide/discovery.md")]
pub mod discovery {}

#[doc = include_str!("guide/modes.md")]
pub mod modes {}

#[doc = include_str!("guide/search.md")]
pub mod search {}

#[doc = include_str!("guide/providers.md")]
pub mod providers {}

#[doc = include_str!("guide/rich_results.md")]
pub mod rich_results {}

#[doc = include_str!("guide/agent_loop.md")]
pub mod agent_loop {}

#[cfg(feature = "async-openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "async-openai")))]
#[doc = include_str!("guide/async_openai.md")]
pub mod async_openai {}

#[doc = include_str!("guide/reliability.md")]
pub mod reliability {}

#[cfg(feature = "code-mode")]
#[doc = include_str!("guide/code_mode.md")]
pub mod code_mode {}

#[doc = include_str!("guide/telemetry.md")]
pub mod telemetry {}

#[doc = include_str!("guide/performance.md")]
pub mod performance {}

#[doc = include_str!("guide/workspace.md")]
pub mod workspace {}
