//! `#[tool(blocking)]`: a synchronous tool's body runs on tokio's blocking pool, so its caller
//! gets the timeout's result on time and the other calls of its turn finish. The tools here
//! block on channels the tests control, never on clocks; nothing asserts a duration.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lazytool_runtime::{CallLimits, Registry, State, ToolCall, ToolErrorKind, tool};
use serde_json::json;

/// How long a blocked tool waits before giving up: only a guard against a hung test.
const GUARD: Duration = Duration::from_secs(30);

/// The channels of the timeout test: the tool blocks until `release`, then reports on `done`.
struct Stall {
    release: Mutex<Receiver<()>>,
    done: Mutex<Sender<&'static str>>,
}

/// Blocks its thread until the test releases it.
#[tool(blocking)]
fn stall(stall: State<Stall>) -> &'static str {
    let released = stall.release.lock().unwrap().recv_timeout(GUARD).is_ok();
    let outcome = if released {
        "released"
    } else {
        "guard expired"
    };
    let _ = stall.done.lock().unwrap().send(outcome);
    outcome
}

/// The channels of the turn test: `slow` blocks until `quick` has run.
struct Turn {
    quick_ran: Mutex<Sender<()>>,
    wait_for_quick: Mutex<Receiver<()>>,
    log: Mutex<Vec<&'static str>>,
}

/// Blocks until the quick tool of the same turn has run.
#[tool(blocking)]
fn slow(turn: State<Turn>) -> &'static str {
    let released = turn
        .wait_for_quick
        .lock()
        .unwrap()
        .recv_timeout(GUARD)
        .is_ok();
    turn.log.lock().unwrap().push("slow");
    if released {
        "ran after quick"
    } else {
        "guard expired"
    }
}

/// Answers at once.
#[tool]
async fn quick(turn: State<Turn>) -> &'static str {
    turn.log.lock().unwrap().push("quick");
    turn.quick_ran.lock().unwrap().send(()).unwrap();
    "quick"
}

/// Panics on the blocking pool.
#[tool(blocking)]
fn blocking_panic() -> u32 {
    panic!("the blocking body failed")
}

/// Adds on the blocking pool.
#[tool(blocking)]
fn blocking_add(a: u32, #[arg(default = 1)] b: u32) -> Result<u32, String> {
    a.checked_add(b).ok_or_else(|| "overflow".to_owned())
}

fn only(names: &'static [&'static str]) -> lazytool_runtime::RegistryBuilder {
    Registry::builder().filter(move |spec| names.contains(&spec.name()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_tool_past_its_timeout_returns_the_timeout_and_its_thread_finishes() {
    let (release, release_rx) = channel();
    let (done_tx, done) = channel();
    let registry = only(&["stall"])
        .state(Stall {
            release: Mutex::new(release_rx),
            done: Mutex::new(done_tx),
        })
        .limits(CallLimits::default().timeout(Some(Duration::from_millis(50))))
        .build()
        .unwrap();

    let result = registry.call("stall", json!({})).await;
    assert_eq!(
        result.error_kind(),
        Some(ToolErrorKind::TimedOut),
        "{result:?}"
    );
    // The caller has its answer while the body is still blocked: it has not reported yet.
    assert!(done.try_recv().is_err());

    // A thread cannot be stopped: the body runs to completion once it is unblocked.
    release.send(()).unwrap();
    let outcome = tokio::task::spawn_blocking(move || done.recv_timeout(GUARD))
        .await
        .unwrap();
    assert_eq!(outcome, Ok("released"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_turn_with_a_slow_blocking_call_finishes_its_quick_call() {
    let (quick_ran, wait_for_quick) = channel();
    let turn = Arc::new(Turn {
        quick_ran: Mutex::new(quick_ran),
        wait_for_quick: Mutex::new(wait_for_quick),
        log: Mutex::new(Vec::new()),
    });
    let registry = only(&["slow", "quick"])
        .state_arc(Arc::clone(&turn))
        .build()
        .unwrap();
    let calls = ["slow", "quick"].map(|name| ToolCall {
        id: format!("call-{name}"),
        name: name.to_owned(),
        arguments: json!({}),
    });

    // On a single-threaded runtime: had `slow` blocked the turn's task, `quick` could not
    // have run until the guard expired.
    let results = registry.session().call_turn(calls.to_vec(), 2).await;

    // Results in call order; the calls finished in the other order.
    let contents: Vec<_> = results
        .iter()
        .map(|result| result.content().clone())
        .collect();
    assert_eq!(contents, [json!("ran after quick"), json!("quick")]);
    assert!(results.iter().all(|result| !result.is_error()));
    assert_eq!(*turn.log.lock().unwrap(), ["quick", "slow"]);
}

#[tokio::test]
async fn a_blocking_tool_keeps_every_other_guarantee() {
    let registry = only(&["blocking_panic", "blocking_add"]).build().unwrap();

    let result = registry.call("blocking_panic", json!({})).await;
    assert_eq!(
        result.error_kind(),
        Some(ToolErrorKind::Panicked),
        "{result:?}"
    );

    let result = registry.call("blocking_add", json!({"a": 2})).await;
    assert_eq!(result.content(), &json!(3));
    let result = registry.call("blocking_add", json!({"a": u32::MAX})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::ToolFailed));
    assert_eq!(result.content(), &json!("overflow"));
    let result = registry.call("blocking_add", json!({"a": -1})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
}

#[test]
fn outside_a_tokio_runtime_a_blocking_tool_runs_in_place() {
    let registry = only(&["blocking_add"]).build().unwrap();
    let result = block_on(registry.call("blocking_add", json!({"a": 1, "b": 2})));
    assert_eq!(result.content(), &json!(3));
}

/// Polls a future to completion on this thread, without any runtime.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::yield_now();
    }
}
