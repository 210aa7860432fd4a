//! The sources a registry asks why a name is missing: [`RegistryBuilder::explain_missing`].

use std::sync::Arc;

use super::ToolSource;
use crate::registry::{MissingSource, RegistryBuilder};

/// A [`ToolSource`] as the registry asks it.
struct Asked(Arc<dyn ToolSource>);

impl MissingSource for Asked {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn missing_tool(&self, name: &str) -> Option<String> {
        self.0.missing_tool(name)
    }

    fn unavailable(&self) -> Option<String> {
        self.0.unavailable()
    }
}

impl RegistryBuilder {
    /// Asks `source` about a name the registry does not hold
    /// ([`ToolSource::missing_tool`]), before it is an unknown tool: its answer is the
    /// error of a discovery of the name and of a call to it (an error result of kind
    /// [`ToolErrorKind::Unavailable`](crate::ToolErrorKind::Unavailable)). A search answer
    /// carries what it cannot offer now ([`ToolSource::unavailable`]). Sources are asked
    /// in the order given; the first answer wins.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use std::sync::Arc;
    /// use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
    /// use lazytool_runtime::{CancellationToken, Registry, ToolErrorKind};
    /// use serde_json::json;
    ///
    /// struct Hub;
    ///
    /// impl ToolSource for Hub {
    ///     fn name(&self) -> &str {
    ///         "hub"
    ///     }
    ///
    ///     fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
    ///         Box::pin(async { Err(SourceError::new("hub", "401 Unauthorized")) })
    ///     }
    ///
    ///     fn missing_tool(&self, name: &str) -> Option<String> {
    ///         name.starts_with("hub__").then(|| "`hub` refused the listing: 401 Unauthorized".to_owned())
    ///     }
    /// }
    ///
    /// let registry = Registry::builder().without_inventory().explain_missing(Arc::new(Hub)).build().unwrap();
    /// let result = registry.call("hub__search", json!({})).await;
    /// assert_eq!(result.error_kind(), Some(ToolErrorKind::Unavailable));
    /// assert_eq!(result.content(), "Error: 'hub__search' is not available now: `hub` refused the listing: 401 Unauthorized.");
    /// assert_eq!(registry.call("weather", json!({})).await.error_kind(), Some(ToolErrorKind::UnknownTool));
    /// # }
    /// ```
    pub fn explain_missing(self, source: Arc<dyn ToolSource>) -> Self {
        self.explained_by(Arc::new(Asked(source)))
    }
}

#[cfg(all(test, feature = "json-schema"))]
mod tests;
