//! The gateway's log on stderr with every secret hidden: [`RedactedStderr`].
//!
//! Upstream errors of lazytool's own are redacted where they are made; rmcp and reqwest log
//! request URLs (query strings with API keys included) in lines of their own, which pass here.

use std::io::{self, Write};
use std::sync::{Arc, OnceLock};

use lazytool_mcp::Redactor;
use tracing_subscriber::fmt::MakeWriter;

/// Writes each formatted log line to stderr through a [`Redactor`]: URLs lose their user
/// information and query values from the start, and the configured servers' header and
/// environment values are hidden once [`RedactedStderr::hide`] has them.
#[derive(Clone, Default)]
pub(crate) struct RedactedStderr {
    redactor: Arc<OnceLock<Redactor>>,
}

impl RedactedStderr {
    /// Hides what `redactor` hides from now on (the first call wins).
    pub(crate) fn hide(&self, redactor: Redactor) {
        let _ = self.redactor.set(redactor);
    }
}

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Line(self.redactor.get())
    }
}

/// One log event: the fmt layer writes each event whole, in one `write_all`.
pub(crate) struct Line<'a>(Option<&'a Redactor>);

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(bytes);
        let hidden = match self.0 {
            Some(redactor) => redactor.apply(&text),
            None => Redactor::default().apply(&text),
        };
        io::stderr().lock().write_all(hidden.as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}
