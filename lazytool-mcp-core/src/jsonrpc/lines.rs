//! Newline-delimited input, each line bounded in length: [`BoundedLines`]; and output, written
//! in order: [`write_lines`].

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest JSON-RPC line read by default, on stdio from a client
/// (`McpServer::max_line_bytes`) or from an upstream server: 4 MiB.
///
/// ```
/// use lazytool_mcp_core::DEFAULT_MAX_LINE_BYTES;
///
/// // Lines of up to 16 MiB, for arguments that carry whole files.
/// let max_line_bytes = 4 * DEFAULT_MAX_LINE_BYTES;
/// assert_eq!(max_line_bytes, 16 * 1024 * 1024);
/// ```
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// How much of an oversized line is kept, to read its request id from.
pub const KEPT_PREFIX: usize = 4096;

/// Reads lines of at most `max` bytes (newline excluded). A longer line is never buffered
/// whole: its first bytes are reported, the rest is skipped up to its newline.
pub struct BoundedLines<R> {
    reader: BufReader<R>,
    max: usize,
    line: Vec<u8>,
    /// Skipping the tail of an oversized line. Kept here rather than in `next` because
    /// rmcp polls `receive` inside a `select!`: a read may be dropped between two chunks.
    discarding: bool,
}

/// What [`BoundedLines::next`] read.
pub enum Read {
    /// A whole line, with its newline if it had one.
    Line(Vec<u8>),
    /// A line longer than the limit: its first bytes.
    Oversized(Vec<u8>),
    Eof,
    Failed(std::io::Error),
}

impl<R: AsyncRead + Unpin> BoundedLines<R> {
    pub fn new(reader: R, max: usize) -> Self {
        BoundedLines {
            reader: BufReader::new(reader),
            max,
            line: Vec::new(),
            discarding: false,
        }
    }

    /// The next line. Cancel safe: a partial line stays buffered for the next call.
    pub async fn next(&mut self) -> Read {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(error) => return Read::Failed(error),
            };
            if available.is_empty() {
                self.discarding = false;
                return if self.line.is_empty() {
                    Read::Eof
                } else {
                    Read::Line(std::mem::take(&mut self.line))
                };
            }
            let newline = available.iter().position(|&byte| byte == b'\n');
            let taken = newline.map_or(available.len(), |at| at + 1);
            let content = self.line.len() + newline.unwrap_or(available.len());
            let read = if self.discarding {
                self.discarding = newline.is_none();
                None
            } else if content > self.max {
                let kept = KEPT_PREFIX.saturating_sub(self.line.len()).min(taken);
                let mut prefix = std::mem::take(&mut self.line);
                prefix.extend_from_slice(&available[..kept]);
                prefix.truncate(KEPT_PREFIX);
                self.discarding = newline.is_none();
                Some(Read::Oversized(prefix))
            } else {
                self.line.extend_from_slice(&available[..taken]);
                newline.map(|_| Read::Line(std::mem::take(&mut self.line)))
            };
            self.reader.consume(taken);
            if let Some(read) = read {
                return read;
            }
        }
    }
}

/// Writes the queued lines in order, flushing whenever the queue runs dry, until every
/// sender is gone; then shuts the writer down so the client sees the end of the stream.
pub async fn write_lines<W: AsyncWrite + Unpin>(
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
