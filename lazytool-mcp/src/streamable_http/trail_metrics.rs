//! What `/metrics` says of principals' limits hit and of the audit trail's dropped lines.

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::registry::Registry;

use super::metrics::Registrar;
use crate::PrincipalLimits;
use crate::audit::AuditLog;

/// Registers `lazytool_principal_limit_refused_total{principal, limit}`: one series per
/// principal tracked ([`PrincipalLimits`] drops a principal's with its bucket).
pub(super) fn principal_limits(limits: &PrincipalLimits) -> Registrar {
    let refusals = limits.refusals.clone();
    Arc::new(move |registry: &mut Registry| {
        registry.register(
            "lazytool_principal_limit_refused",
            "Tool calls refused for a principal's limit, by principal and limit (rate or in_flight)",
            refusals.clone(),
        );
    })
}

/// Registers `lazytool_audit_dropped_lines_total`.
pub(super) fn audit(log: &AuditLog) -> Registrar {
    let log = log.clone();
    Arc::new(move |registry: &mut Registry| {
        registry.register_collector(Box::new(Dropped(log.clone())));
    })
}

/// Read at each scrape: the log counts its dropped lines itself.
#[derive(Debug)]
struct Dropped(AuditLog);

impl Collector for Dropped {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let counter = ConstCounter::new(self.0.dropped());
        let metric = encoder.encode_descriptor(
            "lazytool_audit_dropped_lines",
            "Audit lines dropped because the writer fell behind by the channel's bound",
            None,
            counter.metric_type(),
        )?;
        counter.encode(metric)
    }
}
