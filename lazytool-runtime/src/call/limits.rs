//! What one call may send and take: [`CallLimits`], and the bounded walks that enforce them.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;

use super::ToolResult;
use super::content::{Content, ContentPart};
use super::size::{ESCAPE_EXTRA, escaped_len, fits};

/// Limits applied to every call of a registry's tools, with safe defaults. Set them with
/// [`RegistryBuilder::limits`](crate::RegistryBuilder::limits).
///
/// | limit | default | when exceeded |
/// |---|---|---|
/// | `max_argument_bytes` | 1 MiB | error result, the tool does not run |
/// | `max_argument_depth` | 64 levels | error result, the tool does not run |
/// | `timeout` | 60 s | error result; the tool's future is dropped (cancelled) |
/// | `max_output_bytes` | 100,000 bytes (about 25,000 tokens) | the result (an error's too) is cut to fit, with a notice saying what was cut |
///
/// Sizes count compact JSON: for arguments, strings by their length (the memory they take);
/// for results, escapes included (a NUL character takes six bytes once sent); images, audio
/// and binary resources of a [`Content`](crate::Content) result by their base64 length (parts
/// that do not fit are left out, and a last text part says how many). A 20 MB string or a 100,000-level nested array is therefore an error
/// result, never an out-of-memory or a stack overflow. The same limits bound the discovery
/// tool, calls of unknown or undiscovered tools, and their answers.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::time::Duration;
/// use lazytool_runtime::{CallLimits, DynamicTool, Registry, ToolErrorKind};
/// use serde_json::json;
///
/// let slow = DynamicTool::new("slow", "Takes its time.", json!({"type": "object"}), |_, _| async {
///     tokio::time::sleep(Duration::from_secs(60)).await;
///     Ok::<_, String>(json!("done"))
/// });
/// let limits = CallLimits::default().timeout(Some(Duration::from_millis(10)));
/// let registry = Registry::builder().without_inventory().tool(slow).limits(limits).build().unwrap();
/// let result = registry.call("slow", json!({})).await;
/// assert_eq!(result.error_kind(), Some(ToolErrorKind::TimedOut));
/// # }
/// ```
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
    /// The largest result sent back, in bytes of JSON; larger ones are cut to fit, notice
    /// included (a limit under the notice's own size, about 130 bytes, keeps the notice).
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
    ///
    /// ```
    /// use lazytool_runtime::CallLimits;
    ///
    /// let limits = CallLimits::default().max_argument_bytes(64 * 1024);
    /// assert_eq!(limits.max_argument_bytes, 65_536);
    /// ```
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// Sets the deepest nesting accepted in arguments.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{CallLimits, DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let echo = DynamicTool::new("echo", "Echoes its arguments.", json!({"type": "object"}),
    ///     |arguments, _| async move { Ok::<_, String>(arguments) });
    /// let limits = CallLimits::default().max_argument_depth(3);
    /// let registry = Registry::builder().without_inventory().tool(echo).limits(limits).build().unwrap();
    /// assert!(!registry.call("echo", json!({"a": {"b": 1}})).await.is_error());
    /// assert!(registry.call("echo", json!({"a": {"b": {"c": [1]}}})).await.is_error());
    /// # }
    /// ```
    pub fn max_argument_depth(mut self, depth: usize) -> Self {
        self.max_argument_depth = depth;
        self
    }

    /// Sets how long a call may run (`None`: no limit).
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_runtime::CallLimits;
    ///
    /// let limits = CallLimits::default().timeout(Some(Duration::from_secs(5)));
    /// assert_eq!(limits.timeout, Some(Duration::from_secs(5)));
    /// assert_eq!(CallLimits::default().timeout(None).timeout, None); // no limit
    /// ```
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the largest result sent back whole, in bytes of JSON.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{CallLimits, DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let big = DynamicTool::new("big", "A long text.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("x".repeat(10_000))) });
    /// let limits = CallLimits::default().max_output_bytes(1_000);
    /// let registry = Registry::builder().without_inventory().tool(big).limits(limits).build().unwrap();
    /// let result = registry.call("big", json!({})).await;
    /// assert!(result.text().len() <= 1_000); // cut, with a notice saying so
    /// # }
    /// ```
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
}

/// A result whose compact JSON is over `max_bytes` becomes its text cut at a character
/// boundary, with a notice telling the model what was cut, the whole within `max_bytes`
/// (escapes counted); smaller results are returned as they are. Errors are cut too.
// Inlined everywhere: a result that fits is then returned without being moved.
#[inline(always)]
pub(crate) fn cut_output(result: ToolResult, max_bytes: usize) -> ToolResult {
    if !result.is_rich() && fits(result.content(), max_bytes) {
        result
    } else {
        cut_slow(result, max_bytes)
    }
}

#[cold]
#[inline(never)]
fn cut_slow(result: ToolResult, max_bytes: usize) -> ToolResult {
    match result.into_rich() {
        Ok(content) => ToolResult::from(cut_content(content, max_bytes)),
        Err(result) => cut_text(result, max_bytes),
    }
}

/// The bytes `content` takes as the limit counts them: its structured value's compact JSON
/// and each part's [`sent_len`](ContentPart::sent_len).
fn content_len(content: &Content) -> usize {
    let structured = content.structured.as_ref().map_or(0, json_len);
    structured
        + content
            .parts
            .iter()
            .map(ContentPart::sent_len)
            .sum::<usize>()
}

fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |json| json.len())
}

