//! Whole numbers sent as floats (`42.0`, `1e2`) where the schema asks for an integer: JSON
//! Schema counts them as integers, so the validator accepts them, but serde would refuse to
//! read one into an integer type. They are rewritten as the integers they are. (Whether
//! arguments hold a float at all is learned by the size check, which visits every value.)

use serde_json::{Number, Value};

use super::navigate::Navigator;

/// How deep the arguments are followed; they passed the depth limit already.
const MAX_DEPTH: usize = 128;

/// Rewrites the whole floats of `arguments` found where `root` (the tool's input schema)
/// asks for an integer and not for a number.
pub(super) fn integralize(arguments: &mut Value, root: &Value) {
    let navigator = Navigator::new(root);
    visit(arguments, root, &navigator, 0);
}

fn visit<'s>(value: &mut Value, schema: &'s Value, navigator: &Navigator<'s>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Number(number) => {
            if let Some(whole) = whole(number)
                && wants_integer(schema, navigator)
            {
                *number = whole;
            }
        }
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                if let Some(property) = navigator.property(schema, key) {
                    visit(member, property, navigator, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(item_schema) = navigator.item(schema, index) {
                    visit(item, item_schema, navigator, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Beyond this magnitude a float is not always the number that was written: serde_json reads
/// an integer literal past `i64`/`u64` (`-9223372036854775809`) as the nearest float
/// (`-2^63`), which is `i64::MIN`. Such floats are left as they are, so that reading them
/// into an integer fails with the argument's path instead of running the tool with another
/// value.
const EXACT_FLOAT_INTEGERS: f64 = 9_007_199_254_740_992.0; // 2^53

/// The integer a float stands for, if it is whole and exactly the number written.
fn whole(number: &Number) -> Option<Number> {
    let float = number.as_f64().filter(|_| number.is_f64())?;
    if float.fract() != 0.0 || !float.is_finite() || float.abs() >= EXACT_FLOAT_INTEGERS {
        return None;
    }
    // Within ±2^53, so the conversion is exact.
    Some(Number::from(float as i64))
}

/// Whether `schema` takes integers but no other numbers (in itself or an alternative): a
/// float there can only be meant as an integer.
fn wants_integer<'s>(schema: &'s Value, navigator: &Navigator<'s>) -> bool {
    let allows = |kind: &'static str| {
        move |schema: &Value| match schema.get("type") {
            Some(Value::String(found)) => found == kind,
            Some(Value::Array(found)) => found.iter().any(|found| found == kind),
            _ => false,
        }
    };
    navigator.any(schema, &allows("integer")) && !navigator.any(schema, &allows("number"))
}

#[cfg(test)]
mod tests;
