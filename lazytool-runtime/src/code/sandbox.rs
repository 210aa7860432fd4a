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
    if super::worker::test_hook::in_worker() {
        context
            .with(|ctx| super::worker::test_hook::install(&ctx))
            .await?;
    }
    Ok((runtime, context))
}
