//! How many bytes a value takes as compact JSON, measured without recursion and without
//! writing it out: [`check`] for arguments against their limits, [`fits`] for results,
//! [`escaped_len`] of a string.
//!
//! Arguments count their strings by length: what the size limit bounds is the memory and
//! work they cost, and the hot path stays free of a pass over every byte. Results count
//! escapes too (a NUL takes six bytes), since the limit bounds what is sent.

use serde_json::Value;

/// What [`check`] learned of a value within the limits, on the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Whether a float (a number written with a fraction or an exponent) is among the
    /// values: arguments without one need no search for whole floats to read as integers.
    pub(crate) has_float: bool,
}

/// What is wrong with a value's size or shape.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Excess {
    TooLarge,
    TooDeep,
}

/// Checks the compact-JSON size of `value` (exact, strings counted by their length, floats
/// counted as 24 bytes: an upper bound) and its nesting depth (arrays and objects inside one
/// another, empty ones not counted) without recursion, stopping as soon as a limit is passed.
/// Scalars are counted where they are found and only nested arrays and objects wait on the
/// heap, so flat arguments (the common case) cost no allocation. The same pass notes whether
/// a float is among the values.
#[inline]
pub(crate) fn check(value: &Value, max_bytes: usize, max_depth: usize) -> Result<Checked, Excess> {
    sized::<false>(value, max_bytes, max_depth).map(|has_float| Checked { has_float })
}

/// Whether `value`'s compact JSON, escapes included (floats counted as 24 bytes), takes at
/// most `max_bytes`. (Inlined into the output limit's check, which every call makes.)
#[inline(always)]
pub(crate) fn fits(value: &Value, max_bytes: usize) -> bool {
    // Escaping at most sextuples a string: a value whose strings, by length, would fit six
    // times over fits, and most results are told apart without a pass over their bytes (a
    // text, the most common result, without a call).
    if let Value::String(text) = value
        && text.len() + 2 <= max_bytes / 6
    {
        return true;
    }
    sized::<false>(value, max_bytes / 6, usize::MAX).is_ok()
        || sized::<true>(value, max_bytes, usize::MAX).is_ok()
}

/// Checks the size and depth of `value`; `Ok` says whether it holds a float. A flat value
/// within the limit by [`flat_bound`] passes at once; every other is measured exactly.
#[inline]
fn sized<const ESCAPES: bool>(
    value: &Value,
    max_bytes: usize,
    max_depth: usize,
) -> Result<bool, Excess> {
    match flat_bound::<ESCAPES>(value) {
        Some((bound, has_float))
            if bound <= max_bytes && (max_depth > 0 || !is_filled_container(value)) =>
        {
            Ok(has_float)
        }
        _ => check_nested::<ESCAPES>(value, max_bytes, max_depth),
    }
}

/// The compact-JSON size of `value`, escapes included (see [`fits`]), or `None` when it is
/// over `max_bytes`: the walk stops there.
#[cfg(test)]
fn json_size(value: &Value, max_bytes: usize) -> Option<usize> {
    let mut size = 0;
    walk::<true>(value, usize::MAX, |bytes| {
        size += bytes;
        size <= max_bytes
    })
    .ok()
    .map(|_| size)
}

fn is_filled_container(value: &Value) -> bool {
    match value {
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        _ => false,
    }
}

/// [`check`] for values with nested arrays or objects, and for flat values near the limit.
#[inline(never)]
fn check_nested<const ESCAPES: bool>(
    value: &Value,
    max_bytes: usize,
    max_depth: usize,
) -> Result<bool, Excess> {
    let mut size = 0usize;
    walk::<ESCAPES>(value, max_depth, |bytes| {
        size += bytes;
        size <= max_bytes
    })
}

