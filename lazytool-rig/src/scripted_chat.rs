//! An OpenAI Chat Completions endpoint answered in process by a script: rig's real OpenAI
//! wire encodes each request and decodes each reply, nothing leaves the process.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use rig_core::DynModel;
use rig_core::http_client::{
    self, HttpClientExt, LazyBody, MultipartForm, Request, Response, StreamingResponse,
};
use rig_core::operation::Completion;
use rig_core::providers::openai::OpenAIConfig;
use serde_json::{Value, json};

type Script = dyn Fn(&Value) -> Value + Send + Sync;

/// A scripted model for rig: an [`HttpClientExt`] that answers each `POST /chat/completions`
/// with what `script` returns for the request's JSON body. [`ScriptedChat::model`] puts it
/// under rig's own OpenAI Chat wire, so an agent's requests are encoded, and the replies
/// decoded, exactly as against a real endpoint; [`ScriptedChat::requests`] returns every
/// request body sent.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_rig::ScriptedChat;
/// use rig_agent::AgentBuilder;
///
/// let chat = ScriptedChat::new(|_request| ScriptedChat::text("4"));
/// let agent = AgentBuilder::new(chat.model()).build();
/// let response = agent.prompt("2 + 2?").run().await.unwrap();
/// assert_eq!(response.output(), "4");
/// assert_eq!(chat.requests()[0]["messages"][0]["content"], "2 + 2?");
/// # }
/// ```
#[derive(Clone)]
pub struct ScriptedChat {
    script: Arc<Script>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedChat {
    /// A model whose reply to each request (its JSON body) is `script`'s value: a Chat
    /// Completions response, such as [`ScriptedChat::text`] or [`ScriptedChat::tool_calls`].
    ///
    /// ```
    /// let chat = lazytool_rig::ScriptedChat::new(|request| {
    ///     let turn = request["messages"].as_array().map_or(0, Vec::len);
    ///     lazytool_rig::ScriptedChat::text(format!("{turn} messages"))
    /// });
    /// # let _ = chat;
    /// ```
    pub fn new(script: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        ScriptedChat {
            script: Arc::new(script),
            requests: Arc::default(),
        }
    }

    /// This endpoint as a rig completion model, through rig's OpenAI Chat wire (model name
    /// `scripted`).
    ///
    /// ```
    /// let model = lazytool_rig::ScriptedChat::new(|_| lazytool_rig::ScriptedChat::text("hi")).model();
    /// assert_eq!(model.id(), Some("scripted"));
    /// ```
    pub fn model(&self) -> DynModel<Completion> {
        OpenAIConfig::new("scripted")
            .connect(self.clone())
            .chat("scripted")
            .into()
    }

    /// Every request body received so far, in order.
    ///
    /// ```
    /// let chat = lazytool_rig::ScriptedChat::new(|_| lazytool_rig::ScriptedChat::text("hi"));
    /// assert!(chat.requests().is_empty());
    /// ```
    pub fn requests(&self) -> Vec<Value> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The names of the tools a recorded request carries, in order (OpenAI Chat's `tools`).
    ///
    /// ```
    /// let request = serde_json::json!({"tools": [{"type": "function", "function": {"name": "get_time"}}]});
    /// assert_eq!(lazytool_rig::ScriptedChat::tool_names(&request), ["get_time"]);
    /// ```
    pub fn tool_names(request: &Value) -> Vec<String> {
        (request["tools"].as_array().into_iter().flatten())
            .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// A reply that answers with `text` and calls no tool.
    ///
    /// ```
    /// let reply = lazytool_rig::ScriptedChat::text("done");
    /// assert_eq!(reply["choices"][0]["finish_reason"], "stop");
    /// ```
    pub fn text(text: impl Into<String>) -> Value {
        reply(json!({"role": "assistant", "content": text.into()}), "stop")
    }

    /// A reply that calls tools: each `(id, name, arguments)`, the arguments as the
    /// JSON-encoded string a model sends (or anything else, to test how bad input is answered).
    ///
    /// ```
    /// let reply = lazytool_rig::ScriptedChat::tool_calls(&[("call_1", "get_time", r#"{"city":"Oslo"}"#)]);
    /// assert_eq!(reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"], "get_time");
    /// ```
    pub fn tool_calls(calls: &[(&str, &str, &str)]) -> Value {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, arguments)| {
                json!({"id": id, "type": "function",
                       "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        let message = json!({"role": "assistant", "content": null, "tool_calls": calls});
        reply(message, "tool_calls")
    }

    fn answer(&self, body: &[u8]) -> Bytes {
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let answer = (self.script)(&request);
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request);
        Bytes::from(answer.to_string())
    }
}

fn reply(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    })
}

#[derive(Debug, thiserror::Error)]
#[error("the scripted model answers whole requests only, not {0}")]
struct Unsupported(&'static str);

impl HttpClientExt for ScriptedChat {
    fn send<T, U>(
        &self,
        req: Request<T>,
    ) -> impl Future<Output = http_client::Result<Response<LazyBody<U>>>> + Send + 'static
    where
        T: Into<Bytes> + Send,
        U: From<Bytes> + Send + 'static,
    {
        let body: Bytes = req.into_body().into();
        let answer = self.answer(&body);
        async move {
            let body: LazyBody<U> = Box::pin(async move { Ok(U::from(answer)) });
            Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(body)
                .map_err(http_client::Error::Protocol)
        }
    }

    fn send_multipart<U>(
        &self,
        _req: Request<MultipartForm>,
    ) -> impl Future<Output = http_client::Result<Response<LazyBody<U>>>> + Send + 'static
    where
        U: From<Bytes> + Send + 'static,
    {
        std::future::ready(Err(http_client::Error::instance(Unsupported(
            "multipart requests",
        ))))
    }

    fn send_streaming<T>(
        &self,
        _req: Request<T>,
    ) -> impl Future<Output = http_client::Result<StreamingResponse>> + Send
    where
        T: Into<Bytes> + Send,
    {
        std::future::ready(Err(http_client::Error::instance(Unsupported(
            "streamed requests",
        ))))
    }
}

impl std::fmt::Debug for ScriptedChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedChat")
            .field("requests", &self.requests().len())
            .finish()
    }
}
