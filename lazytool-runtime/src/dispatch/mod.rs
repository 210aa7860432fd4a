//! Running one call, in the order it happens:
//!
//! 1. [`admission`]: the arguments are checked against the [limits](crate::CallLimits)
//!    before anything walks them, normalized to an object ([`arguments`]), cleared of the
//!    `null`s strict-mode models send for optional properties, validated against the tool's
//!    schema ([`validation`]), repaired when a model sent an object as a JSON-encoded string,
//!    and handed to the tool's handler, which parses them and builds the tool's future
//!    (nothing of the tool runs yet).
//! 2. [`run`]: the future is polled with panics caught, under the timeout ([`deadline`]),
//!    which is armed only if the tool is still pending after its first poll.
//! 3. The result: the tool's output cut to the output limit, or an error result for every
//!    failure on the way. Nothing here panics or returns an `Err`: the model gets a result it
//!    can act on.
//!
//! [`turn`] runs the admitted calls of one model turn concurrently. Gating by discovery
//! (which calls may be admitted at all) is the [session](crate::Session)'s, above this layer.

mod admission;
mod arguments;
mod deadline;
mod deserializer;
mod finite;
mod integers;
mod navigate;
mod output;
mod panic;
mod parse;
mod run;
mod screen;
mod slots;
mod span;
mod turn;
mod validation;

use serde_json::Value;

pub(crate) use admission::{Admitted, admit};
pub(crate) use arguments::{invalid, normalize};
pub use output::ToolOutput;
pub(crate) use panic::panic_message;
pub(crate) use parse::parse_arguments;
pub(crate) use run::run;
pub(crate) use screen::{bound, recheck, refuse, screen};
pub use slots::{Slot, members};
pub(crate) use span::answered;
pub(crate) use turn::run_all;

use crate::call::{ToolContext, ToolResult};
use crate::tool::Tool;

impl Tool {
    /// Calls the tool: normalizes the arguments (an object, a JSON-encoded object, or
    /// nothing; `null` for an optional property means it was not given), validates them
    /// against the schema (repairing objects and arrays sent as JSON-encoded strings), runs
    /// the tool with panics caught and under its timeout, and turns every failure into an
    /// error result.
    ///
    /// The future owns what it needs, so it can be spawned.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DynamicTool, Registry, ToolContext};
    /// use serde_json::json;
    ///
    /// let upper = DynamicTool::new(
    ///     "upper",
    ///     "Uppercases a text.",
    ///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(arguments["text"].as_str().unwrap_or_default().to_uppercase())) },
    /// );
    /// let registry = Registry::builder().without_inventory().tool(upper).build().unwrap();
    /// let tool = registry.get("upper").unwrap();
    /// let result = tool.call(json!({"text": "hi"}), ToolContext::new()).await;
    /// assert_eq!(result.content(), "HI");
    /// let result = tool.call(json!({"text": 1}), ToolContext::new()).await;
    /// assert!(result.is_error());
    /// # }
    /// ```
    pub fn call(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        run(admit(self, arguments, context))
    }
}
