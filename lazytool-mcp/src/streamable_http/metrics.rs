//! `GET /metrics` in Prometheus text: [`HttpMetrics`], through prometheus-client.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// What registers an application's own metrics (a gateway's upstream states, say) beside the
/// server's: see [`McpHttp::register_metrics`](crate::McpHttp::register_metrics).
pub(crate) type Registrar = Arc<dyn Fn(&mut Registry) + Send + Sync>;

// Labels from fixed sets: counting a request looks its counter up without allocating.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    pub(crate) method: &'static str,
    pub(crate) status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RefusalLabels {
    pub(crate) reason: &'static str,
}

/// The server's metrics (cheap to clone: every metric is shared).
#[derive(Clone)]
pub(crate) struct HttpMetrics {
    pub(crate) requests: Family<RequestLabels, Counter>,
    pub(crate) refused: Family<RefusalLabels, Counter>,
    pub(crate) duration: Histogram,
    pub(crate) sessions: Gauge,
    pub(crate) connections: Gauge,
    pub(crate) streams: Gauge,
    pub(crate) in_flight: Gauge,
    registrars: Vec<Registrar>,
}

/// Why the guard refused a request, as the `reason` label counts it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Origin,
    Host,
    Unauthorized,
    BodyTooLarge,
    BodyTimeout,
    Malformed,
    SessionsFull,
    StreamsFull,
    ShuttingDown,
    Connections,
    /// A principal's `tools/call` over its limits.
    CallLimit,
    /// A client address past its limit on failed authentication.
    FailedAuthentication,
}

impl Refusal {
    /// The `reason` label.
    fn label(self) -> &'static str {
        match self {
            Refusal::Origin => "origin",
            Refusal::Host => "host",
            Refusal::Unauthorized => "unauthorized",
            Refusal::BodyTooLarge => "body_too_large",
            Refusal::BodyTimeout => "body_timeout",
            Refusal::Malformed => "malformed",
            Refusal::SessionsFull => "sessions_full",
            Refusal::StreamsFull => "streams_full",
            Refusal::ShuttingDown => "shutting_down",
            Refusal::Connections => "connections",
            Refusal::CallLimit => "call_limit",
            Refusal::FailedAuthentication => "failed_authentication",
        }
    }
}

impl Default for HttpMetrics {
    fn default() -> Self {
        HttpMetrics {
            requests: Family::default(),
            refused: Family::default(),
            // 100 µs to about 26 s.
            duration: Histogram::new(exponential_buckets(0.000_1, 2.0, 19)),
            sessions: Gauge::default(),
            connections: Gauge::default(),
            streams: Gauge::default(),
            in_flight: Gauge::default(),
            registrars: Vec::new(),
        }
    }
}

impl HttpMetrics {
    pub(crate) fn add_registrar(&mut self, registrar: Registrar) {
        self.registrars.push(registrar);
    }

    pub(crate) fn refuse(&self, refusal: Refusal) {
        self.refused
            .get_or_create(&RefusalLabels {
                reason: refusal.label(),
            })
            .inc();
    }

    pub(crate) fn answered(&self, method: &'static str, status: u16, took: Option<Duration>) {
        self.requests
            .get_or_create(&RequestLabels { method, status })
            .inc();
        if let Some(took) = took {
            self.duration.observe(took.as_secs_f64());
        }
    }

    /// The registry `/metrics` encodes: the server's metrics (named `lazytool_http_…`), then the
    /// application's.
    pub(crate) fn registry(&self) -> Registry {
        let mut root = Registry::default();
        let registry = root.sub_registry_with_prefix("lazytool_http");
        registry.register(
            "requests",
            "HTTP requests answered, by method and status",
            self.requests.clone(),
        );
        registry.register(
            "refused",
            "Requests refused before MCP saw them, by reason",
            self.refused.clone(),
        );
        registry.register(
            "request_duration_seconds",
            "Time from a request's arrival to the end of its answer (long-lived streams excluded)",
            self.duration.clone(),
        );
        registry.register("sessions", "Live MCP sessions", self.sessions.clone());
        registry.register(
            "connections",
            "Open HTTP connections",
            self.connections.clone(),
        );
        registry.register(
            "streams",
            "Open long-lived SSE streams",
            self.streams.clone(),
        );
        registry.register(
            "in_flight",
            "Requests being answered",
            self.in_flight.clone(),
        );
        for registrar in &self.registrars {
            registrar(&mut root);
        }
        root
    }
}

/// `registry` in Prometheus (OpenMetrics) text.
pub(crate) fn encode(registry: &Registry) -> Result<String, fmt::Error> {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry)?;
    Ok(text)
}

/// The content type of [`encode`]'s text.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
