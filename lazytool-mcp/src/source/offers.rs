//! The prompts and resources of a catalog's sources together, each routed to its server:
//! `Offers`, which makes [`McpCatalog`] a [`PromptProvider`] and a [`ResourceProvider`].

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use lazytool_runtime::source::CachedSource;
use rmcp::model::{ErrorData, JsonObject, Prompt, Resource, ResourceTemplate};
use tokio::sync::watch;

use super::{McpCatalog, McpSource, PromptsAndResources};
use crate::offers::prompts::{PromptFuture, PromptProvider};
use crate::offers::resources::{ReadFuture, ResourceProvider};

const TARGET: &str = "lazytool::mcp";

pub(crate) struct Offers {
    sources: Vec<Arc<CachedSource<Arc<McpSource>>>>,
    state: Mutex<State>,
    /// One refresh at a time: a slow fetch never overwrites a newer one.
    refreshing: tokio::sync::Mutex<()>,
    prompts_changed: watch::Sender<u64>,
    resources_changed: watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    /// Each source's last good fetch, in the catalog's order.
    fetched: Vec<Option<PromptsAndResources>>,
    merged: Merged,
}

/// Every source's lists in one, the first source in the catalog's order winning a name or
/// URI that two offer.
#[derive(Default, PartialEq)]
struct Merged {
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompt_owner: HashMap<String, usize>,
    resource_owner: HashMap<String, usize>,
    /// Each template's source, in the order they are tried.
    template_owner: Vec<(String, usize)>,
    /// What was left out because an earlier source has it: (source, kind, name or URI).
    clashes: HashSet<(usize, &'static str, String)>,
}

impl Offers {
    pub(crate) fn new(sources: Vec<Arc<CachedSource<Arc<McpSource>>>>) -> Self {
        let count = sources.len();
        Offers {
            sources,
            state: Mutex::new(State {
                fetched: vec![None; count],
                merged: Merged::default(),
            }),
            refreshing: tokio::sync::Mutex::new(()),
            prompts_changed: watch::Sender::new(0),
            resources_changed: watch::Sender::new(0),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Each field is replaced by one assignment: consistent after a panic elsewhere.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Each source's name and its last good fetch (`None` before its first).
    pub(crate) fn fetched(&self) -> Vec<(String, Option<PromptsAndResources>)> {
        let state = self.state();
        (self.sources.iter().zip(&state.fetched))
            .map(|(source, fetched)| (source.source().name.to_string(), fetched.clone()))
            .collect()
    }

    /// Fetches the lists of the sources at `indices` at once (at the start, after a source's
    /// `list_changed` or restart).
    pub(crate) async fn refresh(&self, indices: &[usize]) {
        let _one_at_a_time = self.refreshing.lock().await;
        let fetches = indices.iter().map(|&index| self.fetch(index));
        let fetched = futures_util::future::join_all(fetches).await;
        let mut state = self.state();
        for (&index, fetched) in indices.iter().zip(fetched) {
            if let (Some(slot), Some(fetched)) = (state.fetched.get_mut(index), fetched) {
                *slot = Some(fetched);
            }
        }
        self.publish(&mut state);
    }

    /// The source's lists, or `None` (logged) when they cannot be fetched: its last good
    /// ones are kept, and their requests fail while it is down. A server that waits for its
    /// first use is listed from its lock entry.
    async fn fetch(&self, index: usize) -> Option<PromptsAndResources> {
        let source = self.sources.get(index)?.source();
        // A server started on first use is not started to list them: they come from the
        // lock until its first start (which announces a change), and stay as last seen
        // while it is stopped.
        if source.lazy() && !source.is_running() {
            let seen = (self.state().fetched.get(index)).is_some_and(Option::is_some);
            return if seen { None } else { source.locked_offers() };
        }
        match source.prompts_and_resources().await {
            Ok(fetched) => Some(fetched),
            Err(error) => {
                // `error`'s own text is about tools: its message says which list failed.
                tracing::warn!(target: TARGET, source = %source.name, error = error.message(), "an MCP server's prompts and resources cannot be listed");
                None
            }
        }
    }

    /// Merges the fetched lists and announces the ones that changed.
    fn publish(&self, state: &mut State) {
        let merged = self.merge(&state.fetched);
        for clash in merged.clashes.difference(&state.merged.clashes) {
            let (index, kind, item) = clash;
            let source = self.sources[*index].source().name.as_ref();
            tracing::warn!(target: TARGET, source, kind, item = %item, "a {kind} an earlier server offers already is left out");
        }
        let prompts_changed = merged.prompts != state.merged.prompts;
        let resources_changed = merged.resources != state.merged.resources
            || merged.templates != state.merged.templates;
        state.merged = merged;
        if prompts_changed {
            self.prompts_changed
                .send_modify(|generation| *generation += 1);
        }
        if resources_changed {
            self.resources_changed
                .send_modify(|generation| *generation += 1);
        }
    }

    fn merge(&self, fetched: &[Option<PromptsAndResources>]) -> Merged {
        let mut merged = Merged::default();
        for (index, offered) in fetched.iter().enumerate() {
            let Some(offered) = offered else { continue };
            for prompt in &offered.prompts {
                if merged.prompt_owner.contains_key(&prompt.name) {
                    merged
                        .clashes
                        .insert((index, "prompt", prompt.name.clone()));
                    continue;
                }
                merged.prompt_owner.insert(prompt.name.clone(), index);
                merged.prompts.push(prompt.clone());
            }
            for resource in &offered.resources {
                if merged.resource_owner.contains_key(&resource.uri) {
                    merged
                        .clashes
                        .insert((index, "resource", resource.uri.clone()));
                    continue;
                }
                merged.resource_owner.insert(resource.uri.clone(), index);
                merged.resources.push(resource.clone());
            }
            for template in &offered.resource_templates {
                let uri_template = &template.uri_template;
                if merged
                    .template_owner
                    .iter()
                    .any(|(uri, _)| uri == uri_template)
                {
                    merged
                        .clashes
                        .insert((index, "resource template", uri_template.clone()));
                    continue;
                }
                merged
                    .template_owner
                    .push((template.uri_template.clone(), index));
                merged.templates.push(template.clone());
            }
        }
        merged
    }

    /// The source a URI is read from: the one that lists it, else the first whose template
    /// matches it, else the only source that offers resources, else the first whose
    /// resources or templates share its scheme.
    fn owner_of(&self, uri: &str) -> Option<usize> {
        let state = self.state();
        let merged = &state.merged;
        if let Some(&owner) = merged.resource_owner.get(uri) {
            return Some(owner);
        }
        if let Some((_, owner)) =
            (merged.template_owner.iter()).find(|(template, _)| matches_template(template, uri))
        {
            return Some(*owner);
        }
        let offering: Vec<usize> = (state.fetched.iter().enumerate())
            .filter(|(_, fetched)| {
                fetched.as_ref().is_some_and(|offered| {
                    !offered.resources.is_empty() || !offered.resource_templates.is_empty()
                })
            })
            .map(|(index, _)| index)
            .collect();
        if let [only] = offering[..] {
            return Some(only);
        }
        let scheme = scheme_of(uri)?;
        let shares = |offered: &PromptsAndResources| {
            let uris = offered
                .resources
                .iter()
                .map(|resource| resource.uri.as_str());
            let templates = offered
                .resource_templates
                .iter()
                .map(|t| t.uri_template.as_str());
            uris.chain(templates)
                .any(|other| scheme_of(other) == Some(scheme))
        };
        offering
            .into_iter()
            .find(|&index| state.fetched[index].as_ref().is_some_and(shares))
    }
}

/// The scheme of a URI (`file` of `file:///a`).
fn scheme_of(uri: &str) -> Option<&str> {
    uri.split_once(':')
        .map(|(scheme, _)| scheme)
        .filter(|scheme| !scheme.is_empty())
}

/// Whether `uri` is one of the URIs of the RFC 6570 `template`: its literal parts in order,
/// each expression (`{id}`, `{+path}`, `{?query}`...) standing for any text in between.
pub(crate) fn matches_template(template: &str, uri: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        literals.push(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    let Some((first, others)) = literals.split_first() else {
        return false;
    };
    let Some(mut remaining) = uri.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = others.split_last() else {
        return remaining.is_empty();
    };
    for literal in middle {
        match remaining.find(literal) {
            Some(at) => remaining = &remaining[at + literal.len()..],
            None => return false,
        }
    }
    remaining.ends_with(last)
}

impl McpCatalog {
    /// Each source's name and what it offers besides tools, as fetched last (at the start,
    /// after each of its `list_changed` and restarts; `None` before a first fetch that
    /// succeeded), in the order given to [`start`](McpCatalog::start). What the catalog
    /// serves as a [`PromptProvider`] and [`ResourceProvider`] is their union: a prompt name
    /// or a resource URI (or URI template) that two servers offer goes to the first, and the
    /// clash is logged.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp::{McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-everything"]));
    /// let catalog = McpCatalog::start(Registry::builder, [everything]).await?;
    /// for (server, offered) in catalog.prompts_and_resources() {
    ///     let prompts = offered.map_or(0, |offered| offered.prompts.len());
    ///     println!("{server}: {prompts} prompts");
    /// }
    /// # Ok(()) }
    /// ```
    pub fn prompts_and_resources(&self) -> Vec<(String, Option<PromptsAndResources>)> {
        self.offers().fetched()
    }
}

impl PromptProvider for McpCatalog {
    fn prompts(&self) -> Vec<Prompt> {
        self.offers().state().merged.prompts.clone()
    }

    fn get_prompt(&self, name: String, arguments: JsonObject) -> PromptFuture<'_> {
        Box::pin(async move {
            let offers = self.offers();
            let owner = offers.state().merged.prompt_owner.get(&name).copied();
            let Some(source) = owner.and_then(|index| offers.sources.get(index)) else {
                return Err(ErrorData::invalid_params(
                    format!("no prompt named `{name}`"),
                    None,
                ));
            };
            source.source().get_prompt(&name, arguments).await
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.offers().prompts_changed.subscribe())
    }
}

impl ResourceProvider for McpCatalog {
    fn resources(&self) -> Vec<Resource> {
        self.offers().state().merged.resources.clone()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        self.offers().state().merged.templates.clone()
    }

    fn read_resource(&self, uri: String) -> ReadFuture<'_> {
        Box::pin(async move {
            let offers = self.offers();
            let Some(source) = offers
                .owner_of(&uri)
                .and_then(|index| offers.sources.get(index))
            else {
                return Err(ErrorData::resource_not_found(
                    format!("no server offers the resource `{uri}`"),
                    None,
                ));
            };
            source.source().read_resource(&uri).await
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.offers().resources_changed.subscribe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_uris_only() {
        let text = "demo://resource/dynamic/text/{resourceId}";
        assert!(matches_template(text, "demo://resource/dynamic/text/7"));
        assert!(!matches_template(text, "demo://resource/dynamic/blob/7"));
        assert!(matches_template("file:///{+path}.md", "file:///a/b.md"));
        assert!(!matches_template("file:///{+path}.md", "file:///a/b.txt"));
        assert!(matches_template(
            "db://{table}/rows{?limit}",
            "db://users/rows?limit=3"
        ));
        assert!(matches_template("fixed://here", "fixed://here"));
        assert!(!matches_template("fixed://here", "fixed://here/too"));
        assert!(!matches_template("broken://{id", "broken://1"));
    }

    #[test]
    fn schemes_are_read_up_to_the_colon() {
        assert_eq!(scheme_of("demo://x"), Some("demo"));
        assert_eq!(scheme_of("no-scheme"), None);
    }
}
