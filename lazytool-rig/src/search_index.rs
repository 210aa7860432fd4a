//! lazytool's BM25 tool search as the index that picks rig's retrieved tools.

use lazytool_runtime::{Registry, Tool};
use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use rig_agent::tool::ToolSet;
use rig_core::completion::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use rig_core::vector_store::request::{Filter, VectorSearchRequest};
use rig_core::vector_store::{
    VectorSearchIdResult, VectorSearchResult, VectorStoreError, VectorStoreIndex,
};
use rig_core::wasm_compat::WasmBoxedFuture;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::result::to_rig_output;

/// rig's tool retrieval (`AgentBuilder::retrieved_tools`) without embeddings or a vector
/// store: a [`VectorStoreIndex`] whose search is lazytool's BM25 tool search
/// ([`Registry::search`]) over a registry's lazy tools. Each of rig's requests carries the
/// eager tools and the lazy tools that best match the conversation's latest text (rig's
/// retrieval query), picked by rig's own loop; the model never calls a discovery tool.
///
/// The ids are tool names; scores fall with rank (`1 / rank`, BM25's own scores are not
/// comparable across queries), and a document is the tool's definition
/// (`{"name", "description", "inputSchema"}`). rig's filters are not applied: a tool has no
/// fields to filter on besides what the search already reads.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_rig::{LazySearchIndex, ScriptedChat};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use rig_agent::AgentBuilder;
/// use serde_json::json;
///
/// let tool = |name: &str, description: &str| DynamicTool::new(name.to_owned(), description.to_owned(),
///     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true);
/// let registry = Registry::builder().without_inventory()
///     .tools([tool("merge_pull_request", "Merges a pull request."),
///             tool("create_issue", "Opens an issue in a repository.")])
///     .build().unwrap();
/// let chat = ScriptedChat::new(|_| ScriptedChat::text("done"));
/// let index = LazySearchIndex::new(&registry);
/// let agent = index.attach(AgentBuilder::new(chat.model()), 1).build();
/// agent.prompt("Please merge my pull request").run().await.unwrap();
/// assert_eq!(chat.requests()[0]["tools"][0]["function"]["name"], "merge_pull_request");
/// # }
/// ```
#[derive(Clone)]
pub struct LazySearchIndex {
    registry: Registry,
}

impl LazySearchIndex {
    /// An index over `registry`'s lazy tools.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let index = lazytool_rig::LazySearchIndex::new(&registry);
    /// # let _ = index;
    /// ```
    pub fn new(registry: &Registry) -> Self {
        LazySearchIndex {
            registry: registry.clone(),
        }
    }

    /// The registry's lazy tools as rig tools, for `retrieved_tools`' tool set. Their calls
    /// run through [`Registry::call`]: validated, bounded and traced, without discovery's
    /// gating (rig decides what each request carries).
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let index = lazytool_rig::LazySearchIndex::new(&registry);
    /// assert!(index.toolset().is_empty());
    /// ```
    pub fn toolset(&self) -> ToolSet {
        ToolSet::from_dynamic_tools(self.rig_tools(true))
    }

    /// The registry's eager tools as rig tools, sent on every request.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// assert!(lazytool_rig::LazySearchIndex::new(&registry).eager_tools().is_empty());
    /// ```
    pub fn eager_tools(&self) -> Vec<DynamicTool> {
        self.rig_tools(false)
    }

    /// `builder` with the eager tools, and the `sample` lazy tools that best match each
    /// request's retrieval query.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// # let model = lazytool_rig::ScriptedChat::new(|_| lazytool_rig::ScriptedChat::text("hi")).model();
    /// let index = lazytool_rig::LazySearchIndex::new(&registry);
    /// let agent = index.attach(rig_agent::AgentBuilder::new(model), 5).build();
    /// # let _ = agent;
    /// ```
    pub fn attach(
        &self,
        builder: AgentBuilder<NoToolConfig>,
        sample: usize,
    ) -> AgentBuilder<WithBuilderTools> {
        builder.dynamic_tools(self.eager_tools()).retrieved_tools(
            sample,
            self.clone(),
            self.toolset(),
        )
    }

    fn rig_tools(&self, lazy: bool) -> Vec<DynamicTool> {
        self.registry
            .tools()
            .filter(|tool| tool.is_lazy() == lazy)
            .filter_map(|tool| {
                let name = ToolName::try_from(tool.name()).ok()?;
                let definition = tool.definition();
                let registry = self.registry.clone();
                let called = definition.name.clone();
                Some(
                    DynamicTool::new(
                        name,
                        definition.description.clone(),
                        definition.input_schema.clone(),
                        move |arguments| -> WasmBoxedFuture<
                            'static,
                            Result<ToolOutput, ToolExecutionError>,
                        > {
                            let result = registry.call(&called, arguments);
                            Box::pin(async move { to_rig_output(result.await) })
                        },
                    ),
                )
            })
            .collect()
    }

    fn found(&self, request: &VectorSearchRequest<Filter<Value>>) -> Vec<(f64, &Tool)> {
        let limit = usize::try_from(request.samples()).unwrap_or(usize::MAX);
        self.registry
            .search(request.query(), limit)
            .into_iter()
            .enumerate()
            .map(|(rank, tool)| (1.0 / (rank as f64 + 1.0), tool))
            .filter(|(score, _)| {
                request
                    .threshold()
                    .is_none_or(|threshold| *score >= threshold)
            })
            .collect()
    }
}

impl VectorStoreIndex for LazySearchIndex {
    type Filter = Filter<Value>;

    async fn top_n<T: DeserializeOwned + Send>(
        &self,
        request: VectorSearchRequest<Self::Filter>,
    ) -> Result<Vec<VectorSearchResult<T>>, VectorStoreError> {
        let mut results = Vec::new();
        for (score, tool) in self.found(&request) {
            let definition = tool.definition();
            let document = json!({
                "name": definition.name,
                "description": definition.description,
                "inputSchema": definition.input_schema,
            });
            results.push(VectorSearchResult {
                score,
                id: tool.name().to_owned(),
                document: serde_json::from_value(document)?,
            });
        }
        Ok(results)
    }

    async fn top_n_ids(
        &self,
        request: VectorSearchRequest<Self::Filter>,
    ) -> Result<Vec<VectorSearchIdResult>, VectorStoreError> {
        Ok(self
            .found(&request)
            .into_iter()
            .map(|(score, tool)| VectorSearchIdResult {
                score,
                id: tool.name().to_owned(),
            })
            .collect())
    }
}

impl std::fmt::Debug for LazySearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySearchIndex")
            .field("tools", &self.registry.len())
            .finish()
    }
}
