//! How many bytes a value takes as compact JSON, measured without recursion and without
//! writing it out: [`check`] against limits, [`escaped_len`] of a string.

use serde_json::Value;

/// What is wrong with a value's size or shape.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Excess {
    TooLarge,
    TooDeep,
}

/// Checks the compact-JSON size of `value` (exact, escapes included, except for floats,
/// counted as 24 bytes: an upper bound) and its nesting depth (arrays and objects inside one
/// another, empty ones not counted) without recursion, stopping as soon as a limit is passed.
/// Scalars are counted where they are found and only nested arrays and objects wait on the
/// heap, so flat arguments (the common case) cost no allocation.
#[inline]
pub(crate) fn check(value: &Value, max_bytes: usize, max_depth: usize) -> Result<(), Excess> {
    match flat_size(value) {
        Some(size) if max_depth > 0 || !is_filled_container(value) => {
            if size > max_bytes {
                Err(Excess::TooLarge)
            } else {
                Ok(())
            }
        }
        _ => check_nested(value, max_bytes, max_depth),
    }
}

/// The compact-JSON size of `value` (see [`check`]), or `None` when it is over `max_bytes`:
/// the walk stops there.
#[cfg(test)]
fn json_size(value: &Value, max_bytes: usize) -> Option<usize> {
    let mut size = 0;
    walk(value, usize::MAX, |bytes| {
        size += bytes;
        size <= max_bytes
    })
    .ok()
    .map(|()| size)
}

fn is_filled_container(value: &Value) -> bool {
    match value {
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        _ => false,
    }
}

/// [`check`] for values with nested arrays or objects.
#[inline(never)]
fn check_nested(value: &Value, max_bytes: usize, max_depth: usize) -> Result<(), Excess> {
    let mut size = 0usize;
    walk(value, max_depth, |bytes| {
        size += bytes;
        size <= max_bytes
    })
}

/// Visits `value` depth first without recursion, reporting the bytes of each container's own
/// punctuation and scalars to `count`, which says whether to go on.
fn walk(
    value: &Value,
    max_depth: usize,
    mut count: impl FnMut(usize) -> bool,
) -> Result<(), Excess> {
    let mut pending: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 0));
    while let Some((value, depth)) = next.take().or_else(|| pending.pop()) {
        let own = match value {
            Value::Array(items) => {
                if depth >= max_depth && !items.is_empty() {
                    return Err(Excess::TooDeep);
                }
                // Brackets and commas.
                let mut own = items.len().max(1) + 1;
                for item in items {
                    match scalar_size(item) {
                        Some(bytes) => own += bytes,
                        None => pending.push((item, depth + 1)),
                    }
                }
                own
            }
            Value::Object(members) => {
                if depth >= max_depth && !members.is_empty() {
                    return Err(Excess::TooDeep);
                }
                let mut own = if members.is_empty() { 2 } else { 1 };
                for (key, member) in members {
                    // Quotes, colon, and the comma or closing brace.
                    own += escaped_len(key) + 4;
                    match scalar_size(member) {
                        Some(bytes) => own += bytes,
                        None => pending.push((member, depth + 1)),
                    }
                }
                own
            }
            scalar => scalar_size(scalar).unwrap_or_default(),
        };
        if !count(own) {
            return Err(Excess::TooLarge);
        }
    }
    Ok(())
}

/// The size of a scalar, or of an object of scalars (most tool arguments, checked at the cost
/// of one pass over its members); `None` for anything nested.
#[inline]
fn flat_size(value: &Value) -> Option<usize> {
    let Value::Object(members) = value else {
        return scalar_size(value);
    };
    if members.is_empty() {
        return Some(2);
    }
    let mut size = 1;
    for (key, member) in members {
        size += escaped_len(key) + 4 + scalar_size(member)?;
    }
    Some(size)
}

/// The compact-JSON size of a scalar (an upper bound for floats); `None` for arrays and
/// objects.
#[inline]
fn scalar_size(value: &Value) -> Option<usize> {
    match value {
        Value::Null | Value::Bool(true) => Some(4),
        Value::Bool(false) => Some(5),
        Value::Number(number) => Some(number_size(number)),
        Value::String(text) => Some(escaped_len(text) + 2),
        Value::Array(_) | Value::Object(_) => None,
    }
}

fn number_size(number: &serde_json::Number) -> usize {
    if let Some(integer) = number.as_u64() {
        digits(integer)
    } else if let Some(integer) = number.as_i64() {
        1 + digits(integer.unsigned_abs())
    } else {
        24
    }
}

fn digits(integer: u64) -> usize {
    integer.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// The bytes `text` takes inside a JSON string, quotes excluded: serde_json writes `"` and `\`
/// as two bytes, `\b \t \n \f \r` as two, other control characters as six (`\u0000`).
#[inline]
pub(crate) fn escaped_len(text: &str) -> usize {
    text.len()
        + text
            .bytes()
            .map(|byte| usize::from(ESCAPE_EXTRA[usize::from(byte)]))
            .sum::<usize>()
}

/// The bytes `byte` adds when escaped.
pub(crate) const ESCAPE_EXTRA: [u8; 256] = {
    let mut extra = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        extra[byte] = 5;
        byte += 1;
    }
    extra[b'\x08' as usize] = 1;
    extra[b'\t' as usize] = 1;
    extra[b'\n' as usize] = 1;
    extra[b'\x0c' as usize] = 1;
    extra[b'\r' as usize] = 1;
    extra[b'"' as usize] = 1;
    extra[b'\\' as usize] = 1;
    extra
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(depth: usize) -> Value {
        let mut value = json!(1);
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn depth_and_size_are_bounded() {
        assert_eq!(check(&nested(3), 1000, 3), Ok(()));
        assert_eq!(check(&nested(4), 1000, 3), Err(Excess::TooDeep));
        assert_eq!(
            check(&json!({"a": "x".repeat(100)}), 50, 8),
            Err(Excess::TooLarge)
        );
        assert_eq!(check(&json!({"a": "x".repeat(10)}), 50, 8), Ok(()));
    }

    #[test]
    fn sizes_are_those_of_compact_json() {
        let values = [
            json!({}),
            json!([]),
            json!({"a": [], "b": {}, "c": [[], {}]}),
            json!({"quote\"d": "tab\t nul\u{0} é \\ \u{1f}", "n": [-12, 0, 7, u64::MAX, i64::MIN]}),
            json!([null, true, false, "x", {"k": [1, [2, {"deep": "\n"}]]}]),
            json!("\u{0}".repeat(10)),
        ];
        for value in values {
            let compact = serde_json::to_string(&value).unwrap_or_default().len();
            assert_eq!(json_size(&value, usize::MAX), Some(compact), "{value}");
            assert_eq!(check(&value, compact, 64), Ok(()), "{value} at its size");
            assert_eq!(
                check(&value, compact - 1, 64),
                Err(Excess::TooLarge),
                "{value} one byte under its size"
            );
        }
        assert!(json_size(&json!(1.5), usize::MAX) >= Some(3), "floats: a bound");
    }

    #[test]
    fn a_very_deep_value_is_checked_without_overflowing() {
        let deep = nested(200_000);
        assert_eq!(check(&deep, usize::MAX, 64), Err(Excess::TooDeep));
        super::super::limits::dispose(deep);
    }
}
