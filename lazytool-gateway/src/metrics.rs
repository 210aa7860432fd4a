//! What `GET /metrics` says of the upstreams, beside the HTTP server's own figures:
//! [`UpstreamMetrics`].

use lazytool_mcp::prometheus_client::collector::Collector;
use lazytool_mcp::prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use lazytool_mcp::prometheus_client::metrics::counter::ConstCounter;
use lazytool_mcp::prometheus_client::metrics::family::Family;
use lazytool_mcp::prometheus_client::metrics::gauge::Gauge;
use lazytool_mcp::prometheus_client::registry::Registry;
use lazytool_mcp_client::McpCatalog;

type ByServer = Family<Vec<(String, String)>, Gauge>;

/// Per upstream server: whether its tools are listed, and how many it offers. Kept current
/// by a task that reads the catalog's reports each time the catalog is published again.
#[derive(Clone, Default)]
pub(crate) struct UpstreamMetrics {
    listed: ByServer,
    tools: ByServer,
    catalog: Option<McpCatalog>,
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
        if let Some(catalog) = &self.catalog {
            registry.register_collector(Box::new(LimitsHit(catalog.clone())));
        }
    }

    fn update(&self, catalog: &McpCatalog) {
        // A server removed by a reload has no series any more.
        self.listed.clear();
        self.tools.clear();
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
    let metrics = UpstreamMetrics {
        catalog: Some(catalog.clone()),
        ..UpstreamMetrics::default()
    };
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

/// `lazytool_gateway_upstream_limit_refused_total{server, limit}`: the calls each limited
/// server's limits refused, read from the sources at each scrape.
struct LimitsHit(McpCatalog);

impl std::fmt::Debug for LimitsHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LimitsHit")
            .field(&self.0.limits_hit())
            .finish()
    }
}

impl Collector for LimitsHit {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let hits = self.0.limits_hit();
        if hits.is_empty() {
            return Ok(());
        }
        let mut family = encoder.encode_descriptor(
            "lazytool_gateway_upstream_limit_refused",
            "Tool calls refused for an upstream server's limit, by server and limit (rate or in_flight)",
            None,
            ConstCounter::new(0u64).metric_type(),
        )?;
        for (server, hit) in hits {
            for (limit, count) in [("rate", hit.rate), ("in_flight", hit.in_flight)] {
                let labels = [("server", server.as_str()), ("limit", limit)];
                ConstCounter::new(count).encode(family.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}
