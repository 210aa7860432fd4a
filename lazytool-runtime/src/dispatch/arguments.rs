//! Turning what a provider sent as arguments into the JSON object a tool is validated against.

use serde_json::{Map, Value};

use crate::call::{ToolErrorKind, ToolResult};

/// Accepts a JSON object, a JSON-encoded object in a string (OpenAI sends arguments that
/// way), and `null` or an empty string for "no arguments".
#[inline]
pub(crate) fn normalize(tool: &str, arguments: Value) -> Result<Value, ToolResult> {
    // An object, by far the most common, passes without a call.
    if arguments.is_object() {
        Ok(arguments)
    } else {
        normalize_other(tool, arguments)
    }
}

#[inline(never)]
fn normalize_other(tool: &str, arguments: Value) -> Result<Value, ToolResult> {
    match arguments {
        Value::Object(_) => Ok(arguments),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::String(text) if text.trim().is_empty() => Ok(Value::Object(Map::new())),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::String(_)) => Err(not_an_object(tool, "a string")),
            Ok(parsed) => normalize(tool, parsed),
            Err(error) => Err(invalid(
                tool,
                &format!("the arguments are not valid JSON ({error})"),
            )),
        },
        other => Err(not_an_object(tool, kind_of(&other))),
    }
}

/// Removes the `null`s given for optional properties, at any depth: providers' strict modes
/// make every property required and send `null` for the ones the model leaves out, which
/// means "not given" (`None`, or the parameter's default).
pub(crate) fn drop_null_optionals(arguments: Value, schema: &Value) -> Value {
    if contains_null(&arguments) {
        crate::schema::strip_strict_nulls(schema, &arguments)
    } else {
        arguments
    }
}

/// Parses properties that a model sent as JSON-encoded strings where the schema expects an
/// object or an array (common when it saw an open schema, as in cache-stable mode). Returns
/// the paths it repaired.
pub(crate) fn repair_stringified(arguments: &mut Value, schema: &Value) -> Vec<String> {
    let mut repaired = Vec::new();
    repair_object(arguments, schema, String::new(), &mut repaired, 0);
    repaired
}

const MAX_REPAIR_DEPTH: usize = 16;

fn repair_object(
    value: &mut Value,
    schema: &Value,
    path: String,
    repaired: &mut Vec<String>,
    depth: usize,
) {
    let (Value::Object(members), Some(Value::Object(properties))) =
        (value, schema.get("properties"))
    else {
        return;
    };
    if depth > MAX_REPAIR_DEPTH {
        return;
    }
    for (name, member) in members.iter_mut() {
        let Some(property) = properties.get(name) else {
            continue;
        };
        let member_path = format!("{path}/{name}");
        if let Value::String(text) = member
            && wants_structure(property)
            && let Ok(parsed @ (Value::Object(_) | Value::Array(_))) =
                serde_json::from_str::<Value>(text)
        {
            *member = parsed;
            repaired.push(member_path.clone());
        }
        repair_object(member, property, member_path, repaired, depth + 1);
    }
}

/// Whether a property schema expects an object or an array and not a string.
fn wants_structure(schema: &Value) -> bool {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"string") {
        return false;
    }
    types
        .iter()
        .any(|kind| *kind == "object" || *kind == "array")
        || (types.is_empty()
            && (schema.get("properties").is_some() || schema.get("items").is_some()))
}

/// Whether `value` holds a `null` within the first levels; deeper values are assumed to,
/// which only costs the stripping walk, itself bounded.
fn contains_null(value: &Value) -> bool {
    fn within(value: &Value, depth: usize) -> bool {
        match value {
            Value::Null => true,
            _ if depth == 0 => true,
            Value::Array(items) => items.iter().any(|item| within(item, depth - 1)),
            Value::Object(members) => members.values().any(|member| within(member, depth - 1)),
            _ => false,
        }
    }
    within(value, 32)
}

fn not_an_object(tool: &str, found: &str) -> ToolResult {
    invalid(
        tool,
        &format!("the arguments must be a JSON object, not {found}"),
    )
}

pub(crate) fn invalid(tool: &str, problem: &str) -> ToolResult {
    ToolResult::error(
        ToolErrorKind::InvalidArguments,
        format!(
            "Error: invalid arguments for tool '{tool}': {problem}. Fix the arguments and call the tool again."
        ),
    )
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
