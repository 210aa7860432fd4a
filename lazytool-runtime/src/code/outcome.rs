//! What a script gives back: its answer, the exception that ended it, or the limit it
//! reached, each as the code tool's result.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::call::{Content, ContentPart, ToolErrorKind, ToolResult};

/// A limit a script reached: the script is stopped and its result names the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Limit {
    Memory(usize),
    WallTime(Duration),
    Stack(usize),
    ToolCalls(usize),
    Source(usize),
    Output(usize),
    /// Not a limit: the call was cancelled, and the script with it.
    Cancelled,
    /// Not a limit: the script awaits what nothing will settle.
    Stalled,
}

impl Limit {
    pub(super) fn result(self) -> ToolResult {
        let (kind, message) = match self {
            Limit::Memory(bytes) => (
                ToolErrorKind::ToolFailed,
                format!(
                    "Error: the script reached its memory limit of {} and was stopped.",
                    size(bytes)
                ),
            ),
            Limit::WallTime(time) => (
                ToolErrorKind::TimedOut,
                format!(
                    "Error: the script reached its wall time limit of {time:?} and was stopped. Tools it called may have done part of their work: check before running it again."
                ),
            ),
            Limit::Stack(bytes) => (
                ToolErrorKind::ToolFailed,
                format!(
                    "Error: the script reached its stack limit of {} (recursion too deep) and was stopped.",
                    size(bytes)
                ),
            ),
            Limit::ToolCalls(calls) => (
                ToolErrorKind::ToolFailed,
                format!(
                    "Error: the script reached its limit of {calls} tool calls and was stopped."
                ),
            ),
            Limit::Source(bytes) => (
                ToolErrorKind::InvalidArguments,
                format!(
                    "Error: the script is over the source size limit of {}.",
                    size(bytes)
                ),
            ),
            Limit::Output(bytes) => (
                ToolErrorKind::ToolFailed,
                format!(
                    "Error: the script's console output reached the output limit of {} and the script was stopped.",
                    size(bytes)
                ),
            ),
            Limit::Cancelled => (
                ToolErrorKind::ToolFailed,
                "Error: the script was cancelled, and the tool calls it was waiting for with it."
                    .to_owned(),
            ),
            Limit::Stalled => (
                ToolErrorKind::ToolFailed,
                "Error: the script awaits a promise that nothing will settle (no tool call of it \
                 is running, and scripts have no timers), and was stopped."
                    .to_owned(),
            ),
        };
        ToolResult::error(kind, message)
    }
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// How a script ended, as the engine saw it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Ended {
    /// Its value as JSON (`None`: `undefined`).
    Returned(Option<Value>),
    /// A value JSON cannot carry (a cycle, a BigInt, too deep, a lone surrogate, a function,
    /// a getter or `toJSON` that threw), and why: never a successful `null`.
    NotJson(String),
    /// A syntax error, at a line and column of the script's own source.
    Syntax {
        message: String,
        line: u32,
        column: u32,
    },
    /// An uncaught exception: its text, its stack (lines of the script only).
    Threw { text: String, stack: String },
    /// Stopped by the engine (interrupted, out of memory, stack overflow) with this message.
    Stopped(String),
}

/// A script's end: how, the first limit it reached, and its console lines.
#[derive(Debug)]
pub(super) struct Finished {
    pub(super) ended: Ended,
    pub(super) reached: Option<Limit>,
    pub(super) console: Vec<String>,
}

impl Finished {
    /// The code tool's result.
    pub(super) fn result(self) -> ToolResult {
        result(self.ended, self.reached, self.console)
    }
}

/// The code tool's result: the limit first reached if any, else how the script ended, the
/// console lines after its value.
fn result(ended: Ended, reached: Option<Limit>, console: Vec<String>) -> ToolResult {
    if let Some(limit) = reached {
        return limit.result();
    }
    let failed = |message: String| ToolResult::error(ToolErrorKind::ToolFailed, message);
    match ended {
        Ended::Returned(value) => answer(value, console),
        Ended::Syntax {
            message,
            line,
            column,
        } => ToolResult::error(
            ToolErrorKind::InvalidArguments,
            format!(
                "Error: the script has a syntax error at line {line}, column {column}: {message}"
            ),
        ),
        Ended::Threw { text, stack } => {
            let mut message = format!("Error: the script threw {text}");
            if !stack.is_empty() {
                message.push('\n');
                message.push_str(&stack);
            }
            with_console(&mut message, &console);
            failed(message)
        }
        Ended::NotJson(why) => {
            let mut message = format!(
                "Error: the script's return value is not JSON: {why}. Return plain data: objects, arrays, strings, numbers, booleans or null."
            );
            with_console(&mut message, &console);
            failed(message)
        }
        Ended::Stopped(why) => failed(format!("Error: the script was stopped: {why}")),
    }
}

fn answer(value: Option<Value>, console: Vec<String>) -> ToolResult {
    if console.is_empty() {
        // An object is structured (MCP `structuredContent` beside its JSON text).
        return match value {
            Some(object @ Value::Object(_)) => Content::new([]).with_structured(object).into(),
            other => ToolResult::success(other.unwrap_or(Value::Null)),
        };
    }
    let logged = ContentPart::text(console.join("\n"));
    match value {
        Some(object @ Value::Object(_)) => Content::new([logged]).with_structured(object).into(),
        Some(Value::String(text)) => Content::new([ContentPart::text(text), logged]).into(),
        Some(other) => Content::new([ContentPart::text(other.to_string()), logged]).into(),
        None => Content::new([logged]).into(),
    }
}

fn with_console(message: &mut String, console: &[String]) {
    if !console.is_empty() {
        message.push_str("\nconsole:\n");
        message.push_str(&console.join("\n"));
    }
}
