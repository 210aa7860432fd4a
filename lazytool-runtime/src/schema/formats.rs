//! `format` values as JSON Schema defines them: the Rust integer formats schemars writes
//! (`uint32`, `int64`, ...) turned into the bounds they stand for, and every format JSON
//! Schema does not define dropped.

use serde_json::Value;

use super::subschemas::subschemas_mut;

/// The formats JSON Schema 2020-12 defines (validation, section 7.3).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Makes every `format` of `schema` standard: one naming a Rust integer type (as schemars
/// writes them) gives its subschema that type's bounds as `minimum`/`maximum` where it has
/// none, and any format outside [`STANDARD_FORMATS`] is removed (`uint32`, `int64`,
/// `double`, `float`, ... mean nothing to JSON Schema: clients such as the official MCP
/// Python SDK log every unknown one). Validation is as strict as before: validators ignore
/// unknown formats, and the bounds say what the integer formats meant.
pub(crate) fn standardize_formats(schema: &mut Value) {
    standardize(schema, 0);
}

fn standardize(schema: &mut Value, depth: usize) {
    const MAX_DEPTH: usize = 64;
    if depth > MAX_DEPTH {
        return;
    }
    if let Value::Object(map) = schema
        && let Some(Value::String(format)) = map.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        let bounds = integer_bounds(format);
        // The bounds take the format's place: the order of keywords is what the model reads.
        let at = map
            .keys()
            .position(|key| key == "format")
            .unwrap_or(map.len());
        map.shift_remove("format");
        if let Some([minimum, maximum]) = bounds {
            if !map.contains_key("minimum") {
                map.shift_insert(at.min(map.len()), "minimum".to_owned(), minimum);
            }
            if !map.contains_key("maximum") {
                let after = map
                    .keys()
                    .position(|key| key == "minimum")
                    .map_or(at, |i| i + 1);
                map.shift_insert(after.min(map.len()), "maximum".to_owned(), maximum);
            }
        }
    }
    for child in subschemas_mut(schema) {
        standardize(child, depth + 1);
    }
}

/// The `[minimum, maximum]` of a Rust integer format.
fn integer_bounds(format: &str) -> Option<[Value; 2]> {
    let (minimum, maximum): (Value, Value) = match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    };
    Some([minimum, maximum])
}
