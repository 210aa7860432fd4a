//! The Responses API in async-openai's types: function `Tool`s, the function calls among a
//! response's `OutputItem`s, and `function_call_output` input items.

use std::borrow::Borrow;

use ::async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, InputItem, Item, OutputItem,
    Tool,
};
use serde_json::Value;

use crate::provider::openai_responses::{self, OpenAiResponsesOptions};
use crate::{Session, ToolCall, ToolDefinition, ToolResult};

/// `tools` as async-openai's Responses tools (the request's `tools`), rendered as
/// [`openai_responses::render_tools`] renders them.
///
/// ```
/// use lazytool_runtime::provider::{async_openai, openai_responses::OpenAiResponsesOptions};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use ::async_openai::types::responses::Tool;
/// use serde_json::json;
///
/// let time = DynamicTool::new("get_time", "The time.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("12:00")) });
/// let registry = Registry::builder().without_inventory().tool(time).build().unwrap();
/// let tools = async_openai::responses::tools(&registry.session().active_tools(), &OpenAiResponsesOptions::default());
/// let Tool::Function(tool) = &tools[0] else { unreachable!() };
/// assert_eq!(tool.name, "get_time");
/// ```
pub fn tools<D: Borrow<ToolDefinition>>(
    tools: &[D],
    options: &OpenAiResponsesOptions,
) -> Vec<Tool> {
    let rendered = openai_responses::render_tools(tools, options);
    let rendered = rendered.as_array().map(Vec::as_slice).unwrap_or_default();
    rendered
        .iter()
        .map(|tool| {
            Tool::Function(FunctionTool {
                name: tool["name"].as_str().unwrap_or_default().to_owned(),
                parameters: tool.get("parameters").cloned(),
                strict: tool["strict"].as_bool(),
                description: tool["description"].as_str().map(str::to_owned),
                defer_loading: None,
                r#async: None,
                output_schema: None,
                allowed_callers: None,
            })
        })
        .collect()
}

/// The function calls among a response's output items, in order (`call_id` as the id);
/// other items (messages, reasoning, hosted tools) are skipped. A custom tool's call comes
/// with its free-form input as the arguments string, so that it is answered with an error
/// result rather than dropped.
///
/// ```
/// use ::async_openai::types::responses::OutputItem;
/// use serde_json::json;
///
/// let output: Vec<OutputItem> = serde_json::from_value(json!([
///     {"type": "function_call", "call_id": "call_1", "name": "get_time", "arguments": "{}",
///      "id": "fc_1", "status": "completed"}
/// ])).unwrap();
/// let calls = lazytool_runtime::provider::async_openai::responses::tool_calls(&output);
/// assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("call_1", "get_time"));
/// ```
pub fn tool_calls(output: &[OutputItem]) -> Vec<ToolCall> {
    output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(call) => Some(ToolCall {
                id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: Value::String(call.arguments.clone()),
            }),
            OutputItem::CustomToolCall(call) => Some(ToolCall {
                id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: Value::String(call.input.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// The `function_call_output` input item that returns `result` for `call`, as
/// [`openai_responses::tool_result_item`] writes it (text, or content blocks for images and
/// files).
///
/// ```
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!("{}") };
/// let item = lazytool_runtime::provider::async_openai::responses::tool_output(&call, &ToolResult::success(json!(5)));
/// assert_eq!(serde_json::to_value(&item).unwrap(),
///     json!({"type": "function_call_output", "call_id": "call_1", "output": "5"}));
/// ```
pub fn tool_output(call: &ToolCall, result: &ToolResult) -> InputItem {
    let rendered = openai_responses::tool_result_item(call, result);
    let output = match &rendered["output"] {
        Value::String(text) => FunctionCallOutput::Text(text.clone()),
        // Blocks lazytool writes in the Responses API's own shape: they always read.
        blocks => serde_json::from_value(blocks.clone())
            .map(FunctionCallOutput::Content)
            .unwrap_or_else(|_| FunctionCallOutput::Text(result.text())),
    };
    InputItem::Item(Item::FunctionCallOutput(FunctionCallOutputItemParam {
        call_id: Some(call.id.clone()),
        output,
        id: None,
        status: None,
        name: None,
        namespace: None,
        caller: None,
    }))
}

/// Runs the function calls among `output` through `session` ([`openai_responses::run_turn`]:
/// at most `concurrency` at a time, gated by the state at the start of the turn) and returns
/// one [`tool_output`] per call, in call order, for the next request's input.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use ::async_openai::types::responses::OutputItem;
/// use lazytool_runtime::provider::async_openai;
/// use lazytool_runtime::Registry;
/// use serde_json::json;
///
/// let session = Registry::builder().without_inventory().build().unwrap().session();
/// let output: Vec<OutputItem> = serde_json::from_value(json!([
///     {"type": "function_call", "call_id": "call_1", "name": "nope", "arguments": "{}"}
/// ])).unwrap();
/// let items = async_openai::responses::run_turn(&session, &output, 4).await;
/// let answer = serde_json::to_value(&items[0]).unwrap();
/// assert!(answer["output"].as_str().unwrap().starts_with("Error: unknown tool 'nope'"));
/// # }
/// ```
pub fn run_turn(
    session: &Session,
    output: &[OutputItem],
    concurrency: usize,
) -> impl Future<Output = Vec<InputItem>> + Send + 'static {
    let turn = openai_responses::run_turn(session, tool_calls(output), concurrency);
    async move {
        let turn = turn.await;
        turn.calls
            .iter()
            .zip(&turn.results)
            .map(|(call, result)| tool_output(call, result))
            .collect()
    }
}
