//! A catalog's prompts and resources served: [`McpCatalog`] as a [`PromptProvider`] and a
//! [`ResourceProvider`], each request routed to the source that offers its prompt or URI.

use std::collections::HashMap;
use std::sync::Arc;

use lazytool_runtime::ToolContext;
use rmcp::model::{ErrorData, JsonObject, Prompt, Reference, Resource, ResourceTemplate};
use tokio::sync::{broadcast, watch};

use crate::catalog::McpCatalog;
use crate::offers::offered::PromptsAndResources;
use crate::slots::Cached;
use lazytool_mcp_core::CompletionFuture;
use lazytool_mcp_core::{PromptFuture, PromptProvider};
use lazytool_mcp_core::{ReadFuture, ResourceProvider, WatchFuture};

impl McpCatalog {
    /// Each source's name and what it offers besides tools, as fetched last (at the start,
    /// after each of its `list_changed` and restarts; `None` before a first fetch that
    /// succeeded), in the order given to [`start`](McpCatalog::start). What the catalog
    /// serves as a [`PromptProvider`] and [`ResourceProvider`] is their union: a prompt name
    /// or a resource URI (or URI template) that two servers offer goes to the first, and the
    /// clash is logged.
    ///
    /// ```rust,no_run
    /// use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
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
        self.get_prompt_in(name, arguments, ToolContext::new())
    }

    fn complete(
        &self,
        prompt: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move {
            let source = self.prompt_source(&prompt)?;
            let reference = Reference::for_prompt(prompt);
            source
                .source()
                .complete(reference, argument, value, context)
                .await
        })
    }

    fn get_prompt_in(
        &self,
        name: String,
        arguments: JsonObject,
        context: ToolContext,
    ) -> PromptFuture<'_> {
        Box::pin(async move {
            let source = self.prompt_source(&name)?;
            source
                .source()
                .get_prompt_in(&name, arguments, &context)
                .await
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
            let source = self.resource_source(&uri)?;
            source.source().read_resource(&uri).await
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.offers().resources_changed.subscribe())
    }

    fn updates(&self) -> Option<broadcast::Receiver<String>> {
        Some(self.offers().resources_updated.subscribe())
    }

    fn watch(&self, uri: String) -> WatchFuture<'_> {
        Box::pin(async move {
            let offers = self.offers();
            let source = self.resource_source(&uri)?;
            let source = source.source();
            // This server's updates reach the catalog's subscribers from now on.
            let link = source.link();
            let new = (offers.forwarding.lock())
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(Arc::as_ptr(link) as usize);
            if new {
                let mut updates = link.resource_watch().updates().subscribe();
                let catalog = offers.resources_updated.clone();
                tokio::spawn(async move {
                    loop {
                        match updates.recv().await {
                            Ok(uri) => {
                                let _ = catalog.send(uri);
                            }
                            Err(broadcast::error::RecvError::Lagged(_)) => {}
                            Err(broadcast::error::RecvError::Closed) => return,
                        }
                    }
                });
            }
            link.watch_resource(uri).await.map_err(|error| {
                ErrorData::internal_error(
                    format!(
                        "the MCP server `{}` could not be asked for the resource's updates: {}",
                        source.name,
                        link.redact(&error)
                    ),
                    None,
                )
            })
        })
    }

    fn complete(
        &self,
        uri_template: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move {
            let offers = self.offers();
            let owner = (offers.state().merged.template_owner.iter())
                .find(|(template, _)| *template == uri_template)
                .map(|(_, owner)| *owner);
            let Some(source) = owner.and_then(|index| offers.sources.get(index)) else {
                return Err(ErrorData::invalid_params(
                    format!("no server offers the resource template `{uri_template}`"),
                    None,
                ));
            };
            let reference = Reference::for_resource(uri_template);
            source
                .source()
                .complete(reference, argument, value, context)
                .await
        })
    }

    fn unknown_resource(&self, uri: &str) -> ErrorData {
        ErrorData::resource_not_found(format!("no server offers the resource `{uri}`"), None)
    }
}

impl McpCatalog {
    /// The source that offers the prompt `name`, or the unknown-prompt error.
    fn prompt_source(&self, name: &str) -> Result<Arc<Cached>, ErrorData> {
        let offers = self.offers();
        let owner = offers.state().merged.prompt_owner.get(name).copied();
        owner
            .and_then(|index| offers.sources.get(index))
            .ok_or_else(|| self.unknown_prompt(name))
    }

    /// The source a resource `uri` is read from, or the unknown-resource error.
    fn resource_source(&self, uri: &str) -> Result<Arc<Cached>, ErrorData> {
        let offers = self.offers();
        offers
            .owner_of(uri)
            .and_then(|index| offers.sources.get(index))
            .ok_or_else(|| self.unknown_resource(uri))
    }
}
