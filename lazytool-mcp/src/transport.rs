//! The stdio-style transport in front of rmcp: bounded lines in, one ordered line writer out,
//! and an error reply for every line rmcp would silently drop.

use std::io;

use lazytool_runtime::CancellationToken;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::decode::{self, Decoded};
use crate::lines::{BoundedLines, Read};

/// Lines waiting for the writer; senders wait when it is full (backpressure).
pub(crate) const OUTBOX_CAPACITY: usize = 64;

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
        }
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
        let outbox = self.outbox.clone();
        async move {
            outbox
                .send(line?)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the output is closed"))
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
                    if let Some(message) = self.admit(*message) {
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

/// Writes the queued lines in order, flushing whenever the queue runs dry, until every
/// sender is gone; then shuts the writer down so the client sees the end of the stream.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
) -> io::Result<()> {
    while let Some(line) = lines.recv().await {
        writer.write_all(&line).await?;
        if lines.is_empty() {
            writer.flush().await?;
        }
    }
    writer.shutdown().await
}
