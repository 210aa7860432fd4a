//! Moving a conversation to a changed catalog: [`CatalogChange`].

use super::Session;
use crate::registry::Registry;
use crate::tool::DISCOVERY_TOOL_NAME;

/// How the lazy tools changed when a conversation moved to a new catalog
/// ([`Session::with_registry`]).
///
/// ```
/// use lazytool_runtime::CatalogChange;
///
/// let change = CatalogChange { added: vec!["get_alerts".into()], ..CatalogChange::default() };
/// assert!(!change.is_empty());
/// assert_eq!(change.notice().unwrap(), "The available tools changed. \
///     New tools you can load with __lazy__tool__discovery__: [get_alerts].");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogChange {
    /// Lazy tools that are new, in name order.
    pub added: Vec<String>,
    /// Lazy tools that are gone, in name order.
    pub removed: Vec<String>,
    /// Discovered tools that are gone (also in `removed`), in discovery order.
    pub dropped: Vec<String>,
}

impl CatalogChange {
    /// Whether the lazy tools are the same.
    ///
    /// ```
    /// use lazytool_runtime::CatalogChange;
    ///
    /// assert!(CatalogChange::default().is_empty());
    /// // Only `added` and `removed` count: `dropped` is a part of `removed`.
    /// assert!(!CatalogChange { removed: vec!["old".into()], ..CatalogChange::default() }.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// A message for the model saying which lazy tools appeared and disappeared (send it
    /// before the next request), or `None` when nothing changed.
    ///
    /// ```
    /// use lazytool_runtime::CatalogChange;
    ///
    /// assert_eq!(CatalogChange::default().notice(), None);
    /// let change = CatalogChange { removed: vec!["get_forecast".into()], ..CatalogChange::default() };
    /// assert_eq!(change.notice().unwrap(), "The available tools changed. No longer available: [get_forecast].");
    /// ```
    pub fn notice(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut notice = String::from("The available tools changed.");
        if !self.added.is_empty() {
            notice.push_str(&format!(
                " New tools you can load with {DISCOVERY_TOOL_NAME}: [{}].",
                self.added.join(", ")
            ));
        }
        if !self.removed.is_empty() {
            notice.push_str(&format!(
                " No longer available: [{}].",
                self.removed.join(", ")
            ));
        }
        Some(notice)
    }
}

impl Session {
    /// Moves the conversation to a changed catalog (tools added or removed between turns):
    /// a new session over `registry` with the same options and the discovered tools that
    /// still exist, and what changed. Discovered tools that vanished are dropped without
    /// error; [`CatalogChange::notice`] tells the model.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::DISCOVERY_TOOL_NAME;
    ///
    /// let session = registry.session();
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    ///
    /// // The catalog changed between turns: `get_forecast` is gone, `get_alerts` is new.
    /// let changed = Registry::builder().without_inventory()
    ///     .tools([tool("get_time", false), tool("get_alerts", true)]).build().unwrap();
    /// let (session, change) = session.with_registry(&changed);
    /// assert_eq!((change.added, change.removed, change.dropped), (vec!["get_alerts".to_owned()],
    ///     vec!["get_forecast".to_owned()], vec!["get_forecast".to_owned()]));
    /// assert!(session.discovered().tools.is_empty());
    /// # }
    /// ```
    pub fn with_registry(&self, registry: &Registry) -> (Session, CatalogChange) {
        let before = self.lazy_tool_names().to_vec();
        let discovered = self.discovered();
        let session = Session::new(registry, self.shared.options.clone());
        session.restore(discovered.tools.iter().map(String::as_str));
        let after = session.lazy_tool_names();
        let kept = session.discovered().tools;
        let change = CatalogChange {
            added: after
                .iter()
                .filter(|n| !before.contains(n))
                .cloned()
                .collect(),
            removed: before
                .iter()
                .filter(|n| !after.contains(n))
                .cloned()
                .collect(),
            dropped: (discovered.tools.into_iter())
                .filter(|n| !kept.contains(n))
                .collect(),
        };
        (session, change)
    }
}
