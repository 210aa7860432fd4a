//! The engine a script runs in: a fresh QuickJS runtime and context per script, so that
//! nothing a script does (globals, prototypes, memory) outlives it or reaches another.
//!
//! What a script has is the language and its standard objects: no filesystem, network,
//! process, module loading or timers (QuickJS alone offers none of them, and no loader is
//! set), and the host's two functions ([`Host`](super::host::Host)).

use std::sync::Arc;

use rquickjs::{AsyncContext, AsyncRuntime};

use super::host::Host;

/// A runtime bounded in memory and stack whose interrupt handler asks `host` whether to
/// stop, and a context in it.
pub(super) async fn open(
    host: &Arc<Host>,
    max_memory_bytes: usize,
    max_stack_bytes: usize,
) -> rquickjs::Result<(AsyncRuntime, AsyncContext)> {
    let runtime = AsyncRuntime::new()?;
    runtime.set_memory_limit(max_memory_bytes).await;
    runtime.set_max_stack_size(max_stack_bytes).await;
    let host = Arc::clone(host);
    // QuickJS asks every few thousand operations, regular expressions included: a busy
    // loop ends soon after its deadline.
    runtime
        .set_interrupt_handler(Some(Box::new(move || host.must_stop())))
        .await;
    let context = AsyncContext::full(&runtime).await?;
    #[cfg(all(feature = "code-worker-test-hook", target_os = "linux"))]
    if super::worker::in_worker() {
        context.with(|ctx| test_hook::install(&ctx)).await?;
    }
    Ok((runtime, context))
}

/// `__lazy_test_escape(what)`, in a worker of a test build only: tries `"open"` (a file),
/// `"abort"` (the worker aborts),
/// `"socket"` (a listening socket) or `"exec"` (a program) from inside the worker, so that a
/// test sees its filter refuse each. Answers what happened if the worker is still alive.
#[cfg(all(feature = "code-worker-test-hook", target_os = "linux"))]
mod test_hook {
    use rquickjs::{Ctx, Function};

    pub(super) fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
        let escape = |what: String| -> String {
            let outcome = match what.as_str() {
                "open" => std::fs::File::open("/etc/hostname").map(drop),
                "socket" => std::net::TcpListener::bind("127.0.0.1:0").map(drop),
                "exec" => std::process::Command::new("/bin/true").status().map(drop),
                "abort" => std::process::abort(),
                other => return format!("unknown: {other}"),
            };
            match outcome {
                Ok(()) => format!("{what}: allowed"),
                Err(error) => format!("{what}: refused ({error})"),
            }
        };
        ctx.globals()
            .set("__lazy_test_escape", Function::new(ctx.clone(), escape)?)
    }
}
