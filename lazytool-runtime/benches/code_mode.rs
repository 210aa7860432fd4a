//! A first rough figure of code mode's runtime costs (`code-mode` feature): a script's start
//! (a fresh QuickJS runtime and context, the host installed, `return 1` run), the extra cost
//! of a tool call made from a script against the same call made directly, and how soon a busy
//! loop ends after its wall time. Timings, so not a test; the full benchmark is issue 37's
//! `bench/code_mode`.
//!
//! ```sh
//! cargo bench -p lazytool-runtime --features code-mode --bench code_mode
//! ```

use std::time::{Duration, Instant};

use lazytool_runtime::{CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, Session, SessionOptions};
use serde_json::json;

const SCRIPTS: usize = 400;
const CALLS: usize = 50;

fn code_session(code: CodeMode) -> Result<Session, String> {
    let echo = DynamicTool::new(
        "echo",
        "Echoes a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments, _| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(echo)
        .build()
        .map_err(|error| error.to_string())?;
    Ok(registry.session_with(SessionOptions::new().code_mode(code.direct_calls(true))))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The median time of `SCRIPTS` runs of `code`.
async fn script_time(session: &Session, code: &str) -> Result<Duration, String> {
    let mut samples = Vec::with_capacity(SCRIPTS);
    for _ in 0..SCRIPTS {
        let started = Instant::now();
        let result = session.call(CODE_TOOL_NAME, json!({ "code": code })).await;
        samples.push(started.elapsed());
        if result.is_error() {
            return Err(result.text());
        }
    }
    Ok(median(samples))
}

async fn measure() -> Result<(), String> {
    let session = code_session(CodeMode::new())?;
    let start = script_time(&session, "return 1;").await?;
    println!("script start (return 1), p50: {start:?}");

    let calls =
        format!("for (let i = 0; i < {CALLS}; i++) await tools.echo({{ text: 'hi' }});\nreturn 1;");
    let with_calls = script_time(&session, &calls).await?;
    let per_script_call = with_calls.saturating_sub(start) / CALLS as u32;

    let mut direct = Vec::with_capacity(SCRIPTS * CALLS);
    for _ in 0..SCRIPTS * CALLS {
        let started = Instant::now();
        let result = session.call("echo", json!({"text": "hi"})).await;
        direct.push(started.elapsed());
        std::hint::black_box(result);
    }
    let direct = median(direct);
    println!(
        "a tool call: from a script {per_script_call:?} (p50 of scripts of {CALLS} calls, less the start), direct {direct:?} (p50)"
    );

    let wall = Duration::from_millis(100);
    let busy = code_session(CodeMode::new().wall_time(wall))?;
    let mut late = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        let result = busy
            .call(CODE_TOOL_NAME, json!({"code": "while (true) {}"}))
            .await;
        late.push(started.elapsed().saturating_sub(wall));
        if !result.is_error() {
            return Err("a busy loop finished".to_owned());
        }
    }
    println!(
        "a busy loop ends after its wall time within (p50 of 10): {:?}",
        median(late)
    );
    Ok(())
}

fn main() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(measure())
}
