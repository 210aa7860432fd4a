//! What one call may send and take: [`CallLimits`], and the bounded walks that enforce them.

use std::time::Duration;

use serde_json::Value;

/// Limits applied to every call of a registry's tools, with safe defaults. Set them with
/// [`RegistryBuilder::limits`](crate::RegistryBuilder::limits).
///
/// | limit | default | when exceeded |
/// |---|---|---|
/// | `max_argument_bytes` | 1 MiB | error result, the tool does not run |
/// | `max_argument_depth` | 64 levels | error result, the tool does not run |
/// | `timeout` | 60 s | error result; the tool's future is dropped (cancelled) |
/// | `max_output_bytes` | 100,000 bytes (about 25,000 tokens) | the result is cut, with a notice saying what was cut |
///
/// Sizes count the arguments' or result's compact JSON. A 20 MB string or a 100,000-level
/// nested array is therefore an error result, never an out-of-memory or a stack overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallLimits {
    /// The largest arguments accepted, in bytes of JSON.
    pub max_argument_bytes: usize,
    /// The deepest nesting of arrays and objects accepted in arguments.
    pub max_argument_depth: usize,
    /// How long a call may run; `None` for no limit. The timer is armed only when the
    /// tool's future is still pending after its first poll.
    pub timeout: Option<Duration>,
    /// The largest result sent back whole, in bytes of JSON; larger ones are cut.
    pub max_output_bytes: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            max_argument_bytes: 1 << 20,
            max_argument_depth: 64,
            timeout: Some(Duration::from_secs(60)),
            max_output_bytes: 100_000,
        }
    }
}

impl CallLimits {
    /// Sets the largest arguments accepted, in bytes of JSON.
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// Sets the deepest nesting accepted in arguments.
    pub fn max_argument_depth(mut self, depth: usize) -> Self {
        self.max_argument_depth = depth;
        self
    }

    /// Sets how long a call may run (`None`: no limit).
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the largest result sent back whole, in bytes of JSON.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
}

/// What is wrong with a value's size or shape.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Excess {
    TooLarge,
    TooDeep,
}

/// Checks the compact-JSON size (approximately: exact for strings and structure, an upper
/// bound for numbers) and the nesting depth of `value` without recursion, stopping as soon as
/// a limit is passed. Scalars are counted where they are found and only nested arrays and
/// objects wait on the heap, so flat arguments (the common case) cost no allocation.
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
    let mut pending: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 0));
    while let Some((value, depth)) = next.take().or_else(|| pending.pop()) {
        size += match value {
            Value::Array(items) => {
                if depth >= max_depth && !items.is_empty() {
                    return Err(Excess::TooDeep);
                }
                let mut own = items.len() + 1;
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
                let mut own = 1;
                for (key, member) in members {
                    own += key.len() + 4;
                    match scalar_size(member) {
                        Some(bytes) => own += bytes,
                        None => pending.push((member, depth + 1)),
                    }
                }
                own
            }
            scalar => scalar_size(scalar).unwrap_or_default(),
        };
        if size > max_bytes {
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
    let mut size = 1;
    for (key, member) in members {
        size += key.len() + 4 + scalar_size(member)?;
    }
    Some(size)
}

/// The compact-JSON size of a scalar (an upper bound for numbers); `None` for arrays and
/// objects.
#[inline]
fn scalar_size(value: &Value) -> Option<usize> {
    match value {
        Value::Null | Value::Bool(_) => Some(5),
        Value::Number(_) => Some(24),
        Value::String(text) => Some(text.len() + 2),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// A result whose JSON is over `max_bytes` becomes its text cut at a character boundary, with
/// a notice telling the model what was cut; smaller results are returned as they are.
#[inline]
pub(crate) fn cut_output(result: super::ToolResult, max_bytes: usize) -> super::ToolResult {
    if check(result.content(), max_bytes, usize::MAX).is_ok() {
        result
    } else {
        cut_text(result, max_bytes)
    }
}

#[inline(never)]
fn cut_text(result: super::ToolResult, max_bytes: usize) -> super::ToolResult {
    let text = result.text();
    if text.len() <= max_bytes {
        return result;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = format!(
        "{}\n[Output truncated: showing the first {end} of {} bytes. Ask for less (filters, pagination) to see the rest.]",
        &text[..end],
        text.len()
    );
    result.with_content(Value::String(cut))
}

/// Drops a value of any depth without recursion (serde_json's own drop recurses, and a deep
/// enough value overflows the stack).
pub(crate) fn dispose(value: Value) {
    let mut pending = vec![value];
    while let Some(mut value) = pending.pop() {
        match &mut value {
            Value::Array(items) => pending.append(items),
            Value::Object(members) => {
                pending.extend(
                    std::mem::take(members)
                        .into_iter()
                        .map(|(_, member)| member),
                );
            }
            _ => {}
        }
    }
}

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
    fn large_outputs_are_cut_with_a_notice() {
        let small = crate::ToolResult::success(json!({"a": 1}));
        assert_eq!(cut_output(small.clone(), 100), small);
        let large = crate::ToolResult::success(json!("é".repeat(100)));
        let cut = cut_output(large, 51);
        let text = cut.content().as_str().unwrap_or_default();
        assert!(text.starts_with(&"é".repeat(25)), "{text}");
        assert!(text.contains("showing the first 50 of 200 bytes"), "{text}");
    }

    #[test]
    fn a_very_deep_value_is_checked_and_dropped_without_overflowing() {
        let deep = nested(200_000);
        assert_eq!(check(&deep, usize::MAX, 64), Err(Excess::TooDeep));
        dispose(deep);
    }
}
