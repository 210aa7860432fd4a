//! One tool of a registry: [`Tool`], its metadata and its call pipeline.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::Poll;

use serde_json::Value;

use crate::annotations::ToolAnnotations;
use crate::arguments;
use crate::context::ToolContext;
use crate::deadline;
use crate::limits::CallLimits;
use crate::registry::SourceLocation;
use crate::result::{ToolErrorKind, ToolResult};
use crate::spec::{CallFuture, CompiledSchemas, Invocation};
use crate::state::ResolvedStates;
use crate::unwind::panic_message;

/// A tool of a [`Registry`](crate::Registry): its name, description, schemas, and how to
/// call it. Cheap to clone (an `Arc` inside).
#[derive(Clone)]
pub struct Tool(Arc<ToolInner>);

pub(crate) struct ToolInner {
    pub(crate) name: Arc<str>,
    pub(crate) description: Arc<str>,
    pub(crate) lazy: bool,
    pub(crate) metadata: ToolMetadata,
    pub(crate) schemas: CompiledSchemas,
    pub(crate) handler: Handler,
    pub(crate) location: SourceLocation,
    pub(crate) limits: CallLimits,
    /// The definition requests carry, built the first time one does and shared from then on.
    pub(crate) definition: OnceLock<Arc<crate::ToolDefinition>>,
}

/// What a tool declares besides its name, description and schemas.
#[derive(Clone, Default)]
pub(crate) struct ToolMetadata {
    pub(crate) annotations: ToolAnnotations,
    pub(crate) tags: Vec<Cow<'static, str>>,
    pub(crate) skill: Option<Cow<'static, str>>,
}

pub(crate) type DynamicHandler = Arc<dyn Fn(Value, ToolContext) -> CallFuture + Send + Sync>;

pub(crate) enum Handler {
    Generated {
        call: fn(Invocation<'_>) -> Result<CallFuture, ToolResult>,
        states: ResolvedStates,
    },
    Dynamic(DynamicHandler),
}

impl Tool {
    pub(crate) fn new(inner: ToolInner) -> Self {
        Tool(Arc::new(inner))
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// What the tool does, as the model reads it.
    pub fn description(&self) -> &str {
        &self.0.description
    }

    /// Whether the tool is lazy: listed by the discovery tool rather than sent up front.
    pub fn is_lazy(&self) -> bool {
        self.0.lazy
    }

    /// Hints about the tool's behaviour for MCP clients.
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.0.metadata.annotations
    }

    /// Keywords that help search discovery find the tool (`#[tool(tags = [...])]`).
    pub fn tags(&self) -> impl Iterator<Item = &str> {
        self.0.metadata.tags.iter().map(|tag| &**tag)
    }

    /// Extended instructions sent to the model only when it discovers the tool
    /// (`#[tool(skill = "...")]` or a `# Skill` section of the fn's docs).
    pub fn skill(&self) -> Option<&str> {
        self.0.metadata.skill.as_deref()
    }

    /// The canonical JSON Schema of the tool's arguments (an object schema without
    /// `$schema` or a root `title`, `$ref`s inlined unless recursive, `required` listing
    /// exactly the parameters that are neither `Option` nor defaulted).
    pub fn input_schema(&self) -> &Value {
        &self.0.schemas.input
    }

    /// The JSON Schema of the tool's successful output, for tools declared with
    /// `#[tool(output_schema)]` or dynamic tools given one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.0.schemas.output.as_deref()
    }

    /// The tool as a request carries it: name, description, input schema.
    pub fn definition(&self) -> crate::ToolDefinition {
        crate::ToolDefinition::clone(&self.shared_definition())
    }

    /// [`definition`](Tool::definition), built once and shared: what a request carries of
    /// this tool, without copying its schema on every request.
    pub(crate) fn shared_definition(&self) -> Arc<crate::ToolDefinition> {
        let definition = self.0.definition.get_or_init(|| {
            Arc::new(crate::ToolDefinition {
                name: self.name().to_owned(),
                description: self.description().to_owned(),
                input_schema: self.input_schema().clone(),
            })
        });
        Arc::clone(definition)
    }

    /// Where the tool was declared: the `#[tool]` function, or the call that built a
    /// [`DynamicTool`](crate::DynamicTool).
    pub fn location(&self) -> &SourceLocation {
        &self.0.location
    }

