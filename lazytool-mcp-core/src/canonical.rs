//! Canonical JSON (keys sorted at every level, no whitespace) and its SHA-256: what a pin
//! and the audit trail's argument hash digest, so the same value always has the same digest
//! whatever order its keys came in.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `value` with the keys of every object sorted (byte order), at every depth.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let sorted_map: Map<String, Value> = keys
                .into_iter()
                .map(|key| (key.clone(), sorted(&map[key])))
                .collect();
            Value::Object(sorted_map)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The SHA-256 of `value`'s canonical JSON, as `sha256:` and 64 lowercase hex digits.
pub fn digest(value: &Value) -> String {
    let canonical = sorted(value).to_string();
    let hash = Sha256::digest(canonical.as_bytes());
    let mut text = String::with_capacity(71);
    text.push_str("sha256:");
    for byte in hash {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_order_does_not_change_the_digest() {
        let a = json!({"b": 1, "a": {"d": [1, {"z": 0, "y": 1}], "c": null}});
        let b = json!({"a": {"c": null, "d": [1, {"y": 1, "z": 0}]}, "b": 1});
        assert_eq!(digest(&a), digest(&b));
        assert_eq!(
            sorted(&a).to_string(),
            r#"{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}"#
        );
        assert_ne!(digest(&a), digest(&json!({"b": 2})));
        assert_eq!(
            digest(&json!({})),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
