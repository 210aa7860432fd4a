//! What a connection serves besides tools: the server's prompts and resources, listed page by
//! page, got (asking the client for input, as a tool may), read, and their changes announced.

use std::sync::Arc;

use lazytool_runtime::{Registry, ToolContext};
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, GetPromptRequestParams,
    GetPromptResponse, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod,
    ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    Reference,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::pages::page;
use crate::Principal;
use crate::input::asking::{Asked, Asking};
use crate::input::round::RoundEnd;
use crate::server::McpServer;

const TARGET: &str = "lazytool::mcp";

pub(crate) async fn list_prompts(
    server: &McpServer,
    principal: &Principal,
    request: Option<PaginatedRequestParams>,
) -> Result<ListPromptsResult, ErrorData> {
    let provider = server
        .prompt_provider()
        .ok_or_else(ErrorData::method_not_found::<ListPromptsRequestMethod>)?;
    let mut prompts = provider.prompts();
    prompts.retain(|prompt| server.offers_to(principal, &prompt.name));
    let (prompts, next) = page(prompts, request.as_ref(), server.list_page_size())?;
    let mut result = ListPromptsResult::with_all_items(prompts);
    result.next_cursor = next;
    Ok(result)
}

pub(crate) async fn get_prompt(
    server: &McpServer,
    principal: &Principal,
    request: GetPromptRequestParams,
    context: &RequestContext<RoleServer>,
    stateless: bool,
) -> Result<GetPromptResponse, ErrorData> {
    let provider = server
        .prompt_provider()
        .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetPromptRequestMethod>)?;
    if !server.offers_to(principal, &request.name) {
        return Err(provider.unknown_prompt(&request.name));
    }
    let arguments = request.arguments.unwrap_or_default();
    let asked = Asked {
        method: "prompts/get",
        name: &request.name,
        arguments: &Value::Object(arguments.clone()),
        responses: request.input_responses,
        state: request.request_state,
    };
    let asking = Asking::begin(server, principal, context, stateless, asked)?;
    let prompt_context = ToolContext::new()
        .with_cancellation(context.ct.clone())
        .with_input(Arc::clone(&asking.channel));
    let prompt = provider
        .get_prompt_in(request.name, arguments, prompt_context)
        .await;
    match asking.end(server, prompt.is_err()) {
        RoundEnd::Complete => prompt.map(GetPromptResponse::Complete),
        RoundEnd::InputRequired(required) => Ok(GetPromptResponse::InputRequired(required)),
        RoundEnd::Refused(error) => Err(error),
    }
}

pub(crate) async fn list_resources(
    server: &McpServer,
    principal: &Principal,
    request: Option<PaginatedRequestParams>,
) -> Result<ListResourcesResult, ErrorData> {
    let provider = server
        .resource_provider()
        .ok_or_else(ErrorData::method_not_found::<ListResourcesRequestMethod>)?;
    let mut resources = provider.resources();
    resources.retain(|resource| server.offers_to(principal, &resource.uri));
    let (resources, next) = page(resources, request.as_ref(), server.list_page_size())?;
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = next;
    Ok(result)
}

pub(crate) async fn list_resource_templates(
    server: &McpServer,
    principal: &Principal,
    request: Option<PaginatedRequestParams>,
) -> Result<ListResourceTemplatesResult, ErrorData> {
    let provider = server
        .resource_provider()
        .ok_or_else(ErrorData::method_not_found::<ListResourceTemplatesRequestMethod>)?;
    let mut templates = provider.resource_templates();
    templates.retain(|template| server.offers_to(principal, &template.uri_template));
    let (templates, next) = page(templates, request.as_ref(), server.list_page_size())?;
    let mut result = ListResourceTemplatesResult::with_all_items(templates);
    result.next_cursor = next;
    Ok(result)
}

pub(crate) async fn read_resource(
    server: &McpServer,
    principal: &Principal,
    request: ReadResourceRequestParams,
) -> Result<ReadResourceResponse, ErrorData> {
    let provider = server
        .resource_provider()
        .ok_or_else(ErrorData::method_not_found::<rmcp::model::ReadResourceRequestMethod>)?;
    if !server.offers_to(principal, &request.uri) {
        return Err(provider.unknown_resource(&request.uri));
    }
    provider
        .read_resource(request.uri)
        .await
        .map(ReadResourceResponse::Complete)
}

/// Which list changed.
#[derive(Clone, Copy, Debug)]
enum List {
    Prompts,
    Resources,
}

