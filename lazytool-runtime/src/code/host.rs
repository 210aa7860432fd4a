//! What a script can reach of the host: `tools.NAME(args)`, each an ordinary call of the
//! session, and `console.log`. Everything else a script sees is the engine's own.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Instant;

use rquickjs::{Ctx, Exception, Function, Promise};
use serde_json::Value;
use tokio::sync::Semaphore;

use super::CODE_TOOL_NAME;
use super::outcome::Limit;
use super::script_json::{self, Budget, Unreadable};
use crate::call::{ToolContext, ToolResult};
use crate::tool::{CALL_THROUGH_TOOL_NAME, DISCOVERY_TOOL_NAME};

/// Runs one tool call of a script: the session's own dispatch.
pub(crate) type CallTool = Arc<
    dyn Fn(&str, Value, ToolContext) -> Pin<Box<dyn Future<Output = ToolResult> + Send>>
        + Send
        + Sync,
>;

/// Builds `tools` and `console` from the two host functions, then hides those: a script
/// reaches the host through these wrappers only. `then` is not a tool, so that awaiting
/// `tools` itself does not call one. A call's arguments and result cross as values, not
/// JSON text; the host answers with the result itself when the call finished at once (most
/// tools), with a promise of it otherwise, and throws the tool's error. No wrapper
/// object, no async function per call, each tool's function made once.
const PRELUDE: &str = r#"(() => {
  const bind = globalThis.__lazy_tool, log = globalThis.__lazy_log;
  delete globalThis.__lazy_tool;
  delete globalThis.__lazy_log;
  const { stringify } = JSON, { apply } = Reflect, { toWellFormed } = String.prototype;
  // A lone surrogate (half of a UTF-16 pair) as U+FFFD: the host reads UTF-8 only.
  const wellFormed = (text) => apply(toWellFormed, text, []);
  const text = (value) => {
    if (typeof value === "string") return value;
    try { const json = stringify(value); return json === undefined ? String(value) : json; }
    catch { return String(value); }
  };
  const write = (...values) => log(wellFormed(values.map(text).join(" ")));
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };
  const { resolve, reject } = Promise, promises = Promise;
  const run = (name) => {
    const call = bind(wellFormed(name));
    // A promise either way: the host's own, or its value resolved (a JSON value is never
    // a thenable).
    return (args) => {
      try { return resolve.call(promises, call(args)); }
      catch (error) { return reject.call(promises, error); }
    };
  };
  const define = Object.defineProperty;
  // A tool's function is made on its first use and kept on `tools` itself: from then on it
  // is a plain property, found without the proxy behind.
  globalThis.tools = Object.create(new Proxy(Object.create(null), {
    get: (_, name, tools) => {
      if (typeof name !== "string" || name === "then") return undefined;
      const tool = run(name);
      define(tools, name, { value: tool, writable: true, enumerable: true, configurable: true });
      return tool;
    },
  }));
})();"#;

/// What a call made after the script reached a limit throws (the engine stops the script at
/// its next check).
const STOPPED: &str = "Error: the script was stopped.";

/// One script's link to the host: its tool calls (counted, bounded in number and in
/// concurrency), its console, and the first limit it reached.
pub(super) struct Host {
    call: CallTool,
    /// The code tool's call: the script's tool calls are its children (ids, cancellation).
    context: ToolContext,
    max_calls: usize,
    calls: AtomicUsize,
    /// Tool calls begun and not finished: a script waiting with none can never go on.
    outstanding: AtomicUsize,
    /// Whether the script's engine is ready (its host installed).
    started: AtomicBool,
    permits: Semaphore,
    /// What one call's arguments may take (the registry's argument limits).
    arguments: Budget,
    max_output: usize,
    /// How deep arguments and the return value may nest.
    max_depth: usize,
    console: Mutex<Console>,
    reached: OnceLock<Limit>,
    deadline: Instant,
    wall_time: std::time::Duration,
}

/// One tool call of a script, begun and not finished.
struct Outstanding(Arc<Host>);

impl Outstanding {
    fn begin(host: &Arc<Host>) -> Outstanding {
        host.outstanding.fetch_add(1, Ordering::AcqRel);
        Outstanding(Arc::clone(host))
    }
}

impl Drop for Outstanding {
    fn drop(&mut self) {
        self.0.outstanding.fetch_sub(1, Ordering::AcqRel);
    }
}

#[derive(Default)]
struct Console {
    lines: Vec<String>,
    bytes: usize,
}

