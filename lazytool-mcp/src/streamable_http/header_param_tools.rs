//! Which tools of a server's catalog declare header parameters (SEP-2243's `x-mcp-header`),
//! whose calls rmcp checks against their `Mcp-Param-*` headers: [`HeaderParamTools`].

use std::sync::{Mutex, PoisonError};

use lazytool_runtime::Registry;
use tokio::sync::watch;

use super::lane_checks::has_header_params;
use crate::server::McpServer;

/// Whether a tool has header parameters, for the catalog in force. Whether any tool has them
/// is found once per catalog: a call of a catalog without any (the usual one) walks no
/// schema (`add`'s cost 1,200 instructions a call, callgrind).
pub(super) struct HeaderParamTools {
    seen: Mutex<Seen>,
}

/// The catalog last looked at, and whether some tool of it has header parameters.
struct Seen {
    catalog: watch::Receiver<Registry>,
    any: bool,
}

impl HeaderParamTools {
    /// For `server`'s catalog, as it is and as it changes.
    pub(super) fn new(server: &McpServer) -> Self {
        let mut catalog = server.catalog();
        let any = any_in(&catalog.borrow_and_update());
        HeaderParamTools {
            seen: Mutex::new(Seen { catalog, any }),
        }
    }

    /// Whether the tool `name` of the catalog in force declares header parameters.
    pub(super) fn has(&self, name: &str) -> bool {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        // A catalog that cannot change any more (its sender gone) is the one seen.
        if seen.catalog.has_changed().unwrap_or(false) {
            let any = any_in(&seen.catalog.borrow_and_update());
            seen.any = any;
        }
        seen.any
            && (seen.catalog.borrow().get(name))
                .is_some_and(|tool| has_header_params(tool.declared_input_schema()))
    }
}

fn any_in(registry: &Registry) -> bool {
    (registry.tools()).any(|tool| has_header_params(tool.declared_input_schema()))
}

#[cfg(test)]
mod tests {
    use lazytool_runtime::DynamicTool;
    use lazytool_runtime::source::LiveRegistry;
    use serde_json::{Value, json};

    use super::*;

    fn registry(schema: Value) -> Registry {
        let tool = DynamicTool::new("locate", "Finds a place.", schema, |_, _| async {
            Ok::<_, String>(json!(1))
        });
        (Registry::builder().without_inventory().tool(tool).build()).expect("a registry")
    }

    #[test]
    fn a_catalog_change_is_followed() {
        let live = LiveRegistry::new(registry(json!({"type": "object"})));
        let server = McpServer::live(&live);
        let tools = HeaderParamTools::new(&server);
        assert!(!tools.has("locate"));
        let header = json!({"type": "string", "x-mcp-header": "Region"});
        live.publish(registry(
            json!({"type": "object", "properties": {"region": header}}),
        ));
        assert!(tools.has("locate"));
        assert!(!tools.has("elsewhere"));
        live.publish(registry(json!({"type": "object"})));
        assert!(!tools.has("locate"));
    }
}
