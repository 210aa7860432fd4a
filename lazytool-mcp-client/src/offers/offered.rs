//! What an upstream offers besides tools, as the gateway serves it: [`PromptsAndResources`],
//! fetched by [`McpSource::prompts_and_resources`]; `prompts/get` and `resources/read`
//! forwarded to it.

use std::collections::HashMap;
use std::sync::Arc;

use lazytool_runtime::ToolContext;
use rmcp::ServiceError;
use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequestParams, CompletionContext, ErrorCode, ErrorData,
    GetPromptRequest, GetPromptRequestParams, GetPromptResult, JsonObject, Prompt,
    ReadResourceRequestParams, ReadResourceResult, Reference, Resource, ResourceTemplate,
    ServerResult,
};
use serde::Serialize;

use crate::lock::file::{LiveOffers, Pinned, ServerLock};
use crate::lock::pins::OffersVerdict;
use crate::lock::verify::{Change, Pin, Verdict};
use crate::mcp_source::McpSource;
use crate::offers::naming::exposed_name;
use crate::offers::sanitize::Removals;
use crate::offers::sanitize::offers::{clean_prompt, clean_resource, clean_template};
use crate::offers::tool::MAX_INPUT_ROUNDS;
use crate::offers::uri_template::matches_template;
use crate::requests::upstream_requests::Unanswered;
use lazytool_runtime::source::SourceError;

const TARGET: &str = "lazytool::mcp";

/// An upstream's prompts, resources and resource templates as they are served: every page
/// of each list the server announces (an empty list for one it does not), in its order;
/// prompts named `SERVER__PROMPT` (the rule of tool names), resources and templates under
/// their own URIs, titles and descriptions cleaned as a tool's are. Plain data, serialized
/// as MCP writes it (`{"prompts": [...], "resources": [...], "resourceTemplates": [...]}`),
/// so that it can be compared, stored or hashed.
///
/// ```
/// use lazytool_mcp_client::PromptsAndResources;
/// use lazytool_mcp_client::rmcp::model::Prompt;
///
/// let mut offered = PromptsAndResources::default();
/// offered.prompts.push(Prompt::new("git__commit_message", Some("Write a commit message."), None));
/// let json = serde_json::to_value(&offered).unwrap();
/// assert_eq!(json["prompts"][0]["name"], "git__commit_message");
/// assert_eq!(json["resourceTemplates"], serde_json::json!([]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsAndResources {
    /// The prompts, named `SERVER__PROMPT`.
    pub prompts: Vec<Prompt>,
    /// The resources.
    pub resources: Vec<Resource>,
    /// The resource templates.
    pub resource_templates: Vec<ResourceTemplate>,
}

/// What the server lists now, cleaned, with each served prompt name's upstream name and
/// the link epoch it was listed at.
struct Fetched {
    offered: PromptsAndResources,
    names: HashMap<String, String>,
    epoch: u64,
}

/// The definitions of `offered` as they are pinned (prompts under their upstream names).
fn live_offers(offered: &PromptsAndResources, names: &HashMap<String, String>) -> LiveOffers {
    let prompts = (offered.prompts.iter()).map(|prompt| {
        let upstream = names.get(&prompt.name).unwrap_or(&prompt.name);
        (upstream.as_str(), prompt)
    });
    LiveOffers::new(prompts, &offered.resources, &offered.resource_templates)
}

/// A pinned definition as what it defines (`None` for one that is not: skipped).
fn approved<T: serde::de::DeserializeOwned>(pinned: &Pinned) -> Option<T> {
    serde_json::from_value(pinned.definition.clone()).ok()
}

/// Every page of one list, within `timeout`. A server that announces the kind and does not
/// know the method (-32601: the official Python SDK's low-level server registers
/// `resources/list` without `resources/templates/list`) offers none of it: logged, not an
/// error.
async fn list<T>(
    server: &str,
    what: &str,
    timeout: std::time::Duration,
    listing: impl Future<Output = Result<Vec<T>, ServiceError>>,
) -> Result<Vec<T>, String> {
    match tokio::time::timeout(timeout, listing).await {
        Ok(Ok(items)) => Ok(items),
        Ok(Err(ServiceError::McpError(error))) if error.code == ErrorCode::METHOD_NOT_FOUND => {
            tracing::warn!(target: TARGET, source = %server, list = %what, error = %error.message, "an MCP server announces the list but does not know {what} (-32601): it offers none");
            Ok(Vec::new())
        }
        Ok(Err(error)) => Err(format!("{what} failed: {error}")),
        Err(_) => Err(format!("{what} got no answer within {timeout:?}")),
    }
}

