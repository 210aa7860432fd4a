//! Frames to a worker, written by whoever has one (the reader thread answering a call at once,
//! an async task answering a later one) without ever blocking: what the pipe cannot take now
//! waits in a backlog that a thread of the worker's writes as the worker reads. A writer that
//! blocked could deadlock with a worker blocked writing its own frames.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use nix::poll::PollFlags;

use super::spin;

/// The worker's input, and what it has not taken yet.
pub(super) struct Outbox {
    state: Mutex<State>,
    more: Condvar,
}

struct State {
    input: File,
    backlog: Vec<u8>,
    closed: bool,
}

impl Outbox {
    /// An outbox over the worker's input `input`, and the thread that writes its backlog.
    pub(super) fn start(input: OwnedFd) -> io::Result<Arc<Outbox>> {
        spin::non_blocking(&input)?;
        let waiting = input.try_clone()?;
        let outbox = Arc::new(Outbox {
            state: Mutex::new(State {
                input: File::from(input),
                backlog: Vec::new(),
                closed: false,
            }),
            more: Condvar::new(),
        });
        let writer = Arc::clone(&outbox);
        std::thread::Builder::new()
            .name("lazytool-code-writer".to_owned())
            .spawn(move || writer.write_backlog(&waiting))?;
        Ok(outbox)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `frame` (written now as far as the pipe takes it, the rest later, in order);
    /// false once the worker can take nothing more.
    pub(super) fn send(&self, frame: &[u8]) -> bool {
        let mut state = self.state();
        if state.closed {
            return false;
        }
        if state.backlog.is_empty() {
            match write_now(&mut state.input, frame) {
                Ok(written) if written == frame.len() => return true,
                Ok(written) => state.backlog.extend_from_slice(&frame[written..]),
                Err(_) => {
                    state.closed = true;
                    return false;
                }
            }
        } else {
            state.backlog.extend_from_slice(frame);
        }
        self.more.notify_one();
        true
    }

    /// Takes nothing more; the writer thread ends.
    pub(super) fn close(&self) {
        self.state().closed = true;
        self.more.notify_one();
    }

    /// The writer thread: the backlog written whenever the worker has read enough.
    fn write_backlog(&self, input: &OwnedFd) {
        loop {
            let mut state = self.state();
            while state.backlog.is_empty() && !state.closed {
                state = self.more.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            if state.closed {
                return;
            }
            let State {
                input: file,
                backlog,
                ..
            } = &mut *state;
            match write_now(file, backlog) {
                Ok(written) => drop(backlog.drain(..written)),
                Err(_) => {
                    state.closed = true;
                    return;
                }
            }
            let full = !state.backlog.is_empty();
            drop(state);
            if full && spin::wait(input.as_fd(), PollFlags::POLLOUT).is_err() {
                self.close();
                return;
            }
        }
    }
}

/// Writes what the pipe takes of `bytes` now: how much.
fn write_now(input: &mut File, bytes: &[u8]) -> io::Result<usize> {
    let mut written = 0;
    while written < bytes.len() {
        match input.write(&bytes[written..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(written)
}
