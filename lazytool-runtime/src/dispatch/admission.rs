//! Admission: everything that happens to a call's arguments before the tool runs.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::arguments;
use super::integers::integralize;
use super::panic::panicked;
use super::screen::{Screened, bound, recheck, screen};
use super::span::{CallSpan, trace_outcome};
use super::validation::validate;
use crate::call::{CallCancellation, ToolContext, ToolErrorKind, ToolResult, dispose};
use crate::tool::{CallFuture, Handler, Invocation, Tool};

/// A call ready to run: the tool (for its name in events and errors), its future, the
/// means to cancel the tool's token when the call is given up, and its execute tool span.
pub(crate) struct Admitted {
    pub(super) tool: Tool,
    pub(super) future: CallFuture,
    /// `None` when nothing can see the tool's token (see `ToolContext::shared_cancellation`).
    pub(super) cancellation: Option<CallCancellation>,
    pub(super) span: CallSpan,
}

/// Prepares a call (arguments normalized, validated, the tool's future built, nothing run
/// yet), or the error result that answers it instead.
pub(crate) fn admit(
    tool: &Tool,
    arguments: Value,
    context: ToolContext,
) -> Result<Admitted, ToolResult> {
    let inner = tool.inner();
    let span = CallSpan::new(&inner.name, context.call_id());
    let entered = span.enter();
    let prepared = (|| {
        let Screened {
            arguments,
            mut has_float,
        } = screen(&inner.name, arguments, &inner.limits)?;
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
        if let Err(invalid) = validate(&inner.name, validator, &inner.schemas.input, &arguments) {
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
            match recheck(&inner.name, &arguments, &inner.limits) {
                Ok(checked) => has_float = checked.has_float,
                Err(rejected) => {
                    dispose(arguments);
                    return Err(rejected);
                }
            }
            validate(&inner.name, validator, &inner.schemas.input, &arguments)?;
        }
        if has_float {
            integralize(&mut arguments, &inner.schemas.input);
        }
        Ok(match &inner.handler {
            Handler::Generated { call, states } => {
                let invocation = Invocation {
                    arguments,
                    states,
                    context: &context,
                };
                // The generated code parses the arguments before it builds the future:
                // a panicking `Deserialize` is caught here as the tool's are in `Run`.
                let future = match catch_unwind(AssertUnwindSafe(|| call(invocation))) {
                    Ok(called) => called?,
                    Err(payload) => return Err(panicked(tool.name(), &*payload)),
                };
                // A tool that takes its `ToolContext` holds a clone, which shares it.
                (future, context.shared_cancellation())
            }
            Handler::Dynamic(handler) => {
                let cancellation = context.call_cancellation();
                (handler(arguments, context), Some(cancellation))
            }
        })
    })();
    match prepared {
        Ok((future, cancellation)) => {
            drop(entered);
            Ok(Admitted {
                tool: tool.clone(),
                future,
                cancellation,
                span,
            })
        }
        Err(rejected) => {
            let rejected = bound(rejected, &inner.limits);
            trace_outcome(tool, &rejected, None);
            drop(entered);
            span.close(&rejected);
            Err(rejected)
        }
    }
}