impl McpSource {
    /// Fetches what the server offers besides tools (starting it if it is not running, within
    /// [`start_timeout`](McpSource::start_timeout), which bounds each list too): every page
    /// of its prompts, resources and resource templates, as the gateway serves them (see
    /// [`PromptsAndResources`]); the cleaning of each is logged. A list the server does not
    /// announce is empty, and so is one it announces but answers with -32601 (method not
    /// found: logged); one that fails otherwise is an error.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-everything"]));
    /// let offered = everything.prompts_and_resources().await?;
    /// assert!(offered.prompts.iter().any(|prompt| prompt.name == "everything__simple-prompt"));
    /// # Ok(()) }
    /// ```
    pub async fn prompts_and_resources(&self) -> Result<PromptsAndResources, SourceError> {
        let Fetched {
            mut offered,
            mut names,
            epoch,
        } = self.fetch_live().await?;
        let pins = Arc::clone(self.pins());
        if let (Some(verdict), Some(entry)) = (
            pins.judge_offers(epoch, &live_offers(&offered, &names)),
            pins.entry(),
        ) {
            self.hold_to_lock(&verdict, entry, &mut offered, &mut names);
        }
        *self
            .prompt_names
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = names;
        Ok(offered)
    }

    /// The prompts, resources and templates of the server's lock entry, as they are served
    /// while it waits for its first use; `None` without an entry.
    pub(crate) fn locked_offers(&self) -> Option<PromptsAndResources> {
        let entry = self.pins().entry()?;
        let mut offered = PromptsAndResources::default();
        for (upstream, pinned) in &entry.prompts {
            if let Some(mut prompt) = approved::<Prompt>(pinned) {
                prompt.name = exposed_name(&self.prefix, upstream);
                offered.prompts.push(prompt);
            }
        }
        offered.resources = entry.resources.values().filter_map(approved).collect();
        offered.resource_templates = (entry.resource_templates.values())
            .filter_map(approved)
            .collect();
        Some(offered)
    }

    /// Pins the server's prompts, resources and templates as they are now in `entry`: what
    /// [`pin_now`](McpSource::pin_now) adds to the tools.
    pub(crate) async fn pin_offers(&self, entry: &mut ServerLock) -> Result<(), SourceError> {
        let fetched = self.fetch_live().await?;
        entry.pin_offers(&live_offers(&fetched.offered, &fetched.names));
        Ok(())
    }

    /// What the last listing's pin decided for each prompt, resource or template that
    /// differs from the lock (`prompt NAME`, ...: what changed and what was done).
    pub(crate) fn offer_pin_decisions(&self) -> Vec<crate::offers::admission::ToolNote> {
        let Some(verdict) = self.pins().last_offers_verdict() else {
            return Vec::new();
        };
        let mut notes = Vec::new();
        for (kind, verdict) in verdict.kinds() {
            for (item, note) in verdict.decisions() {
                notes.push(crate::offers::admission::ToolNote {
                    tool: format!("{kind} {item}"),
                    note,
                });
            }
        }
        notes
    }

    /// Under `block`, leaves out what changed or is new and lists the approved definition
    /// of what changed or disappeared (their requests answer why they are refused); under
    /// `warn`, lists what disappeared as approved; under `off`, nothing.
    fn hold_to_lock(
        &self,
        verdict: &OffersVerdict,
        entry: &ServerLock,
        offered: &mut PromptsAndResources,
        names: &mut HashMap<String, String>,
    ) {
        if verdict.prompts.pin == Pin::Off {
            return;
        }
        let kept = |verdict: &Verdict, key: &str| {
            (verdict.changes.get(key)).is_some_and(|change| {
                !verdict.offers_live(key) || matches!(change, Change::Removed)
            })
        };
        (offered.prompts).retain(|prompt| {
            let upstream = names.get(&prompt.name).unwrap_or(&prompt.name);
            verdict.prompts.offers_live(upstream)
        });
        (offered.resources).retain(|resource| verdict.resources.offers_live(&resource.uri));
        (offered.resource_templates)
            .retain(|template| verdict.templates.offers_live(&template.uri_template));
        for (upstream, pinned) in &entry.prompts {
            if kept(&verdict.prompts, upstream)
                && let Some(mut prompt) = approved::<Prompt>(pinned)
            {
                prompt.name = exposed_name(&self.prefix, upstream);
                names.insert(prompt.name.clone(), upstream.clone());
                offered.prompts.push(prompt);
            }
        }
        for (uri, pinned) in &entry.resources {
            if kept(&verdict.resources, uri)
                && let Some(resource) = approved(pinned)
            {
                offered.resources.push(resource);
            }
        }
        for (uri_template, pinned) in &entry.resource_templates {
            if kept(&verdict.templates, uri_template)
                && let Some(template) = approved(pinned)
            {
                offered.resource_templates.push(template);
            }
        }
    }