/// `content` within `max_bytes`: the structured value and the parts kept in order while
/// they fit, a text part that does not fit cut, every other part that does not fit left out,
/// and a last text part saying how many were left out or cut.
fn cut_content(content: Content, max_bytes: usize) -> Content {
    if content_len(&content) <= max_bytes {
        return content;
    }
    let total = content.parts.len() + usize::from(content.structured.is_some());
    let notice = |changed: usize| {
        format!(
            "[Output truncated: {changed} of {total} parts left out or cut, the result being over the limit of {max_bytes} bytes (images and audio count by their base64 size). Ask for less to see the rest.]"
        )
    };
    let reserved = escaped_len(&notice(total));
    let mut budget = max_bytes.saturating_sub(reserved);
    let mut changed = 0;
    let structured = content.structured.filter(|value| {
        let size = json_len(value);
        let kept = size <= budget;
        if kept {
            budget -= size;
        } else {
            changed += 1;
        }
        kept
    });
    let mut parts = Vec::with_capacity(content.parts.len() + 1);
    for part in content.parts {
        let size = part.sent_len();
        if size <= budget {
            budget -= size;
            parts.push(part);
            continue;
        }
        changed += 1;
        if let ContentPart::Text { text } = &part
            && budget > 0
        {
            let cut = fit(text, budget).into_owned();
            budget -= escaped_len(&cut);
            parts.push(ContentPart::text(cut));
        }
    }
    let notice = notice(changed);
    parts.push(ContentPart::text(fit(&notice, max_bytes).into_owned()));
    Content { parts, structured }
}

#[cold]
#[inline(never)]
fn cut_text(result: ToolResult, max_bytes: usize) -> ToolResult {
    let text = result.text();
    // `check` counts floats by an upper bound: the written JSON may fit after all.
    if !result.content().is_string() && text.len() <= max_bytes {
        return result;
    }
    let notice = |end: usize| {
        format!(
            "\n[Output truncated: showing the first {end} of {} bytes. Ask for less (filters, pagination) to see the rest.]",
            text.len()
        )
    };
    let end = longest_cut(&text, max_bytes, |end| 2 + escaped_len(&notice(end)));
    let cut = format!("{}{}", &text[..end], notice(end));
    result.with_content(Value::String(cut))
}

/// The longest prefix of `text` (its length, at a character boundary) that fits in `max_bytes`
/// escaped, together with what is added to it, `added(end)` bytes: a notice quoting `end`,
/// whose length depends on the number of digits of `end`. Each digit count is tried, from
/// that of the whole text down, keeping the longest cut whose own notice fits.
fn longest_cut(text: &str, max_bytes: usize, added: impl Fn(usize) -> usize) -> usize {
    let digits = |number: usize| number.checked_ilog10().map_or(1, |log| log + 1);
    let mut best = 0;
    let mut widest = text.len();
    loop {
        let end = escaped_prefix(text, max_bytes.saturating_sub(added(widest)));
        if digits(end) <= digits(widest) {
            best = best.max(end);
        }
        if widest < 10 {
            return best;
        }
        // The largest number of one digit fewer: its notice is as long as any such number's.
        widest = 10usize.pow(digits(widest) - 1) - 1;
    }
}

/// The length of the longest prefix of `text` ending at a character boundary whose escaped
/// form takes at most `budget` bytes.
fn escaped_prefix(text: &str, budget: usize) -> usize {
    let mut used = 0;
    for (at, byte) in text.bytes().enumerate() {
        used += 1 + usize::from(ESCAPE_EXTRA[usize::from(byte)]);
        if used > budget {
            return (0..=at)
                .rev()
                .find(|&end| text.is_char_boundary(end))
                .unwrap_or_default();
        }
    }
    text.len()
}

/// `text` cut so that its escaped form takes at most `max_bytes` (a cut ends with `…`).
pub(crate) fn fit(text: &str, max_bytes: usize) -> Cow<'_, str> {
    if escaped_len(text) <= max_bytes {
        return Cow::Borrowed(text);
    }
    let end = escaped_prefix(text, max_bytes.saturating_sub('…'.len_utf8()));
    Cow::Owned(format!("{}…", &text[..end]))
}

/// `text` as an error message may quote it: whole when it is at most `max_bytes`, else cut
/// at a character boundary and marked with `…`. A name longer than any tool's name, say,
/// need not be echoed whole.
pub(crate) fn quote(text: &str, max_bytes: usize) -> Cow<'_, str> {
    if text.len() <= max_bytes {
        return Cow::Borrowed(text);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}…", &text[..end]))
}

/// Drops a value of any depth without recursion (serde_json's own drop recurses, and a deep
/// enough value overflows the stack). Every path that refuses a call drops its arguments
/// here.
pub(crate) fn dispose(value: Value) {
    if is_shallow(&value) {
        return;
    }
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

/// Whether `value` is a scalar or a container of scalars, which drops without deep recursion.
fn is_shallow(value: &Value) -> bool {
    let scalar = |value: &Value| !matches!(value, Value::Array(_) | Value::Object(_));
    match value {
        Value::Array(items) => items.iter().all(scalar),
        Value::Object(members) => members.values().all(scalar),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
