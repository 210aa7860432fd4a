//! Prompts an `McpServer` offers: [`PromptProvider`].

use std::future::Future;
use std::pin::Pin;

use std::collections::HashMap;

use lazytool_runtime::ToolContext;
use rmcp::model::{ErrorData, GetPromptResult, JsonObject, Prompt};
use tokio::sync::watch;

use super::completion::CompletionFuture;

/// What [`PromptProvider::get_prompt`] returns: the prompt's messages, or the JSON-RPC error
/// the client gets (`-32602` for a name that is no prompt's, or for missing arguments).
pub type PromptFuture<'a> =
    Pin<Box<dyn Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'a>>;

/// The prompts a server offers (MCP `prompts/list` and `prompts/get`): a program's own, or
/// an MCP gateway's upstreams' (`McpCatalog` is one).
///
/// Given to `McpServer::prompts`, it makes the server announce
/// the `prompts` capability (with `listChanged`), list [`prompts`](PromptProvider::prompts)
/// page by page, answer `prompts/get` with [`get_prompt`](PromptProvider::get_prompt), and
/// send `notifications/prompts/list_changed` on each change of
/// [`changes`](PromptProvider::changes).
///
/// ```
/// use lazytool_mcp_core::rmcp::model::{ErrorData, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
/// use lazytool_mcp_core::{PromptFuture, PromptProvider};
///
/// /// One prompt, `review`, with a required `language` argument.
/// struct Review;
///
/// impl PromptProvider for Review {
///     fn prompts(&self) -> Vec<Prompt> {
///         let language = PromptArgument::new("language").with_required(true);
///         vec![Prompt::new("review", Some("Review the code in a language."), Some(vec![language]))]
///     }
///
///     fn get_prompt(&self, name: String, arguments: JsonObject) -> PromptFuture<'_> {
///         Box::pin(async move {
///             if name != "review" {
///                 return Err(ErrorData::invalid_params(format!("no prompt named `{name}`"), None));
///             }
///             let language = arguments.get("language").and_then(|value| value.as_str())
///                 .ok_or_else(|| ErrorData::invalid_params("`language` is required", None))?;
///             let text = format!("Review this {language} code for bugs.");
///             Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
///         })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let mut arguments = JsonObject::new();
/// arguments.insert("language".into(), "Rust".into());
/// let prompt = Review.get_prompt("review".into(), arguments).await.unwrap();
/// assert_eq!(prompt.messages.len(), 1);
/// assert_eq!(Review.get_prompt("nope".into(), JsonObject::new()).await.unwrap_err().code.0, -32602);
/// # }
/// ```
pub trait PromptProvider: Send + Sync + 'static {
    /// Every prompt offered now, in the order clients list them (names unique).
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, JsonObject, Prompt};
    /// # use lazytool_mcp_core::{PromptFuture, PromptProvider};
    /// struct Nothing;
    /// impl PromptProvider for Nothing {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         Vec::new()
    ///     }
    ///     fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move { Err(ErrorData::invalid_params(format!("no prompt named `{name}`"), None)) })
    ///     }
    /// }
    /// assert!(Nothing.prompts().is_empty());
    /// ```
    fn prompts(&self) -> Vec<Prompt>;

    /// The messages of the prompt `name` filled with `arguments`. A name that is no
    /// prompt's should be `-32602` ([`ErrorData::invalid_params`]), as the MCP specification
    /// says.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, GetPromptResult, JsonObject, Prompt, PromptMessage, Role};
    /// # use lazytool_mcp_core::{PromptFuture, PromptProvider};
    /// struct Hello;
    /// impl PromptProvider for Hello {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         vec![Prompt::new("hello", None::<String>, None)]
    ///     }
    ///     fn get_prompt(&self, _name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async { Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, "Hello!")])) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// assert_eq!(Hello.get_prompt("hello".into(), JsonObject::new()).await.unwrap().messages.len(), 1);
    /// # }
    /// ```
    fn get_prompt(&self, name: String, arguments: JsonObject) -> PromptFuture<'_>;

    /// [`get_prompt`](PromptProvider::get_prompt) in the context of its request, for a prompt
    /// that asks its client for input ([`ToolContext::ask`]: on 2026-07-28 the request ends
    /// with an input-required result and comes again with the answers, as a tool's does).
    /// Default: `get_prompt`, which asks nothing.
    ///
    /// ```
    /// use lazytool_mcp_core::rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptMessage, Role};
    /// use lazytool_mcp_core::{PromptFuture, PromptProvider};
    /// use lazytool_runtime::ToolContext;
    /// use serde_json::json;
    ///
    /// /// A prompt about a topic the user chooses.
    /// struct Essay;
    /// impl PromptProvider for Essay {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         vec![Prompt::new("essay", Some("An essay on a topic the user picks."), None)]
    ///     }
    ///     fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_prompt(&name)) })
    ///     }
    ///     fn get_prompt_in(&self, _name: String, _: JsonObject, context: ToolContext) -> PromptFuture<'_> {
    ///         Box::pin(async move {
    ///             let form = json!({"type": "object", "properties": {"topic": {"type": "string"}}});
    ///             let asked = context.elicit("topic", "Which topic?", form).await;
    ///             let topic = asked.ok().and_then(|answer| answer.content).map_or("anything".into(), |content| content["topic"].to_string());
    ///             Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, format!("Write an essay on {topic}."))]))
    ///         })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// // Outside MCP nobody can be asked: the prompt does without.
    /// let prompt = Essay.get_prompt_in("essay".into(), JsonObject::new(), ToolContext::new()).await.unwrap();
    /// assert_eq!(prompt.messages.len(), 1);
    /// # }
    /// ```
    fn get_prompt_in(
        &self,
        name: String,
        arguments: JsonObject,
        context: ToolContext,
    ) -> PromptFuture<'_> {
        let _ = context;
        self.get_prompt(name, arguments)
    }

    /// A receiver that changes whenever [`prompts`](PromptProvider::prompts) does; `None`
    /// (the default) for prompts that never change.
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, JsonObject, Prompt};
    /// # use lazytool_mcp_core::{PromptFuture, PromptProvider};
    /// use std::sync::Mutex;
    /// use tokio::sync::watch;
    ///
    /// /// Prompts a program adds while it serves.
    /// struct Growing {
    ///     prompts: Mutex<Vec<Prompt>>,
    ///     changed: watch::Sender<u64>,
    /// }
    ///
    /// impl Growing {
    ///     fn add(&self, prompt: Prompt) {
    ///         self.prompts.lock().unwrap().push(prompt);
    ///         self.changed.send_modify(|generation| *generation += 1);
    ///     }
    /// }
    ///
    /// impl PromptProvider for Growing {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         self.prompts.lock().unwrap().clone()
    ///     }
    ///     fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move { Err(ErrorData::invalid_params(format!("no prompt named `{name}`"), None)) })
    ///     }
    ///     fn changes(&self) -> Option<watch::Receiver<u64>> {
    ///         Some(self.changed.subscribe())
    ///     }
    /// }
    ///
    /// let growing = Growing { prompts: Mutex::default(), changed: watch::Sender::new(0) };
    /// let mut changes = growing.changes().unwrap();
    /// growing.add(Prompt::new("summarize", None::<String>, None));
    /// assert!(changes.has_changed().unwrap());
    /// ```
    fn changes(&self) -> Option<watch::Receiver<u64>> {
        None
    }

    /// Values that complete the argument `argument` of the prompt `prompt`, whose text so far
    /// is `value` (MCP `completion/complete`), best first; `context` holds the arguments the
    /// client has filled already. Asked only for a prompt that [`prompts`](PromptProvider::prompts)
    /// lists and the requester may see. Default: no values.
    ///
    /// ```
    /// # use std::collections::HashMap;
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, JsonObject, Prompt, PromptArgument};
    /// # use lazytool_mcp_core::{CompletionFuture, PromptFuture, PromptProvider};
    /// const LANGUAGES: [&str; 4] = ["Go", "Python", "Rust", "Ruby"];
    ///
    /// struct Review;
    /// impl PromptProvider for Review {
    ///     fn prompts(&self) -> Vec<Prompt> {
    ///         vec![Prompt::new("review", None::<String>, Some(vec![PromptArgument::new("language")]))]
    ///     }
    ///     fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_prompt(&name)) })
    ///     }
    ///     fn complete(&self, _prompt: String, argument: String, value: String, _: HashMap<String, String>) -> CompletionFuture<'_> {
    ///         Box::pin(async move {
    ///             if argument != "language" {
    ///                 return Ok(Vec::new());
    ///             }
    ///             Ok(LANGUAGES.iter().filter(|language| language.starts_with(&value)).map(|language| language.to_string()).collect())
    ///         })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let values = Review.complete("review".into(), "language".into(), "R".into(), HashMap::new()).await.unwrap();
    /// assert_eq!(values, ["Rust", "Ruby"]);
    /// # }
    /// ```
    fn complete(
        &self,
        prompt: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        let _ = (prompt, argument, value, context);
        Box::pin(async { Ok(Vec::new()) })
    }

    /// The error for a prompt `name` that does not exist, also answered for one the
    /// requester may not see (`McpServer::allow_offers_for`),
    /// so that the two cannot be told apart; default: `-32602` "no prompt named `NAME`".
    ///
    /// ```
    /// # use lazytool_mcp_core::rmcp::model::{ErrorData, JsonObject, Prompt};
    /// # use lazytool_mcp_core::{PromptFuture, PromptProvider};
    /// struct Nothing;
    /// impl PromptProvider for Nothing {
    ///     fn prompts(&self) -> Vec<Prompt> { Vec::new() }
    ///     fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
    ///         Box::pin(async move { Err(self.unknown_prompt(&name)) })
    ///     }
    /// }
    /// assert!(Nothing.unknown_prompt("x").message.contains("no prompt named `x`"));
    /// ```
    fn unknown_prompt(&self, name: &str) -> ErrorData {
        ErrorData::invalid_params(format!("no prompt named `{name}`"), None)
    }
}
