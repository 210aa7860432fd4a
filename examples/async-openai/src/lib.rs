//! An agent loop written with async-openai's own types: each request's tools are the
//! session's active tools ([`chat::tools`]), each reply's tool calls run with
//! [`chat::run_turn`], and their results go back as async-openai messages. No JSON is
//! written by hand. The model is any function from async-openai's request to its response:
//! its client ([`client_model`]), or a script ([`scripted_model`]).

use std::fmt;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestUserMessage,
    CreateChatCompletionRequest, CreateChatCompletionResponse,
};
use lazytool_runtime::Session;
use lazytool_runtime::provider::async_openai::chat;
use lazytool_runtime::provider::openai_chat::OpenAiChatOptions;
use serde_json::{Value, json};

/// What the loop reports as it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A request is about to be sent with these tools.
    Request {
        /// The turn, from 1.
        turn: usize,
        /// The names of its tools, in order.
        tools: Vec<String>,
    },
    /// A tool call was answered.
    Answered {
        /// The result message, as async-openai writes it.
        message: Value,
    },
}

/// Why a run failed.
#[derive(Debug)]
pub enum AgentError {
    /// The model (the endpoint, or the script) failed.
    Model(OpenAIError),
    /// A response without choices.
    NoChoice,
    /// The model was still calling tools after this many turns.
    TooManyTurns(usize),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Model(error) => write!(f, "the model failed: {error}"),
            AgentError::NoChoice => write!(f, "the response has no choice"),
            AgentError::TooManyTurns(turns) => {
                write!(f, "the model was still calling tools after {turns} turns")
            }
        }
    }
}

impl std::error::Error for AgentError {}

/// Runs a conversation from `prompt` until the model answers without tool calls, at most
/// `max_turns` requests; returns the answer.
pub async fn run_chat<F, Fut>(
    session: &Session,
    model_name: &str,
    prompt: &str,
    max_turns: usize,
    mut model: F,
    mut observe: impl FnMut(Event),
) -> Result<String, AgentError>
where
    F: FnMut(CreateChatCompletionRequest) -> Fut,
    Fut: Future<Output = Result<CreateChatCompletionResponse, OpenAIError>>,
{
    let system = ChatCompletionRequestSystemMessage {
        content: ChatCompletionRequestSystemMessageContent::Text(
            "Use the tools; a tool only listed by the discovery tool must be discovered first."
                .to_owned(),
        ),
        name: None,
    };
    let mut messages: Vec<ChatCompletionRequestMessage> = vec![
        system.into(),
        ChatCompletionRequestUserMessage::from(prompt).into(),
    ];
    for turn in 1..=max_turns {
        let tools = chat::tools(&session.active_tools(), &OpenAiChatOptions::default());
        observe(Event::Request {
            turn,
            tools: names(&tools),
        });
        let request = CreateChatCompletionRequest {
            model: model_name.to_owned(),
            messages: messages.clone(),
            tools: (!tools.is_empty()).then_some(tools),
            ..Default::default()
        };
        let response = model(request).await.map_err(AgentError::Model)?;
        let message = &response
            .choices
            .first()
            .ok_or(AgentError::NoChoice)?
            .message;
        messages.push(chat::assistant_message(message));
        if chat::tool_calls(message).is_empty() {
            return Ok(message.content.clone().unwrap_or_default());
        }
        for answer in chat::run_turn(session, message, 4).await {
            observe(Event::Answered {
                message: serde_json::to_value(&answer).unwrap_or_default(),
            });
            messages.push(answer);
        }
    }
    Err(AgentError::TooManyTurns(max_turns))
}

fn names(tools: &[async_openai::types::chat::ChatCompletionTools]) -> Vec<String> {
    let tools = serde_json::to_value(tools).unwrap_or_default();
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// async-openai's client for `OPENAI_API_KEY` / `OPENAI_BASE_URL`, or `None` when neither is
/// set.
pub fn client_model() -> Option<async_openai::Client<OpenAIConfig>> {
    let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let (key, base_url) = (var("OPENAI_API_KEY"), var("OPENAI_BASE_URL"));
    if key.is_none() && base_url.is_none() {
        return None;
    }
    let mut config = OpenAIConfig::new().with_api_key(key.unwrap_or_default());
    if let Some(base_url) = base_url {
        config = config.with_api_base(base_url);
    }
    Some(async_openai::Client::with_config(config))
}

/// A scripted model: each request's reply is `script`'s Chat Completions response (JSON in
/// the API's shape) for the turn (from 1), read into async-openai's response type.
pub fn scripted_model(
    script: impl Fn(usize) -> Value,
) -> impl FnMut(
    CreateChatCompletionRequest,
) -> std::future::Ready<Result<CreateChatCompletionResponse, OpenAIError>> {
    let mut turn = 0;
    move |_request| {
        turn += 1;
        let reply = script(turn);
        let read = serde_json::from_value(reply.clone())
            .map_err(|error| OpenAIError::JSONDeserialize(error, reply.to_string()));
        std::future::ready(read)
    }
}

/// A reply of the scripted model: `calls` (`(id, name, arguments)`), or `text` when there are
/// none.
pub fn reply(text: &str, calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let message = if calls.is_empty() {
        json!({"role": "assistant", "content": text})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": calls})
    };
    json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": message,
            "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}]})
}
