//! Admission: everything that happens to a call's arguments before the tool runs.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::arguments;
use super::panic::panicked;
use super::run::trace_outcome;
use super::validation::validate;
use crate::call::{CallLimits, Excess, ToolContext, ToolErrorKind, ToolResult, check, dispose};
use crate::tool::{CallFuture, Handler, Invocation, Tool};

/// A call ready to run: the tool (for its name in events and errors) and its future.
pub(crate) struct Admitted {
    pub(super) tool: Tool,
    pub(super) future: CallFuture,
}

/// Prepares a call (arguments normalized, validated, the tool's future built, nothing run
/// yet), or the error result that answers it instead.
pub(crate) fn admit(
    tool: &Tool,
    arguments: Value,
    context: ToolContext,
) -> Result<Admitted, ToolResult> {
    let inner = tool.inner();
    let prepared = (|| {
        if let Err(rejected) = check_limits(&inner.name, &arguments, &inner.limits) {
            dispose(arguments);
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
        if let Err(invalid) = validate(&inner.name, validator, &arguments) {
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
            validate(&inner.name, validator, &arguments)?;
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
                    Err(payload) => return Err(panicked(tool.name(), &*payload)),
                }
            }
            Handler::Dynamic(handler) => handler(arguments, context),
        })
    })();
    match prepared {
        Ok(future) => Ok(Admitted {
            tool: tool.clone(),
            future,
        }),
        Err(rejected) => {
            trace_outcome(tool, &rejected, None);
            Err(rejected)
        }
    }
}

/// Rejects arguments over the size or depth limits before anything else looks at them. The
/// caller drops rejected arguments with `dispose` (they may be too deep for serde_json's
/// recursive drop).
#[inline]
pub(crate) fn check_limits(
    tool: &str,
    arguments: &Value,
    limits: &CallLimits,
) -> Result<(), ToolResult> {
    let checked = match arguments {
        Value::String(text) if text.len() > limits.max_argument_bytes => Err(Excess::TooLarge),
        _ => check(
            arguments,
            limits.max_argument_bytes,
            limits.max_argument_depth,
        ),
    };
    checked.map_err(|excess| over_limits(tool, &excess, limits))
}

#[cold]
#[inline(never)]
fn over_limits(tool: &str, excess: &Excess, limits: &CallLimits) -> ToolResult {
    let problem = match excess {
        Excess::TooLarge => format!(
            "the arguments are larger than the limit of {} bytes; send less data",
            limits.max_argument_bytes
        ),
        Excess::TooDeep => format!(
            "the arguments are nested deeper than the limit of {} levels",
            limits.max_argument_depth
        ),
    };
    arguments::invalid(tool, &problem)
}
