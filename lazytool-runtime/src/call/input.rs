//! Input a tool asks its caller for while it runs: a user's answer (elicitation), a model's
//! (sampling) or the caller's roots, each under a key of the tool's choosing
//! ([`ToolContext::ask`](super::ToolContext::ask)). Who answers is the caller's
//! [`InputChannel`]: an MCP client, for a tool served over MCP.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One question a tool asks its caller: its method and its parameters, as MCP names them
/// (`elicitation/create`, `sampling/createMessage`, `roots/list`).
///
/// ```
/// use lazytool_runtime::InputRequest;
/// use serde_json::json;
///
/// let ask = InputRequest::elicitation("Your name?", json!({"type": "object", "properties": {"name": {"type": "string"}}}));
/// assert_eq!(ask.method(), "elicitation/create");
/// assert_eq!(ask.capability(), "elicitation");
/// assert_eq!(ask.params()["message"], "Your name?");
/// assert_eq!(InputRequest::sampling("2 + 2?", 10).params()["maxTokens"], 10);
/// assert_eq!(InputRequest::list_roots().method(), "roots/list");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequest {
    kind: InputKind,
    params: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InputKind {
    Elicitation,
    Sampling,
    Roots,
}

impl InputRequest {
    /// Asks the user: `message`, and a form of `requested_schema` (an object of primitive
    /// properties). The answer is an [`Elicited`].
    pub fn elicitation(message: impl Into<String>, requested_schema: Value) -> InputRequest {
        InputRequest {
            kind: InputKind::Elicitation,
            params: json!({"mode": "form", "message": message.into(), "requestedSchema": requested_schema}),
        }
    }

    /// Asks the caller's model to answer `prompt` in at most `max_tokens` tokens. The answer
    /// is a [`Sampled`].
    pub fn sampling(prompt: impl Into<String>, max_tokens: u32) -> InputRequest {
        InputRequest {
            kind: InputKind::Sampling,
            params: json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": prompt.into()}}],
                "maxTokens": max_tokens,
            }),
        }
    }

    /// Asks the caller for its roots (the folders or URIs it works in). The answer is a list
    /// of [`Root`]s.
    pub fn list_roots() -> InputRequest {
        InputRequest {
            kind: InputKind::Roots,
            params: json!({}),
        }
    }

    /// The request of MCP method `method` (`elicitation/create`, `sampling/createMessage`
    /// or `roots/list`) with `params` as they are: what a gateway passes on from the server it
    /// fronts. Another method is an error naming it.
    ///
    /// ```
    /// use lazytool_runtime::InputRequest;
    /// use serde_json::json;
    ///
    /// let params = json!({"messages": [], "maxTokens": 5, "systemPrompt": "Be brief."});
    /// let ask = InputRequest::new("sampling/createMessage", params.clone()).unwrap();
    /// assert_eq!(ask.params(), &params);
    /// assert!(InputRequest::new("ping", json!({})).is_err());
    /// ```
    pub fn new(method: &str, params: Value) -> Result<InputRequest, String> {
        let kind = match method {
            "elicitation/create" => InputKind::Elicitation,
            "sampling/createMessage" => InputKind::Sampling,
            "roots/list" => InputKind::Roots,
            other => return Err(format!("`{other}` is no input request a tool can make")),
        };
        Ok(InputRequest { kind, params })
    }

    /// The MCP method of the request.
    pub fn method(&self) -> &'static str {
        match self.kind {
            InputKind::Elicitation => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }

    /// The capability a caller must have declared to be asked: `elicitation`, `sampling` or
    /// `roots`.
    pub fn capability(&self) -> &'static str {
        match self.kind {
            InputKind::Elicitation => "elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }

    /// The request's parameters, as MCP sends them.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// Whether `answer` has the shape of an answer to this request (an elicitation's
    /// `action`, a sampling's `content`, a list of `roots`); why not otherwise.
    ///
    /// ```
    /// use lazytool_runtime::InputRequest;
    /// use serde_json::json;
    ///
    /// let ask = InputRequest::elicitation("Your name?", json!({"type": "object"}));
    /// assert!(ask.check_answer(&json!({"action": "accept", "content": {"name": "Ada"}})).is_ok());
    /// assert!(ask.check_answer(&json!(12345)).is_err());
    /// ```
    pub fn check_answer(&self, answer: &Value) -> Result<(), String> {
        let checked = match self.kind {
            InputKind::Elicitation => serde_json::from_value::<Elicited>(answer.clone()).map(drop),
            InputKind::Sampling => serde_json::from_value::<Sampled>(answer.clone()).map(drop),
            InputKind::Roots => serde_json::from_value::<Roots>(answer.clone()).map(drop),
        };
        checked.map_err(|error| format!("not an answer to {}: {error}", self.method()))
    }
}

