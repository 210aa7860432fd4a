//! Token counts with OpenAI's `o200k_base` encoding (feature `tokens`), for measuring what a
//! tool list costs per request.
//!
//! ```
//! use lazytool_runtime::tokens::count_json_tokens;
//!
//! let registry = lazytool_runtime::Registry::builder().build().unwrap();
//! let first_request: usize = registry.session().active_tools().iter()
//!     .map(|tool| count_json_tokens(&serde_json::to_value(tool).unwrap()))
//!     .sum();
//! # let _ = first_request;
//! ```

use serde_json::Value;

/// The number of `o200k_base` tokens of `text` (the encoding of GPT-4o and later models).
/// The encoding is built once per process, on first use.
///
/// ```
/// assert_eq!(lazytool_runtime::tokens::count_tokens("hello world"), 2);
/// ```
pub fn count_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// The number of `o200k_base` tokens of `value`'s compact JSON serialization, as it goes over
/// the wire.
///
/// ```
/// use lazytool_runtime::tokens::count_json_tokens;
/// use lazytool_runtime::ToolDefinition;
///
/// let tool = ToolDefinition {
///     name: "getProducts".into(),
///     description: "Lists the products.".into(),
///     input_schema: serde_json::json!({"type": "object"}),
/// };
/// assert!(count_json_tokens(&serde_json::to_value(&tool).unwrap()) > 5);
/// ```
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
