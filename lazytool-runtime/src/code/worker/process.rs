//! The parent's hold on one worker process: started, fed frames by a writer thread, read by a
//! reader thread that hands each tool call to the running script's [`Broker`], and killed.

use std::io::BufReader;
use std::os::fd::OwnedFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

use super::broker::Broker;
use super::entry::{MARKER, MARKER_VALUE};
use super::outbox::Outbox;
use super::spin::{self, Spinning};
use super::wire::{self, FromWorker, Start, ToWorker};
use crate::code::outcome::Finished;

/// How long a new worker may take to say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// How a script on a worker ended, as the parent saw it.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The worker said so.
    Finished(Finished),
    /// The worker's output ended first: it died (or was killed), with this status.
    Died(Death),
}

/// Why a worker's output ended.
#[derive(Debug, Clone)]
pub(super) struct Death {
    /// How the process ended, where it could be read.
    pub(super) status: Option<ExitStatus>,
    /// What the parent read instead of a frame, if it was not the end of the stream.
    pub(super) protocol: Option<String>,
}

impl Death {
    /// The signal that ended the worker, if one did.
    pub(super) fn signal(&self) -> Option<i32> {
        self.status.and_then(|status| status.signal())
    }
}

/// What runs on a worker now.
enum Slot {
    Idle,
    Running {
        broker: Box<Broker>,
        done: oneshot::Sender<Outcome>,
    },
    /// The worker died: nothing more runs on it.
    Dead,
}

struct Shared {
    slot: Mutex<Slot>,
    /// `None` once reaped: a pid that may be reused is never signalled.
    child: Mutex<Option<Child>>,
}

impl Shared {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(child) = child.as_mut() {
            let _ = child.kill();
        }
    }
}

/// One worker process. Dropping it kills the process.
pub(super) struct WorkerProcess {
    pid: u32,
    shared: Arc<Shared>,
    outbox: Arc<Outbox>,
    /// Told by the reader thread once the process is reaped.
    reaped: Mutex<mpsc::Receiver<()>>,
    /// Scripts it has run.
    pub(super) scripts: usize,
}

impl WorkerProcess {
    /// Starts a worker, sends it `start`, and waits until it says it is confined and ready.
    /// Blocking: call it off the async workers.
    pub(super) fn spawn(start: Start, max_frame: usize) -> Result<WorkerProcess, String> {
        let mut child = Command::new("/proc/self/exe")
            .arg0("lazytool-code-worker")
            .env_clear()
            .env(MARKER, MARKER_VALUE)
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("its process could not be started: {error}"))?;
        let pid = child.id();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("its pipes could not be opened".to_owned());
        };
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::Idle),
            child: Mutex::new(Some(child)),
        });
        let dead = |why: String| {
            shared.kill();
            why
        };
        let outbox = Outbox::start(OwnedFd::from(stdin))
            .map_err(|error| dead(format!("its input could not be set up: {error}")))?;
        spin::non_blocking(&stdout)
            .map_err(|error| dead(format!("its output could not be set up: {error}")))?;
        let started = wire::encode(&ToWorker::Start(start)).is_ok_and(|frame| outbox.send(&frame));
        let (ready_sender, ready) = mpsc::channel();
        let (reaped_sender, reaped) = mpsc::channel();
        let reader = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("lazytool-code-reader".to_owned())
            .spawn(move || {
                read(stdout, &reader, ready_sender, max_frame);
                let _ = reaped_sender.send(());
            });
        let worker = WorkerProcess {
            pid,
            shared,
            outbox,
            reaped: Mutex::new(reaped),
            scripts: 0,
        };
        spawned.map_err(|error| format!("its reader could not be started: {error}"))?;
        if !started {
            return Err("it could not be told its limits".to_owned());
        }
        match ready.recv_timeout(START_TIMEOUT) {
            Ok(Ok(())) => Ok(worker),
            Ok(Err(why)) => Err(why),
            Err(_) => Err(format!(
                "it did not say it was ready within {START_TIMEOUT:?}"
            )),
        }
    }

    /// Sends `frame`; false if the worker can no longer read it.
    pub(super) fn send(&self, frame: &ToWorker) -> bool {
        wire::encode(frame).is_ok_and(|bytes| self.outbox.send(&bytes))
    }

    /// Where the answers of tool calls go.
    pub(super) fn outbox(&self) -> Arc<Outbox> {
        Arc::clone(&self.outbox)
    }

    /// Runs what `broker` brokers on this worker: its tool calls go to `broker`, its end to
    /// the receiver returned. `None` if the worker is dead or busy.
    pub(super) fn begin(&self, broker: Broker) -> Option<oneshot::Receiver<Outcome>> {
        let mut slot = self.shared.slot();
        if !matches!(*slot, Slot::Idle) {
            return None;
        }
        let (done, outcome) = oneshot::channel();
        *slot = Slot::Running {
            broker: Box::new(broker),
            done,
        };
        Some(outcome)
    }

    /// Whether the worker is alive and runs nothing.
    pub(super) fn is_idle(&self) -> bool {
        matches!(*self.shared.slot(), Slot::Idle)
    }

    /// Kills the worker (SIGKILL); its reader reports the death to the running script.
    pub(super) fn kill(&self) {
        self.shared.kill();
    }

    /// Kills the worker and waits until it is reaped (its memory back to the OS), a few
    /// seconds at most. Blocking: call it off the async workers.
    pub(super) fn end(self) {
        self.shared.kill();
        let reaped = self.reaped.lock().unwrap_or_else(|e| e.into_inner());
        let _ = reaped.recv_timeout(START_TIMEOUT);
    }

    /// The memory the worker holds now, in bytes (its resident set), if it can be read.
    pub(super) fn resident_bytes(&self) -> Option<u64> {
        let statm = std::fs::read_to_string(format!("/proc/{}/statm", self.pid)).ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages.saturating_mul(page_size()))
    }

    /// The CPU time the worker has used, in whole seconds rounded up, if it can be read.
    pub(super) fn cpu_seconds(&self) -> Option<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).ok()?;
        // The fields after the command's name, which ends with the last ')'.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .and_then(|hz| u64::try_from(hz).ok())
            .filter(|hz| *hz > 0)?;
        Some(ticks.div_ceil(per_second))
    }

    /// Sets the CPU time the worker may use from now on: `seconds` more, then SIGXCPU ends
    /// it. The soft limit only: raising a hard limit takes a privilege the parent may not have,
    /// and the worker's filter leaves it no way to change either (nor to handle SIGXCPU).
    pub(super) fn allow_cpu_seconds(&self, seconds: u64) -> Result<(), String> {
        use rustix::process::{Pid, Resource, Rlimit, getrlimit, prlimit};
        let used = self.cpu_seconds().ok_or("its CPU time could not be read")?;
        let pid = i32::try_from(self.pid)
            .ok()
            .and_then(Pid::from_raw)
            .ok_or("its pid is not a pid")?;
        let soft = used.saturating_add(seconds.max(1));
        let maximum = getrlimit(Resource::Cpu).maximum;
        let limit = Rlimit {
            current: Some(maximum.map_or(soft, |maximum| soft.min(maximum))),
            maximum,
        };
        prlimit(Some(pid), Resource::Cpu, limit)
            .map(drop)
            .map_err(|error| format!("its CPU limit could not be set: {error}"))
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.shared.kill();
        self.outbox.close();
    }
}

