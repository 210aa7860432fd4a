//! The bounds of Rust integer types, added for validation where schemars only names the type
//! in `format`.

use serde_json::Value;

/// A copy of `schema` for validation only: integer subschemas whose `format` names a Rust
/// integer type (as schemars writes them: `uint8`, `int32`, ...) get that type's bounds as
/// `minimum`/`maximum` where they have none, so that validation, with its paths, rejects
/// what deserialization would. Models still see the schema without them.
pub(crate) fn with_integer_bounds(schema: &Value) -> Value {
    let mut schema = schema.clone();
    add_integer_bounds(&mut schema, 0);
    schema
}

fn add_integer_bounds(schema: &mut Value, depth: usize) {
    const MAX_DEPTH: usize = 64;
    let Value::Object(map) = schema else { return };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some((minimum, maximum)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_bounds)
    {
        map.entry("minimum").or_insert(minimum);
        map.entry("maximum").or_insert(maximum);
    }
    for value in map.values_mut() {
        match value {
            Value::Object(_) => add_integer_bounds(value, depth + 1),
            Value::Array(items) => {
                for item in items {
                    add_integer_bounds(item, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}