    /// Calls the tool: normalizes the arguments (an object, a JSON-encoded object, or
    /// nothing; `null` for an optional property means it was not given), validates them
    /// against the schema (repairing objects and arrays sent as JSON-encoded strings), runs the tool with panics caught, and
    /// turns every failure into an error result.
    ///
    /// The future owns what it needs, so it can be spawned.
    pub fn call(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        run(self.admit(arguments, context))
    }

    /// Prepares a call (arguments normalized, validated, the tool's future built, nothing run
    /// yet), or the error result that answers it instead.
    pub(crate) fn admit(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> Result<Admitted, ToolResult> {
        let inner = &*self.0;
        let prepared = (|| {
            if let Err(rejected) = arguments::check_limits(&inner.name, &arguments, &inner.limits) {
                crate::limits::dispose(arguments);
                return Err(rejected);
            }
            let arguments = arguments::normalize(&inner.name, arguments)?;
            let mut arguments = if inner.schemas.has_optional {
                arguments::drop_null_optionals(arguments, &inner.schemas.input)
            } else {
                arguments
            };
            let Some(validator) = inner.schemas.validator.get(&inner.schemas.input) else {
                return Err(ToolResult::error(
                    ToolErrorKind::InvalidArguments,
                    format!(
                        "Error: tool '{}' is not configured correctly (its schema does not compile).",
                        inner.name
                    ),
                ));
            };
            if let Err(invalid) = arguments::validate(&inner.name, validator, &arguments) {
                let repaired = arguments::repair_stringified(&mut arguments, &inner.schemas.input);
                if repaired.is_empty() {
                    return Err(invalid);
                }
                tracing::debug!(
                    target: "lazytool::call",
                    tool = %inner.name,
                    ?repaired,
                    "parsed arguments sent as JSON-encoded strings"
                );
                arguments::validate(&inner.name, validator, &arguments)?;
            }
            Ok(match &inner.handler {
                Handler::Generated { call, states } => {
                    let invocation = Invocation {
                        arguments,
                        states,
                        context,
                    };
                    // The generated code parses the arguments before it builds the future:
                    // a panicking `Deserialize` is caught here as the tool's are in `Run`.
                    match catch_unwind(AssertUnwindSafe(|| call(invocation))) {
                        Ok(called) => called?,
                        Err(payload) => return Err(panicked(self.name(), &*payload)),
                    }
                }
                Handler::Dynamic(handler) => handler(arguments, context),
            })
        })();
        match prepared {
            Ok(future) => Ok(Admitted {
                tool: self.clone(),
                future,
            }),
            Err(rejected) => {
                self.trace_outcome(&rejected, None);
                Err(rejected)
            }
        }
    }

    #[inline]
    fn trace_outcome(&self, result: &ToolResult, started: Option<std::time::Instant>) {
        let outcome = result.error_kind().map_or("ok", ToolErrorKind::as_str);
        tracing::debug!(
            target: "lazytool::call",
            tool = %self.name(),
            outcome,
            duration_us = started.map(|start| start.elapsed().as_micros() as u64),
            "tool call finished"
        );
    }
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("lazy", &self.is_lazy())
            .field("location", self.location())
            .finish_non_exhaustive()
    }
}

/// A call ready to run: the tool (for its name in events and errors) and its future.
pub(crate) struct Admitted {
    tool: Tool,
    future: CallFuture,
}

/// Runs an admitted call with panics caught and its timeout, or returns the answer given
/// instead.
#[inline]
pub(crate) fn run(admitted: Result<Admitted, ToolResult>) -> Run {
    Run(match admitted {
        Ok(Admitted { tool, future }) => RunState::Running {
            started: tracing::enabled!(target: "lazytool::call", tracing::Level::DEBUG)
                .then(std::time::Instant::now),
            timer: Timer::Unarmed,
            future,
            tool,
        },
        Err(answer) => RunState::Answered(Box::new(answer)),
    })
}

/// A call in flight, as [`Registry::call`](crate::Registry::call) and
/// [`Session::call`](crate::Session::call) return it: the tool's future polled with panics
/// caught and under its timeout, in one hand-written state machine of a few words (an answer
/// given up front, an error, is boxed), since it is moved at least once on every call.
pub(crate) struct Run(RunState);

