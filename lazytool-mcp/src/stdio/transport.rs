//! The stdio-style transport in front of rmcp: bounded lines in, one ordered line writer out,
//! an error reply for every line rmcp would silently drop, and backpressure: a bounded number
//! of requests in flight, each until its answer is queued for the writer, whose queue is
//! bounded too. A client that stops reading stops being read.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use lazytool_runtime::CancellationToken;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorCode, GetMeta, JsonRpcMessage,
    ProtocolVersion, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use tokio::io::AsyncRead;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::jsonrpc::decode::{self, Decoded};
use crate::jsonrpc::lines::{BoundedLines, Read};

/// Lines waiting for the writer; senders wait when it is full (backpressure).
pub(crate) const OUTBOX_CAPACITY: usize = 64;

/// How many requests [`McpServer::serve`](crate::McpServer::serve) has read and not yet
/// answered (its answer not yet queued for the output) at most: while this many are in
/// flight, no more input is read. With the output's queue of 64 lines, this bounds the
/// answers a client that sends requests and never reads can make the server hold.
///
/// ```
/// assert_eq!(lazytool_mcp::MAX_REQUESTS_IN_FLIGHT, 64);
/// ```
pub const MAX_REQUESTS_IN_FLIGHT: usize = 64;

/// The requests in flight, by id, each holding one of [`MAX_REQUESTS_IN_FLIGHT`] permits.
#[derive(Clone)]
pub(crate) struct InFlight {
    permits: Arc<Semaphore>,
    requests: Arc<Mutex<HashMap<RequestId, OwnedSemaphorePermit>>>,
}

impl InFlight {
    fn new() -> Self {
        InFlight {
            permits: Arc::new(Semaphore::new(MAX_REQUESTS_IN_FLIGHT)),
            requests: Arc::default(),
        }
    }

    fn requests(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, OwnedSemaphorePermit>> {
        // A map of permits, consistent after every statement.
        self.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records request `id` with its permit; false (the permit handed back) when a request
    /// with that id is already in flight.
    fn start(
        &self,
        id: &RequestId,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), OwnedSemaphorePermit> {
        let mut requests = self.requests();
        if requests.contains_key(id) {
            return Err(permit);
        }
        requests.insert(id.clone(), permit);
        Ok(())
    }

    /// Request `id` was answered (or cancelled): its permit is released.
    fn end(&self, id: &RequestId) {
        self.requests().remove(id);
    }
}

/// Reads newline-delimited JSON-RPC messages; answers the lines that are not messages
/// itself. Everything it and rmcp send goes through one channel to [`write_lines`], so
/// lines never interleave.
pub(crate) struct LineTransport<R> {
    lines: BoundedLines<R>,
    max_line_bytes: usize,
    outbox: mpsc::Sender<Vec<u8>>,
    /// An error reply not yet queued: `receive` may be dropped while the outbox is full.
    reply: Option<Vec<u8>>,
    /// Whether a request has opened rmcp's lifecycle (see [`LineTransport::admit`]).
    opened: bool,
    /// Cancelled when the input ends.
    closed: CancellationToken,
    in_flight: InFlight,
    /// The permit the next request will hold, taken before its line is read.
    permit: Option<OwnedSemaphorePermit>,
}

impl<R: AsyncRead + Unpin> LineTransport<R> {
    pub(crate) fn new(
        reader: R,
        max_line_bytes: usize,
        outbox: mpsc::Sender<Vec<u8>>,
        closed: CancellationToken,
    ) -> Self {
        LineTransport {
            lines: BoundedLines::new(reader, max_line_bytes),
            max_line_bytes,
            outbox,
            reply: None,
            opened: false,
            closed,
            in_flight: InFlight::new(),
            permit: None,
        }
    }

    /// Tracks requests in flight: a request reusing the id of one still in flight is
    /// answered with an error here (rmcp would answer only one of the two), a cancelled one
    /// releases its permit (rmcp drops its answer).
    fn track(&mut self, message: ClientJsonRpcMessage) -> Option<ClientJsonRpcMessage> {
        match &message {
            JsonRpcMessage::Request(request) => {
                let Some(permit) = self.permit.take() else {
                    return Some(message);
                };
                if let Err(permit) = self.in_flight.start(&request.id, permit) {
                    self.permit = Some(permit);
                    tracing::debug!(target: "lazytool::mcp", id = %request.id, "a request reuses the id of one in flight");
                    self.reply = Some(decode::reply(
                        Some(request.id.clone().into_json_value()),
                        ErrorCode::INVALID_REQUEST,
                        &format!(
                            "Invalid request: the id {} is already used by a request in flight; use a new id for each request",
                            request.id.clone().into_json_value()
                        ),
                    ));
                    return None;
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.in_flight.end(id);
                }
            }
            _ => {}
        }
        Some(message)
    }

    /// rmcp ends the connection when the first message that is not `ping` or
    /// `server/discover` is not a request opening a session; a stray notification or
    /// response before that is dropped here instead.
    fn admit(&mut self, message: ClientJsonRpcMessage) -> Option<ClientJsonRpcMessage> {
        if !self.opened {
            let JsonRpcMessage::Request(request) = &message else {
                tracing::debug!(target: "lazytool::mcp", "ignoring a message sent before initialize");
                return None;
            };
            self.opened = opens_session(&request.request);
        }
        Some(message)
    }
}

fn opens_session(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        request => {
            let meta = request.get_meta();
            meta.missing_required_keys(&ProtocolVersion::NO_INITIALIZE)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|version| ProtocolVersion::KNOWN_VERSIONS.contains(&version))
        }
    }
}

impl<R> Transport<RoleServer> for LineTransport<R>
where
    R: AsyncRead + Unpin + Send,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let outbox = self.outbox.clone();
        let in_flight = self.in_flight.clone();
        async move {
            let line = line?;
            let reserved = outbox.reserve().await;
            // Released once the answer has its place in the queue (a full queue keeps the
            // request in flight) and before it is queued: once queued, the writer may send it
            // and the client reuse its id before this task runs again.
            if let Some(id) = answered {
                in_flight.end(&id);
            }
            match reserved {
                Ok(slot) => {
                    slot.send(line);
                    Ok(())
                }
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the output is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.reply.is_some() {
                let Ok(permit) = self.outbox.reserve().await else {
                    break;
                };
                if let Some(reply) = self.reply.take() {
                    permit.send(reply);
                }
            }
            if self.permit.is_none() {
                // Waits while the most requests are in flight: input is not read meanwhile.
                let Ok(permit) = Arc::clone(&self.in_flight.permits).acquire_owned().await else {
                    break;
                };
                self.permit = Some(permit);
            }
            let decoded = match self.lines.next().await {
                Read::Line(line) => decode::decode(&line),
                Read::Oversized(prefix) => {
                    tracing::warn!(target: "lazytool::mcp", max = self.max_line_bytes, "rejecting an oversized message");
                    Decoded::Reply(decode::oversized(&prefix, self.max_line_bytes))
                }
                Read::Eof => break,
                Read::Failed(error) => {
                    tracing::warn!(target: "lazytool::mcp", %error, "cannot read from the client");
                    break;
                }
            };
            match decoded {
                Decoded::Message(message) => {
                    if let Some(message) = self.admit(*message).and_then(|m| self.track(m)) {
                        return Some(message);
                    }
                }
                Decoded::Skip => {}
                Decoded::Reply(reply) => self.reply = Some(reply),
            }
        }
        self.closed.cancel();
        None
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
