//! `tracing` events captured as the text `tracing_subscriber`'s formatter writes.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// The events `run` emits at debug level and above, one formatted line each, without ANSI
/// colors.
pub fn captured(run: impl FnOnce()) -> String {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, run);
    let bytes = (captured.0.lock())
        .map(|bytes| bytes.clone())
        .unwrap_or_else(|poisoned| poisoned.into_inner().clone());
    String::from_utf8_lossy(&bytes).into_owned()
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
