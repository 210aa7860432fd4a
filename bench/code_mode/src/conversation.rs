//! A conversation with a scripted model: every request it sends is counted (`o200k_base`
//! tokens of the tools and the messages, OpenAI Chat format), and each turn's calls are run
//! by the session, their results appended as the model would see them.

use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{Session, ToolCall};
use serde_json::{Value, json};

pub struct Conversation<'s> {
    session: &'s Session,
    messages: Vec<Value>,
    /// Tokens summed over every request sent.
    pub tokens: usize,
    /// Requests sent: model round trips.
    pub requests: usize,
    /// Results that were errors (none, when the model's plan is right).
    pub errors: Vec<String>,
    next_id: usize,
}

impl<'s> Conversation<'s> {
    pub fn new(session: &'s Session, question: &str) -> Self {
        Conversation {
            session,
            messages: vec![json!({"role": "user", "content": question})],
            tokens: 0,
            requests: 0,
            errors: Vec::new(),
            next_id: 0,
        }
    }

    /// Sends a request (counted); the model answers with `calls`, which are run. No calls:
    /// the model's final answer.
    pub async fn turn(&mut self, calls: Vec<(&str, Value)>) -> Vec<Value> {
        let tools = openai_chat::render_tools(
            &self.session.active_definitions(),
            &OpenAiChatOptions::default(),
        );
        self.tokens += count_json_tokens(&tools) + count_json_tokens(&json!(self.messages));
        self.requests += 1;
        let calls: Vec<ToolCall> = (calls.into_iter())
            .map(|(name, arguments)| {
                self.next_id += 1;
                ToolCall {
                    id: format!("call_{}", self.next_id),
                    name: name.to_owned(),
                    arguments,
                }
            })
            .collect();
        if calls.is_empty() {
            return Vec::new();
        }
        self.messages
            .push(openai_chat::assistant_message("", &calls));
        let results = self.session.call_turn(calls.clone(), 8).await;
        for (call, result) in calls.iter().zip(&results) {
            if result.is_error() {
                self.errors
                    .push(format!("{}: {}", call.name, result.text()));
            }
            self.messages
                .push(openai_chat::tool_result_message(call, result));
        }
        results
            .into_iter()
            .map(|result| result.into_content())
            .collect()
    }
}
