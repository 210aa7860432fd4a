//! A registry whose catalog changes while it is served: [`LiveRegistry`].

use tokio::sync::watch;

use crate::registry::Registry;
use crate::session::{CatalogChange, Session};

/// The current [`Registry`] of a catalog that changes while it is served (tools of an MCP
/// server that announced `list_changed`, a source listed again), and a way to follow it.
///
/// Whoever rebuilds the catalog [`publish`](LiveRegistry::publish)es the new registry;
/// servers [`watch`](LiveRegistry::watch) it and move each conversation over with
/// [`Session::with_registry`], whose [`CatalogChange`] says what changed.
///
/// ```
/// use lazytool_runtime::source::LiveRegistry;
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let tool = |name: &str| DynamicTool::new(name, "A tool.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("ok")) }).lazy(true);
/// let build = |names: &[&str]| Registry::builder().without_inventory()
///     .tools(names.iter().map(|name| tool(name))).build().unwrap();
///
/// let live = LiveRegistry::new(build(&["a"]));
/// let session = live.current().session();
/// live.publish(build(&["a", "b"]));
/// let (session, change) = live.follow(&session);
/// assert_eq!(change.added, ["b"]);
/// assert_eq!(session.lazy_tool_names(), ["a", "b"]);
/// ```
#[derive(Clone, Debug)]
pub struct LiveRegistry {
    current: watch::Sender<Registry>,
}

impl LiveRegistry {
    /// A catalog that starts as `registry`.
    pub fn new(registry: Registry) -> Self {
        LiveRegistry {
            current: watch::Sender::new(registry),
        }
    }

    /// The registry now (a cheap handle).
    pub fn current(&self) -> Registry {
        self.current.borrow().clone()
    }

    /// Replaces the registry; every [`watch`](LiveRegistry::watch)er sees the change.
    pub fn publish(&self, registry: Registry) {
        self.current.send_replace(registry);
    }

    /// A receiver that holds the current registry and wakes on every
    /// [`publish`](LiveRegistry::publish).
    pub fn watch(&self) -> watch::Receiver<Registry> {
        self.current.subscribe()
    }

    /// `session` moved to the current registry, and what changed for it.
    pub fn follow(&self, session: &Session) -> (Session, CatalogChange) {
        session.with_registry(&self.current())
    }
}

impl From<Registry> for LiveRegistry {
    fn from(registry: Registry) -> Self {
        LiveRegistry::new(registry)
    }
}
