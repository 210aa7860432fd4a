//! Completion of a prompt's arguments and of a resource template's parameters (MCP
//! `completion/complete`): asked of the provider that offers the prompt or the template, and
//! bounded to what one answer may carry.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, Reference};

use crate::principal::Principal;
use crate::server::McpServer;

/// What [`PromptProvider::complete`](crate::PromptProvider::complete) and
/// [`ResourceProvider::complete`](crate::ResourceProvider::complete) return: the values that
/// complete an argument, best first (the server sends the first 100, with `hasMore` and
/// `total` saying how many there were), or the JSON-RPC error the client gets.
pub type CompletionFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<String>, ErrorData>> + Send + 'a>>;

/// Answers `completion/complete` from the provider of the prompt or template it names; one the
/// requester may not see is answered as one that does not exist.
pub(crate) async fn complete(
    server: &McpServer,
    principal: &Principal,
    request: CompleteRequestParams,
) -> Result<CompleteResult, ErrorData> {
    let context = request
        .context
        .and_then(|context| context.arguments)
        .unwrap_or_default();
    let argument = request.argument;
    let values = match request.r#ref {
        Reference::Prompt(prompt) => {
            let provider = server.prompt_provider().ok_or_else(no_completion)?;
            let offered = provider
                .prompts()
                .iter()
                .any(|offered| offered.name == prompt.name);
            if !offered || !server.offers_to(principal, &prompt.name) {
                return Err(provider.unknown_prompt(&prompt.name));
            }
            provider
                .complete(prompt.name, argument.name, argument.value, context)
                .await?
        }
        Reference::Resource(template) => {
            let provider = server.resource_provider().ok_or_else(no_completion)?;
            let offered = (provider.resource_templates().iter())
                .any(|offered| offered.uri_template == template.uri);
            if !offered || !server.offers_to(principal, &template.uri) {
                return Err(ErrorData::invalid_params(
                    format!("no resource template `{}`", template.uri),
                    None,
                ));
            }
            provider
                .complete(template.uri, argument.name, argument.value, context)
                .await?
        }
        _ => {
            return Err(ErrorData::invalid_params(
                "a completion's `ref` must be a `ref/prompt` or a `ref/resource`",
                None,
            ));
        }
    };
    Ok(CompleteResult::new(bounded(values)))
}

/// At most [`CompletionInfo::MAX_VALUES`] values, the rest counted.
fn bounded(mut values: Vec<String>) -> CompletionInfo {
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let mut info = CompletionInfo::default();
    info.has_more = Some(total > values.len());
    info.total = u32::try_from(total).ok();
    info.values = values;
    info
}

fn no_completion() -> ErrorData {
    ErrorData::method_not_found::<rmcp::model::CompleteRequestMethod>()
}