/// Sends a stateful client `notifications/prompts/list_changed` and
/// `notifications/resources/list_changed` on each change of the server's providers, until
/// its input ends. Providers that never change spawn nothing.
pub(crate) fn announce_changes(
    server: &McpServer,
    peer: &Peer<RoleServer>,
    closed: &CancellationToken,
) {
    for (list, changes) in changes_of(server) {
        let (peer, closed) = (peer.clone(), closed.clone());
        tokio::spawn(async move {
            let mut changes = changes;
            while let Some(Ok(())) = closed.run_until_cancelled(changes.changed()).await {
                let sent = match list {
                    List::Prompts => peer.notify_prompt_list_changed().await,
                    List::Resources => peer.notify_resource_list_changed().await,
                };
                if let Err(error) = sent {
                    tracing::debug!(target: TARGET, ?list, %error, "cannot send list_changed");
                    return;
                }
            }
        });
    }
}

/// Serves a 2026-07-28 `subscriptions/listen` stream: the tool, prompt and resource list
/// changes it accepted, until it is cancelled or the client's input ends.
pub(crate) async fn listen(
    server: &McpServer,
    context: SubscriptionContext,
    closed: &CancellationToken,
) {
    let accepted = context.accepted().clone();
    // The catalog changes only when the server serves a live one (`McpServer::live`).
    let mut tools = (accepted.tools_list_changed == Some(true)).then(|| {
        let mut catalog = server.catalog();
        catalog.mark_unchanged();
        catalog
    });
    let (mut prompts, mut resources) = (None, None);
    for (list, changes) in changes_of(server) {
        match list {
            List::Prompts if accepted.prompts_list_changed == Some(true) => prompts = Some(changes),
            List::Resources if accepted.resources_list_changed == Some(true) => {
                resources = Some(changes);
            }
            _ => {}
        }
    }
    // The resources it subscribed to, watched by the provider first.
    let watched: Vec<String> = accepted.resource_subscriptions.clone().unwrap_or_default();
    let mut updates = match (server.resource_provider(), watched.is_empty()) {
        (Some(provider), false) => {
            for uri in &watched {
                if let Err(error) = provider.watch(uri.clone()).await {
                    tracing::debug!(target: TARGET, %uri, message = %error.message, "a resource of a subscription is not watched");
                }
            }
            provider.updates()
        }
        _ => None,
    };
    loop {
        let sent = tokio::select! {
            () = context.cancelled() => return,
            () = closed.cancelled() => return,
            Some(Ok(())) = catalog_changed(&mut tools) => context.sink().notify_tool_list_changed().await,
            Some(Ok(())) = changed(&mut prompts) => context.sink().notify_prompt_list_changed().await,
            Some(Ok(())) = changed(&mut resources) => context.sink().notify_resource_list_changed().await,
            Some(uri) = updated(&mut updates) => {
                if !watched.contains(&uri) {
                    continue;
                }
                context.sink().notify_resource_updated(uri).await
            }
        };
        if let Err(error) = sent {
            tracing::debug!(target: TARGET, %error, "cannot send list_changed on a subscription");
            return;
        }
    }
}

/// The URI of the next resource update (lagged ones skipped); pending forever without a
/// receiver, `None` once the provider stopped announcing.
async fn updated(updates: &mut Option<broadcast::Receiver<String>>) -> Option<String> {
    let receiver = match updates {
        Some(receiver) => receiver,
        None => return std::future::pending().await,
    };
    loop {
        match receiver.recv().await {
            Ok(uri) => return Some(uri),
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => {
                *updates = None;
                return std::future::pending().await;
            }
        }
    }
}

/// The next change of the catalog; pending forever without a receiver.
async fn catalog_changed(
    catalog: &mut Option<watch::Receiver<Registry>>,
) -> Option<Result<(), watch::error::RecvError>> {
    match catalog {
        Some(catalog) => Some(catalog.changed().await),
        None => std::future::pending().await,
    }
}

/// The next change of `changes`; pending forever without a receiver.
async fn changed(
    changes: &mut Option<watch::Receiver<u64>>,
) -> Option<Result<(), watch::error::RecvError>> {
    match changes {
        Some(changes) => Some(changes.changed().await),
        None => std::future::pending().await,
    }
}

/// A receiver of each provider's changes, marked seen.
fn changes_of(server: &McpServer) -> Vec<(List, watch::Receiver<u64>)> {
    let prompts = server
        .prompt_provider()
        .and_then(|provider| provider.changes());
    let resources = server
        .resource_provider()
        .and_then(|provider| provider.changes());
    [(List::Prompts, prompts), (List::Resources, resources)]
        .into_iter()
        .filter_map(|(list, changes)| {
            let mut changes = changes?;
            changes.mark_unchanged();
            Some((list, changes))
        })
        .collect()
}

/// Answers `completion/complete` (a prompt's argument, a template's parameter) from the provider of the prompt or template it names; one the
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
