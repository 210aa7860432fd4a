//! `__lazy_test_escape(what)`, in a worker of a test build only (the feature
//! `code-worker-test-hook`): what a script that took the engine over could try, so that a test
//! sees what the worker's confinement and the parent make of it.
//!
//! - `"open"`, `"socket"`, `"exec"`: a file, a listening socket, a program (the filter kills
//!   the worker);
//! - `"abort"`: the worker aborts;
//! - `"env"`: the names of its environment variables; `"fds"`: the descriptors it kept (both
//!   read before the filter, which leaves no way to list them after);
//! - `"garbage"`, `"oversize"`: a frame that is not JSON, a frame that says it is 4 GiB (the
//!   parent must stop the worker, not read on).

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rquickjs::{Ctx, Function};

/// Whether this process is a worker: the hook is installed there only.
static IN_WORKER: AtomicBool = AtomicBool::new(false);

/// The descriptors the worker kept, listed after it closed the others.
static DESCRIPTORS: OnceLock<Vec<i32>> = OnceLock::new();

/// Notes that this process is a worker.
pub(super) fn enter_worker() {
    IN_WORKER.store(true, Ordering::Relaxed);
}

/// Whether this process is a worker.
pub(crate) fn in_worker() -> bool {
    IN_WORKER.load(Ordering::Relaxed)
}

/// Notes the worker's descriptors (before its filter), `open`.
pub(super) fn note_descriptors(open: Vec<i32>) {
    let _ = DESCRIPTORS.set(open);
}

/// Installs `__lazy_test_escape` in a script's context.
pub(crate) fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    ctx.globals()
        .set("__lazy_test_escape", Function::new(ctx.clone(), escape)?)
}

fn escape(what: String) -> String {
    let outcome = match what.as_str() {
        "open" => std::fs::File::open("/etc/hostname").map(drop),
        "socket" => std::net::TcpListener::bind("127.0.0.1:0").map(drop),
        "exec" => std::process::Command::new("/bin/true").status().map(drop),
        "abort" => std::process::abort(),
        "env" => {
            let names: Vec<String> = std::env::vars_os()
                .map(|(name, _)| name.to_string_lossy().into_owned())
                .collect();
            return names.join(",");
        }
        "fds" => {
            let fds = DESCRIPTORS.get().into_iter().flatten();
            return fds.map(i32::to_string).collect::<Vec<_>>().join(",");
        }
        "garbage" => raw(b"\x05\x00\x00\x00hello"),
        "oversize" => raw(&u32::MAX.to_le_bytes()),
        other => return format!("unknown: {other}"),
    };
    match outcome {
        Ok(()) => format!("{what}: allowed"),
        Err(error) => format!("{what}: refused ({error})"),
    }
}

/// Writes `bytes` to the parent as they are, past the frames' encoding.
fn raw(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}
