//! Code mode's runtime costs, for one runner (in worker processes, or in process): a
//! script's start, the cost of a tool call from a script against the same call made directly
//! and against the engine's own floor (a promise awaited), how soon a busy loop ends after its
//! wall time, and the memory of 100 scripts running at once (the proportional set size of this
//! process and its workers, so that code they share counts once).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, ScriptRunner, Session, SessionOptions,
};
use serde_json::json;
use tokio::sync::Semaphore;

const STARTS: usize = 1000;
const CALLS: usize = 50;
const SCRIPTS_WITH_CALLS: usize = 200;
const DIRECT: usize = 20_000;
const CONCURRENT: usize = 100;
const BUSY_LOOPS: usize = 10;
const WALL_TIME: Duration = Duration::from_millis(100);

pub struct Costs {
    pub start_p50: Duration,
    pub per_call_from_script: Duration,
    pub direct_call_p50: Duration,
    /// A call of a script's own function returning a resolved promise, awaited: what any
    /// awaited call costs in the engine, before it reaches the host.
    pub engine_floor: Duration,
    pub busy_loop_late_p50: Duration,
    /// How long after its wall time a builtin QuickJS does not interrupt ends (workers only:
    /// in process it runs until it is done).
    pub builtin_late_p50: Option<Duration>,
    pub pss_before: u64,
    pub pss_with_scripts: u64,
    /// Worker processes alive while the 100 scripts ran.
    pub workers: usize,
}

/// `echo` (returns its text) and `wait` (returns once every waiting script has called it).
fn registry(waiting: Arc<AtomicUsize>, release: Arc<Semaphore>) -> Result<Registry, String> {
    let echo = DynamicTool::new(
        "echo",
        "Echoes a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments, _| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    let wait = DynamicTool::new(
        "wait",
        "Waits for the others.",
        json!({"type": "object"}),
        move |_, _| {
            let (waiting, release) = (Arc::clone(&waiting), Arc::clone(&release));
            async move {
                waiting.fetch_add(1, Ordering::SeqCst);
                let permit = release.acquire().await.map_err(|error| error.to_string())?;
                permit.forget();
                Ok::<_, String>(json!(true))
            }
        },
    );
    Registry::builder()
        .without_inventory()
        .tool(echo)
        .tool(wait)
        .build()
        .map_err(|error| error.to_string())
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn script_p50(session: &Session, code: &str, runs: usize) -> Result<Duration, String> {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let result = session.call(CODE_TOOL_NAME, json!({ "code": code })).await;
        samples.push(started.elapsed());
        if result.is_error() {
            return Err(result.text());
        }
    }
    Ok(median(samples))
}

/// The proportional set size of `pid`, in bytes (`Pss` of `/proc/PID/smaps_rollup`).
fn pss(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    (rollup.lines())
        .find_map(|line| line.strip_prefix("Pss:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// This process's script workers (its children named `lazytool-code-worker`).
fn workers() -> Vec<u32> {
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok())
        .flat_map(|children| {
            (children.split_whitespace())
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<u32>>()
        })
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.starts_with(b"lazytool-code-worker\0"))
        })
        .collect()
}

/// The memory of this process and its workers together (the sum of their PSS).
fn memory() -> u64 {
    pss(std::process::id()) + workers().into_iter().map(pss).sum::<u64>()
}

/// The costs of scripts run under `code` (its runner), with room for 100 at once.
pub async fn measure(code: CodeMode) -> Result<Costs, String> {
    let code = code.max_scripts(CONCURRENT).max_idle_workers(CONCURRENT);
    let waiting = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Semaphore::new(0));
    let registry = registry(Arc::clone(&waiting), Arc::clone(&release))?;
    let session = Arc::new(
        registry.session_with(SessionOptions::new().code_mode(code.clone().direct_calls(true))),
    );

    script_p50(&session, "return 1;", 50).await?; // warm up
    let start_p50 = script_p50(&session, "return 1;", STARTS).await?;
    let calls =
        format!("for (let i = 0; i < {CALLS}; i++) await tools.echo({{ text: 'hi' }});\nreturn 1;");
    let with_calls = script_p50(&session, &calls, SCRIPTS_WITH_CALLS).await?;
    let per_call_from_script = with_calls.saturating_sub(start_p50) / CALLS as u32;
    let awaits = format!(
        "const echo = (args) => Promise.resolve(args.text);\nfor (let i = 0; i < {CALLS}; i++) await echo({{ text: 'hi' }});\nreturn 1;"
    );
    let with_awaits = script_p50(&session, &awaits, SCRIPTS_WITH_CALLS).await?;
    let engine_floor = with_awaits.saturating_sub(start_p50) / CALLS as u32;
    let mut direct = Vec::with_capacity(DIRECT);
    for _ in 0..DIRECT {
        let started = Instant::now();
        let result = session.call("echo", json!({"text": "hi"})).await;
        direct.push(started.elapsed());
        std::hint::black_box(result);
    }
    let direct_call_p50 = median(direct);

    let busy = registry
        .session_with(SessionOptions::new().code_mode(code.clone().wall_time(WALL_TIME)));
    let mut late = Vec::with_capacity(BUSY_LOOPS);
    for _ in 0..BUSY_LOOPS {
        let started = Instant::now();
        let result = busy
            .call(CODE_TOOL_NAME, json!({"code": "while (true) {}"}))
            .await;
        late.push(started.elapsed().saturating_sub(WALL_TIME));
        if !result.is_error() {
            return Err("a busy loop finished".to_owned());
        }
    }
    let busy_loop_late_p50 = median(late);
    let builtin_late_p50 = if code.runner == ScriptRunner::Worker {
        let mut late = Vec::with_capacity(BUSY_LOOPS);
        for _ in 0..BUSY_LOOPS {
            let started = Instant::now();
            let code = "return Array.prototype.join.call({ length: 2 ** 53 - 1 }, '');";
            let result = busy.call(CODE_TOOL_NAME, json!({ "code": code })).await;
            late.push(started.elapsed().saturating_sub(WALL_TIME));
            if !result.is_error() {
                return Err("an endless join finished".to_owned());
            }
        }
        Some(median(late))
    } else {
        None
    };

    // Each script holds a thousand small objects, then waits in a tool call until all of
    // them are running.
    let pss_before = memory();
    let script = "const data = Array.from({ length: 1000 }, (_, i) => ({ i, name: 'item ' + i }));\n\
        await tools.wait({});\nreturn data.length;";
    let runs: Vec<_> = (0..CONCURRENT)
        .map(|_| {
            let session = Arc::clone(&session);
            tokio::spawn(async move {
                session
                    .call(CODE_TOOL_NAME, json!({ "code": script }))
                    .await
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while waiting.load(Ordering::SeqCst) < CONCURRENT {
        if Instant::now() > deadline {
            return Err("the 100 scripts did not all start within 60 s".to_owned());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let pss_with_scripts = memory();
    let workers = workers().len();
    release.add_permits(CONCURRENT);
    for run in runs {
        let result = run.await.map_err(|error| error.to_string())?;
        if result.is_error() {
            return Err(result.text());
        }
    }
    Ok(Costs {
        start_p50,
        per_call_from_script,
        direct_call_p50,
        engine_floor,
        busy_loop_late_p50,
        builtin_late_p50,
        pss_before,
        pss_with_scripts,
        workers,
    })
}
