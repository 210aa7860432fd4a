//! Checking arguments against a tool's compiled JSON Schema, with errors the model can act on.

use serde_json::Value;

use super::arguments::invalid;
use super::navigate::Navigator;
use crate::call::{ToolResult, quote};
use crate::tool::ArgumentCheck;

/// At most this many schema violations are listed in one error, so that one broken call
/// cannot flood the model's context.
const MAX_REPORTED_VIOLATIONS: usize = 8;

/// How deep misnamed keys are looked for.
const MAX_MISNAMED_DEPTH: usize = 8;

/// Checks `arguments` with the tool's argument check (`schema` is the canonical schema it was
/// built from); the error lists each violation with the path of the offending value.
#[inline]
pub(crate) fn validate(
    tool: &str,
    check: &dyn ArgumentCheck,
    schema: &Value,
    arguments: &Value,
) -> Result<(), ToolResult> {
    if check.is_valid(arguments) {
        Ok(())
    } else {
        Err(violations(tool, check, schema, arguments))
    }
}

/// The error listing what is wrong with arguments that failed validation: first the keys
/// that look like a misspelled property (`duration_minutes` for `durationMinutes`), which
/// usually explain the rest, then each violation.
#[cold]
#[inline(never)]
fn violations(
    tool: &str,
    check: &dyn ArgumentCheck,
    schema: &Value,
    arguments: &Value,
) -> ToolResult {
    let mut problems = Vec::new();
    misnamed_keys(
        arguments,
        schema,
        &Navigator::new(schema),
        String::new(),
        &mut problems,
    );
    problems.truncate(MAX_REPORTED_VIOLATIONS);
    let mut total = problems.len();
    for violation in check.violations(arguments) {
        total += 1;
        if problems.len() < MAX_REPORTED_VIOLATIONS {
            problems.push(violation.located());
        }
    }
    if total > problems.len() {
        problems.push(format!("and {} more", total - problems.len()));
    }
    invalid(tool, &problems.join("; "))
}

/// Keys of `value` that the schema does not declare but that name a declared property
/// written in another case or with other separators (`duration_minutes`, `DurationMinutes`
/// for `durationMinutes`), nested objects included.
fn misnamed_keys<'s>(
    value: &Value,
    schema: &'s Value,
    navigator: &Navigator<'s>,
    path: String,
    problems: &mut Vec<String>,
) {
    let Value::Object(members) = value else {
        return;
    };
    if path.matches('/').count() > MAX_MISNAMED_DEPTH || problems.len() >= MAX_REPORTED_VIOLATIONS {
        return;
    }
    let declared = navigator.property_names(schema);
    for key in members.keys() {
        if problems.len() >= MAX_REPORTED_VIOLATIONS {
            break;
        }
        if declared.contains(&key.as_str()) {
            continue;
        }
        let wanted = loose(key);
        if let Some(right) = declared
            .iter()
            .find(|name| !members.contains_key(**name) && loose(name) == wanted)
        {
            problems.push(format!(
                "at {path}/{}: unexpected property \"{}\": did you mean \"{right}\"?",
                quote(key, 64),
                quote(key, 64)
            ));
        }
    }
    for (key, member) in members {
        if let Some(property) = navigator.property(schema, key) {
            misnamed_keys(
                member,
                property,
                navigator,
                format!("{path}/{key}"),
                problems,
            );
        }
    }
}

/// A name with case and separators folded away: `duration_minutes`, `durationMinutes` and
/// `Duration-Minutes` all become `durationminutes`.
fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(all(test, feature = "json-schema"))]
mod tests;
