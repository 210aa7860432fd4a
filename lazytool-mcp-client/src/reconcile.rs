//! A catalog's sources changed while it serves: [`McpCatalog::reconcile`] and what it did,
//! [`Reconciled`].

use std::collections::HashSet;

use lazytool_runtime::RegistryError;
use lazytool_runtime::source::ToolSource;

use crate::catalog::{McpCatalog, cached};
use crate::mcp_source::McpSource;
use crate::slots::Retired;

/// What [`McpCatalog::reconcile`] did, each list of server names in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconciled {
    /// Servers that were not in the catalog: listed and served.
    pub added: Vec<String>,
    /// Servers no longer given: their tools, prompts and resources left the catalog, and
    /// each stops once its calls under way have ended.
    pub removed: Vec<String>,
    /// Servers given with other settings: the new one serves, the old one stops once its
    /// calls under way have ended.
    pub restarted: Vec<String>,
    /// Servers given with the same settings: untouched, running and listed as they were.
    pub kept: Vec<String>,
}

impl Reconciled {
    /// Whether any server was added, removed or restarted.
    ///
    /// ```
    /// assert!(!lazytool_mcp_client::Reconciled::default().changed());
    /// ```
    pub fn changed(&self) -> bool {
        !(self.added.is_empty() && self.removed.is_empty() && self.restarted.is_empty())
    }
}

impl McpCatalog {
    /// Serves `sources` from now on, as a configuration reloaded says: a source whose name
    /// the catalog does not have joins it; a source the catalog has by name stays as it is
    /// (running, its tools and the sessions' discoveries of them untouched) unless
    /// `changed(old, new)`, and then the new one replaces it; a source of the catalog not
    /// given leaves it. A source leaving stops once its calls under way have ended (waiting
    /// at most its call timeout): those calls are answered, later ones find no such tool.
    ///
    /// The names of a server's tools stay its own: one removed and added again (or replaced)
    /// gets them back, and no other server can take them. The new registry is published
    /// once, so that [`McpServer::live`](https://docs.rs/lazytool-mcp/latest/lazytool_mcp/struct.McpServer.html#method.live) sends its clients one
    /// `notifications/tools/list_changed`. Errors only when the base does not build.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
    /// use lazytool_runtime::Registry;
    ///
    /// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let time = || McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// let catalog = McpCatalog::start(Registry::builder, [time()]).await?;
    /// let memory = McpSource::new("memory", Upstream::command("npx", ["-y", "@modelcontextprotocol/server-memory"]));
    /// let reconciled = catalog.reconcile([time(), memory], |_, _| false).await?;
    /// assert_eq!(reconciled.added, ["memory"]);
    /// assert_eq!(reconciled.kept, ["time"]);
    /// # Ok(()) }
    /// ```
    pub async fn reconcile(
        &self,
        sources: impl IntoIterator<Item = McpSource>,
        changed: impl Fn(&McpSource, &McpSource) -> bool,
    ) -> Result<Reconciled, RegistryError> {
        let inner = &self.inner;
        let mut reconciled = Reconciled::default();
        let mut given = HashSet::new();
        let mut placed = Vec::new();
        let mut retired = Vec::new();
        let served = inner.sources.all();
        for source in sources {
            let name = source.name().to_owned();
            given.insert(name.clone());
            let old = served.iter().find(|(_, old)| old.source().name() == name);
            match old {
                Some((_, old)) if !changed(old.source(), &source) => reconciled.kept.push(name),
                old => {
                    let (index, replaced) = inner.sources.put(cached(source));
                    placed.push(index);
                    retired.extend(replaced);
                    match old {
                        Some(_) => reconciled.restarted.push(name),
                        None => reconciled.added.push(name),
                    }
                }
            }
        }
        let mut emptied = Vec::new();
        for (index, old) in &served {
            if !given.contains(old.source().name()) {
                reconciled.removed.push(old.source().name().to_owned());
                retired.extend(inner.sources.remove(*index));
                emptied.push(*index);
            }
        }
        if !reconciled.changed() {
            return Ok(reconciled);
        }
        inner
            .offers
            .forget(&[&placed[..], &emptied[..]].concat())
            .await;
        let rebuilt = inner.rebuild_publishing(true).await;
        // Whatever the rebuild says, the old sources are out of the places: stop them.
        for Retired(old) in retired {
            tokio::spawn(async move { old.source().shutdown_after_calls().await });
        }
        rebuilt?;
        let listed = inner.listed();
        let fetch: Vec<usize> = (placed.iter().copied())
            .filter(|index| listed.contains(index))
            .collect();
        inner.offers.refresh(&fetch).await;
        for index in placed {
            inner.follow(index);
        }
        Ok(reconciled)
    }
}
