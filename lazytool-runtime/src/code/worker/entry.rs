//! The worker's own side: this same executable started again with [`MARKER`] in its
//! environment, caught before `main` runs. It bounds itself (address space, no core dump, no
//! inherited descriptor, no new privileges, a system call filter), says it is ready, then runs
//! one script at a time, each tool call a frame to the parent and an answer back.
//!
//! Before `main`: so that a user's binary, `cargo test` and doctests need no line of setup. The
//! code here uses what the C library has set up by then (the environment, allocation, the
//! standard streams) and ends the process itself: the user's `main` never runs in a worker.

use std::collections::HashMap;
use std::future::Future;
use std::io::{self, Read};
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use serde_json::Value;
use tokio::sync::oneshot;

use super::filter;
use super::spin::{self, Spinning};
use super::wire::{self, FromWorker, Run, Start, ToWorker};
use crate::call::{ToolContext, ToolErrorKind, ToolResult};
use crate::code::host::{CallTool, Host};
use crate::code::outcome::Finished;
use crate::code::settle;

/// The environment variable that makes a process a worker (its value: [`MARKER_VALUE`]).
pub(super) const MARKER: &str = "LAZYTOOL_CODE_WORKER";
/// The marker's value: the frames' version, so that a worker of another build refuses.
pub(super) const MARKER_VALUE: &str = "1";

/// The largest frame a worker reads: a script, or a tool's answer (the parent bounds both).
const MAX_FRAME: usize = 1 << 30;

/// Room in the address space beyond the engine's heap: the engine's own structures, the
/// frames, the stack.
const HEADROOM_BYTES: u64 = 96 << 20;

// Runs before `main` in every process that links this module: one look at the environment.
// `unsafe` because code before `main` must not rely on what the Rust runtime sets up later;
// `serve` uses the C library's environment, allocator and standard streams only, and never
// returns.
#[allow(unsafe_code)]
#[ctor::ctor(unsafe)]
fn enter_if_worker() {
    if std::env::var_os(MARKER).is_some_and(|value| value == MARKER_VALUE) {
        #[cfg(feature = "code-worker-test-hook")]
        super::test_hook::enter_worker();
        std::process::exit(serve());
    }
}

/// The worker's life: its start frame, its confinement, then scripts until the parent closes
/// its input. The exit code says where it stopped (the parent reads it only for its log).
fn serve() -> i32 {
    if spin::non_blocking(io::stdin()).is_err() {
        return 2;
    }
    let mut input = Spinning(io::stdin().lock());
    let start = match wire::read::<ToWorker>(&mut input, MAX_FRAME) {
        Ok(Some(ToWorker::Start(start))) => start,
        _ => return 2,
    };
    if let Err(why) = confine(start) {
        let _ = send(&FromWorker::Failed(why));
        return 3;
    }
    if send(&FromWorker::Ready).is_err() {
        return 4;
    }
    let pending = Arc::new(Pending::default());
    loop {
        match wire::read::<ToWorker>(&mut input, MAX_FRAME) {
            Ok(Some(ToWorker::Run(run))) => {
                if run_script(run, &pending, &mut input).is_err() {
                    return 5;
                }
            }
            // The answer to a call its script did not wait for (a `Promise.all` that one
            // failure ended, say): the parent wrote it before it read the script's end.
            Ok(Some(ToWorker::Answer { .. })) => {}
            Ok(None) => return 0,
            Ok(Some(ToWorker::Start(_))) | Err(_) => return 6,
        }
    }
}

/// What the worker gives up before it reads a script: address space past its limit, core
/// dumps, every descriptor but its standard three, new privileges, and every system call but
/// the few its engine needs.
fn confine(start: Start) -> Result<(), String> {
    use nix::sys::resource::{Resource, setrlimit};
    let size = own_size().map_err(|error| format!("its size could not be read: {error}"))?;
    let address_space = size
        .saturating_add(start.max_memory_bytes as u64)
        .saturating_add(HEADROOM_BYTES);
    setrlimit(Resource::RLIMIT_AS, address_space, address_space)
        .and_then(|()| setrlimit(Resource::RLIMIT_CORE, 0, 0))
        .and_then(|()| setrlimit(Resource::RLIMIT_FSIZE, 0, 0))
        .map_err(|error| format!("its limits could not be set: {error}"))?;
    close_inherited().map_err(|error| format!("its descriptors could not be closed: {error}"))?;
    #[cfg(feature = "code-worker-test-hook")]
    super::test_hook::note_descriptors(open_descriptors().unwrap_or_default());
    filter::install()
}