/// A user's answer to an elicitation: `accept` (with the form's `content`), `decline` or
/// `cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Elicited {
    /// `accept`, `decline` or `cancel`.
    pub action: ElicitAction,
    /// The form's values, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user answered.
    Accept,
    /// The user declined to answer.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

/// A model's answer to a sampling request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    /// The answer's content: `{"type": "text", "text": ...}` for a text.
    pub content: Value,
    /// The model that answered, if the caller said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Sampled {
    /// The answer's text, if it is one.
    ///
    /// ```
    /// # use lazytool_runtime::Sampled;
    /// let sampled = Sampled { content: serde_json::json!({"type": "text", "text": "4"}), model: None };
    /// assert_eq!(sampled.text(), Some("4"));
    /// ```
    pub fn text(&self) -> Option<&str> {
        self.content["text"].as_str()
    }
}

/// One of the caller's roots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Its URI (`file:///home/ada/project`).
    pub uri: String,
    /// Its name, if the caller gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The answer to [`InputRequest::list_roots`].
#[derive(Deserialize)]
pub(super) struct Roots {
    pub(super) roots: Vec<Root>,
}

/// Why a tool did not get the input it asked for.
///
/// A tool usually returns it with `?`: the caller then does what it says (answers a later
/// round with the input, or refuses the call for a capability it lacks). It converts into a
/// `String` for tools whose error type is one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputError {
    /// The caller will be asked, and runs the call again with the answer (MCP 2026-07-28's
    /// input-required result): return, doing nothing the call must not do twice.
    Required {
        /// The question's key.
        key: String,
    },
    /// The caller did not declare the capability the question needs (`elicitation`,
    /// `sampling` or `roots`): it cannot be asked.
    Unsupported {
        /// The capability it lacks.
        capability: &'static str,
    },
    /// The caller cannot be asked anything (a call that did not come over MCP, say).
    Unavailable,
    /// The caller's answer does not have the shape of an answer to the question.
    Invalid {
        /// The question's key.
        key: String,
        /// What is wrong with the answer.
        why: String,
    },
    /// Asking failed (the connection closed, the caller answered with an error).
    Failed(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Required { key } => write!(f, "input `{key}` is required from the caller"),
            InputError::Unsupported { capability } => {
                write!(
                    f,
                    "the caller cannot be asked: it did not declare the `{capability}` capability"
                )
            }
            InputError::Unavailable => {
                f.write_str("the caller of this tool cannot be asked for input")
            }
            InputError::Invalid { key, why } => {
                write!(f, "the answer to input `{key}` is invalid: {why}")
            }
            InputError::Failed(why) => write!(f, "asking the caller for input failed: {why}"),
        }
    }
}

impl std::error::Error for InputError {}

impl From<InputError> for String {
    fn from(error: InputError) -> String {
        error.to_string()
    }
}

/// What [`InputChannel::ask`] returns: the caller's answer as JSON, or why there is none.
pub type InputFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, InputError>> + Send + 'a>>;

/// Whoever answers the questions of a call's tool: given to the call with
/// [`ToolContext::with_input`](super::ToolContext::with_input). lazytool-mcp's server gives one
/// per MCP call: over a 2025-11-25 session it sends the client the request and waits; for a
/// 2026-07-28 request it answers from the request's `inputResponses`, and otherwise notes the
/// question for an input-required result.
///
/// ```
/// use lazytool_runtime::{InputChannel, InputError, InputFuture, InputRequest};
/// use serde_json::json;
///
/// /// A caller that accepts every elicitation with the same content.
/// struct Always;
///
/// impl InputChannel for Always {
///     fn ask(&self, _key: &str, request: InputRequest) -> InputFuture<'_> {
///         Box::pin(async move {
///             match request.capability() {
///                 "elicitation" => Ok(json!({"action": "accept", "content": {"name": "Ada"}})),
///                 capability => Err(InputError::Unsupported { capability }),
///             }
///         })
///     }
/// }
/// ```
pub trait InputChannel: Send + Sync + 'static {
    /// Asks the caller `request` under `key` (the same key for the same question in each
    /// round of a call).
    fn ask(&self, key: &str, request: InputRequest) -> InputFuture<'_>;
}