    /// The verdict on the running server's prompts, resources and templates (starting it,
    /// and listing them first when they were not judged since it started or changed);
    /// `None` when nothing is held to a lock.
    async fn offers_verdict(&self) -> Result<Option<Arc<OffersVerdict>>, ErrorData> {
        let pins = Arc::clone(self.pins());
        if pins.entry().is_none() || pins.pin() == Pin::Off {
            return Ok(None);
        }
        let link = Arc::clone(self.link());
        let failed = |message: String| ErrorData::internal_error(link.redact(&message), None);
        link.peer().await.map_err(failed)?;
        if let Some(verdict) = pins.offers_verdict(link.epoch()) {
            return Ok(Some(verdict));
        }
        let fetched = self.prompts_and_resources().await;
        fetched.map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(pins.last_offers_verdict())
    }

    /// Why reading `uri` is refused, if it is: a resource that changed, is new or
    /// disappeared, or a URI of a template that did, and of no approved one.
    fn resource_refusal(&self, verdict: &OffersVerdict, uri: &str) -> Option<String> {
        let pins = self.pins();
        let approve = pins.approve();
        if let Some(refusal) = (verdict.resources).refusal_of("resource", &self.name, uri, approve)
        {
            return Some(refusal);
        }
        let entry = pins.entry()?;
        let approved_template = (entry.resource_templates.keys()).any(|template| {
            !verdict.templates.changes.contains_key(template) && matches_template(template, uri)
        });
        if entry.resources.contains_key(uri) || approved_template {
            return None;
        }
        (verdict.templates.changes.keys())
            .filter(|template| matches_template(template, uri))
            .find_map(|template| {
                (verdict.templates).refusal_of("resource template", &self.name, template, approve)
            })
    }

    /// What the server lists now, cleaned, before its pins are applied.
    async fn fetch_live(&self) -> Result<Fetched, SourceError> {
        let link = Arc::clone(self.link());
        let failed =
            |message: String| SourceError::new(Arc::clone(&self.name), link.redact(&message));
        let peer = link.peer().await.map_err(&failed)?;
        let epoch = link.epoch();
        let capabilities = peer
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let mut offered = PromptsAndResources::default();
        let (server, timeout) = (self.name.as_ref(), self.start_timeout);
        if capabilities.prompts.is_some() {
            let prompts = peer.list_all_prompts();
            offered.prompts = list(server, "prompts/list", timeout, prompts)
                .await
                .map_err(&failed)?;
        }
        if capabilities.resources.is_some() {
            let resources = peer.list_all_resources();
            offered.resources = list(server, "resources/list", timeout, resources)
                .await
                .map_err(&failed)?;
            let templates = peer.list_all_resource_templates();
            offered.resource_templates =
                list(server, "resources/templates/list", timeout, templates)
                    .await
                    .map_err(&failed)?;
        }
        let mut names = HashMap::new();
        for prompt in &mut offered.prompts {
            let upstream = std::mem::take(&mut prompt.name);
            prompt.name = exposed_name(&self.prefix, &upstream);
            let removals = clean_prompt(prompt, self.max_description_chars);
            self.note_cleaned("prompt", &upstream, &removals);
            names.insert(prompt.name.clone(), upstream);
        }
        for resource in &mut offered.resources {
            let removals = clean_resource(resource, self.max_description_chars);
            self.note_cleaned("resource", &resource.uri, &removals);
        }
        for template in &mut offered.resource_templates {
            let removals = clean_template(template, self.max_description_chars);
            self.note_cleaned("resource template", &template.uri_template, &removals);
        }
        Ok(Fetched {
            offered,
            names,
            epoch,
        })
    }

