//! Reading validated arguments into a tool's argument struct, and a tool's value back into
//! JSON: the two ends of a generated call.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::arguments::invalid;
use super::deserializer::{ArgumentDeserializer, LocatedError};
use super::finite::non_finite_path;
use crate::call::{ToolErrorKind, ToolResult};

/// Deserializes validated arguments into `T`. Validation checked every field with its path,
/// so this rarely fails (a custom `Deserialize` stricter than its schema); the error then
/// says where, with the path of the value serde refused.
///
/// The arguments are read in place (see [`ArgumentDeserializer`]): their strings are moved
/// into `T` rather than copied, and the path of an error is gathered only when there is one.
#[inline]
pub(crate) fn parse_arguments<T: DeserializeOwned>(
    tool: &str,
    mut arguments: Value,
) -> Result<T, ToolResult> {
    match T::deserialize(ArgumentDeserializer(&mut arguments)) {
        Ok(parsed) => Ok(parsed),
        Err(error) => Err(unparsed(tool, &error)),
    }
}

#[cold]
#[inline(never)]
pub(super) fn unparsed(tool: &str, error: &LocatedError) -> ToolResult {
    invalid(tool, &error.to_string())
}

/// A tool's value as its result. A float that JSON cannot hold (NaN, an infinity), which
/// serde_json would silently write as `null`, is an error result naming where it was.
#[inline]
pub(crate) fn output_value<T: Serialize>(value: T) -> ToolResult {
    match serde_json::to_value(&value) {
        Ok(json) if !contains_null(&json) => ToolResult::success(json),
        Ok(json) => match non_finite_path(&value) {
            None => ToolResult::success(json),
            Some(path) => non_finite(&path),
        },
        Err(error) => unserializable(&error),
    }
}

/// Whether `value` holds a `null` anywhere (where a non-finite float would have gone).
#[inline]
fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(_) | Value::Object(_) => nested_null(value),
        _ => false,
    }
}

#[inline(never)]
fn nested_null(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Null => return true,
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.values()),
            _ => {}
        }
    }
    false
}

#[cold]
fn non_finite(path: &str) -> ToolResult {
    let place = if path.is_empty() {
        String::new()
    } else {
        format!(" at {path}")
    };
    ToolResult::error(
        ToolErrorKind::InvalidOutput,
        format!(
            "Error: the tool's result holds a number JSON cannot represent (NaN or infinity){place}. The tool failed to compute it; do not use this result."
        ),
    )
}

#[cold]
fn unserializable(error: &serde_json::Error) -> ToolResult {
    ToolResult::error(
        ToolErrorKind::InvalidOutput,
        format!("Error: the tool's result could not be converted to JSON: {error}"),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Order {
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Item {
        quantity: u8,
    }

    #[test]
    fn errors_name_the_path() {
        let parsed = parse_arguments::<Order>(
            "order",
            json!({"items": [{"quantity": 1}, {"quantity": 300}]}),
        );
        let text = parsed.map(|_| ()).expect_err("300 is no u8").text();
        assert!(
            text.contains("at /items/1/quantity: invalid value: integer `300`"),
            "{text}"
        );
    }

    #[test]
    fn non_finite_floats_are_errors_with_their_path() {
        let mut map = BTreeMap::new();
        map.insert("a/b", vec![1.0, f64::NAN]);
        let result = output_value(&map);
        assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidOutput));
        assert!(
            result.text().contains("(NaN or infinity) at /a~1b/1"),
            "{}",
            result.text()
        );
        assert!(output_value(f64::INFINITY).text().contains("infinity)."));
        assert_eq!(output_value(Some(1.5)).content(), &json!(1.5));
        assert_eq!(output_value(None::<f64>).content(), &json!(null));
        assert_eq!(
            output_value((None::<u8>, 2.0)).content(),
            &json!([null, 2.0])
        );
    }
}
