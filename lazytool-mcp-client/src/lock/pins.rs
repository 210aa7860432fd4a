//! One server's pins at run time: its lock entry, its [`Pin`], and the verdicts on its live
//! definitions for the current run: on its tools (`Pins`) and on its prompts, resources and
//! templates (`OffersVerdict`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use super::file::{LiveOffers, ServerLock, definition};
use super::verify::{Pin, Verdict, compare};
use crate::connection::link::Link;
use crate::offers::sanitize;

const TARGET: &str = "lazytool::lock";

pub(crate) struct Pins {
    server: Arc<str>,
    /// The server's lock entry, when it has one that matches what starts it.
    entry: Option<ServerLock>,
    pin: Pin,
    /// The command that accepts a change, named in every refusal.
    approve: String,
    max_description_chars: usize,
    list_timeout: Duration,
    /// The last verdict on the live definitions, the link epoch it holds for, and the
    /// (cleaned) tools it judged: what is served while the server is stopped.
    verdict: Mutex<Option<Judged>>,
    /// One live listing at a time when calls find the verdict out of date.
    checking: tokio::sync::Mutex<()>,
    /// The last verdict on the live prompts, resources and templates, and the link epoch
    /// it holds for.
    offers: Mutex<Option<(u64, Arc<OffersVerdict>)>>,
}

/// What a server's [`Pin`] makes of its prompts, resources and templates.
pub(crate) struct OffersVerdict {
    pub(crate) prompts: Verdict,
    pub(crate) resources: Verdict,
    pub(crate) templates: Verdict,
}

impl OffersVerdict {
    /// The three verdicts with what each one is about.
    pub(crate) fn kinds(&self) -> [(&'static str, &Verdict); 3] {
        [
            ("prompt", &self.prompts),
            ("resource", &self.resources),
            ("resource template", &self.templates),
        ]
    }
}

struct Judged {
    epoch: u64,
    verdict: Arc<Verdict>,
    tools: Vec<Tool>,
}

impl Pins {
    pub(crate) fn new(
        server: Arc<str>,
        entry: Option<ServerLock>,
        pin: Pin,
        approve: String,
        max_description_chars: usize,
        list_timeout: Duration,
    ) -> Self {
        Pins {
            server,
            entry,
            pin,
            approve,
            max_description_chars,
            list_timeout,
            verdict: Mutex::default(),
            checking: tokio::sync::Mutex::new(()),
            offers: Mutex::default(),
        }
    }

    /// The server's lock entry, when it has one that matches what starts it.
    pub(crate) fn entry(&self) -> Option<&ServerLock> {
        self.entry.as_ref()
    }

    pub(crate) fn pin(&self) -> Pin {
        self.pin
    }

    /// The command that accepts a change.
    pub(crate) fn approve(&self) -> &str {
        &self.approve
    }

    /// Judges the live prompts, resources and templates listed at link epoch `epoch`, logs
    /// every decision and keeps the verdict for the requests; `None` when the server has no
    /// lock entry.
    pub(crate) fn judge_offers(&self, epoch: u64, live: &LiveOffers) -> Option<Arc<OffersVerdict>> {
        let entry = self.entry.as_ref()?;
        let verdict = |changes| Verdict {
            pin: self.pin,
            changes,
        };
        let judged = Arc::new(OffersVerdict {
            prompts: verdict(compare(&entry.prompts, &live.prompts)),
            resources: verdict(compare(&entry.resources, &live.resources)),
            templates: verdict(compare(&entry.resource_templates, &live.templates)),
        });
        for (kind, verdict) in judged.kinds() {
            for (item, decision) in verdict.decisions() {
                tracing::warn!(target: TARGET, server = %self.server, kind, item = %item, %decision, approve = %self.approve, "a {kind} differs from the lock");
            }
        }
        *self.offers.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((epoch, Arc::clone(&judged)));
        Some(judged)
    }

    /// The last verdict on the prompts, resources and templates, whatever its epoch.
    pub(crate) fn last_offers_verdict(&self) -> Option<Arc<OffersVerdict>> {
        let offers = self.offers.lock().unwrap_or_else(PoisonError::into_inner);
        offers.as_ref().map(|(_, verdict)| Arc::clone(verdict))
    }

