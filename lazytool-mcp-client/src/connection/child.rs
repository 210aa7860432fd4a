//! An upstream server as a child process: what it inherits, its process group, its stderr,
//! and how it is stopped: [`spawn`], [`ChildProcess`], [`InheritEnv`].

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::AsyncRead;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;
use tokio::time::Instant;

use lazytool_mcp_core::jsonrpc::lines::{BoundedLines, Read};

const TARGET: &str = "lazytool::upstream";

/// The longest stderr line logged whole; a longer one is cut.
const MAX_STDERR_LINE: usize = 4096;
/// How many stderr lines of one server are logged per second; the others are counted.
const STDERR_LINES_PER_SECOND: u32 = 50;
/// How many of the last stderr lines are kept to explain a failed start, and how much of each.
const TAIL_LINES: usize = 8;
const TAIL_LINE_CHARS: usize = 300;
/// From closing its stdin, how long a server has to exit before its group gets SIGTERM,
/// and from SIGTERM, how long before SIGKILL: together well under the 2 s a user waits.
const EXIT_GRACE: Duration = Duration::from_millis(400);
const TERM_GRACE: Duration = Duration::from_millis(600);

/// The variables a child gets from the parent's environment by default: what the
/// official MCP SDKs pass (enough to find programs and run them as the user), and no
/// secret meant for another server.
#[cfg(not(windows))]
const BASE_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR",
];
#[cfg(windows)]
const BASE_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// Which of the parent's environment variables a child process gets, besides its own `env`.
///
/// ```
/// use lazytool_mcp_client::{InheritEnv, Upstream};
///
/// let git = Upstream::command("uvx", ["mcp-server-git"])
///     .inherit_env(InheritEnv::Base.and(["GIT_SSH_COMMAND"]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InheritEnv {
    /// `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `TERM`, `LANG`, `LC_ALL` and `TMPDIR`
    /// (on Windows, the variables programs need there), as the official SDKs do.
    #[default]
    Base,
    /// The base variables and these.
    Names(Vec<String>),
    /// The whole environment of the parent.
    All,
}

impl InheritEnv {
    /// The base variables and `names`.
    pub fn and<S: Into<String>>(self, names: impl IntoIterator<Item = S>) -> Self {
        let mut all = match self {
            InheritEnv::All => return InheritEnv::All,
            InheritEnv::Base => Vec::new(),
            InheritEnv::Names(names) => names,
        };
        all.extend(names.into_iter().map(Into::into));
        InheritEnv::Names(all)
    }

    fn inherits(&self, name: &str) -> bool {
        let listed = |names: &[String]| names.iter().any(|listed| listed == name);
        match self {
            InheritEnv::All => true,
            InheritEnv::Base => BASE_ENV.contains(&name),
            InheritEnv::Names(names) => BASE_ENV.contains(&name) || listed(names),
        }
    }
}

/// How to start one child.
pub(crate) struct Launch<'a> {
    pub(crate) command: &'a str,
    pub(crate) args: &'a [String],
    pub(crate) env: &'a BTreeMap<String, String>,
    pub(crate) inherit: &'a InheritEnv,
    pub(crate) cwd: Option<&'a PathBuf>,
}

/// A started child: its pipes, and the process whose group is stopped with it.
pub(crate) struct Spawned {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) process: ChildProcess,
}

/// The last lines a server wrote to stderr, to say why it failed.
#[derive(Clone)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// How many of its children's stderr are still being read.
    open: Arc<watch::Sender<usize>>,
}

impl Default for StderrTail {
    fn default() -> Self {
        StderrTail {
            lines: Arc::default(),
            open: Arc::new(watch::Sender::new(0)),
        }
    }
}

impl StderrTail {
    /// Waits, at most `within`, until every child's stderr was read to its end: a child
    /// that exits closes stdout and stderr at once, and its last words must not be missed.
    pub(crate) async fn settled(&self, within: Duration) {
        let mut open = self.open.subscribe();
        let _ = tokio::time::timeout(within, open.wait_for(|open| *open == 0)).await;
    }

    fn push(&self, line: &str) {
        let mut tail = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
    }

    /// The kept lines, joined by ` | `, or `None` when it wrote nothing.
    pub(crate) fn text(&self) -> Option<String> {
        let tail = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        (!tail.is_empty()).then(|| Vec::from(tail.clone()).join(" | "))
    }
}

/// Starts the child in a process group of its own (so that whatever it starts is stopped
/// with it), with the environment `launch` allows, its stderr logged under `server`.
pub(crate) fn spawn(
    server: &Arc<str>,
    launch: &Launch<'_>,
    tail: &StderrTail,
) -> Result<Spawned, String> {
    let mut command = Command::new(launch.command);
    command
        .args(launch.args)
        .env_clear()
        .envs(std::env::vars_os().filter(|(name, _)| {
            name.to_str()
                .is_some_and(|name| launch.inherit.inherits(name))
        }))
        .envs(launch.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = launch.cwd {
        command.current_dir(cwd);
    }
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    die_with_parent(&mut command);
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start `{}`: {error}", launch.command))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(format!("`{}` started without its pipes", launch.command));
    };
    tail.open.send_modify(|open| *open += 1);
    let (server, reading) = (Arc::clone(server), tail.clone());
    tokio::spawn(async move {
        log_stderr(server, stderr, reading.clone()).await;
        reading
            .open
            .send_modify(|open| *open = open.saturating_sub(1));
    });
    Ok(Spawned {
        stdin,
        stdout,
        process: ChildProcess {
            group: child.id(),
            child,
        },
    })
}

