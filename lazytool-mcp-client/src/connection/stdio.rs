//! The client side of MCP over a child's stdio, hardened against the server:
//! [`ChildTransport`].
//!
//! - Each line is bounded ([`DEFAULT_MAX_LINE_BYTES`]): a longer one is never buffered whole.
//! - A line that is not a JSON-RPC message fails the request it answers at once (the one
//!   its `id` names, or the only request waiting) instead of leaving it to its timeout;
//!   anything else is reported, at most a few times a second.
//! - A late answer to the 2026-07-28 `server/discover` probe, arriving after the client
//!   gave up on it and sent `initialize`, is dropped: rmcp would take it for a wrong answer
//!   to `initialize` and fail the start. When that late answer is a discover result, the
//!   server speaks 2026-07-28 and may take no `initialize` after it (the Python SDK's
//!   servers refuse it with `-32022`): the `initialize` is failed at once with
//!   [`LATE_DISCOVER_RESULT`], and the start is tried again in 2026-07-28.

use std::collections::HashSet;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::service::{RoleClient, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::AsyncRead;
use tokio::sync::mpsc;
use tokio::time::Instant;

use lazytool_mcp_core::DEFAULT_MAX_LINE_BYTES;
use lazytool_mcp_core::jsonrpc::lines::{BoundedLines, KEPT_PREFIX, Read};
use lazytool_mcp_core::jsonrpc::request_id;

const TARGET: &str = "lazytool::upstream";
/// How many unreadable lines of one server are reported per second.
const REPORTS_PER_SECOND: u32 = 5;
/// How much of an unreadable line a report or an error quotes.
const QUOTED_CHARS: usize = 200;
/// JSON-RPC's "internal error": the answer could not be used.
const INTERNAL_ERROR: i32 = -32603;

/// The message of the error that ends an `initialize` sent after the probe was given up
/// on, when the probe's answer then arrives as a discover result (a server that was slow to
/// start, not a legacy one).
pub(crate) const LATE_DISCOVER_RESULT: &str =
    "the server answered the server/discover probe after it was given up on";

/// Requests sent and not yet answered, and the probe's state.
#[derive(Default)]
struct Outstanding {
    requests: HashSet<RequestId>,
    probe: Option<RequestId>,
    probe_abandoned: bool,
    initialize: Option<RequestId>,
}

pub(crate) struct ChildTransport<R> {
    server: Arc<str>,
    lines: BoundedLines<R>,
    outbox: mpsc::Sender<Vec<u8>>,
    outstanding: Arc<Mutex<Outstanding>>,
    reports: Reports,
}

impl<R: AsyncRead + Unpin + Send + 'static> ChildTransport<R> {
    /// Reads messages from `stdout`; the lines sent go to `outbox`, whose receiver writes
    /// them to the child's stdin (closed when this transport and its sends are gone).
    pub(crate) fn new(server: Arc<str>, stdout: R, outbox: mpsc::Sender<Vec<u8>>) -> Self {
        ChildTransport {
            server,
            lines: BoundedLines::new(stdout, DEFAULT_MAX_LINE_BYTES),
            outbox,
            outstanding: Arc::default(),
            reports: Reports::new(),
        }
    }

    fn outstanding(&self) -> std::sync::MutexGuard<'_, Outstanding> {
        self.outstanding
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What to hand rmcp for one line: a message, or nothing (the line was dropped).
    fn read(&mut self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return None;
        }
        match serde_json::from_slice::<ServerJsonRpcMessage>(trimmed) {
            Ok(message) => self.admit(message),
            Err(error) => {
                let value = serde_json::from_slice::<Value>(trimmed).ok();
                let id = value.as_ref().and_then(|value| {
                    let answer = value.get("method").is_none();
                    answer.then(|| value.get("id").cloned()).flatten()
                });
                if value.as_ref().is_some_and(|v| v.get("method").is_some()) {
                    tracing::debug!(target: TARGET, server = %self.server, %error, "an upstream message rmcp cannot read: skipped");
                    return None;
                }
                self.unreadable(trimmed, id, &format!("not a JSON-RPC message ({error})"))
            }
        }
    }

    /// An answer of the probe that was given up on is dropped; answered requests are done.
    fn admit(&mut self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let id = match &message {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        if let Some(id) = id {
            let mut outstanding = self.outstanding();
            if outstanding.probe_abandoned && outstanding.probe.as_ref() == Some(id) {
                let waiting = (outstanding.initialize.clone())
                    .filter(|initialize| outstanding.requests.contains(initialize));
                if let (JsonRpcMessage::Response(_), Some(initialize)) = (&message, waiting) {
                    tracing::debug!(target: TARGET, server = %self.server, "a late discover result: the initialize sent after it is failed, to start the server again in 2026-07-28");
                    outstanding.requests.remove(&initialize);
                    let error = ErrorData::internal_error(LATE_DISCOVER_RESULT, None);
                    return Some(JsonRpcMessage::error(error, Some(initialize)));
                }
                tracing::debug!(target: TARGET, server = %self.server, "a late answer to the server/discover probe: dropped");
                return None;
            }
            outstanding.requests.remove(id);
        }
        Some(message)
    }

    /// A line that is no message: the error answer of the request it belongs to (the `id`
    /// it names, else the only request waiting), or nothing, reported.
    fn unreadable(
        &mut self,
        line: &[u8],
        id: Option<Value>,
        why: &str,
    ) -> Option<ServerJsonRpcMessage> {
        let quoted: String = String::from_utf8_lossy(line)
            .chars()
            .take(QUOTED_CHARS)
            .collect();
        let id = id.or_else(|| {
            let outstanding = self.outstanding();
            let mut waiting = outstanding.requests.iter();
            match (waiting.next(), waiting.next()) {
                (Some(only), None) => Some(only.clone().into_json_value()),
                _ => None,
            }
        });
        self.reports.report(&self.server, why, &quoted);
        let id = id?;
        let answer = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": INTERNAL_ERROR,
                "message": format!("the MCP server `{}` answered with a line that is {why}: {quoted}", self.server),
            },
        });
        let message = serde_json::from_value::<ServerJsonRpcMessage>(answer).ok()?;
        self.admit(message)
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleClient> for ChildTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        note_sent(&mut self.outstanding(), &item);
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let outbox = self.outbox.clone();
        async move {
            outbox.send(line?).await.map_err(|_| {
                io::Error::new(io::ErrorKind::BrokenPipe, "the server's input is closed")
            })
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let message = match self.lines.next().await {
                Read::Line(line) => self.read(&line),
                Read::Oversized(prefix) => {
                    let why = format!("longer than {DEFAULT_MAX_LINE_BYTES} bytes");
                    let kept = &prefix[..prefix.len().min(KEPT_PREFIX)];
                    self.unreadable(kept, request_id::scan(kept), &why)
                }
                Read::Eof => return None,
                Read::Failed(error) => {
                    tracing::warn!(target: TARGET, server = %self.server, %error, "cannot read the server's output");
                    return None;
                }
            };
            if message.is_some() {
                return message;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn note_sent(outstanding: &mut Outstanding, item: &ClientJsonRpcMessage) {
    match item {
        JsonRpcMessage::Request(request) => {
            match &request.request {
                ClientRequest::DiscoverRequest(_) => outstanding.probe = Some(request.id.clone()),
                ClientRequest::InitializeRequest(_) => {
                    outstanding.probe_abandoned = true;
                    outstanding.initialize = Some(request.id.clone());
                }
                _ => {}
            }
            outstanding.requests.insert(request.id.clone());
        }
        JsonRpcMessage::Notification(notification) => {
            if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
                && let Some(id) = &cancelled.params.request_id
            {
                outstanding.requests.remove(id);
            }
        }
        _ => {}
    }
    if outstanding.probe_abandoned
        && let Some(probe) = &outstanding.probe
    {
        outstanding.requests.remove(probe);
    }
}

/// Reports of unreadable lines, at most [`REPORTS_PER_SECOND`] a second.
struct Reports {
    window: Instant,
    reported: u32,
    skipped: u64,
}

impl Reports {
    fn new() -> Self {
        Reports {
            window: Instant::now(),
            reported: 0,
            skipped: 0,
        }
    }

    fn report(&mut self, server: &str, why: &str, quoted: &str) {
        if self.window.elapsed() >= Duration::from_secs(1) {
            if self.skipped > 0 {
                tracing::warn!(target: TARGET, server = %server, skipped = self.skipped, "more unreadable lines from the server were not reported");
            }
            (self.window, self.reported, self.skipped) = (Instant::now(), 0, 0);
        }
        if self.reported == REPORTS_PER_SECOND {
            self.skipped += 1;
            return;
        }
        self.reported += 1;
        tracing::warn!(target: TARGET, server = %server, "the server wrote a line that is {why}: {quoted}");
    }
}
