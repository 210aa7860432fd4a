//! The JSON Schema validator as an [`ArgumentCheck`]: what a dynamic tool, and a `#[tool]`
//! with a parameter of a type beyond the plain ones, is checked with.

use std::sync::Arc;

use jsonschema::error::{ValidationError, ValidationErrorKind};
use serde_json::Value;

use super::argument_check::{ArgumentCheck, Violation};
use super::schema_error::SchemaError;
use crate::call::quote;

/// How much of a value a message quotes.
const MAX_QUOTED_VALUE_BYTES: usize = 200;

/// [`ArgumentValidation::JSON_SCHEMA`](super::argument_validation::ArgumentValidation::JSON_SCHEMA):
/// the validator of a canonical input schema (draft 2020-12, the bounds of Rust integer types
/// in it).
pub(crate) fn json_schema_check(input: &Value) -> Result<Arc<dyn ArgumentCheck>, SchemaError> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(input)
        .map_err(|error| SchemaError::DoesNotCompile(error.to_string()))?;
    Ok(Arc::new(validator))
}

impl ArgumentCheck for jsonschema::Validator {
    #[inline]
    fn is_valid(&self, arguments: &Value) -> bool {
        jsonschema::Validator::is_valid(self, arguments)
    }

    fn violations(&self, arguments: &Value) -> Vec<Violation> {
        self.iter_errors(arguments)
            .map(|error| Violation {
                path: error.instance_path().as_str().to_owned(),
                message: describe(&error),
            })
            .collect()
    }
}

/// One violation's message; for a value matching none of a union's alternatives, which came
/// closest and why it failed.
fn describe(error: &ValidationError<'_>) -> String {
    match error.kind() {
        ValidationErrorKind::AnyOf { context } => closest(error, "anyOf", context),
        ValidationErrorKind::OneOfNotValid { context } => closest(error, "oneOf", context),
        _ => error.to_string(),
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