/// What bounds a [`Host`] (and, sent with a script to its worker, the worker's host and the
/// parent's check of it).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Bounds {
    pub(super) max_calls: usize,
    pub(super) max_concurrent: usize,
    /// The largest arguments of one call, in bytes of JSON (the registry's
    /// `max_argument_bytes`): counted as they are read, before they are copied.
    pub(super) max_argument_bytes: usize,
    /// How deep arguments and the return value may nest: the registry's
    /// `max_argument_depth`, one limit for what crosses the boundary either way (a deeper
    /// argument would be refused by the call anyway).
    pub(super) max_depth: usize,
    pub(super) max_output: usize,
    pub(super) wall_time: std::time::Duration,
}

impl Host {
    pub(super) fn new(call: CallTool, context: ToolContext, bounds: Bounds) -> Arc<Host> {
        Arc::new(Host {
            call,
            context,
            max_calls: bounds.max_calls,
            calls: AtomicUsize::new(0),
            outstanding: AtomicUsize::new(0),
            started: AtomicBool::new(false),
            permits: Semaphore::new(bounds.max_concurrent.max(1)),
            arguments: Budget {
                max_bytes: bounds.max_argument_bytes,
                max_depth: bounds.max_depth,
            },
            max_output: bounds.max_output,
            max_depth: bounds.max_depth,
            console: Mutex::new(Console::default()),
            reached: OnceLock::new(),
            deadline: Instant::now() + bounds.wall_time,
            wall_time: bounds.wall_time,
        })
    }

    /// Gives the script `tools` and `console`.
    pub(super) fn install<'js>(self: &Arc<Self>, ctx: &Ctx<'js>) -> rquickjs::Result<()> {
        let globals = ctx.globals();
        let host = Arc::clone(self);
        let bind = move |ctx: Ctx<'js>, name: String| host.tool_function(ctx, Arc::from(name));
        globals.set("__lazy_tool", Function::new(ctx.clone(), bind)?)?;
        let host = Arc::clone(self);
        let log = move |line: rquickjs::Value<'js>| host.log(&line);
        globals.set("__lazy_log", Function::new(ctx.clone(), log)?)?;
        ctx.eval::<(), _>(PRELUDE)?;
        self.started.store(true, Ordering::Release);
        Ok(())
    }

    /// The host function behind `tools.NAME`.
    fn tool_function<'js>(
        self: &Arc<Self>,
        ctx: Ctx<'js>,
        name: Arc<str>,
    ) -> rquickjs::Result<Function<'js>> {
        let host = Arc::clone(self);
        let call = move |ctx: Ctx<'js>, arguments: rquickjs::Value<'js>| {
            host.call(&ctx, Arc::clone(&name), arguments)
        };
        Function::new(ctx, call)
    }

    /// One call of `tools.NAME(args)`: its value when the call finished at once (most
    /// tools: the engine schedules no promise for them), a promise of it otherwise.
    fn call<'js>(
        self: &Arc<Self>,
        ctx: &Ctx<'js>,
        name: Arc<str>,
        arguments: rquickjs::Value<'js>,
    ) -> rquickjs::Result<rquickjs::Value<'js>> {
        if self.reached().is_some() {
            return Err(Exception::throw_message(ctx, STOPPED));
        }
        // Read now, as JSON.stringify would: the script's later changes to the object do not
        // reach the call.
        let arguments = match script_json::arguments(ctx, arguments, self.arguments) {
            Ok(arguments) => Ok(arguments),
            // The script's own exception (its getter's, its interrupt) goes on as it is.
            Err(Unreadable::Thrown) => return Err(rquickjs::Error::Exception),
            Err(Unreadable::TooLarge(bytes)) => Err(format!(
                "Error: the arguments of {name} are larger than the limit of {bytes} bytes; send less data."
            )),
            Err(why) => Err(format!(
                "Error: the arguments of {name} are not JSON: {}.",
                why.why()
            )),
        };
        // Counted from the moment the script calls, before the engine polls the call.
        let outstanding = Outstanding::begin(self);
        let mut answer = Box::pin(async move {
            let answer = outstanding.0.answer(&name, arguments?).await;
            drop(outstanding);
            answer
        });
        let mut context = TaskContext::from_waker(Waker::noop());
        match answer.as_mut().poll(&mut context) {
            Poll::Ready(answer) => settle(ctx, answer),
            Poll::Pending => {
                // Its error, if any, is thrown later, from no frame of the script's: it carries
                // the stack of the call instead, as one answered at once does.
                let site = Exception::from_message(ctx.clone(), "")?
                    .get::<_, rquickjs::Value<'js>>("stack")?;
                let later = ctx.clone();
                let promise = Promise::wrap_future(ctx, async move {
                    match answer.await {
                        Err(error) => Err(throw_at(&later, &error, site)),
                        answer => settle(&later, answer),
                    }
                })?;
                Ok(promise.into_value())
            }
        }
    }

    /// Whether the script, pending, can never go on: it runs, and no tool call it made is
    /// unfinished (a script has no timers, and the engine ran every job it could).
    pub(super) fn is_stalled(&self) -> bool {
        self.started.load(Ordering::Acquire) && self.outstanding.load(Ordering::Acquire) == 0
    }

    /// Whether the engine must stop the script now (its interrupt handler): a limit reached,
    /// the wall time past, or the call cancelled.
    pub(super) fn must_stop(&self) -> bool {
        if self.reached.get().is_some() {
            return true;
        }
        if self.context.is_cancelled() {
            self.reach(Limit::Cancelled);
            return true;
        }
        if Instant::now() >= self.deadline {
            self.reach(Limit::WallTime(self.wall_time));
            return true;
        }
        false
    }

    /// Records `limit` unless another was reached first.
    pub(super) fn reach(&self, limit: Limit) {
        let _ = self.reached.set(limit);
    }

    pub(super) fn reached(&self) -> Option<Limit> {
        self.reached.get().copied()
    }

    /// What the script's return value may take: the output limit, and the depth of
    /// arguments.
    pub(super) fn returned(&self) -> Budget {
        Budget {
            max_bytes: self.max_output,
            max_depth: self.max_depth,
        }
    }

    /// The console lines, once the script ended.
    pub(super) fn take_console(&self) -> Vec<String> {
        let mut console = self.console.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut console.lines)
    }

    /// One console line; the prelude made it well-formed text (a lone surrogate as U+FFFD).
    fn log(&self, line: &rquickjs::Value<'_>) {
        let line = (line.as_string())
            .and_then(|line| line.to_string().ok())
            .unwrap_or_else(|| char::REPLACEMENT_CHARACTER.to_string());
        let mut console = self.console.lock().unwrap_or_else(|e| e.into_inner());
        console.bytes = console.bytes.saturating_add(line.len() + 1);
        if console.bytes > self.max_output {
            drop(console);
            self.reach(Limit::Output(self.max_output));
            return;
        }
        console.lines.push(line);
    }

    /// One `tools.NAME(args)`: the tool's value, or its error's text.
    async fn answer(&self, name: &str, arguments: Value) -> Result<Value, String> {
        if self.reached().is_some() {
            return Err(STOPPED.to_owned());
        }
        if [CODE_TOOL_NAME, DISCOVERY_TOOL_NAME, CALL_THROUGH_TOOL_NAME].contains(&name) {
            return Err(format!(
                "Error: {name} cannot be called from a script: call the tools themselves, as tools.NAME(args)."
            ));
        }
        let number = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        if number > self.max_calls {
            self.reach(Limit::ToolCalls(self.max_calls));
            return Err(too_many_calls(self.max_calls));
        }
        let Ok(_permit) = self.permits.acquire().await else {
            return Err(STOPPED.to_owned());
        };
        // The call's own token is made a child of the script's when the call first needs it.
        let context = ToolContext::new()
            .with_call_id(call_id(self.context.call_id(), number))
            .with_cancellation(self.context.cancellation().clone())
            .with_extensions_of(&self.context);
        answer_of((self.call)(name, arguments, context).await)
    }
}

