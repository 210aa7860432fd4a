//! What the parent and a worker say to each other over the worker's standard input and
//! output: length-prefixed JSON frames, each bounded by its reader.

use std::io::{self, Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::code::host::Bounds;
use crate::code::outcome::{Ended, Limit};

/// What the parent tells a worker.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum ToWorker {
    /// The first frame, read before the worker installs its limits and filter.
    Start(Start),
    /// One script to run; the worker answers with [`FromWorker::Done`].
    Run(Run),
    /// The answer to [`FromWorker::Call`]: the tool's value, or its error's text.
    Answer {
        id: u64,
        answer: Result<Value, String>,
    },
}

/// How a worker bounds itself before it reads a script.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct Start {
    /// The engine's heap; the worker's address space is its own size at start plus this and
    /// some room for the engine's own needs.
    pub(super) max_memory_bytes: usize,
}

/// One script and the bounds it runs under.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Run {
    pub(super) source: String,
    pub(super) max_memory_bytes: usize,
    pub(super) max_stack_bytes: usize,
    pub(super) bounds: Bounds,
}

/// What a worker tells the parent.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum FromWorker {
    /// Its limits and filter are in place: it reads scripts from now on.
    Ready,
    /// It could not confine itself, and says why; it runs nothing.
    Failed(String),
    /// `tools.NAME(args)`: the parent runs it and answers with [`ToWorker::Answer`].
    Call {
        id: u64,
        name: String,
        arguments: Value,
    },
    /// The script ended: how, the first limit it reached, and its console lines.
    Done {
        ended: Ended,
        reached: Option<Limit>,
        console: Vec<String>,
    },
}

/// `frame` as its length and its JSON.
pub(super) fn encode(frame: &impl Serialize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; 4];
    serde_json::to_writer(&mut bytes, frame).map_err(io::Error::other)?;
    let length =
        u32::try_from(bytes.len() - 4).map_err(|_| io::Error::other("a frame over 4 GiB"))?;
    bytes[..4].copy_from_slice(&length.to_le_bytes());
    Ok(bytes)
}

/// Writes `frame` and flushes it.
pub(super) fn write(out: &mut impl Write, frame: &impl Serialize) -> io::Result<()> {
    out.write_all(&encode(frame)?)?;
    out.flush()
}

/// Reads one frame of at most `max_bytes`; `Ok(None)` at the end of the stream.
pub(super) fn read<T: DeserializeOwned>(
    input: &mut impl Read,
    max_bytes: usize,
) -> io::Result<Option<T>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let length = u32::from_le_bytes(length) as usize;
    if length > max_bytes {
        return Err(io::Error::other(format!(
            "a frame of {length} bytes, over the bound of {max_bytes}"
        )));
    }
    let mut body = vec![0u8; length];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(io::Error::other)
}