/// A running child and its process group. Dropped, the whole group is killed; stopped, the
/// group is asked to exit first.
pub(crate) struct ChildProcess {
    child: tokio::process::Child,
    /// The group's id: the child's pid, the group's leader.
    group: Option<u32>,
}

impl ChildProcess {
    /// Stops the child and everything in its group: waits for it to exit by itself (its
    /// stdin is closed by now), then signals the group SIGTERM, then SIGKILL. Returns
    /// within about a second.
    pub(crate) async fn stop(mut self) {
        let exited = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await;
        if exited.is_err() || self.group_alive() {
            self.signal_group(Signal::Terminate);
            let until = Instant::now() + TERM_GRACE;
            while Instant::now() < until && self.group_alive() {
                let _ = self.child.try_wait();
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        self.signal_group(Signal::Kill);
        let _ = tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await;
        self.group = None;
    }

    /// Whether any process of the group is still there (the reaped leader excluded).
    fn group_alive(&mut self) -> bool {
        let _ = self.child.try_wait();
        #[cfg(unix)]
        if let Some(group) = self.group {
            let group = nix::unistd::Pid::from_raw(group as i32);
            return nix::sys::signal::killpg(group, None).is_ok();
        }
        matches!(self.child.try_wait(), Ok(None))
    }

    fn signal_group(&mut self, signal: Signal) {
        #[cfg(unix)]
        if let Some(group) = self.group {
            use nix::sys::signal::{Signal as Unix, killpg};
            let group = nix::unistd::Pid::from_raw(group as i32);
            let unix = match signal {
                Signal::Terminate => Unix::SIGTERM,
                Signal::Kill => Unix::SIGKILL,
            };
            let _ = killpg(group, unix);
            return;
        }
        if matches!(signal, Signal::Kill) {
            let _ = self.child.start_kill();
        }
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.signal_group(Signal::Kill);
    }
}

/// Logs each stderr line (cut at [`MAX_STDERR_LINE`] bytes), at most
/// [`STDERR_LINES_PER_SECOND`] a second, saying how many were left out at the end of each
/// second that left some out, even when the server then falls silent; keeps the tail.
async fn log_stderr(server: Arc<str>, stderr: impl AsyncRead + Unpin, tail: StderrTail) {
    let mut lines = BoundedLines::new(stderr, MAX_STDERR_LINE);
    let mut window = Instant::now();
    let (mut logged, mut dropped) = (0u32, 0u64);
    loop {
        let read = if dropped > 0 {
            // `next` is cancel safe: a line cut short by the report is read on afterwards.
            tokio::select! {
                read = lines.next() => read,
                () = tokio::time::sleep_until(window + Duration::from_secs(1)) => {
                    report_dropped(&server, &mut dropped);
                    window = Instant::now();
                    logged = 0;
                    continue;
                }
            }
        } else {
            lines.next().await
        };
        let (bytes, cut) = match read {
            Read::Line(line) => (line, false),
            Read::Oversized(prefix) => (prefix, true),
            Read::Eof | Read::Failed(_) => break,
        };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        tail.push(text);
        if window.elapsed() >= Duration::from_secs(1) {
            report_dropped(&server, &mut dropped);
            window = Instant::now();
            logged = 0;
        }
        if logged == STDERR_LINES_PER_SECOND {
            dropped += 1;
            continue;
        }
        logged += 1;
        match cut {
            false => tracing::info!(target: TARGET, server = %server, "{text}"),
            true => {
                tracing::info!(target: TARGET, server = %server, "{text} [line cut at {MAX_STDERR_LINE} bytes]")
            }
        }
    }
    report_dropped(&server, &mut dropped);
}

fn report_dropped(server: &str, dropped: &mut u64) {
    if *dropped > 0 {
        tracing::warn!(target: TARGET, server = %server, dropped = *dropped, "{dropped} stderr lines not logged (more than {STDERR_LINES_PER_SECOND} a second)");
        *dropped = 0;
    }
}

/// Has the kernel kill the child when the thread that started it ends (with its process,
/// even one killed by SIGKILL, which no `Drop` sees). Its own children, if any, see the end
/// of their stdin then, which MCP servers answer by exiting.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(child: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec, where only async-signal-safe calls
    // are allowed: prctl and getppid are, and it allocates nothing.
    unsafe {
        child.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent died before the signal was set: the signal will never come.
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::other("the parent exited"));
            }
            Ok(())
        });
    }
}
