//! The prompts and resources of a catalog's sources together, each routed to its server:
//! `Offers`, which makes [`McpCatalog`](crate::McpCatalog) a
//! [`PromptProvider`](crate::PromptProvider) and a [`ResourceProvider`](crate::ResourceProvider).

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use rmcp::model::{Prompt, Resource, ResourceTemplate};
use tokio::sync::{broadcast, watch};

use crate::offers::offered::PromptsAndResources;
use crate::offers::uri_template::{matches_template, scheme_of};
use crate::slots::Slots;

const TARGET: &str = "lazytool::mcp";

pub(crate) struct Offers {
    pub(super) sources: Slots,
    pub(super) state: Mutex<State>,
    /// One refresh at a time: a slow fetch never overwrites a newer one.
    pub(super) refreshing: tokio::sync::Mutex<()>,
    pub(super) prompts_changed: watch::Sender<u64>,
    pub(super) resources_changed: watch::Sender<u64>,
    /// The URIs of the watched resources that changed, whichever server announced them.
    pub(super) resources_updated: broadcast::Sender<String>,
    /// The servers whose updates are passed on to `resources_updated` (by their link).
    pub(super) forwarding: Mutex<HashSet<usize>>,
}

#[derive(Default)]
pub(super) struct State {
    /// Each place's last good fetch, in the catalog's order (`None` for a removed server).
    pub(super) fetched: Vec<Option<PromptsAndResources>>,
    pub(super) merged: Merged,
}

/// Every source's lists in one, the first source in the catalog's order winning a name or
/// URI that two offer.
#[derive(Default, PartialEq)]
pub(super) struct Merged {
    pub(super) prompts: Vec<Prompt>,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
    pub(super) prompt_owner: HashMap<String, usize>,
    pub(super) resource_owner: HashMap<String, usize>,
    /// Each template's source, in the order they are tried.
    pub(super) template_owner: Vec<(String, usize)>,
    /// What was left out because an earlier source has it: (source, kind, name or URI).
    pub(super) clashes: HashSet<(usize, &'static str, String)>,
}

impl Offers {
    pub(crate) fn new(sources: Slots) -> Self {
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
            resources_updated: broadcast::Sender::new(256),
            forwarding: Mutex::default(),
        }
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Each field is replaced by one assignment: consistent after a panic elsewhere.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Each served source's name and its last good fetch (`None` before its first).
    pub(crate) fn fetched(&self) -> Vec<(String, Option<PromptsAndResources>)> {
        let state = self.state();
        (self.sources.all().into_iter())
            .map(|(index, source)| {
                let fetched = state.fetched.get(index).cloned().flatten();
                (source.source().name.to_string(), fetched)
            })
            .collect()
    }

    /// Forgets what the places at `indices` offered (their servers removed or replaced)
    /// and announces what that changes.
    pub(crate) async fn forget(&self, indices: &[usize]) {
        let _one_at_a_time = self.refreshing.lock().await;
        let mut state = self.state();
        for &index in indices {
            if let Some(slot) = state.fetched.get_mut(index) {
                *slot = None;
            }
        }
        self.publish(&mut state);
    }

    /// Fetches the lists of the sources at `indices` at once (at the start, after a source's
    /// `list_changed` or restart).
    pub(crate) async fn refresh(&self, indices: &[usize]) {
        let _one_at_a_time = self.refreshing.lock().await;
        let fetches = indices.iter().map(|&index| self.fetch(index));
        let fetched = futures_util::future::join_all(fetches).await;
        let mut state = self.state();
        let places = self.sources.len().max(state.fetched.len());
        state.fetched.resize(places, None);
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
        let source = self.sources.get(index)?;
        let source = source.source();
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
            let source = self.sources.name(*index).unwrap_or_default();
            tracing::warn!(target: TARGET, source = %source, kind, item = %item, "a {kind} an earlier server offers already is left out");
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
    pub(super) fn owner_of(&self, uri: &str) -> Option<usize> {
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
