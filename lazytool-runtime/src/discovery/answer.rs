//! A discovery's answer within the output limit: the tools it lists, and errors that quote
//! what the model asked for without repeating it. However many names a call sends, the
//! answer holds each listed tool once, one error for all unknown names and one for the tools
//! that did not fit.

use serde_json::{Value, json};

use crate::call::{escaped_len, fit, quote};
use crate::tool::{DiscoveryEntry, MAX_TOOL_NAME_LEN, Tool, serialized_size};

/// How many unknown names an error quotes; the others are counted.
pub(super) const MAX_QUOTED_NAMES: usize = 16;

/// What the signature the session may add takes: `,"signature":"` and 64 hex digits.
const SIGNATURE_BYTES: usize = 80;

/// The answer's content and the tools it lists, in order.
pub(super) struct Answer<'t> {
    pub(super) content: Value,
    pub(super) listed: Vec<&'t Tool>,
}

/// Builds `{"tools": [...], "errors"?: [...]}` of at most `max_bytes` of JSON, room for a
/// signature included: `errors` first (cut to half the room at most), then the `candidates`
/// in order until the next one does not fit; those left out are named in an error.
pub(super) fn answer<'t>(
    candidates: &[&'t Tool],
    errors: Vec<String>,
    max_bytes: usize,
) -> Answer<'t> {
    // `{"tools":[` `],"errors":[` `]}` and a signature.
    let room = max_bytes.saturating_sub(10 + 12 + 2 + SIGNATURE_BYTES);
    let each = room / 2 / errors.len().max(1);
    let mut errors: Vec<String> = errors
        .iter()
        .map(|error| fit(error, each).into_owned())
        .collect();
    let errors_size: usize = errors.iter().map(|error| escaped_len(error) + 3).sum();
    // What is left out must be said; its error is bounded like the others.
    let left_out_bytes = if candidates.is_empty() { 0 } else { room / 8 };
    let mut budget = room.saturating_sub(errors_size + left_out_bytes + 3);
    let mut entries = Vec::new();
    let mut listed = Vec::new();
    for (index, tool) in candidates.iter().enumerate() {
        let entry = DiscoveryEntry::of(tool);
        let size = serialized_size(&entry) + 1;
        if size > budget {
            let left_out: Vec<&str> = candidates[index..].iter().map(|tool| tool.name()).collect();
            let error = left_out_error(&left_out, max_bytes, left_out_bytes);
            errors.push(fit(&error, left_out_bytes).into_owned());
            break;
        }
        budget -= size;
        entries.push(entry);
        listed.push(*tool);
    }
    let mut content = json!({ "tools": entries });
    if !errors.is_empty() {
        content["errors"] = json!(errors);
    }
    Answer { content, listed }
}

/// The error for tools that did not fit the answer.
fn left_out_error(names: &[&str], max_bytes: usize, budget: usize) -> String {
    let prefix =
        format!("Not loaded, as the answer would be over its limit of {max_bytes} bytes: ");
    let suffix = ". Ask for them in another call, fewer at a time.";
    let list = quoted_list(
        names,
        names.len(),
        budget.saturating_sub(prefix.len() + suffix.len()),
    );
    format!("{prefix}{list}{suffix}")
}

/// The error for names that are no tool the session may use: one for all of them,
/// `available` (a list of the names to use instead, or advice) at the end.
pub(super) fn unknown_names_error(unknown: &[&str], total: usize, available: &str) -> String {
    let list = quoted_list(unknown, total, usize::MAX);
    if total == 1 {
        format!("Unknown tool {list}. {available}")
    } else {
        format!("Unknown tools {list}. {available}")
    }
}

/// `'a', 'b' and 'c'`: at most [`MAX_QUOTED_NAMES`] names, each cut to the longest a tool
/// name can be, then `and N more`, the whole within about `max_bytes`.
pub(super) fn quoted_list(names: &[&str], total: usize, max_bytes: usize) -> String {
    let mut quoted: Vec<String> = Vec::new();
    let mut used = 0;
    for name in names.iter().take(MAX_QUOTED_NAMES) {
        let item = format!("'{}'", quote(name, MAX_TOOL_NAME_LEN));
        if used + item.len() + 2 > max_bytes.saturating_sub(24) && !quoted.is_empty() {
            break;
        }
        used += item.len() + 2;
        quoted.push(item);
    }
    let more = total - quoted.len();
    match (quoted.split_last(), more) {
        (None, _) => format!("{total} names"),
        (Some((only, [])), 0) => only.clone(),
        (Some((last, rest)), 0) => format!("{} and {last}", rest.join(", ")),
        (Some(_), more) => format!("{} and {more} more", quoted.join(", ")),
    }
}

/// `[a, b, c]`, or as many names as fit `max_bytes` and how many more there are.
pub(super) fn name_list(names: &[String], max_bytes: usize) -> String {
    let mut list = String::from("[");
    for (index, name) in names.iter().enumerate() {
        let more = names.len() - index;
        // Room for this name and for saying how many are left after it.
        if list.len() + name.len() + 2 + 40 > max_bytes && more > 1 {
            list.push_str(&format!("… and {more} more]"));
            return list;
        }
        if index > 0 {
            list.push_str(", ");
        }
        list.push_str(name);
    }
    list.push(']');
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_bounded() {
        assert_eq!(quoted_list(&["a"], 1, 1000), "'a'");
        assert_eq!(quoted_list(&["a", "b", "c"], 3, 1000), "'a', 'b' and 'c'");
        let many: Vec<String> = (0..100).map(|i| format!("n{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let list = quoted_list(&many, 20_000, 1000);
        assert!(
            list.ends_with(&format!("and {} more", 20_000 - MAX_QUOTED_NAMES)),
            "{list}"
        );
        let long = "x".repeat(10 << 20);
        assert_eq!(
            quoted_list(&[&long], 1, 1000).len(),
            MAX_TOOL_NAME_LEN + "''…".len()
        );

        let names: Vec<String> = (0..1000).map(|i| format!("tool_{i}")).collect();
        let list = name_list(&names, 200);
        assert!(list.len() <= 200 && list.ends_with("more]"), "{list}");
        assert_eq!(name_list(&names[..2], 200), "[tool_0, tool_1]");
    }
}