    /// Gets the prompt served as `name` (`SERVER__PROMPT`, from the last
    /// [`prompts_and_resources`](McpSource::prompts_and_resources), which is run first when
    /// there was none) from the server, within [`call_timeout`](McpSource::call_timeout). A name the server does not offer is
    /// `-32602`; a prompt its lock entry does not allow (changed, new or gone, under
    /// [`Pin::Block`]) is `-32600` naming the server, the prompt, what changed and the
    /// command that accepts it; the server's own errors pass as it sent them; a server that is down, fails
    /// or does not answer in time is `-32603` saying so.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::rmcp::model::JsonObject;
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-everything"]));
    /// let prompt = everything.get_prompt("everything__simple-prompt", JsonObject::new()).await?;
    /// assert!(!prompt.messages.is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: JsonObject,
    ) -> Result<GetPromptResult, ErrorData> {
        self.get_prompt_in(name, arguments, &ToolContext::new())
            .await
    }

    /// [`get_prompt`](McpSource::get_prompt) for a request whose client `context` asks: the
    /// server's input-required questions (2026-07-28) go through it, as a tool call's do.
    pub(crate) async fn get_prompt_in(
        &self,
        name: &str,
        arguments: JsonObject,
        context: &ToolContext,
    ) -> Result<GetPromptResult, ErrorData> {
        let known = || {
            let names =
                (self.prompt_names.lock()).unwrap_or_else(std::sync::PoisonError::into_inner);
            (names.get(name).cloned(), names.is_empty())
        };
        let upstream = match known() {
            (Some(upstream), _) => Some(upstream),
            // Never listed (a server not started yet): list its prompts first.
            (None, true) => match self.prompts_and_resources().await {
                Ok(_) => known().0,
                Err(error) => return Err(ErrorData::internal_error(error.to_string(), None)),
            },
            (None, false) => None,
        };
        let upstream = upstream.ok_or_else(|| {
            ErrorData::invalid_params(
                format!("the MCP server `{}` offers no prompt `{name}`", self.name),
                None,
            )
        })?;
        if let Some(verdict) = self.offers_verdict().await?
            && let Some(refusal) =
                (verdict.prompts).refusal_of("prompt", &self.name, &upstream, self.pins().approve())
        {
            return Err(ErrorData::invalid_request(refusal, None));
        }
        let mut params = GetPromptRequestParams::new(upstream).with_arguments(arguments);
        for _ in 0..MAX_INPUT_ROUNDS {
            let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params.clone()));
            let answer = self
                .forward("prompts/get", |peer| async move {
                    peer.send_request(request).await
                })
                .await?;
            let asked = match answer {
                ServerResult::GetPromptResult(prompt) => return Ok(prompt),
                ServerResult::InputRequiredResult(asked) => asked,
                _ => {
                    return Err(ErrorData::internal_error(
                        format!(
                            "the MCP server `{}` answered prompts/get with something else than a prompt",
                            self.name
                        ),
                        None,
                    ));
                }
            };
            let requests = asked.input_requests.unwrap_or_default();
            let responses = match self.link().requests().answer_input(requests, context).await {
                Ok(responses) => responses,
                Err(Unanswered::Asked) => {
                    return Err(ErrorData::invalid_params(
                        format!("the MCP server `{}` asks the client for input", self.name),
                        None,
                    ));
                }
                Err(Unanswered::Refused(error)) => return Err(error),
            };
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = asked.request_state;
        }
        Err(ErrorData::internal_error(
            format!(
                "the MCP server `{}` still asked for input after {MAX_INPUT_ROUNDS} rounds",
                self.name
            ),
            None,
        ))
    }

    /// Values that complete `argument` (its text so far `value`, the arguments filled
    /// already in `context`) of `reference`: a prompt served as `SERVER__PROMPT`, or a
    /// resource template of the server, asked of the server (`completion/complete`) within
    /// [`call_timeout`](McpSource::call_timeout). A prompt the server does not offer is
    /// `-32602`; the server's own errors pass as it sent them.
    pub(crate) async fn complete(
        &self,
        reference: Reference,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> Result<Vec<String>, ErrorData> {
        let reference = match reference {
            Reference::Prompt(prompt) => {
                let upstream = (self.prompt_names.lock())
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get(&prompt.name)
                    .cloned();
                let upstream = upstream.ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!(
                            "the MCP server `{}` offers no prompt `{}`",
                            self.name, prompt.name
                        ),
                        None,
                    )
                })?;
                Reference::for_prompt(upstream)
            }
            template => template,
        };
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !context.is_empty() {
            params = params.with_context(CompletionContext::with_arguments(context));
        }
        let completed = self
            .forward("completion/complete", |peer| async move {
                peer.complete(params).await
            })
            .await?;
        Ok(completed.completion.values)
    }

    /// Reads the resource at `uri` from the server, within
    /// [`call_timeout`](McpSource::call_timeout). The server's own errors pass as it sent
    /// them, except that a 2026-07-28 server's `-32602` (its way of saying it does not know
    /// the URI) becomes `-32002`, as the earlier revisions say it; a server that is down, fails or does not
    /// answer in time is `-32603` saying so. A resource (or a URI of a template) its lock
    /// entry does not allow is `-32600` saying why, as for
    /// [`get_prompt`](McpSource::get_prompt).
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-everything"]));
    /// let read = everything.read_resource("demo://resource/dynamic/text/1").await?;
    /// assert_eq!(read.contents.len(), 1);
    /// # Ok(()) }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        if let Some(verdict) = self.offers_verdict().await?
            && let Some(refusal) = self.resource_refusal(&verdict, uri)
        {
            return Err(ErrorData::invalid_request(refusal, None));
        }
        let params = ReadResourceRequestParams::new(uri);
        let read = self
            .forward("resources/read", |peer| async move {
                peer.read_resource(params).await
            })
            .await;
        // 2026-07-28 says "not found" with -32602; older clients of ours expect -32002 (and
        // rmcp turns it back into -32602 for the newer ones). The URI is the only parameter.
        let newer = self
            .protocol_version()
            .is_some_and(|version| version.as_str() >= "2026-07-28");
        read.map_err(|mut error| {
            if newer && error.code == ErrorCode::INVALID_PARAMS {
                error.code = ErrorCode::RESOURCE_NOT_FOUND;
            }
            error
        })
    }

    /// Sends one request to the server (started if it is not running).
    async fn forward<T, F>(
        &self,
        method: &str,
        request: impl FnOnce(rmcp::Peer<rmcp::RoleClient>) -> F,
    ) -> Result<T, ErrorData>
    where
        F: Future<Output = Result<T, ServiceError>>,
    {
        let link = Arc::clone(self.link());
        let failed = |message: String| ErrorData::internal_error(link.redact(&message), None);
        let peer = link.peer().await.map_err(failed)?;
        match tokio::time::timeout(self.call_timeout, request(peer)).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(ServiceError::McpError(mut error))) => {
                error.message = link.redact(&error.message).into();
                Err(error)
            }
            Ok(Err(error)) => Err(failed(format!(
                "{method} to the MCP server `{}` failed: {error}",
                self.name
            ))),
            Err(_) => Err(failed(format!(
                "the MCP server `{}` did not answer {method} within {:?}",
                self.name, self.call_timeout
            ))),
        }
    }

    fn note_cleaned(&self, kind: &str, what: &str, removals: &Removals) {
        if !removals.is_empty() {
            tracing::warn!(target: TARGET, source = %self.name, kind, item = what, %removals, "an upstream's text was cleaned");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: std::time::Duration = std::time::Duration::from_secs(1);

    #[tokio::test]
    async fn a_list_the_server_does_not_know_is_empty() {
        for what in ["prompts/list", "resources/list", "resources/templates/list"] {
            let unknown = ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
            let listing = async { Err::<Vec<Prompt>, _>(ServiceError::McpError(unknown)) };
            assert_eq!(list("s17", what, SECOND, listing).await, Ok(Vec::new()));
        }
    }

    #[tokio::test]
    async fn a_list_that_fails_otherwise_is_an_error_naming_it() {
        let broken = ErrorData::internal_error("database down", None);
        let listing = async { Err::<Vec<Prompt>, _>(ServiceError::McpError(broken)) };
        let error = list("s17", "prompts/list", SECOND, listing).await;
        let error = error.expect_err("-32603 is a failure");
        assert!(error.starts_with("prompts/list failed: "), "{error}");
        assert!(error.contains("database down"), "{error}");
    }
}
