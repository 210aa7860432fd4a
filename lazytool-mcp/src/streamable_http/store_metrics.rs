//! What `/metrics` says of the shared store: `lazytool_shared_store_up`.

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use super::metrics::Registrar;
use crate::shared::SharedStore;

/// Registers `lazytool_shared_store_up`: 1 while the store answers, 0 while it is down.
pub(super) fn registrar(store: &SharedStore) -> Registrar {
    let store = store.clone();
    Arc::new(move |registry: &mut Registry| {
        registry.register_collector(Box::new(StoreUp(store.clone())));
    })
}

/// Read at each scrape from the store's health.
#[derive(Debug)]
struct StoreUp(SharedStore);

impl Collector for StoreUp {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let gauge = ConstGauge::new(i64::from(!self.0.is_down()));
        let metric = encoder.encode_descriptor(
            "lazytool_shared_store_up",
            "Whether the shared store (Redis) answered its last command: 1 up, 0 down (limits local or calls refused, by its failure policy)",
            None,
            gauge.metric_type(),
        )?;
        gauge.encode(metric)
    }
}
