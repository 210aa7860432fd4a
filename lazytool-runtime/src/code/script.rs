//! One script run: its source wrapped so that it may `await` and `return`, evaluated in a
//! fresh sandbox, and its outcome read (errors placed against the script's own lines).

use std::sync::Arc;

use rquickjs::{CatchResultExt, CaughtError, Ctx, Promise, context::EvalOptions};
use serde_json::Value;

use super::host::Host;
use super::outcome::{Ended, Finished, Limit};
use super::sandbox;

/// The name a script's frames carry in stacks and errors.
const FILE: &str = "script.js";

/// Runs `source`, whose tool calls and console go to `host`.
pub(super) async fn run(
    source: String,
    host: Arc<Host>,
    max_memory_bytes: usize,
    max_stack_bytes: usize,
) -> Finished {
    let ended = match sandbox::open(&host, max_memory_bytes, max_stack_bytes).await {
        Ok((runtime, context)) => {
            let script_host = Arc::clone(&host);
            let ended = context
                .async_with(async move |ctx| evaluate(ctx, source, script_host).await)
                .await;
            drop(context);
            drop(runtime);
            ended
        }
        Err(error) => Ended::Stopped(format!("the sandbox could not start: {error}")),
    };
    let reached = host
        .reached()
        .or_else(|| engine_limit(&ended, max_memory_bytes, max_stack_bytes));
    Finished {
        ended,
        reached,
        console: host.take_console(),
    }
}

/// What QuickJS says when an allocation fails.
const OUT_OF_MEMORY: &str = "out of memory";

/// The limit an engine error stands for: out of memory, or the stack exhausted.
fn engine_limit(ended: &Ended, max_memory_bytes: usize, max_stack_bytes: usize) -> Option<Limit> {
    let text = match ended {
        Ended::Threw { text, .. } | Ended::Stopped(text) => text,
        _ => return None,
    };
    if text.contains(OUT_OF_MEMORY) {
        Some(Limit::Memory(max_memory_bytes))
    } else if text.contains("Maximum call stack size exceeded") || text.contains("stack overflow") {
        Some(Limit::Stack(max_stack_bytes))
    } else {
        None
    }
}

async fn evaluate<'js>(ctx: Ctx<'js>, source: String, host: Arc<Host>) -> Ended {
    if let Err(error) = host.install(&ctx).catch(&ctx) {
        return Ended::Stopped(format!("the sandbox could not start: {error}"));
    }
    let mut options = EvalOptions::default();
    options.filename = Some(FILE.to_owned());
    // On a line of its own: the script's line N is the wrapper's N + 1, its columns unmoved.
    let wrapped = format!("(async () => {{\n{source}\n}})()");
    let promise = match ctx
        .eval_with_options::<Promise<'js>, _>(wrapped, options)
        .catch(&ctx)
    {
        Ok(promise) => promise,
        Err(error) => return caught(error, true),
    };
    match promise
        .into_future::<rquickjs::Value<'js>>()
        .await
        .catch(&ctx)
    {
        Ok(value) => Ended::Returned(to_json(&ctx, value)),
        Err(error) => caught(error, false),
    }
}

/// `value` as JSON, through the engine's `JSON.stringify`.
fn to_json<'js>(ctx: &Ctx<'js>, value: rquickjs::Value<'js>) -> Option<Value> {
    let text = ctx.json_stringify(value).ok()??;
    serde_json::from_str(&text.to_string().ok()?).ok()
}

fn caught(error: CaughtError<'_>, compiling: bool) -> Ended {
    match error {
        CaughtError::Exception(exception) => {
            let name: String = exception
                .get::<_, Option<String>>("name")
                .ok()
                .flatten()
                .unwrap_or_else(|| "Error".to_owned());
            let message = exception.message().unwrap_or_default();
            let stack = script_frames(&exception.stack().unwrap_or_default());
            if name == "InternalError" && message == "interrupted" {
                return Ended::Stopped(message);
            }
            if compiling && name == "SyntaxError" {
                let (line, column) = first_position(&stack).unwrap_or((0, 0));
                return Ended::Syntax {
                    message,
                    line,
                    column,
                };
            }
            Ended::Threw {
                text: format!("{name}: {message}"),
                stack,
            }
        }
        // The engine throws `null` when it cannot allocate even its error: out of memory. A
        // script that throws `null` itself is told the same (its own `null` is no message).
        CaughtError::Value(value) if value.is_null() => Ended::Stopped(OUT_OF_MEMORY.to_owned()),
        CaughtError::Value(value) => Ended::Threw {
            text: format!("a value: {}", describe(&value)),
            stack: String::new(),
        },
        CaughtError::Error(error) => Ended::Stopped(error.to_string()),
    }
}

fn describe(value: &rquickjs::Value<'_>) -> String {
    match value.ctx().json_stringify(value.clone()) {
        Ok(Some(text)) => text.to_string().unwrap_or_default(),
        _ => format!("{:?}", value.type_of()),
    }
}

/// The frames of `stack` that are the script's, their lines counted in its own source.
fn script_frames(stack: &str) -> String {
    stack
        .lines()
        .filter(|frame| frame.contains(FILE))
        .map(|frame| shift_lines(frame.trim()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `frame` with every `script.js:LINE` moved up a line, past the wrapper's first.
fn shift_lines(frame: &str) -> String {
    let marker = format!("{FILE}:");
    let mut out = String::with_capacity(frame.len());
    let mut rest = frame;
    while let Some(at) = rest.find(&marker) {
        let (before, after) = rest.split_at(at + marker.len());
        out.push_str(before);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<u32>() {
            Ok(line) => out.push_str(&line.saturating_sub(1).max(1).to_string()),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The line and column of the first `script.js:LINE:COLUMN` in `frames` (already shifted).
fn first_position(frames: &str) -> Option<(u32, u32)> {
    let at = frames.find(&format!("{FILE}:"))? + FILE.len() + 1;
    let mut numbers = frames[at..]
        .split(|c: char| !c.is_ascii_digit())
        .take(2)
        .map(str::parse::<u32>);
    Some((numbers.next()?.ok()?, numbers.next()?.ok()?))
}

#[cfg(test)]
mod tests {
    use super::{first_position, shift_lines};

    #[test]
    fn frames_are_placed_on_the_scripts_own_lines() {
        assert_eq!(shift_lines("at f (script.js:3:7)"), "at f (script.js:2:7)");
        assert_eq!(first_position("at script.js:2:7"), Some((2, 7)));
    }
}