/// The id of a script's `number`th tool call: the code tool's call id (`parent`), then `/N`.
pub(super) fn call_id(parent: Option<&str>, number: usize) -> String {
    match parent {
        Some(parent) => format!("{parent}/{number}"),
        None => format!("script/{number}"),
    }
}

/// What a call past a script's limit of `max_calls` tool calls throws.
pub(super) fn too_many_calls(max_calls: usize) -> String {
    format!("Error: the script reached its limit of {max_calls} tool calls.")
}

/// A tool's result as a script reads it: its value, or its error's text (thrown).
pub(super) fn answer_of(result: ToolResult) -> Result<Value, String> {
    if result.is_error() {
        Err(result.text())
    } else {
        Ok(result.into_content())
    }
}

/// A call's answer for the script: its value, or its error thrown.
/// Throws an error of `message` whose stack is `stack`.
fn throw_at<'js>(ctx: &Ctx<'js>, message: &str, stack: rquickjs::Value<'js>) -> rquickjs::Error {
    match Exception::from_message(ctx.clone(), message) {
        Ok(exception) => {
            let _ = exception.set("stack", stack);
            ctx.throw(exception.into_value())
        }
        Err(error) => error,
    }
}

fn settle<'js>(
    ctx: &Ctx<'js>,
    answer: Result<Value, String>,
) -> rquickjs::Result<rquickjs::Value<'js>> {
    match answer {
        Ok(value) => rquickjs_serde::to_value(ctx.clone(), &value).map_err(|error| {
            tracing::debug!(target: "lazytool::code", %error, "a tool's result could not be made a script value");
            Exception::throw_message(ctx, "Error: the tool's result could not be given to the script.")
        }),
        Err(error) => Err(Exception::throw_message(ctx, &error)),
    }
}
