//! The request id of a line that is not a valid message, read from its raw text.

use serde_json::Value;

/// The `id` member of the top-level object in `text`, if it is a string or a number that
/// appears before anything unreadable. One pass, no recursion: safe on input nested deeper
/// than any parser allows, and on the truncated prefix of an oversized line.
pub fn scan(text: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut at = skip_whitespace(text, 0);
    if text.get(at) != Some(&b'{') {
        return None;
    }
    while let Some(&byte) = text.get(at) {
        match byte {
            b'"' => {
                let end = string_end(text, at)?;
                let after = skip_whitespace(text, end);
                if depth == 1 && text.get(after) == Some(&b':') && &text[at..end] == b"\"id\"" {
                    return scalar(text, skip_whitespace(text, after + 1));
                }
                at = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        at += 1;
    }
    None
}

/// A string or number value starting at `at`.
fn scalar(text: &[u8], at: usize) -> Option<Value> {
    let rest = text.get(at..)?;
    let len = match rest.first()? {
        b'"' => string_end(text, at)? - at,
        b'-' | b'0'..=b'9' => rest
            .iter()
            .position(|byte| !matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
            .unwrap_or(rest.len()),
        _ => return None,
    };
    serde_json::from_slice::<Value>(&rest[..len])
        .ok()
        .filter(|id| id.is_string() || id.is_number())
}

/// The index just past the closing quote of the string that opens at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        match text.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

fn skip_whitespace(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::scan;
    use serde_json::json;

    #[test]
    fn finds_the_top_level_id() {
        assert_eq!(
            scan(br#"{"jsonrpc":"2.0","id":7,"method":"x"}"#),
            Some(json!(7))
        );
        assert_eq!(scan(br#" { "id" : "a\"b" , "#), Some(json!("a\"b")));
        assert_eq!(scan(br#"{"params":{"id":1},"id":2,"#), Some(json!(2)));
        assert_eq!(
            scan(br#"{"method":"id","x":["id",{"id":3}],"id":-4}"#),
            Some(json!(-4))
        );
        let deep = format!(r#"{{"id":9,"params":{}"#, "[".repeat(100_000));
        assert_eq!(scan(deep.as_bytes()), Some(json!(9)));
    }

    #[test]
    fn gives_up_on_anything_else() {
        assert_eq!(scan(b"garbage"), None);
        assert_eq!(scan(br#"[{"id":1}]"#), None);
        assert_eq!(scan(br#"{"id":null}"#), None);
        assert_eq!(scan(br#"{"id":"trunc"#), None);
        assert_eq!(scan(br#"{"params":[[[[["#), None);
    }
}
