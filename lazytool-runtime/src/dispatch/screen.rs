//! The limits every path applies to a call, whatever answers it — a tool, the discovery tool,
//! a refusal of an unknown or undiscovered tool, the call-through tool: [`screen`] before
//! anything walks the arguments, [`refuse`] for arguments nothing will read, [`bound`] for
//! every answer.

use serde_json::Value;

use super::arguments::{invalid, normalize};
use crate::call::{CallLimits, Checked, Excess, ToolResult, check, cut_output, dispose};

/// Arguments that passed [`screen`]: a JSON object within the limits.
pub(crate) struct Screened {
    pub(crate) arguments: Value,
    /// Whether a float is among the values (found by the size check, which visits them all).
    pub(crate) has_float: bool,
}

/// Checks `arguments` against `limits` before any recursive work — their size and depth, or,
/// for arguments sent as JSON text, the text's length and then the parsed value's size and
/// depth — and returns them as a JSON object (see `normalize`). Rejected arguments are dropped
/// without recursion; the error result names `tool`.
#[inline]
pub(crate) fn screen(
    tool: &str,
    arguments: Value,
    limits: &CallLimits,
) -> Result<Screened, ToolResult> {
    let checked = match &arguments {
        Value::String(text) if text.len() > limits.max_argument_bytes => Err(Excess::TooLarge),
        _ => check(
            &arguments,
            limits.max_argument_bytes,
            limits.max_argument_depth,
        ),
    };
    let has_float = match checked {
        Ok(Checked { has_float }) => has_float,
        Err(excess) => {
            dispose(arguments);
            return Err(over_limits(tool, &excess, limits));
        }
    };
    if arguments.is_object() {
        Ok(Screened {
            arguments,
            has_float,
        })
    } else {
        screen_other(tool, arguments, limits)
    }
}

/// [`screen`] for anything but an object: JSON text is parsed (serde_json stops at 128
/// levels) and the value it holds checked like any other.
#[inline(never)]
fn screen_other(tool: &str, arguments: Value, limits: &CallLimits) -> Result<Screened, ToolResult> {
    let from_text = arguments.is_string();
    let object = normalize(tool, arguments)?;
    let has_float = if from_text {
        match recheck(tool, &object, limits) {
            Ok(Checked { has_float }) => has_float,
            Err(rejected) => {
                dispose(object);
                return Err(rejected);
            }
        }
    } else {
        // `null` or an empty text: no arguments.
        false
    };
    Ok(Screened {
        arguments: object,
        has_float,
    })
}

/// Checks arguments again after JSON text in them was parsed (arguments sent as text, or
/// members repaired from text): what the text held obeys the same limits. The caller
/// disposes of rejected arguments.
#[cold]
pub(crate) fn recheck(
    tool: &str,
    arguments: &Value,
    limits: &CallLimits,
) -> Result<Checked, ToolResult> {
    check(
        arguments,
        limits.max_argument_bytes,
        limits.max_argument_depth,
    )
    .map_err(|excess| over_limits(tool, &excess, limits))
}

/// The answer to a call refused whatever its arguments (an unknown tool, an undiscovered
/// one): the arguments are dropped without recursion, since nothing checked their depth, and
/// the answer is [bound](bound).
pub(crate) fn refuse(answer: ToolResult, arguments: Value, limits: &CallLimits) -> ToolResult {
    dispose(arguments);
    bound(answer, limits)
}

/// Any answer cut to the output limit (see [`CallLimits::max_output_bytes`]).
#[inline]
pub(crate) fn bound(answer: ToolResult, limits: &CallLimits) -> ToolResult {
    cut_output(answer, limits.max_output_bytes)
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
    invalid(tool, &problem)
}
