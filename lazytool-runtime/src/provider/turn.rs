//! One model turn answered in one call: its tool calls run through the session, their
//! results built in the provider's shape.

use serde_json::Value;

use crate::call::{ToolCall, ToolResult};
use crate::session::Session;

/// A model turn whose tool calls ran: the calls, their results (in call order), and the
/// messages (or items, or contents) that return the results, in the provider's shape, to
/// append to the history. Each provider module's `run_turn` builds one.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The calls, in the order the model made them.
    pub calls: Vec<ToolCall>,
    /// One result per call, in call order.
    pub results: Vec<ToolResult>,
    /// What returns the results to the model, in the provider's shape.
    pub messages: Vec<Value>,
}

impl Turn {
    /// Whether the model called no tool (its turn was an answer).
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls with their results, in call order.
    pub fn iter(&self) -> impl Iterator<Item = (&ToolCall, &ToolResult)> {
        self.calls.iter().zip(&self.results)
    }
}

/// Runs `calls` as one turn ([`Session::call_turn`], at most `concurrency` at a time) and
/// builds the messages with `messages`, from the calls and results in call order (none for a
/// turn without calls: some providers reject a message without content).
pub(crate) fn run(
    session: &Session,
    calls: Vec<ToolCall>,
    concurrency: usize,
    messages: impl FnOnce(&[ToolCall], &[ToolResult]) -> Vec<Value> + Send + 'static,
) -> impl Future<Output = Turn> + Send + 'static {
    let results = session.call_turn(calls.clone(), concurrency);
    async move {
        let results = results.await;
        let messages = if calls.is_empty() {
            Vec::new()
        } else {
            messages(&calls, &results)
        };
        Turn {
            calls,
            results,
            messages,
        }
    }
}
