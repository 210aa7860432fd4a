//! What `GET /metrics` says of the upstreams, beside the HTTP server's own figures:
//! [`UpstreamMetrics`].

use lazytool_mcp::McpCatalog;
use lazytool_mcp::prometheus_client::metrics::family::Family;
use lazytool_mcp::prometheus_client::metrics::gauge::Gauge;
use lazytool_mcp::prometheus_client::registry::Registry;

type ByServer = Family<Vec<(String, String)>, Gauge>;

/// Per upstream server: whether its tools are listed, and how many it offers. Kept current
/// by a task that reads the catalog's reports each time the catalog is published again.
#[derive(Clone, Default)]
pub(crate) struct UpstreamMetrics {
    listed: ByServer,
    tools: ByServer,
}

impl UpstreamMetrics {
    pub(crate) fn register(&self, registry: &mut Registry) {
        registry.register(
            "lazytool_gateway_upstream_listed",
            "Whether an upstream server's tools are listed (1) or it failed (0)",
            self.listed.clone(),
        );
        registry.register(
            "lazytool_gateway_upstream_tools",
            "The tools an upstream server offers through the gateway",
            self.tools.clone(),
        );
    }

    fn update(&self, catalog: &McpCatalog) {
        for report in catalog.reports() {
            let labels = vec![("server".to_owned(), report.name.clone())];
            let (listed, tools) = match &report.tools {
                Ok(names) => (1, names.len()),
                Err(_) => (0, 0),
            };
            self.listed.get_or_create(&labels).set(listed);
            self.tools
                .get_or_create(&labels)
                .set(i64::try_from(tools).unwrap_or(i64::MAX));
        }
    }
}

/// The upstream metrics of `catalog`, followed for as long as the catalog lives.
pub(crate) fn upstream_metrics(catalog: &McpCatalog) -> UpstreamMetrics {
    let metrics = UpstreamMetrics::default();
    metrics.update(catalog);
    let (followed, catalog) = (metrics.clone(), catalog.clone());
    let mut changes = catalog.live().watch();
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            followed.update(&catalog);
        }
    });
    metrics
}