enum RunState {
    Answered(Box<ToolResult>),
    Running {
        tool: Tool,
        future: CallFuture,
        timer: Timer,
        started: Option<std::time::Instant>,
    },
    Finished,
}

/// The timeout's timer: armed only when the tool is still pending after its first poll, so
/// that calls that finish at once never touch the timer wheel.
enum Timer {
    Unarmed,
    Armed(Pin<Box<tokio::time::Sleep>>),
    /// No timeout configured, or no tokio timer available (see [`deadline::arm`]).
    Off,
}

impl Future for Run {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<ToolResult> {
        let state = &mut self.get_mut().0;
        let outcome = match state {
            RunState::Running {
                tool,
                future,
                timer,
                ..
            } => match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                Ok(Poll::Ready(result)) => Some(Ok(result)),
                Err(payload) => Some(Err(payload)),
                Ok(Poll::Pending) => {
                    if let Timer::Unarmed = timer {
                        *timer = match tool.0.limits.timeout.and_then(deadline::arm) {
                            Some(sleep) => Timer::Armed(sleep),
                            None => Timer::Off,
                        };
                    }
                    match timer {
                        Timer::Armed(sleep) => match sleep.as_mut().poll(cx) {
                            Poll::Ready(()) => None,
                            Poll::Pending => return Poll::Pending,
                        },
                        _ => return Poll::Pending,
                    }
                }
            },
            RunState::Answered(_) => None,
            // Polled again after it finished: never ready again (the `Future` contract).
            RunState::Finished => return Poll::Pending,
        };
        match std::mem::replace(state, RunState::Finished) {
            RunState::Answered(answer) => Poll::Ready(*answer),
            RunState::Running { tool, started, .. } => Poll::Ready(finish(&tool, outcome, started)),
            RunState::Finished => Poll::Pending,
        }
    }
}

/// The result of a call that ran: its output cut to the limit, or the error for a timeout
/// (`None`) or a panic; the outcome traced.
#[inline]
fn finish(
    tool: &Tool,
    outcome: Option<Result<ToolResult, Box<dyn std::any::Any + Send>>>,
    started: Option<std::time::Instant>,
) -> ToolResult {
    let limits = &tool.0.limits;
    let result = match outcome {
        Some(Ok(result)) => crate::limits::cut_output(result, limits.max_output_bytes),
        None => ToolResult::error(
            ToolErrorKind::TimedOut,
            format!(
                "Error: tool '{}' did not finish within {:?} and was stopped. Try a smaller request.",
                tool.name(),
                limits.timeout.unwrap_or_default()
            ),
        ),
        Some(Err(payload)) => panicked(tool.name(), &*payload),
    };
    tool.trace_outcome(&result, started);
    result
}

/// The answer to a call whose tool panicked: the payload is logged, never shown.
#[cold]
fn panicked(tool: &str, payload: &(dyn std::any::Any + Send)) -> ToolResult {
    tracing::error!(
        target: "lazytool::call",
        tool = %tool,
        panic = panic_message(payload),
        "tool panicked"
    );
    ToolResult::error(
        ToolErrorKind::Panicked,
        format!(
            "Error: tool '{tool}' failed with an internal error. Do not retry with the same arguments."
        ),
    )
}

/// Runs admitted calls concurrently, at most `concurrency` at a time, and returns their
/// results in order.
pub(crate) async fn run_all(
    admitted: Vec<Result<Admitted, ToolResult>>,
    concurrency: usize,
) -> Vec<ToolResult> {
    let mut calls: Vec<Run> = admitted.into_iter().map(run).collect();
    let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
    let mut running: Vec<usize> = Vec::with_capacity(concurrency);
    let mut next = 0;
    std::future::poll_fn(|cx| {
        loop {
            while running.len() < concurrency && next < calls.len() {
                running.push(next);
                next += 1;
            }
            let before = running.len();
            running.retain(|&index| match Pin::new(&mut calls[index]).poll(cx) {
                Poll::Ready(result) => {
                    results[index] = Some(result);
                    false
                }
                Poll::Pending => true,
            });
            if running.is_empty() && next == calls.len() {
                return Poll::Ready(());
            }
            if running.len() == before || next == calls.len() {
                return Poll::Pending;
            }
        }
    })
    .await;
    results.into_iter().flatten().collect()
}
