//! Token counts with OpenAI's `o200k_base` encoding (feature `tokens`), for measuring what a
//! tool list costs per request.

use serde_json::Value;

/// The number of `o200k_base` tokens of `text` (the encoding of GPT-4o and later models).
/// The encoding is built once per process, on first use.
pub fn count_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The number of `o200k_base` tokens of `value`'s compact JSON serialization, as it goes over
/// the wire.
pub fn count_json_tokens(value: &Value) -> usize {
    count_tokens(&value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        assert!(count_json_tokens(&serde_json::json!({"name": "getProducts"})) > 3);
    }
}
