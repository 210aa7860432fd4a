//! A small agent loop over any OpenAI-compatible Chat Completions endpoint, streamed.
//!
//! The loop is stateless in the way a server would be: on every turn the [`Session`] is
//! rebuilt from the message history ([`Session::from_history`]), so which lazy tools the
//! request carries, and which calls may run, follow from the messages alone. Each reply is
//! streamed (`"stream": true`): its tool calls are assembled from the chunks as they arrive
//! ([`openai_chat::StreamAssembler`]), and a turn's calls run in one call
//! ([`openai_chat::run_turn`]), which also builds the result messages.

mod reply;

use std::error::Error;
use std::fmt;
use std::time::Duration;

use lazytool_runtime::provider::{ParseError, StreamError, openai_chat};
use lazytool_runtime::{Registry, Session};
use serde_json::{Map, Value, json};

/// The endpoint used when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The model used when `OPENAI_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// The system prompt of [`AgentConfig::new`] and [`AgentConfig::from_env`].
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful assistant. Use the tools you are \
given; when a tool you need is only listed by the discovery tool, discover it first.";

/// How many bytes of a response body an error quotes.
const EXCERPT_LEN: usize = 500;

/// Where and how the agent talks to the model.
#[derive(Clone, PartialEq, Eq)]
pub struct AgentConfig {
    /// The API root, without `/chat/completions` (for example `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1`).
    pub base_url: String,
    /// Sent as `Authorization: Bearer ...` when present.
    pub api_key: Option<String>,
    /// The `model` field of each request.
    pub model: String,
    /// The most requests one run may send before it gives up with
    /// [`AgentError::TooManyTurns`].
    pub max_turns: usize,
    /// How long one HTTP request may take, connection and streamed body included.
    pub timeout: Duration,
    /// How many tool calls of one turn may run at once.
    pub concurrency: usize,
    /// The first message of the conversation (`role: "system"`).
    pub system_prompt: String,
}

impl AgentConfig {
    /// A configuration for `base_url` and `model` without an API key: 10 turns, a 60 s
    /// request timeout, 4 concurrent tool calls and [`DEFAULT_SYSTEM_PROMPT`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        AgentConfig {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            max_turns: 10,
            timeout: Duration::from_secs(60),
            concurrency: 4,
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_owned(),
        }
    }

    /// Reads `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]), `OPENAI_API_KEY` and
    /// `OPENAI_MODEL` (default [`DEFAULT_MODEL`]); empty variables count as unset. The key
    /// is required for the default endpoint ([`AgentError::MissingApiKey`]) and optional
    /// for others, such as a local server.
    pub fn from_env() -> Result<Self, AgentError> {
        let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        let base_url = var("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        let model = var("OPENAI_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        let api_key = var("OPENAI_API_KEY");
        if api_key.is_none() && base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            return Err(AgentError::MissingApiKey);
        }
        Ok(AgentConfig {
            api_key,
            ..AgentConfig::new(base_url, model)
        })
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

impl fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keeps the key out of logs.
        f.debug_struct("AgentConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("max_turns", &self.max_turns)
            .field("timeout", &self.timeout)
            .field("concurrency", &self.concurrency)
            .field("system_prompt", &self.system_prompt)
            .finish()
    }
}

/// What the loop reports while it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// A request is about to be sent.
    Request {
        /// The turn, from 1.
        turn: usize,
        /// The names of the tools the request carries, in the order sent.
        tools: Vec<String>,
    },
    /// A tool call of the model was answered.
    ToolCall {
        /// The turn whose response asked for the call.
        turn: usize,
        /// The tool's name.
        name: String,
        /// The arguments as the model sent them (for OpenAI, a JSON-encoded string).
        arguments: Value,
        /// The text sent back to the model.
        result: String,
        /// Whether the result is an error (unknown tool, invalid arguments, undiscovered
        /// lazy tool, the tool's own error).
        is_error: bool,
    },
    /// The model answered without tool calls; the run is over.
    Answer {
        /// The turn of the answer.
        turn: usize,
        /// The answer's text.
        text: String,
    },
}

/// The result of a finished run.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentOutcome {
    /// The model's final answer.
    pub answer: String,
    /// How many requests were sent.
    pub turns: usize,
    /// The whole conversation in Chat Completions form, final answer included.
    pub messages: Vec<Value>,
}

/// Why a run failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentError {
    /// [`AgentConfig::from_env`]: the default endpoint needs `OPENAI_API_KEY`.
    MissingApiKey,
    /// The request could not be sent or its response not read (connection, timeout, TLS).
    Http(reqwest::Error),
    /// The endpoint answered with a status other than 2xx.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The response body, or a streamed event's data, is not JSON.
    InvalidJson {
        /// What the JSON parser said.
        source: serde_json::Error,
        /// The start of the body or event data.
        body: String,
    },
    /// The response is not a valid server-sent event stream.
    InvalidStream(String),
    /// The streamed completion is truncated or malformed, or the server sent an error in it.
    Stream(StreamError),
    /// The response lacks a field the loop needs.
    MissingField {
        /// Where, as a JSON pointer (`/choices/0/message`).
        path: String,
    },
    /// The response's `tool_calls` are malformed.
    InvalidToolCalls(ParseError),
    /// The model was still calling tools after [`AgentConfig::max_turns`] requests.
    TooManyTurns {
        /// The limit that was reached.
        max_turns: usize,
    },
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::MissingApiKey => write!(
                f,
                "OPENAI_API_KEY is not set; it is required for {DEFAULT_BASE_URL} \
                 (set OPENAI_BASE_URL to use another OpenAI-compatible endpoint)"
            ),
            AgentError::Http(error) => write!(f, "http request failed: {error}"),
            AgentError::Status { status, body } => {
                write!(f, "the endpoint answered with status {status}: {body}")
            }
            AgentError::InvalidJson { source, body } => {
                write!(f, "the response is not valid JSON ({source}): {body}")
            }
            AgentError::InvalidStream(error) => write!(f, "the event stream is invalid: {error}"),
            AgentError::Stream(error) => write!(f, "{error}"),
            AgentError::MissingField { path } => {
                write!(f, "the response has no usable `{path}`")
            }
            AgentError::InvalidToolCalls(error) => write!(f, "{error}"),
            AgentError::TooManyTurns { max_turns } => write!(
                f,
                "the model was still calling tools after {max_turns} turns"
            ),
        }
    }
}

