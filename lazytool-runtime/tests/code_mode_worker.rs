//! Scripts in worker processes: what the OS boundary holds. A hostile script ends in an error
//! result naming its limit while this process (the server) goes on, other scripts are
//! answered meanwhile, no worker is left running after its answer, and the global cap holds.
//! Outcomes and order only: no timing is asserted.
#![cfg(all(feature = "code-mode", target_os = "linux"))]

use std::sync::Arc;
use std::time::Duration;

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, Session, SessionOptions, ToolErrorKind,
    ToolResult,
};
use serde_json::{Value, json};
use tokio::sync::{Mutex, Notify};

/// The tests count this process's workers: one at a time, so that none counts another's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

/// The `hold` tool's two ends: told when a call holds, and told to let it go.
#[derive(Clone, Default)]
struct Hold {
    held: Arc<Notify>,
    release: Arc<Notify>,
}

impl Hold {
    /// Waits until a script's call of `hold` holds (its script holds its place).
    async fn held(&self) {
        self.held.notified().await;
    }

    fn release(&self) {
        self.release.notify_one();
    }
}

fn registry(hold: &Hold) -> Registry {
    let echo = DynamicTool::new(
        "echo",
        "Echoes a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments, _| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    let ends = hold.clone();
    let hold = DynamicTool::new(
        "hold",
        "Waits until the test releases it.",
        json!({"type": "object"}),
        move |_, _| {
            let ends = ends.clone();
            async move {
                ends.held.notify_one();
                ends.release.notified().await;
                Ok::<_, String>(json!("released"))
            }
        },
    );
    Registry::builder()
        .without_inventory()
        .tools([echo, hold])
        .build()
        .expect("valid tools")
}

/// A session whose scripts run in workers under `code`. Each test gives its `code` settings
/// of its own (its memory limit), so that it has a pool of its own.
fn session(code: CodeMode) -> (Session, Hold) {
    let hold = Hold::default();
    let session = registry(&hold).session_with(SessionOptions::new().code_mode(code));
    (session, hold)
}

async fn script(session: &Session, code: &str) -> ToolResult {
    session.call(CODE_TOOL_NAME, json!({ "code": code })).await
}

/// The pids of this process's workers: the processes started as `lazytool-code-worker` whose
/// parent is this process. Read from each process's status rather than from the threads'
/// `children` lists: a child moves between those lists when the thread that started it ends
/// (another test's runtime shutting down), and a listing read meanwhile can miss it.
fn workers() -> Vec<u32> {
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = processes
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|pid| is_worker(*pid))
        .collect();
    pids.sort_unstable();
    pids
}

/// Whether `pid` is a worker of this process, a zombie included (its command line is empty:
/// this process has no other children).
fn is_worker(pid: u32) -> bool {
    is_child(pid)
        && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
            cmdline.is_empty() || cmdline.starts_with(b"lazytool-code-worker\0")
        })
}

/// Whether `pid` is a child of this process not yet reaped (a zombie included).
fn is_child(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let parent = status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .map(str::trim);
    parent == Some(std::process::id().to_string().as_str())
}

