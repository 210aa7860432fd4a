//! A tool's examples, checked against its input schema when the registry is built.

use serde_json::Value;

use super::error::RegistryProblem;
use crate::tool::{CompiledSchemas, SourceLocation};

/// How many of one example's violations a problem lists.
const MAX_LISTED_VIOLATIONS: usize = 3;

/// The examples that are valid arguments of the tool; each one that is not (or that could
/// not be serialized) is a problem naming the tool and the example's index.
pub(super) fn checked(
    tool: &str,
    location: &SourceLocation,
    schemas: &CompiledSchemas,
    examples: impl IntoIterator<Item = Result<Value, String>>,
    problems: &mut Vec<RegistryProblem>,
) -> Vec<Value> {
    let mut valid = Vec::new();
    for (index, example) in examples.into_iter().enumerate() {
        let reason = match example {
            Ok(example) => match violations(schemas, &example) {
                None => {
                    valid.push(example);
                    continue;
                }
                Some(reason) => reason,
            },
            Err(error) => format!("it cannot be serialized: {error}"),
        };
        problems.push(RegistryProblem::InvalidExample {
            tool: tool.to_owned(),
            location: location.clone(),
            index,
            reason,
        });
    }
    valid
}

/// What is wrong with `example` as the tool's arguments, if anything: its first few
/// violations, each with its path.
fn violations(schemas: &CompiledSchemas, example: &Value) -> Option<String> {
    let Some(check) = schemas.validator.get(&schemas.input) else {
        return Some("the input schema does not compile".to_owned());
    };
    if check.is_valid(example) {
        return None;
    }
    let listed: Vec<String> = check
        .violations(example)
        .into_iter()
        .take(MAX_LISTED_VIOLATIONS)
        .map(|violation| violation.located())
        .collect();
    Some(listed.join("; "))
}