/// Visits `value` depth first without recursion, reporting the bytes of each container's own
/// punctuation and scalars to `count`, which says whether to go on; `Ok` says whether a float
/// was among the values.
fn walk<const ESCAPES: bool>(
    value: &Value,
    max_depth: usize,
    mut count: impl FnMut(usize) -> bool,
) -> Result<bool, Excess> {
    let mut has_float = false;
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
                    has_float |= is_float(item);
                    match scalar_size::<ESCAPES>(item) {
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
                    own += string_len::<ESCAPES>(key) + 4;
                    has_float |= is_float(member);
                    match scalar_size::<ESCAPES>(member) {
                        Some(bytes) => own += bytes,
                        None => pending.push((member, depth + 1)),
                    }
                }
                own
            }
            scalar => {
                has_float |= is_float(scalar);
                scalar_size::<ESCAPES>(scalar).unwrap_or_default()
            }
        };
        if !count(own) {
            return Err(Excess::TooLarge);
        }
    }
    Ok(has_float)
}

/// An upper bound of the size of a scalar, or of an object of scalars (most tool arguments,
/// checked at the cost of one pass over its members), exact but for numbers, which count as
/// [`MAX_NUMBER_LEN`]; and whether a float is among them. `None` for anything nested.
#[inline]
fn flat_bound<const ESCAPES: bool>(value: &Value) -> Option<(usize, bool)> {
    let Value::Object(members) = value else {
        return scalar_size::<ESCAPES>(value).map(|size| (size, is_float(value)));
    };
    let mut size = if members.is_empty() { 2 } else { 1 };
    let mut has_float = false;
    for (key, member) in members {
        size += string_len::<ESCAPES>(key)
            + 4
            + match member {
                Value::Null | Value::Bool(true) => 4,
                Value::Bool(false) => 5,
                Value::Number(number) => {
                    has_float |= number.is_f64();
                    MAX_NUMBER_LEN
                }
                Value::String(text) => string_len::<ESCAPES>(text) + 2,
                Value::Array(_) | Value::Object(_) => return None,
            };
    }
    Some((size, has_float))
}

/// The most bytes a number takes as the limits count it: 20 for an integer (`u64::MAX`,
/// `i64::MIN`), 24 for a float (an upper bound).
const MAX_NUMBER_LEN: usize = 24;

#[inline]
fn is_float(value: &Value) -> bool {
    matches!(value, Value::Number(number) if number.is_f64())
}

#[inline]
fn string_len<const ESCAPES: bool>(text: &str) -> usize {
    if ESCAPES {
        escaped_len(text)
    } else {
        text.len()
    }
}

/// The compact-JSON size of a scalar (an upper bound for floats); `None` for arrays and
/// objects.
#[inline]
fn scalar_size<const ESCAPES: bool>(value: &Value) -> Option<usize> {
    match value {
        Value::Null | Value::Bool(true) => Some(4),
        Value::Bool(false) => Some(5),
        Value::Number(number) => Some(number_size(number)),
        Value::String(text) => Some(string_len::<ESCAPES>(text) + 2),
        Value::Array(_) | Value::Object(_) => None,
    }
}

fn number_size(number: &serde_json::Number) -> usize {
    if let Some(integer) = number.as_u64() {
        digits(integer)
    } else if let Some(integer) = number.as_i64() {
        1 + digits(integer.unsigned_abs())
    } else {
        MAX_NUMBER_LEN
    }
}

fn digits(integer: u64) -> usize {
    integer.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// The bytes `text` takes inside a JSON string, quotes excluded: serde_json writes `"` and `\`
/// as two bytes, `\b \t \n \f \r` as two, other control characters as six (`\u0000`).
#[inline]
pub(crate) fn escaped_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    if bytes
        .iter()
        .all(|&byte| ESCAPE_EXTRA[usize::from(byte)] == 0)
    {
        bytes.len()
    } else {
        escaped_len_slow(bytes)
    }
}

#[cold]
fn escaped_len_slow(bytes: &[u8]) -> usize {
    bytes.len()
        + bytes
            .iter()
            .map(|&byte| usize::from(ESCAPE_EXTRA[usize::from(byte)]))
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
mod tests;