impl Error for AgentError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            // Display already shows reqwest's message; its causes follow.
            AgentError::Http(error) => error.source(),
            AgentError::InvalidJson { source, .. } => Some(source),
            AgentError::InvalidToolCalls(error) => Some(error),
            AgentError::Stream(error) => Some(error),
            _ => None,
        }
    }
}

impl From<StreamError> for AgentError {
    fn from(error: StreamError) -> Self {
        AgentError::Stream(error)
    }
}

impl From<reqwest::Error> for AgentError {
    fn from(error: reqwest::Error) -> Self {
        AgentError::Http(error)
    }
}

/// Runs one conversation: `user_prompt` after [`AgentConfig::system_prompt`], then streamed
/// requests to `{base_url}/chat/completions` until the model answers without tool calls.
///
/// Each turn rebuilds the [`Session`] from the history, sends its
/// [`active_tools`](Session::active_tools), assembles the tool calls of the streamed reply,
/// and runs them with [`openai_chat::run_turn`] (at most [`AgentConfig::concurrency`] at a
/// time). The calls of a turn are gated by the state at its start: a lazy tool discovered in
/// a turn can be called from the next one. Tool failures are sent back to the model as
/// results; only transport and protocol failures, and running out of turns, end the run
/// with an error.
pub async fn run_agent(
    config: &AgentConfig,
    registry: &Registry,
    user_prompt: &str,
    mut observer: impl FnMut(AgentEvent),
) -> Result<AgentOutcome, AgentError> {
    let client = reqwest::Client::builder().timeout(config.timeout).build()?;
    let mut messages = vec![
        json!({"role": "system", "content": config.system_prompt}),
        json!({"role": "user", "content": user_prompt}),
    ];
    for turn in 1..=config.max_turns {
        let session = Session::from_history(registry, &messages);
        let tools = session.active_tools();
        observer(AgentEvent::Request {
            turn,
            tools: tools.iter().map(|tool| tool.name.clone()).collect(),
        });
        let mut body = Map::new();
        body.insert("model".to_owned(), json!(config.model));
        body.insert("messages".to_owned(), json!(messages));
        body.insert("stream".to_owned(), json!(true));
        if !tools.is_empty() {
            let rendered = openai_chat::render_tools(&tools, &Default::default());
            body.insert("tools".to_owned(), rendered);
        }
        let reply = send(&client, config, &Value::Object(body)).await?;
        messages.push(openai_chat::assistant_message(&reply.text, &reply.calls));

        if reply.calls.is_empty() {
            observer(AgentEvent::Answer {
                turn,
                text: reply.text.clone(),
            });
            return Ok(AgentOutcome {
                answer: reply.text,
                turns: turn,
                messages,
            });
        }
        let answered = openai_chat::run_turn(&session, reply.calls, config.concurrency).await;
        for (call, result) in answered.iter() {
            observer(AgentEvent::ToolCall {
                turn,
                name: call.name.clone(),
                arguments: call.arguments.clone(),
                result: result.text(),
                is_error: result.is_error(),
            });
        }
        messages.extend(answered.messages);
    }
    Err(AgentError::TooManyTurns {
        max_turns: config.max_turns,
    })
}

/// POSTs `body` and reads the reply of a 2xx response.
async fn send(
    client: &reqwest::Client,
    config: &AgentConfig,
    body: &Value,
) -> Result<reply::Reply, AgentError> {
    let mut request = client.post(config.endpoint()).json(body);
    if let Some(key) = &config.api_key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await?;
    let status = response.status();
    if !status.is_success() {
        let text = response.text().await?;
        return Err(AgentError::Status {
            status: status.as_u16(),
            body: excerpt(&text),
        });
    }
    reply::read(response).await
}

/// The start of `text`, cut on a character boundary.
pub(crate) fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT_LEN {
        return text.to_owned();
    }
    let mut end = EXCERPT_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_cuts_on_a_char_boundary() {
        let text = "é".repeat(EXCERPT_LEN);
        let cut = excerpt(&text);
        assert!(cut.ends_with("..."));
        assert!(cut.len() <= EXCERPT_LEN + 3);
        assert_eq!(excerpt("short"), "short");
    }

    #[test]
    fn endpoint_joins_without_double_slash() {
        let config = AgentConfig::new("http://localhost:8080/v1/", "m");
        assert_eq!(
            config.endpoint(),
            "http://localhost:8080/v1/chat/completions"
        );
        let debug = format!(
            "{:?}",
            AgentConfig {
                api_key: Some("sk-secret".to_owned()),
                ..config
            }
        );
        assert!(!debug.contains("sk-secret"), "{debug}");
    }
}
