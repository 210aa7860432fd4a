//! Checking arguments against a tool's compiled JSON Schema, with errors the model can act on.

use serde_json::Value;

use super::arguments::invalid;
use crate::call::ToolResult;

/// At most this many schema violations are listed in one error, so that one broken call
/// cannot flood the model's context.
const MAX_REPORTED_VIOLATIONS: usize = 8;

/// Checks `arguments` against the tool's compiled schema; the error lists each violation with
/// the path of the offending value.
#[inline]
pub(crate) fn validate(
    tool: &str,
    validator: &jsonschema::Validator,
    arguments: &Value,
) -> Result<(), ToolResult> {
    if validator.is_valid(arguments) {
        Ok(())
    } else {
        Err(violations(tool, validator, arguments))
    }
}

/// The error listing what is wrong with arguments that failed validation.
#[cold]
#[inline(never)]
fn violations(tool: &str, validator: &jsonschema::Validator, arguments: &Value) -> ToolResult {
    let mut problems = Vec::new();
    let mut total = 0;
    for error in validator.iter_errors(arguments) {
        total += 1;
        if problems.len() < MAX_REPORTED_VIOLATIONS {
            let path = error.instance_path().as_str();
            problems.push(if path.is_empty() {
                error.to_string()
            } else {
                format!("at {path}: {error}")
            });
        }
    }
    if total > problems.len() {
        problems.push(format!("and {} more", total - problems.len()));
    }
    invalid(tool, &problems.join("; "))
}