/// Waits until `pid` is gone (killed and reaped), within a bound far beyond a killed
/// process's end; false if it is still there then.
async fn ends(pid: u32) -> bool {
    for _ in 0..1000 {
        if !is_child(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

fn assert_error(result: &ToolResult, text: &str) {
    assert!(result.is_error(), "{}", result.text());
    assert!(result.text().contains(text), "{}", result.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_builtin_that_never_polls_the_interrupt_ends_at_the_wall_time_and_its_worker_with_it() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (hostile, _) = session(
        CodeMode::new()
            .wall_time(Duration::from_secs(1))
            .max_memory_bytes(17 << 20),
    );
    for code in [
        "return Array.prototype.join.call({ length: 2 ** 53 - 1 }, '');",
        "return [].sort.call({ length: 2 ** 32 - 1 });",
        "return [].reverse.call({ length: 2 ** 53 - 1 });",
    ] {
        let before = workers();
        let result = script(&hostile, code).await;
        assert_eq!(result.error_kind(), Some(ToolErrorKind::TimedOut), "{code}");
        assert_error(&result, "wall time limit of 1s");
        // The worker that ran it was killed and reaped before the answer: none spins on.
        let running: Vec<u32> = workers()
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        assert_eq!(running, Vec::<u32>::new(), "{code}");
    }
    // The same session runs its next script on a fresh worker.
    let next = script(&hostile, "return await tools.echo({ text: 'after' });").await;
    assert_eq!(next.content(), &json!("after"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_session_is_answered_while_a_hostile_script_runs() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (hostile, _) = session(
        CodeMode::new()
            .wall_time(Duration::from_secs(5))
            .max_memory_bytes(18 << 20),
    );
    let (other, _) = session(CodeMode::new().max_memory_bytes(18 << 20));
    let stuck = tokio::spawn(async move {
        script(
            &hostile,
            "return Array.prototype.join.call({ length: 2 ** 53 - 1 }, '');",
        )
        .await
    });
    for n in 0..5 {
        let answer = script(
            &other,
            &format!("return await tools.echo({{ text: '{n}' }});"),
        )
        .await;
        assert_eq!(answer.content(), &json!(n.to_string()));
    }
    // Answered while the hostile script still ran: it ends only at its wall time.
    assert!(!stuck.is_finished());
    let stuck = stuck.await.expect("the hostile script's task");
    assert_error(&stuck, "wall time limit of 5s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_script_kills_its_worker() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (session, _) = session(
        CodeMode::new()
            .wall_time(Duration::from_secs(600))
            .max_memory_bytes(19 << 20),
    );
    let before = workers();
    let cancel = lazytool_runtime::CancellationToken::new();
    let context = lazytool_runtime::ToolContext::new().with_cancellation(cancel.clone());
    let call = session.call_with_context(
        CODE_TOOL_NAME,
        json!({"code": "return Array.prototype.join.call({ length: 2 ** 53 - 1 }, '');"}),
        context,
    );
    let running = tokio::spawn(call);
    // Cancelled once its worker exists.
    let started = loop {
        let now: Vec<u32> = workers()
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if !now.is_empty() {
            break now;
        }
        tokio::task::yield_now().await;
    };
    cancel.cancel();
    let result = running.await.expect("the script's task");
    assert_error(&result, "cancelled");
    for pid in started {
        assert!(
            ends(pid).await,
            "worker {pid} still runs after its script was cancelled"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_past_the_cap_wait_in_a_bounded_queue_then_are_refused() {
    let _one = ONE_AT_A_TIME.lock().await;
    for (queue, wait, refusal) in [
        (0, Duration::from_secs(600), "the queue's limit"),
        (1, Duration::from_millis(1), "the queue's wait limit"),
    ] {
        let (session, hold) = session(
            CodeMode::new()
                .max_memory_bytes((20 << 20) + queue)
                .max_scripts(1)
                .queue(queue, wait),
        );
        let session = Arc::new(session);
        let holding = {
            let session = Arc::clone(&session);
            tokio::spawn(async move { script(&session, "return await tools.hold({});").await })
        };
        // The first script holds the one place (its worker awaits `hold`).
        hold.held().await;
        let refused = script(&session, "return 'refused';").await;
        assert_error(&refused, "limit of 1 scripts at once");
        assert_error(&refused, refusal);
        hold.release();
        assert_eq!(
            holding.await.expect("holding").content(),
            &json!("released")
        );
    }
    // A script in the queue runs when a place frees.
    let (session, hold) = session(
        CodeMode::new()
            .max_memory_bytes((20 << 20) + 2)
            .max_scripts(1)
            .queue(1, Duration::from_secs(600)),
    );
    let session = Arc::new(session);
    let holding = {
        let session = Arc::clone(&session);
        tokio::spawn(async move { script(&session, "return await tools.hold({});").await })
    };
    hold.held().await;
    let queued = {
        let session = Arc::clone(&session);
        tokio::spawn(async move { script(&session, "return 'queued';").await })
    };
    hold.release();
    assert_eq!(
        holding.await.expect("holding").content(),
        &json!("released")
    );
    assert_eq!(queued.await.expect("queued").content(), &json!("queued"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_bombs_at_once_hold_no_more_workers_than_the_cap_and_their_memory_goes_back() {
    let _one = ONE_AT_A_TIME.lock().await;
    let cap = 3;
    let (session, _) = session(
        CodeMode::new()
            .max_memory_bytes(21 << 20)
            .max_scripts(cap)
            .queue(100, Duration::from_secs(600))
            .recycle(1, usize::MAX),
    );
    let session = Arc::new(session);
    // Other tests' pools keep idle workers: only this test's count.
    let others = workers();
    let mine = || -> Vec<u32> {
        workers()
            .into_iter()
            .filter(|pid| !others.contains(pid))
            .collect()
    };
    let bombs: Vec<_> = (0..12)
        .map(|_| {
            let session = Arc::clone(&session);
            tokio::spawn(async move {
                script(
                    &session,
                    "const a = [];\nwhile (true) a.push('x'.repeat(1000) + a.length);",
                )
                .await
            })
        })
        .collect();
    let mut most = 0;
    while bombs.iter().any(|bomb| !bomb.is_finished()) {
        most = most.max(mine().len());
        tokio::task::yield_now().await;
    }
    for bomb in bombs {
        assert_error(&bomb.await.expect("a bomb"), "memory limit of 21 MiB");
    }
    assert!(most <= cap, "{most} workers at once, over the cap of {cap}");
    // Each worker was ended after its one script: none holds memory now.
    assert_eq!(mine(), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_scripts_give_the_same_results_in_a_worker_and_in_process() {
    let _one = ONE_AT_A_TIME.lock().await;
    let scripts = [
        "return await tools.echo({ text: 'a' });",
        "console.log('x', { y: 1 }); return { n: 1 };",
        "const [a, b] = await Promise.all([tools.echo({ text: 'a' }), tools.echo({ text: 'b' })]);\nreturn a + b;",
        "try { await tools.echo({}); } catch (e) { return e.message; }",
        "throw new TypeError('no');",
        "return (",
        "return undefined;",
        "await new Promise(() => {});",
        "return await tools.nothing({});",
    ];
    let (worker, _) = session(CodeMode::new().max_memory_bytes(22 << 20));
    let (in_process, _) = session(CodeMode::in_process().max_memory_bytes(22 << 20));
    for code in scripts {
        let (a, b) = (script(&worker, code).await, script(&in_process, code).await);
        assert_eq!(
            (a.error_kind(), a.text(), a.content().clone()),
            (b.error_kind(), b.text(), b.content().clone()),
            "{code}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_is_kept_between_scripts_and_replaced_after_its_recycling_bound() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (session, _) = session(
        CodeMode::new()
            .max_memory_bytes(23 << 20)
            .max_idle_workers(1)
            .recycle(2, usize::MAX),
    );
    let mut pids: Vec<Value> = Vec::new();
    for _ in 0..4 {
        let before = workers();
        assert_eq!(script(&session, "return 1;").await.content(), &json!(1));
        pids.push(json!(
            workers().iter().filter(|p| !before.contains(p)).count()
        ));
    }
    // A new worker for the first script and for the third (the first ended after two).
    assert_eq!(pids, vec![json!(1), json!(0), json!(1), json!(0)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_to_calls_a_script_left_reach_no_later_script() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (session, _) = session(
        CodeMode::new()
            .max_memory_bytes(27 << 20)
            .max_idle_workers(1),
    );
    // The unknown tool's refusal ends the `Promise.all`, and the script, before the echoes'
    // answers are read: they reach the worker after its script ended.
    let left = "try {\n\
        await Promise.all([tools.nothing({}), tools.echo({ text: 'a' }), tools.echo({ text: 'b' })]);\n\
        } catch (error) { return 'left'; }";
    for n in 0..20 {
        assert_eq!(
            script(&session, left).await.content(),
            &json!("left"),
            "{n}"
        );
        let next = script(
            &session,
            &format!(
                "return [await tools.echo({{ text: '{n}' }}), await tools.echo({{ text: 'x' }})];"
            ),
        )
        .await;
        assert_eq!(
            next.content(),
            &json!([n.to_string(), "x"]),
            "{n}: {}",
            next.text()
        );
    }
}

/// Runs `__lazy_test_escape(what)`: its worker is stopped with `error`, and the session's next
/// script runs on a fresh one.
#[cfg(feature = "code-worker-test-hook")]
async fn stopped_then_replaced(session: &Session, what: &str, error: &str) {
    let result = script(session, &format!("__lazy_test_escape('{what}'); return 1;")).await;
    assert_error(&result, error);
    let after = script(session, "return await tools.echo({ text: 'fresh' });").await;
    assert_eq!(after.content(), &json!("fresh"), "{what}");
}

#[cfg(feature = "code-worker-test-hook")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filter_refuses_a_file_a_socket_and_a_program_from_inside_a_worker() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (worker, _) = session(CodeMode::new().max_memory_bytes(24 << 20));
    for what in ["open", "socket", "exec"] {
        stopped_then_replaced(&worker, what, "a system call its filter refuses").await;
    }
    // In process there is no filter, and no hook either.
    let (in_process, _) = session(CodeMode::in_process());
    let result = script(&in_process, "return typeof __lazy_test_escape;").await;
    assert_eq!(result.content(), &json!("undefined"));
}

#[cfg(feature = "code-worker-test-hook")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_dies_or_breaks_the_protocol_is_an_error_and_is_replaced() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (session, _) = session(CodeMode::new().max_memory_bytes(25 << 20));
    stopped_then_replaced(&session, "abort", "the script's worker died (aborted)").await;
    // A frame that is not JSON, and one that says it is 4 GiB: the parent reads no further.
    stopped_then_replaced(&session, "garbage", "broke the protocol").await;
    stopped_then_replaced(&session, "oversize", "broke the protocol").await;
}

#[cfg(feature = "code-worker-test-hook")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_keeps_no_environment_and_no_descriptor_but_its_pipes() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (session, _) = session(CodeMode::new().max_memory_bytes(26 << 20));
    let env = script(&session, "return __lazy_test_escape('env');").await;
    assert_eq!(env.content(), &json!("LAZYTOOL_CODE_WORKER"));
    let fds = script(&session, "return __lazy_test_escape('fds');").await;
    assert_eq!(fds.content(), &json!("0,1,2"));
}