fn page_size() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|size| u64::try_from(size).ok())
        .unwrap_or(4096)
}

/// The reader thread: the worker's frames until its output ends, then its death reported.
fn read(
    stdout: ChildStdout,
    shared: &Shared,
    ready: mpsc::Sender<Result<(), String>>,
    max_frame: usize,
) {
    let mut stdout = BufReader::new(Spinning(stdout));
    let protocol = loop {
        let frame = match wire::read::<FromWorker>(&mut stdout, max_frame) {
            Ok(Some(frame)) => frame,
            Ok(None) => break None,
            Err(error) => break Some(error.to_string()),
        };
        match frame {
            FromWorker::Ready => {
                let _ = ready.send(Ok(()));
            }
            FromWorker::Failed(why) => {
                let _ = ready.send(Err(why));
            }
            FromWorker::Call {
                id,
                name,
                arguments,
            } => match &mut *shared.slot() {
                Slot::Running { broker, .. } => broker.call(id, name, arguments),
                _ => break Some("a tool call while it ran no script".to_owned()),
            },
            FromWorker::Done {
                ended,
                reached,
                console,
            } => {
                let mut slot = shared.slot();
                match std::mem::replace(&mut *slot, Slot::Idle) {
                    Slot::Running { mut broker, done } => {
                        drop(slot);
                        broker.finish();
                        let finished = Finished {
                            ended,
                            reached,
                            console,
                        };
                        let _ = done.send(Outcome::Finished(finished));
                    }
                    other => {
                        *slot = other;
                        break Some("an end while it ran no script".to_owned());
                    }
                }
            }
        }
    };
    // Its output ended or broke the protocol: it is killed whatever it was doing, and reaped.
    shared.kill();
    let child = shared
        .child
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let status = child.and_then(|mut child| child.wait().ok());
    let death = Death { status, protocol };
    let _ = ready.send(Err(describe_early(&death)));
    let previous = std::mem::replace(&mut *shared.slot(), Slot::Dead);
    if let Slot::Running { mut broker, done } = previous {
        broker.finish();
        let _ = done.send(Outcome::Died(death));
    }
}

/// Why a worker that died before it was ready could not start.
fn describe_early(death: &Death) -> String {
    match (&death.protocol, death.status) {
        (Some(protocol), _) => format!("it broke the protocol: {protocol}"),
        (None, Some(status)) => format!("it ended before it was ready ({status})"),
        (None, None) => "it ended before it was ready".to_owned(),
    }
}
