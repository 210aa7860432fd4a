//! Reading a discovery result back from a message history: the [`DiscoveredSet`] its JSON
//! stands for (the names of its `tools`, its `signature`).

use serde::Deserialize;
use serde_json::Value;

use crate::call::DiscoveredSet;

/// The [`DiscoveredSet`] of a discovery result's JSON value.
pub(crate) fn read_result(content: &Value) -> DiscoveredSet {
    DiscoveredSet {
        tools: (content.get("tools").and_then(Value::as_array).into_iter())
            .flatten()
            .filter_map(|tool| tool.get("name").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
        signature: content
            .get("signature")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// The [`DiscoveredSet`] of a discovery result given as JSON text. A well-formed result is
/// read as it is parsed: only the names and the signature are kept, the descriptions and
/// schemas skipped, so that a result of a million entries costs its names rather than a tree
/// of its values. Anything else is read through a [`Value`] like [`read_result`], with the
/// same leniency; text that is not JSON hands out nothing.
pub(crate) fn read_result_text(text: &str) -> DiscoveredSet {
    match serde_json::from_str::<WellFormed>(text) {
        Ok(result) => DiscoveredSet {
            tools: result.tools.into_iter().map(|entry| entry.name).collect(),
            signature: result.signature,
        },
        Err(_) => serde_json::from_str::<Value>(text)
            .map(|content| read_result(&content))
            .unwrap_or_default(),
    }
}

/// A discovery result as the discovery tool writes it; other members are skipped.
#[derive(Deserialize)]
struct WellFormed {
    tools: Vec<Entry>,
    #[serde(default)]
    signature: Option<String>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_value_read_alike() {
        let results = [
            json!({"tools": [{"name": "a", "description": "x", "inputSchema": {"deep": [[{}]]}}, {"name": 3}, "b", {"name": "c"}], "signature": "5ig"}),
            json!({"signature": 7, "tools": {"name": "a"}, "errors": ["e"]}),
            json!({"tools": [{"inputSchema": {"name": "not"}, "name": "d"}]}),
            json!({"tools": "nothing"}),
            json!(["not", "an", "object"]),
            json!("text"),
        ];
        for result in results {
            assert_eq!(
                read_result_text(&result.to_string()),
                read_result(&result),
                "{result}"
            );
        }
        assert_eq!(read_result_text("{broken"), DiscoveredSet::default());
    }
}
