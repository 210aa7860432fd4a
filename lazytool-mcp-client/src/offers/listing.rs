//! How an [`McpSource`] lists its tools: from the running server (cleaned, checked against
//! the lock) or, before its first use, from the lock; each offered as a `DynamicTool`.

use std::sync::Arc;

use lazytool_runtime::CancellationToken;
use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
use rmcp::model::Tool;

use crate::connection::link::Link;
use crate::lock;
use crate::lock::Pin;
use crate::mcp_source::Listed;
use crate::mcp_source::McpSource;
use crate::offers::admission;
use crate::offers::admission::ToolNote;
use crate::offers::sanitize;
use crate::offers::tool;

impl McpSource {
    /// `tools` cleaned, each removal logged and recorded.
    pub(crate) fn clean(&self, tools: Vec<Tool>, record: &mut Listed) -> Vec<Tool> {
        (tools.into_iter())
            .map(|mut tool| {
                let removals = sanitize::clean_tool(&mut tool, self.max_description_chars);
                if !removals.is_empty() {
                    tracing::warn!(target: "lazytool::mcp", source = %self.name, tool = %tool.name, %removals, "an upstream tool's text was cleaned");
                    record.cleaned.push(ToolNote {
                        tool: tool.name.to_string(),
                        note: removals.to_string(),
                    });
                }
                tool
            })
            .collect()
    }

    /// Every tool the running server lists now.
    pub(crate) async fn list_live(
        &self,
        link: &Link,
        peer: &rmcp::Peer<rmcp::RoleClient>,
    ) -> Result<Vec<Tool>, String> {
        // A server that answers the handshake but not tools/list must not hang a start.
        let listed = match tokio::time::timeout(self.start_timeout, peer.list_all_tools()).await {
            Ok(listed) => {
                listed.map_err(|error| link.redact(&format!("tools/list failed: {error}")))?
            }
            Err(_) => {
                return Err(format!(
                    "tools/list got no answer within {:?}",
                    self.start_timeout
                ));
            }
        };
        Ok(listed)
    }
}

impl ToolSource for McpSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        Box::pin(async move {
            let link = Arc::clone(self.link());
            let pins = Arc::clone(self.pins());
            let forward = tool::Forward {
                link: Arc::clone(&link),
                pins: Arc::clone(&pins),
                call_timeout: self.call_timeout,
                limiter: self.limiter.clone(),
                #[cfg(feature = "redis")]
                store: self.store.clone(),
            };
            let mut record = Listed::default();
            let (listed, verdict) = if self.lazy() && !link.is_running() {
                // Not started yet (or stopped when idle): what it listed when it last ran,
                // else the lock.
                match pins.last_seen() {
                    Some((tools, verdict)) => (tools, Some(verdict)),
                    None => (pins.locked_tools(), None),
                }
            } else {
                let failed = |message: String| SourceError::new(Arc::clone(&self.name), message);
                let epoch = link.epoch();
                let listing = async {
                    let peer = link.peer().await.map_err(failed)?;
                    self.list_live(&link, &peer).await.map_err(failed)
                };
                let listed = cancel.run_until_cancelled(listing).await.ok_or_else(|| {
                    SourceError::cancelled(Arc::clone(&self.name), "listing cancelled")
                })??;
                let listed = self.clean(listed, &mut record);
                let verdict = pins.judge(epoch, &listed);
                (listed, verdict)
            };
            let mut served: Vec<Tool> = Vec::new();
            match verdict {
                None => served = listed,
                Some(verdict) => {
                    record.pinning = (verdict.decisions().into_iter())
                        .map(|(tool, note)| ToolNote { tool, note })
                        .collect();
                    for tool in listed {
                        if verdict.offers_live(&tool.name) {
                            served.push(tool);
                        }
                    }
                    // A blocked or vanished tool keeps its approved definition; its calls
                    // answer why they are refused.
                    for tool in pins.locked_tools() {
                        let kept = verdict
                            .changes
                            .get(tool.name.as_ref())
                            .is_some_and(|change| {
                                !verdict.offers_live(&tool.name)
                                    || matches!(change, lock::Change::Removed)
                            });
                        if kept && self.pin != Pin::Off {
                            served.push(tool);
                        }
                    }
                }
            }
            let tools = self.offer(served, &forward, &mut record);
            *self.listed() = record;
            Ok(tools)
        })
    }

    fn missing_tool(&self, name: &str) -> Option<String> {
        self.owns_name(name).then(|| self.down()).flatten()
    }

    fn unavailable(&self) -> Option<String> {
        let listed_none = self.listed().origins.is_empty();
        let down = self.down().filter(|_| listed_none)?;
        let down = down.strip_prefix("the ").unwrap_or(&down);
        Some(format!(
            "The {down}; none of its tools is searched until it starts."
        ))
    }
}

impl McpSource {
    /// The selected tools of `tools` as dynamic tools (each admitted, or left out and
    /// recorded), calling through `forward`.
    fn offer(
        &self,
        tools: Vec<Tool>,
        forward: &tool::Forward,
        record: &mut Listed,
    ) -> Vec<lazytool_runtime::DynamicTool> {
        let mut offered = Vec::new();
        for tool in tools {
            if !self.selection.offers(&tool.name) {
                continue;
            }
            let upstream_name = tool.name.to_string();
            let eager = self.selection.is_eager(&tool.name);
            let dynamic = tool::dynamic_tool(&self.prefix, tool, forward.clone()).lazy(!eager);
            match admission::admit(&dynamic, self.max_definition_bytes) {
                Ok(()) => {
                    record
                        .origins
                        .push((dynamic.name().to_owned(), upstream_name));
                    offered.push(dynamic);
                }
                Err(note) => {
                    tracing::warn!(target: "lazytool::mcp", source = %self.name, tool = %upstream_name, %note, "an upstream tool is left out");
                    record.left_out.push(ToolNote {
                        tool: upstream_name,
                        note,
                    });
                }
            }
        }
        offered
    }
}
