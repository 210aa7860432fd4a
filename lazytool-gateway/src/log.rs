//! The gateway's log on stderr with every secret hidden: [`RedactedStderr`].
//!
//! Upstream errors of lazytool's own are redacted where they are made; rmcp and reqwest log
//! request URLs (query strings with API keys included) in lines of their own, which pass here.

use std::io::{self, Write};
use std::sync::{Arc, PoisonError, RwLock};

use lazytool_mcp_client::Redactor;
use tracing_subscriber::fmt::MakeWriter;

/// Writes each formatted log line to stderr through a [`Redactor`]: URLs lose their user
/// information and query values from the start, and the configured servers' header and
/// environment values are hidden once [`RedactedStderr::hide`] has them.
#[derive(Clone, Default)]
pub(crate) struct RedactedStderr {
    redactor: Arc<RwLock<Arc<Redactor>>>,
}

impl RedactedStderr {
    /// Hides what `redactor` hides from now on, besides what it hid before: a reloaded
    /// configuration's servers, and the old ones', which may still be stopping.
    pub(crate) fn hide(&self, redactor: &Redactor) {
        let mut hidden = self
            .redactor
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        *hidden = Arc::new(hidden.and(redactor));
    }
}

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = Line;

    fn make_writer(&'a self) -> Self::Writer {
        // Replaced by one assignment: consistent after a panic elsewhere.
        Line(Arc::clone(
            &self.redactor.read().unwrap_or_else(PoisonError::into_inner),
        ))
    }
}

/// One log event: the fmt layer writes each event whole, in one `write_all`.
pub(crate) struct Line(Arc<Redactor>);

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(bytes);
        let hidden = self.0.apply(&text);
        io::stderr().lock().write_all(hidden.as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}
