//! Where audit lines go: [`AuditLog`].

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use super::line::AuditLine;
use super::rotate::{RotatingFile, Rotation};
use super::tally::CallTally;

/// How many lines wait for the writer at most; past it, lines are dropped and counted
/// ([`AuditLog::dropped`], `lazytool_audit_dropped_lines_total` on `/metrics`), never waited
/// for.
pub const AUDIT_CHANNEL_BOUND: usize = 4096;

/// The audit trail: one JSON line per tool call (principal, session, client, server, tool,
/// outcome, duration, argument and result sizes, a SHA-256 of the canonical arguments),
/// login (`initialize`), refusal, pin violation and configuration reload, written to stdout
/// or to a file rotated by size. Give it to [`McpServer::audit`](crate::McpServer::audit).
///
/// Recording never waits: a line goes into a channel of [`AUDIT_CHANNEL_BOUND`] lines, which
/// a thread of its own writes out; when the channel is full the line is dropped and counted.
/// Argument values are written only with [`with_arguments`](Self::with_arguments); tokens,
/// headers, URLs and upstream environments never are.
///
/// ```
/// use lazytool_mcp::{AuditLog, McpServer, Rotation};
///
/// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let path = std::env::temp_dir().join("lazytool-doc-audit.jsonl");
/// let audit = AuditLog::file(&path, Rotation { max_bytes: 1 << 20, keep: 3 }).unwrap();
/// let server = McpServer::new(registry).audit(audit.clone());
/// assert_eq!(audit.dropped(), 0);
/// ```
#[derive(Clone)]
pub struct AuditLog {
    /// `None` for a log that only counts ([`AuditLog::tally_only`]).
    lines: Option<SyncSender<String>>,
    dropped: Arc<AtomicU64>,
    progress: Arc<Progress>,
    arguments: bool,
    tally: Option<CallTally>,
}

/// Lines sent to the writer and lines it has written and flushed, for
/// [`AuditLog::flush`] to wait on.
#[derive(Default)]
struct Progress {
    sent: AtomicU64,
    written: Mutex<u64>,
    advanced: Condvar,
}

impl AuditLog {
    /// Lines to the process's stdout (not for a server that speaks MCP on stdio).
    ///
    /// ```
    /// let audit = lazytool_mcp::AuditLog::stdout();
    /// assert!(!audit.keeps_arguments());
    /// ```
    pub fn stdout() -> Self {
        Self::writer(io::stdout())
    }

