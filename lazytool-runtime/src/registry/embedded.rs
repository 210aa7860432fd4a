//! The registry's search by meaning as well as by words (feature `embeddings`).

use std::sync::Arc;
use std::time::Duration;

use super::Registry;
use crate::discovery::embedding::{ToolIndex, tool_text};
use crate::discovery::{Embeddings, SearchIndex};
#[cfg(feature = "search-features")]
use crate::discovery::{ExplainedSearch, Leaning};
use crate::tool::Tool;

/// Starts computing the vectors of the lazy tools of `tools`.
pub(super) fn index(embeddings: Embeddings, tools: &[Tool]) -> (Embeddings, Arc<ToolIndex>) {
    let texts = tools
        .iter()
        .filter(|tool| tool.is_lazy())
        .map(|tool| tool_text(tool.name(), tool.description()))
        .collect();
    let index = embeddings.index(texts);
    (embeddings, index)
}

impl Registry {
    /// The embeddings the registry searches with, if any ([`RegistryBuilder::embeddings`](crate::RegistryBuilder::embeddings)).
    ///
    /// ```
    /// use lazytool_runtime::Registry;
    ///
    /// assert!(Registry::builder().without_inventory().build().unwrap().embeddings().is_none());
    /// ```
    pub fn embeddings(&self) -> Option<&Embeddings> {
        self.0.embedded.as_ref().map(|(embeddings, _)| embeddings)
    }

    /// Waits at most `timeout` for the lazy tools' vectors; whether search uses them now.
    /// False at once if the registry has no embeddings or its embedder failed (see
    /// [`Embeddings::last_warning`]). Searches never wait for them: until then they are
    /// lexical.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::{Embeddings, Registry, TestEmbedder};
    ///
    /// let registry = Registry::builder()
    ///     .without_inventory()
    ///     .embeddings(Embeddings::new(TestEmbedder::new()))
    ///     .build()
    ///     .unwrap();
    /// assert!(registry.wait_for_embeddings(Duration::from_secs(10)));
    /// ```
    pub fn wait_for_embeddings(&self, timeout: Duration) -> bool {
        self.0
            .embedded
            .as_ref()
            .is_some_and(|(_, index)| index.wait(timeout))
    }

    /// The hybrid ranking of the lazy tools `allowed` for `query` (positions in the index,
    /// in [`Hybrid::fused`]), or `None` to search by words only: no embeddings, no vectors yet, or no query vector
    /// (after a warning).
    pub(super) fn search_embedded(
        &self,
        index: &SearchIndex,
        query: &str,
        limit: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Option<Hybrid> {
        let (embeddings, tool_index) = self.0.embedded.as_ref()?;
        let vectors = tool_index.vectors()?;
        if limit == 0 || vectors.len() == 0 || query.trim().is_empty() {
            return None;
        }
        let query_vector = embeddings.query(query, vectors.dimension())?;
        let fusion = embeddings.fusion();
        let depth = fusion.depth().max(limit);
        let lexical = index.search_scored(query, depth, &allowed);
        let dense = vectors.nearest(&query_vector, depth, &allowed);
        let (fused, leaning) =
            fusion
                .with_depth(depth)
                .fuse(query, &lexical, &dense, limit, vectors.alike());
        #[cfg(not(feature = "search-features"))]
        let _ = (leaning, lexical, dense);
        Some(Hybrid {
            fused,
            #[cfg(feature = "search-features")]
            explained: Explained {
                lexical,
                dense,
                tools: vectors.len(),
                alike: vectors.alike(),
                leaning,
            },
        })
    }

    /// Both rankings of [`Registry::search`] by words and meaning for `query`, and how they
    /// were fused (feature `search-features`); `None` where the search is by words only (no
    /// embeddings, no vectors yet, no query vector). See [`ExplainedSearch`] for an example.
    #[cfg(feature = "search-features")]
    pub fn explain_search(&self, query: &str, limit: usize) -> Option<ExplainedSearch> {
        let search = self.lazy_search();
        let tools = &self.0.tools;
        let name = |hit: usize| {
            search
                .positions
                .get(hit)
                .map_or_else(String::new, |&position| tools[position].name().to_owned())
        };
        let hybrid = self.search_embedded(&search.index, query, limit, |_| true)?;
        let Explained {
            lexical,
            dense,
            tools: count,
            alike,
            leaning,
        } = hybrid.explained;
        let named = |ranking: Vec<(usize, f32)>| {
            ranking
                .into_iter()
                .map(|(hit, score)| (name(hit), score))
                .collect()
        };
        Some(ExplainedSearch {
            lexical: named(lexical),
            dense: named(dense),
            tools: count,
            alike,
            leaning,
            fused: hybrid.fused.into_iter().map(name).collect(),
        })
    }
}

/// A hybrid search's ranking (positions in the index), and with `search-features` what it
/// was fused from: both rankings, the catalog's size and likeness, and the leaning.
pub(super) struct Hybrid {
    pub(super) fused: Vec<usize>,
    #[cfg(feature = "search-features")]
    explained: Explained,
}

/// What a hybrid ranking was fused from (feature `search-features`): both rankings, the
/// catalog's size and likeness, and the leaning.
#[cfg(feature = "search-features")]
struct Explained {
    lexical: Vec<(usize, f32)>,
    dense: Vec<(usize, f32)>,
    tools: usize,
    alike: f32,
    leaning: Leaning,
}

#[cfg(test)]
mod tests;