    /// The verdict on the prompts, resources and templates listed at link epoch `epoch`,
    /// if they were judged then.
    pub(crate) fn offers_verdict(&self, epoch: u64) -> Option<Arc<OffersVerdict>> {
        let offers = self.offers.lock().unwrap_or_else(PoisonError::into_inner);
        (offers.as_ref())
            .filter(|(judged_at, _)| *judged_at == epoch)
            .map(|(_, verdict)| Arc::clone(verdict))
    }

    /// The approved tools, as rmcp tools (a definition that is not one is skipped).
    pub(crate) fn locked_tools(&self) -> Vec<Tool> {
        let Some(entry) = &self.entry else {
            return Vec::new();
        };
        (entry.tools.values())
            .filter_map(|pinned| serde_json::from_value(pinned.definition.clone()).ok())
            .collect()
    }

    /// Judges the live (cleaned) `tools` listed at link epoch `epoch`, logs every decision
    /// and keeps the verdict for the calls; `None` when the server has no lock entry.
    pub(crate) fn judge(&self, epoch: u64, tools: &[Tool]) -> Option<Arc<Verdict>> {
        let entry = self.entry.as_ref()?;
        let live: BTreeMap<String, Value> = (tools.iter())
            .map(|tool| (tool.name.to_string(), definition(tool)))
            .collect();
        let verdict = Arc::new(Verdict {
            pin: self.pin,
            changes: compare(&entry.tools, &live),
        });
        for (tool, decision) in verdict.decisions() {
            tracing::warn!(target: TARGET, server = %self.server, tool = %tool, %decision, approve = %self.approve, "a tool differs from the lock");
        }
        if verdict.changes.is_empty() {
            tracing::info!(target: TARGET, server = %self.server, tools = live.len(), "the server's tools match the lock");
        }
        *self.verdict.lock().unwrap_or_else(PoisonError::into_inner) = Some(Judged {
            epoch,
            verdict: Arc::clone(&verdict),
            tools: tools.to_vec(),
        });
        Some(verdict)
    }

    /// Why a call to upstream tool `tool` is refused, if it is: the verdict for the link's
    /// current epoch (listing the server's tools first when there is none).
    pub(crate) async fn refusal(
        &self,
        link: &Link,
        peer: &Peer<RoleClient>,
        tool: &str,
    ) -> Result<Option<String>, String> {
        if self.entry.is_none() || self.pin == Pin::Off {
            return Ok(None);
        }
        let verdict = match self.current(link.epoch()) {
            Some(verdict) => verdict,
            None => {
                let _one_at_a_time = self.checking.lock().await;
                let epoch = link.epoch();
                match self.current(epoch) {
                    Some(verdict) => verdict,
                    None => {
                        let tools = self.live_tools(link, peer).await?;
                        self.judge(epoch, &tools).unwrap_or_default()
                    }
                }
            }
        };
        Ok(verdict.refusal(&self.server, tool, &self.approve))
    }

    fn current(&self, epoch: u64) -> Option<Arc<Verdict>> {
        let verdict = self.verdict.lock().unwrap_or_else(PoisonError::into_inner);
        (verdict.as_ref())
            .filter(|judged| judged.epoch == epoch)
            .map(|judged| Arc::clone(&judged.verdict))
    }

    /// The tools the server listed when it last ran and the verdict on them.
    pub(crate) fn last_seen(&self) -> Option<(Vec<Tool>, Arc<Verdict>)> {
        let verdict = self.verdict.lock().unwrap_or_else(PoisonError::into_inner);
        (verdict.as_ref()).map(|judged| (judged.tools.clone(), Arc::clone(&judged.verdict)))
    }

    async fn live_tools(&self, link: &Link, peer: &Peer<RoleClient>) -> Result<Vec<Tool>, String> {
        let listed = tokio::time::timeout(self.list_timeout, peer.list_all_tools())
            .await
            .map_err(|_| {
                format!(
                    "the MCP server `{}` did not list its tools within {:?}, so its pins cannot be checked",
                    self.server, self.list_timeout
                )
            })?
            .map_err(|error| link.redact(&format!("tools/list failed: {error}")))?;
        Ok(listed
            .into_iter()
            .map(|mut tool| {
                sanitize::clean_tool(&mut tool, self.max_description_chars);
                tool
            })
            .collect())
    }
}

impl Default for Verdict {
    fn default() -> Self {
        Verdict {
            pin: Pin::Block,
            changes: BTreeMap::new(),
        }
    }
}
