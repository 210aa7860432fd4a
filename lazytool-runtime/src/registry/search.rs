//! Search by words over the lazy tools (feature `search`): [`Registry::search`], the index
//! it builds on the first search, the same search among what a session may use, and what
//! the lazy tools cost, by which [`DiscoveryMode::Auto`](crate::DiscoveryMode::Auto) chooses.

use super::Registry;
use crate::discovery::{
    DiscoveryListing, DiscoveryTool, LazyCosts, ResolvedMode, SearchDocument, SearchIndex,
    tools_tokens,
};
use crate::tool::Tool;

/// The search index over the lazy tools, built on the first search.
pub(super) struct LazySearch {
    pub(super) index: SearchIndex,
    /// Positions in `tools` of the indexed tools.
    pub(super) positions: Vec<usize>,
}

impl Registry {
    /// The lazy tools best matching `query`, best first, at most `limit`: the ranking search
    /// discovery uses (BM25 over names split into words, descriptions, parameter names and
    /// descriptions, and tags). The index is built on the first search and kept.
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    ///     |arguments, _| async move { Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?")))) })
    ///     .lazy(true)
    ///     .tags(["weather", "temperature"]);
    /// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tools([forecast, time]).build().unwrap();
    /// let found = registry.search("temperature tomorrow", 5);
    /// assert_eq!(found[0].name(), "get_forecast");
    /// assert!(registry.search("time", 5).is_empty()); // only lazy tools are searched
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<&Tool> {
        self.search_lazy(query, limit, |_| true)
    }

    /// [`Registry::search`] among the tools a session `allowed`.
    pub(crate) fn search_lazy(
        &self,
        query: &str,
        limit: usize,
        allowed: impl Fn(&Tool) -> bool,
    ) -> Vec<&Tool> {
        let tools = &self.0.tools;
        let search = self.lazy_search();
        let tool = |hit: usize| search.positions.get(hit).map(|&position| &tools[position]);
        let allowed = |hit: usize| tool(hit).is_some_and(&allowed);
        #[cfg(feature = "embeddings")]
        if let Some(hybrid) = self.search_embedded(&search.index, query, limit, allowed) {
            return hybrid.fused.into_iter().filter_map(tool).collect();
        }
        search
            .index
            .search_among(query, limit, allowed)
            .into_iter()
            .filter_map(tool)
            .collect()
    }

    /// The index of the lazy tools, built the first time.
    pub(super) fn lazy_search(&self) -> &LazySearch {
        let tools = &self.0.tools;
        self.0.lazy_search.get_or_init(|| {
            let positions: Vec<usize> = (0..tools.len()).filter(|&i| tools[i].is_lazy()).collect();
            let tags: Vec<Vec<&str>> = positions
                .iter()
                .map(|&i| tools[i].tags().collect())
                .collect();
            let index =
                SearchIndex::new(
                    positions
                        .iter()
                        .zip(&tags)
                        .map(|(&i, tags)| SearchDocument {
                            name: tools[i].name(),
                            description: tools[i].description(),
                            input_schema: tools[i].input_schema(),
                            tags,
                        }),
                );
            LazySearch { index, positions }
        })
    }

    /// What [`Registry::search`] weighs for `query`: each candidate tool with the query
    /// terms it holds, how often in each field, and the share of the query's words it
    /// matches, so that a ranking's constants can be fitted outside the index
    /// (`bench/search/fit.py`).
    ///
    /// ```
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.",
    ///     json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    ///     |_, _| async { Ok::<_, String>(json!("Sunny")) })
    ///     .lazy(true);
    /// let registry = Registry::builder().without_inventory().tools([forecast]).build().unwrap();
    /// let features = registry.search_features("weather tomorrow");
    /// assert_eq!(features.words, 2);
    /// assert_eq!(features.candidates[0].tool, "get_forecast");
    /// assert_eq!(features.candidates[0].words, 2);
    /// ```
    #[cfg(feature = "search-features")]
    pub fn search_features(&self, query: &str) -> crate::discovery::SearchFeatures {
        let search = self.lazy_search();
        let tools = &self.0.tools;
        search.index.features(query, |hit| {
            search
                .positions
                .get(hit)
                .map_or_else(String::new, |&position| tools[position].name().to_owned())
        })
    }

    /// What the lazy tools cost inline and as a names list, computed once.
    pub(crate) fn lazy_costs(&self) -> LazyCosts {
        *self.0.lazy_costs.get_or_init(|| {
            let lazy: Vec<&Tool> = self.tools().filter(|tool| tool.is_lazy()).collect();
            let definitions: Vec<_> = lazy.iter().map(|tool| tool.definition()).collect();
            let names = DiscoveryTool::new(&lazy, ResolvedMode::Names, DiscoveryListing::Names)
                .map_or(0, |discovery| {
                    tools_tokens(std::slice::from_ref(&discovery.definition))
                });
            LazyCosts {
                inline: tools_tokens(&definitions),
                names,
            }
        })
    }
}
