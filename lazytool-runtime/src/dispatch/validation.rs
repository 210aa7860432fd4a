//! Checking arguments against a tool's compiled JSON Schema, with errors the model can act on.

use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::Value;

use super::arguments::invalid;
use super::navigate::Navigator;
use crate::call::{ToolResult, quote};

/// At most this many schema violations are listed in one error, so that one broken call
/// cannot flood the model's context.
const MAX_REPORTED_VIOLATIONS: usize = 8;

/// The longest one violation is reported (an `additionalProperties` error lists every
/// unexpected key; an instance may be large).
const MAX_VIOLATION_BYTES: usize = 1000;

/// How much of a value a message quotes.
const MAX_QUOTED_VALUE_BYTES: usize = 200;

/// How deep misnamed keys are looked for.
const MAX_MISNAMED_DEPTH: usize = 8;

/// Checks `arguments` against the tool's compiled schema (`schema` is its source); the error
/// lists each violation with the path of the offending value.
#[inline]
pub(crate) fn validate(
    tool: &str,
    validator: &jsonschema::Validator,
    schema: &Value,
    arguments: &Value,
) -> Result<(), ToolResult> {
    if validator.is_valid(arguments) {
        Ok(())
    } else {
        Err(violations(tool, validator, schema, arguments))
    }
}

/// The error listing what is wrong with arguments that failed validation: first the keys
/// that look like a misspelled property (`duration_minutes` for `durationMinutes`), which
/// usually explain the rest, then each violation.
#[cold]
#[inline(never)]
fn violations(
    tool: &str,
    validator: &jsonschema::Validator,
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
    for error in validator.iter_errors(arguments) {
        total += 1;
        if problems.len() < MAX_REPORTED_VIOLATIONS {
            problems.push(describe(&error));
        }
    }
    if total > problems.len() {
        problems.push(format!("and {} more", total - problems.len()));
    }
    invalid(tool, &problems.join("; "))
}

/// One violation, with its path, at most [`MAX_VIOLATION_BYTES`].
fn describe(error: &ValidationError<'_>) -> String {
    let message = match error.kind() {
        ValidationErrorKind::AnyOf { context } => closest(error, "anyOf", context),
        ValidationErrorKind::OneOfNotValid { context } => closest(error, "oneOf", context),
        _ => error.to_string(),
    };
    let message = quote(&message, MAX_VIOLATION_BYTES);
    match error.instance_path().as_str() {
        "" => message.into_owned(),
        path => format!("at {path}: {message}"),
    }
}

/// For a value that matches none of the alternatives of `keyword`: which alternative came
/// closest and what it lacked. The closest is the one with the fewest violations, an
/// alternative of another type counting as farther than any of the right type.
fn closest(
    error: &ValidationError<'_>,
    keyword: &str,
    branches: &[Vec<ValidationError<'_>>],
) -> String {
    let at = error.instance_path().as_str();
    let wrong_type = |errors: &[ValidationError<'_>]| {
        errors.iter().any(|error| {
            matches!(error.kind(), ValidationErrorKind::Type { .. })
                && error.instance_path().as_str() == at
        })
    };
    let instance = quote_value(error.instance());
    let Some((index, lacks)) = branches
        .iter()
        .enumerate()
        .min_by_key(|(_, errors)| (wrong_type(errors), errors.len()))
    else {
        return format!("{instance} matches none of the alternatives of '{keyword}'");
    };
    let lacks: Vec<String> = lacks
        .iter()
        .take(3)
        .map(|lack| {
            let path = lack.instance_path().as_str();
            let inner = path.strip_prefix(at).unwrap_or(path);
            match inner {
                "" => lack.to_string(),
                inner => format!("at {inner}: {lack}"),
            }
        })
        .collect();
    format!(
        "{instance} matches none of the {} alternatives of '{keyword}'; the closest, alternative {} of {}, fails because {}",
        branches.len(),
        index + 1,
        branches.len(),
        lacks.join("; ")
    )
}

fn quote_value(value: &Value) -> String {
    quote(&value.to_string(), MAX_QUOTED_VALUE_BYTES).into_owned()
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

#[cfg(test)]
mod tests;
