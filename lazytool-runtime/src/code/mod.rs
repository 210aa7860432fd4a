//! Code mode: one tool, [`CODE_TOOL_NAME`], runs a JavaScript script against the session's
//! tools, so that a multi-step task costs one round trip and only its answer comes back.
//!
//! - [`declarations`]: the tools as compact TypeScript, from their JSON Schemas.
//! - [`sandbox`]: a fresh QuickJS runtime per script, with its limits.
//! - [`host`]: what a script can reach: `tools.NAME(args)` (each an ordinary call of the
//!   session) and `console.log`.
//! - [`script_json`]: a script's values read as JSON (a call's arguments).
//! - [`script`]: one run, from the source to its outcome.
//! - [`outcome`]: the result a run gives back, and the limits it can reach.
//! - [`settle`]: a script run until it ends or nothing can move it.
//! - [`tool`]: the code tool itself, as a session offers it, and where its scripts run.
//! - `worker` (Linux): scripts in worker processes that the OS bounds.
//!
//! Sessions route its calls (`session/code.rs`).

mod declarations;
mod host;
mod mode;
mod outcome;
mod sandbox;
mod script;
mod script_json;
mod settle;
mod tool;
#[cfg(target_os = "linux")]
mod worker;

pub(crate) use declarations::declare;
pub(crate) use host::CallTool;
pub use mode::{CodeMode, ScriptRunner};
pub(crate) use tool::{CodeSession, Connect, PREAMBLE};

/// The name of code mode's tool ([`SessionOptions::code_mode`](crate::SessionOptions::code_mode)):
/// its one argument, `code`, is a JavaScript script that calls the session's tools as
/// `await tools.NAME(args)` and returns its answer.
///
/// ```
/// assert_eq!(lazytool_runtime::CODE_TOOL_NAME, "__lazy__code__");
/// ```
pub const CODE_TOOL_NAME: &str = "__lazy__code__";
