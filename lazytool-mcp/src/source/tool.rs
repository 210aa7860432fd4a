//! An upstream tool as a [`DynamicTool`] that forwards its calls.

use std::sync::Arc;
use std::time::Duration;

use lazytool_runtime::{DynamicTool, ToolAnnotations, ToolContext, ToolOutput, ToolResult};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value};

use super::link::Link;
use super::lock::Pins;
use super::naming::exposed_name;
use crate::content::McpContent;

#[derive(Clone)]
pub(crate) struct Forward {
    pub(crate) link: Arc<Link>,
    pub(crate) pins: Arc<Pins>,
    pub(crate) call_timeout: Duration,
}

pub(crate) fn dynamic_tool(prefix: &str, tool: Tool, forward: Forward) -> DynamicTool {
    let upstream_name: Arc<str> = Arc::from(tool.name.as_ref());
    let input_schema = Value::Object(Map::clone(&tool.input_schema));
    let description = tool.description.as_deref().unwrap_or_default().to_owned();
    let handler = move |arguments: Value, context: ToolContext| {
        let (forward, name) = (forward.clone(), Arc::clone(&upstream_name));
        async move { forward.call(&name, arguments, context).await }
    };
    let mut dynamic = DynamicTool::new(
        exposed_name(prefix, &tool.name),
        description,
        input_schema,
        handler,
    );
    if let Some(output) = &tool.output_schema {
        dynamic = dynamic.output_schema(Value::Object(Map::clone(output)));
    }
    if let Some(hints) = &tool.annotations {
        dynamic = dynamic.annotations(ToolAnnotations {
            title: hints.title.clone().or(tool.title.clone()).map(Into::into),
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
        });
    } else if let Some(title) = &tool.title {
        dynamic = dynamic.annotations(ToolAnnotations {
            title: Some(title.clone().into()),
            ..ToolAnnotations::default()
        });
    }
    dynamic
}

impl Forward {
    /// Runs the call upstream. Every failure is the error text the model reads.
    async fn call(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolResult, String> {
        self.forward(name, arguments, context)
            .await
            .map_err(|error| self.link.redact(&error))
    }

    async fn forward(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<ToolResult, String> {
        let _busy = self.link.busy();
        let peer = self.link.peer().await?;
        // Checked against the definitions of this run: a changed tool never runs under the
        // schema a client discovered before the change.
        if let Some(refusal) = self.pins.refusal(&self.link, &peer, name).await? {
            return Err(refusal);
        }
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        // Dropping the request (cancelled, timed out) sends `notifications/cancelled`.
        let call = tokio::time::timeout(self.call_timeout, peer.call_tool(params));
        let result = tokio::select! {
            result = call => result,
            () = context.cancellation().cancelled() => return Err("the call was cancelled".to_owned()),
        };
        match result {
            Err(_) => Err(format!(
                "the MCP server `{}` did not answer within {:?}",
                self.link.server(),
                self.call_timeout
            )),
            Ok(Err(error)) => Err(format!(
                "the MCP server `{}` failed: {error}",
                self.link.server()
            )),
            Ok(Ok(result)) => answer(result),
        }
    }
}

/// The upstream's result as it came: its blocks (and structured content), or its `isError`.
fn answer(result: CallToolResult) -> Result<ToolResult, String> {
    if result.is_error == Some(true) {
        return Err(text_of(&result.content));
    }
    let content = McpContent {
        content: result.content,
        structured: result.structured_content,
    };
    Ok(content.into_tool_result())
}

/// The text of an error result: its text blocks, and a mention of any other block.
fn text_of(content: &[ContentBlock]) -> String {
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => format!("[{} content]", kind(other)),
        })
        .collect();
    if parts.is_empty() {
        "the MCP server reported an error without a message".to_owned()
    } else {
        parts.join("\n")
    }
}

fn kind(content: &ContentBlock) -> &'static str {
    match content {
        ContentBlock::Text(_) => "text",
        ContentBlock::Image(_) => "image",
        ContentBlock::Audio(_) => "audio",
        ContentBlock::Resource(_) => "resource",
        ContentBlock::ResourceLink(_) => "resource link",
        _ => "other",
    }
}