/// The process's virtual size now, in bytes (`VmSize` of `/proc/self/status`).
fn own_size() -> io::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .ok_or_else(|| io::Error::other("no VmSize line"))?;
    Ok(kib << 10)
}

/// Closes every descriptor above the standard three: whatever the parent had open without
/// close-on-exec (a C library's, say) is not the worker's to keep.
fn close_inherited() -> io::Result<()> {
    use std::os::fd::{FromRawFd, OwnedFd};
    for fd in open_descriptors()?.into_iter().filter(|fd| *fd > 2) {
        // SAFETY: nothing in this process owns these descriptors: the worker is before `main`
        // and opened none but the listing's, left out and closed.
        #[allow(unsafe_code)]
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    Ok(())
}

/// The descriptors open in this process, the listing's own left out.
fn open_descriptors() -> io::Result<Vec<i32>> {
    use nix::dir::Dir;
    use nix::fcntl::OFlag;
    use nix::sys::stat::Mode;
    use std::os::fd::AsRawFd;
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let mut listing = Dir::open("/proc/self/fd", flags, Mode::empty())?;
    let own = listing.as_raw_fd();
    let mut open: Vec<i32> = listing
        .iter()
        .filter_map(|entry| entry.ok()?.file_name().to_str().ok()?.parse().ok())
        .filter(|fd| *fd != own)
        .collect();
    open.sort_unstable();
    Ok(open)
}

fn send(frame: &FromWorker) -> io::Result<()> {
    wire::write(&mut io::stdout().lock(), frame)
}

/// Tool calls a script has sent and not had answered, by id. Ids are the worker's, never
/// reused: an answer that comes after its script ended can reach no later script's call.
#[derive(Default)]
struct Pending {
    next: AtomicU64,
    answers: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
}

impl Pending {
    fn begin(&self) -> (u64, oneshot::Receiver<Result<Value, String>>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.insert(id, sender);
        (id, receiver)
    }

    fn settle(&self, id: u64, answer: Result<Value, String>) {
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(sender) = answers.remove(&id) {
            let _ = sender.send(answer);
        }
    }

    /// Forgets the calls a script left unanswered when it ended.
    fn forget(&self) {
        self.answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// One script: run until it ends, reading the parent's answers whenever it waits for one.
fn run_script(run: Run, pending: &Arc<Pending>, input: &mut impl Read) -> io::Result<()> {
    let calls = Arc::clone(pending);
    let call: CallTool = Arc::new(move |name, arguments, _context| {
        let (id, answer) = calls.begin();
        let name = name.to_owned();
        let sent = send(&FromWorker::Call {
            id,
            name,
            arguments,
        });
        Box::pin(async move {
            if sent.is_err() {
                return ToolResult::error(ToolErrorKind::ToolFailed, "Error: the host is gone.");
            }
            match answer.await {
                Ok(Ok(value)) => ToolResult::success(value),
                Ok(Err(error)) => ToolResult::error(ToolErrorKind::ToolFailed, error),
                Err(_) => ToolResult::error(ToolErrorKind::ToolFailed, "Error: the host is gone."),
            }
        })
    });
    let host = Host::new(call, ToolContext::new(), run.bounds);
    let script = settle::run(run.source, host, run.max_memory_bytes, run.max_stack_bytes);
    let Finished {
        ended,
        reached,
        console,
    } = block_on(
        script,
        |answer| match answer {
            ToWorker::Answer { id, answer } => {
                pending.settle(id, answer);
                Ok(())
            }
            _ => Err(io::Error::other(
                "a frame other than an answer during a script",
            )),
        },
        input,
    )?;
    pending.forget();
    send(&FromWorker::Done {
        ended,
        reached,
        console,
    })
}

/// Polls `script` until it ends; whenever it waits and nothing woke it, reads the next frame
/// (an answer) and hands it to `deliver`.
fn block_on<T>(
    script: impl Future<Output = T>,
    mut deliver: impl FnMut(ToWorker) -> io::Result<()>,
    input: &mut impl Read,
) -> io::Result<T> {
    let woken = Arc::new(Woken(AtomicBool::new(false)));
    let waker = Waker::from(Arc::clone(&woken));
    let mut context = Context::from_waker(&waker);
    let mut script = pin!(script);
    loop {
        woken.0.store(false, Ordering::Release);
        if let Poll::Ready(value) = script.as_mut().poll(&mut context) {
            return Ok(value);
        }
        if woken.0.load(Ordering::Acquire) {
            continue;
        }
        match wire::read::<ToWorker>(input, MAX_FRAME)? {
            Some(frame) => deliver(frame)?,
            None => return Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

/// A waker that notes it was woken: the loop polls again before it reads.
struct Woken(AtomicBool);

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}
