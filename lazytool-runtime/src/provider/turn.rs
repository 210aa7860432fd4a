//! One model turn answered in one call: its tool calls run through the session, their
//! results built in the provider's shape.

use serde_json::Value;

use crate::call::{ToolCall, ToolResult};
use crate::session::Session;

/// A model turn whose tool calls ran: the calls, their results (in call order), and the
/// messages (or items, or contents) that return the results, in the provider's shape, to
/// append to the history. Each provider module's `run_turn` builds one.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::provider::openai_chat;
/// use lazytool_runtime::{Registry, ToolCall};
/// use serde_json::json;
///
/// let registry = Registry::builder().without_inventory().build().unwrap();
/// let call = ToolCall { id: "call_1".into(), name: "missing".into(), arguments: json!("{}") };
/// let turn = openai_chat::run_turn(&registry.session(), vec![call], 4).await;
/// for (call, result) in turn.iter() {
///     assert_eq!((call.id.as_str(), result.is_error()), ("call_1", true));
/// }
/// assert_eq!(turn.messages[0]["tool_call_id"], "call_1");
/// # }
/// ```
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
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::Registry;
    /// use lazytool_runtime::provider::anthropic;
    /// use serde_json::json;
    ///
    /// let registry = Registry::builder().without_inventory().build().unwrap();
    /// let answer = json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]});
    /// let turn = anthropic::run_response(&registry.session(), &answer, 4).await.unwrap();
    /// assert!(turn.is_empty() && turn.messages.is_empty());
    /// # }
    /// ```
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls with their results, in call order.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{Registry, ToolCall};
    /// use lazytool_runtime::provider::gemini;
    /// use serde_json::json;
    ///
    /// let registry = Registry::builder().without_inventory().build().unwrap();
    /// let call = ToolCall { id: "gemini-call-0".into(), name: "missing".into(), arguments: json!({}) };
    /// let turn = gemini::run_turn(&registry.session(), vec![call], 4).await;
    /// for (call, result) in turn.iter() {
    ///     assert_eq!((call.name.as_str(), result.is_error()), ("missing", true));
    /// }
    /// # }
    /// ```
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

/// One message (or block, or part) per call of a turn, built by `build`, in call order.
pub(crate) fn each<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
    build: impl Fn(&ToolCall, &ToolResult) -> Value,
) -> Vec<Value> {
    turn.into_iter()
        .map(|(call, result)| build(call, result))
        .collect()
}

/// Defines a format's `run_turn`, whose messages `$results` builds, and with `$parse` (its
/// response parser, in the provider module `$module`) `run_response`. The attributes given
/// are `run_turn`'s own docs.
macro_rules! turn_functions {
    ($(#[$doc:meta])* results: $results:path $(, parse: $parse:path, module: $module:literal)?) => {
        /// Runs the tool calls of one model turn through `session`
        /// ([`Session::call_turn`](crate::Session::call_turn): at most `concurrency` at a time,
        /// gated by the state at the start of the turn) and returns them with their results
        #[doc = concat!(
            "and what returns the results to the model ([`",
            stringify!($results),
            "`]), in call order; no message when there were no calls."
        )]
        ///
        $(#[$doc])*
        pub fn run_turn(
            session: &crate::Session,
            calls: Vec<crate::ToolCall>,
            concurrency: usize,
        ) -> impl Future<Output = crate::provider::Turn> + Send + 'static {
            crate::provider::turn::run(session, calls, concurrency, |calls, results| {
                $results(calls.iter().zip(results))
            })
        }

        $(
            #[doc = concat!(
                "[`run_turn`] on the calls of a response ([`",
                stringify!($parse),
                "`]); an error if they cannot be read. [`run_turn`]'s example calls it.\n\n",
                "```\n",
                "# #[tokio::main(flavor = \"current_thread\")] async fn main() {\n",
                "use lazytool_runtime::provider::", $module, ";\n\n",
                "let session = lazytool_runtime::Registry::builder().build().unwrap().session();\n",
                "// Not a response: an error, and nothing runs.\n",
                "let read = ", $module, "::run_response(&session, &serde_json::json!(42), 4).await;\n",
                "assert!(read.is_err());\n",
                "# }\n",
                "```"
            )]
            pub fn run_response(
                session: &crate::Session,
                response: &serde_json::Value,
                concurrency: usize,
            ) -> impl Future<Output = Result<crate::provider::Turn, crate::provider::ParseError>>
            + Send
            + 'static {
                let turn = $parse(response).map(|calls| run_turn(session, calls, concurrency));
                async move { Ok(turn?.await) }
            }
        )?
    };
}

pub(crate) use turn_functions;
