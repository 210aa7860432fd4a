//! One script run: its source wrapped so that it may `await` and `return`, evaluated in a
//! fresh sandbox, and its outcome read (errors placed against the script's own lines).

use std::sync::Arc;

use rquickjs::{CatchResultExt, CaughtError, Ctx, Module, context::EvalOptions};

use super::host::Host;
use super::outcome::{Ended, Finished, Limit};
use super::sandbox;
use super::script_json::{self, Unreadable};

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
    if let Err(error) = compiles_as_a_body(&ctx, &source) {
        return caught(error, true);
    }
    let mut options = EvalOptions::default();
    options.filename = Some(FILE.to_owned());
    // On a line of its own: the script's line N is the wrapper's N + 1, its columns unmoved.
    let wrapped = format!("(async () => {{\n{source}\n}})()");
    let promise = match ctx
        .eval_with_options::<rquickjs::Value<'js>, _>(wrapped, options)
        .catch(&ctx)
    {
        Ok(value) => match value.into_promise() {
            Some(promise) => promise,
            None => return escaped(),
        },
        Err(error) => return caught(error, true),
    };
    match promise
        .into_future::<rquickjs::Value<'js>>()
        .await
        .catch(&ctx)
    {
        Ok(value) => returned(&ctx, value, &host),
        Err(error) => caught(error, false),
    }
}

/// Compiles (without running) `source` as the body of a function wrapped differently from
/// the one it runs in: a script that closes its wrapper early (`}); (() => {`) to run code
/// outside it cannot be valid in both, since after the wrapper's closing brace only `,` or
/// `)` may follow an arrow function, and neither may begin a statement. A module is the
/// engine's one way of compiling without running; it is strict, as scripts are.
fn compiles_as_a_body<'js>(ctx: &Ctx<'js>, source: &str) -> Result<(), CaughtError<'js>> {
    let checked = format!("(async () => {{ {{\n{source}\n}} }});");
    Module::declare(ctx.clone(), FILE, checked)
        .map(drop)
        .catch(ctx)
}

/// A script that compiled in both wrappers and still did not run as the function body it
/// was to be (never seen).
fn escaped() -> Ended {
    Ended::Syntax {
        message: "the script is not a function body (it closes the function it runs in)".to_owned(),
        line: 1,
        column: 1,
    }
}

/// The script's return value: `undefined` is none, anything else is read as JSON within the
/// output limit and the depth of arguments, or said to be what it is.
fn returned<'js>(ctx: &Ctx<'js>, value: rquickjs::Value<'js>, host: &Host) -> Ended {
    if value.is_undefined() {
        return Ended::Returned(None);
    }
    match script_json::read(ctx, value.clone(), host.returned()) {
        Ok(json) => Ended::Returned(Some(json)),
        Err(Unreadable::TooLarge(_)) => over_output(ctx, value),
        Err(Unreadable::Thrown) => threw_while_read(ctx),
        Err(why) => Ended::NotJson(why.why()),
    }
}

/// A return value over the output limit, given as text for the output limit to cut (with
/// its notice): a string as it is, anything else as the engine's JSON text, never parsed.
/// Either is bounded by the script's memory limit.
fn over_output<'js>(ctx: &Ctx<'js>, value: rquickjs::Value<'js>) -> Ended {
    let text = match value.as_string() {
        Some(text) => Some(text.clone()),
        None => match ctx.json_stringify(value).catch(ctx) {
            Ok(text) => text,
            Err(CaughtError::Exception(exception)) if exception.is_uncatchable_error() => {
                return Ended::Stopped(INTERRUPTED.to_owned());
            }
            Err(CaughtError::Exception(exception)) => {
                return Ended::NotJson(format!("reading it threw {}", exception_text(&exception)));
            }
            Err(error) => return caught(error, false),
        },
    };
    match text.map(|text| text.to_string()) {
        Some(Ok(text)) => Ended::Returned(Some(serde_json::Value::String(text))),
        Some(Err(_)) => Ended::NotJson(Unreadable::LoneSurrogate.why()),
        None => Ended::NotJson(Unreadable::Nothing("a value whose toJSON returns undefined").why()),
    }
}

/// The exception the script's own code threw while its return value was read (a getter, a
/// `toJSON`, a proxy's trap): an interrupt stops the script, anything else is said.
fn threw_while_read(ctx: &Ctx<'_>) -> Ended {
    let thrown = ctx.catch();
    if thrown.is_uncatchable_error() {
        return Ended::Stopped(INTERRUPTED.to_owned());
    }
    let text = match thrown.as_exception() {
        Some(exception) => exception_text(exception),
        None if thrown.is_null() => return Ended::Stopped(OUT_OF_MEMORY.to_owned()),
        None => format!("a value: {}", describe(&thrown)),
    };
    Ended::NotJson(format!("reading it threw {text}"))
}

/// What the engine's interrupt throws.
const INTERRUPTED: &str = "interrupted";

/// `Name: message` of an exception.
fn exception_text(exception: &rquickjs::Exception<'_>) -> String {
    let name: String = exception
        .get::<_, Option<String>>("name")
        .ok()
        .flatten()
        .unwrap_or_else(|| "Error".to_owned());
    format!("{name}: {}", exception.message().unwrap_or_default())
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
            if exception.is_uncatchable_error()
                || (name == "InternalError" && message == INTERRUPTED)
            {
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
        // The binding's own failures: its words are not the script's business.
        CaughtError::Error(rquickjs::Error::Allocation) => Ended::Stopped(OUT_OF_MEMORY.to_owned()),
        CaughtError::Error(error) => {
            tracing::debug!(target: "lazytool::code", %error, "the engine failed");
            Ended::Stopped("the engine failed to run it".to_owned())
        }
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