    /// Lines appended to the file at `path` (created `0600` if missing), rotated by
    /// `rotation`.
    ///
    /// ```
    /// use lazytool_mcp::{AuditLog, Rotation};
    ///
    /// let error = AuditLog::file("/nonexistent/dir/audit.jsonl", Rotation::default()).err().unwrap();
    /// assert!(error.to_string().starts_with("cannot open the audit file /nonexistent/dir/audit.jsonl: "));
    /// ```
    pub fn file(path: impl AsRef<Path>, rotation: Rotation) -> io::Result<Self> {
        let path = path.as_ref();
        let file = RotatingFile::open(path, rotation).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("cannot open the audit file {}: {error}", path.display()),
            )
        })?;
        Ok(Self::spawn(Sink::File(file)))
    }

    /// Lines to any writer (a socket, a pipe, a buffer in a test).
    ///
    /// ```
    /// let audit = lazytool_mcp::AuditLog::writer(std::io::sink());
    /// assert_eq!(audit.dropped(), 0);
    /// ```
    pub fn writer(writer: impl Write + Send + 'static) -> Self {
        Self::spawn(Sink::Writer(Box::new(writer)))
    }

    /// Also writes each call's arguments (off by default: they may hold what a user typed,
    /// secrets included).
    ///
    /// ```
    /// let audit = lazytool_mcp::AuditLog::writer(std::io::sink()).with_arguments(true);
    /// assert!(audit.keeps_arguments());
    /// ```
    pub fn with_arguments(mut self, keep: bool) -> Self {
        self.arguments = keep;
        self
    }

    /// A log that writes nothing and only counts each call in `tally`: a status page's
    /// counts without an audit trail (no line is serialised, no writer runs).
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_mcp::{AuditLog, CallTally};
    ///
    /// let tally = CallTally::new(Duration::from_secs(900));
    /// let counting = AuditLog::tally_only(tally.clone());
    /// assert!(counting.flush(Duration::ZERO), "nothing waits to be written");
    /// ```
    pub fn tally_only(tally: CallTally) -> Self {
        AuditLog {
            lines: None,
            dropped: Arc::new(AtomicU64::new(0)),
            progress: Arc::new(Progress::default()),
            arguments: false,
            tally: Some(tally),
        }
    }

    /// Whether lines are written (not only counted).
    pub(crate) fn writes(&self) -> bool {
        self.lines.is_some()
    }

    /// Also counts each call line in `tally` (calls, errors and refusals of the last
    /// minutes per server and per principal), for a status page.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_mcp::{AuditLog, CallTally};
    ///
    /// let tally = CallTally::new(Duration::from_secs(900));
    /// let audit = AuditLog::writer(std::io::sink()).with_tally(tally.clone());
    /// assert!(tally.by_principal().is_empty());
    /// ```
    pub fn with_tally(mut self, tally: CallTally) -> Self {
        self.tally = Some(tally);
        self
    }

    /// Whether argument values are written.
    ///
    /// ```
    /// assert!(!lazytool_mcp::AuditLog::writer(std::io::sink()).keeps_arguments());
    /// ```
    pub fn keeps_arguments(&self) -> bool {
        self.arguments
    }

    /// Lines dropped so far because the writer fell [`AUDIT_CHANNEL_BOUND`] lines behind.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp::AuditLog::writer(std::io::sink()).dropped(), 0);
    /// ```
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Waits, at most `within`, until every line recorded so far is written and flushed:
    /// before a program exits. Returns whether they were.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let audit = lazytool_mcp::AuditLog::writer(std::io::sink());
    /// assert!(audit.flush(Duration::from_secs(5)));
    /// ```
    pub fn flush(&self, within: Duration) -> bool {
        let sent = self.progress.sent.load(Ordering::Acquire);
        let written = self
            .progress
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (written, _) = (self.progress.advanced)
            .wait_timeout_while(written, within, |written| *written < sent)
            .unwrap_or_else(PoisonError::into_inner);
        *written >= sent
    }

    fn spawn(sink: Sink) -> Self {
        let (lines, received) = sync_channel(AUDIT_CHANNEL_BOUND);
        let progress = Arc::new(Progress::default());
        let followed = Arc::clone(&progress);
        let spawned = std::thread::Builder::new()
            .name("lazytool-audit".to_owned())
            .spawn(move || write_all(received, sink, &followed));
        if let Err(error) = spawned {
            tracing::error!(target: "lazytool::audit", %error, "cannot start the audit writer: audit lines are dropped");
        }
        AuditLog {
            lines: Some(lines),
            dropped: Arc::new(AtomicU64::new(0)),
            progress,
            arguments: false,
            tally: None,
        }
    }

    /// Records a configuration reload: an `event` `reload` line whose `outcome` is `ok` or
    /// `refused` and whose other fields are `changes`, each kind of change (the gateway's:
    /// `added`, `removed`, `restarted`, `settings`) with the server or setting names it
    /// concerns. Names only: a configuration's values never reach the trail (a refused
    /// reload's problems go to the log, not here).
    ///
    /// ```
    /// let audit = lazytool_mcp::AuditLog::writer(std::io::sink());
    /// audit.record_reload(true, &[("added", vec!["memory".to_owned()]), ("removed", vec![])]);
    /// ```
    pub fn record_reload(&self, ok: bool, changes: &[(&str, Vec<String>)]) {
        let outcome = if ok { "ok" } else { "refused" };
        self.record(&AuditLine::reload(outcome, changes));
    }

    pub(crate) fn record(&self, line: &AuditLine) {
        if let Some(tally) = &self.tally
            && line.0.get("event").and_then(serde_json::Value::as_str) == Some("call")
        {
            tally.count(&line.0);
        }
        let Some(lines) = &self.lines else {
            return;
        };
        match lines.try_send(line.to_json_line()) {
            Ok(()) => {
                self.progress.sent.fetch_add(1, Ordering::Release);
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("arguments", &self.arguments)
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

enum Sink {
    File(RotatingFile),
    Writer(Box<dyn Write + Send>),
}

impl Sink {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(file) => file.write_line(line),
            Sink::Writer(writer) => writer.write_all(line),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(file) => file.flush(),
            Sink::Writer(writer) => writer.flush(),
        }
    }
}

/// The writer thread: every line as it comes, flushed whenever none is waiting, until every
/// [`AuditLog`] is dropped.
fn write_all(received: Receiver<String>, mut sink: Sink, progress: &Progress) {
    let mut failed = false;
    while let Ok(line) = received.recv() {
        let mut result = sink.write_line(line.as_bytes());
        let mut count = 1;
        while let Ok(line) = received.try_recv() {
            result = result.and_then(|()| sink.write_line(line.as_bytes()));
            count += 1;
        }
        result = result.and_then(|()| sink.flush());
        // Counted written even when writing failed: `flush` waits for the writer, not for
        // a disk that is full.
        *progress
            .written
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += count;
        progress.advanced.notify_all();
        match result {
            Err(error) if !failed => {
                tracing::error!(target: "lazytool::audit", %error, "cannot write the audit trail");
                failed = true;
            }
            Ok(()) => failed = false,
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A writer that blocks until told, so the channel fills.
    struct Stuck(Arc<Mutex<()>>);

    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            drop(self.0.lock());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_channel_drops_and_counts_lines_instead_of_waiting() {
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().expect("as set up");
        let audit = AuditLog::writer(Stuck(Arc::clone(&gate)));
        let line = AuditLine::refusal("unauthorized", "POST", "/mcp");
        for _ in 0..AUDIT_CHANNEL_BOUND + 100 {
            audit.record(&line);
        }
        // The writer holds at most one line out of the channel.
        assert!((99..=100).contains(&audit.dropped()), "{}", audit.dropped());
        drop(held);
    }
}
