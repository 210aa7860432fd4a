//! Unit tests of the schema layer. The dialect rewrites are tested in `lazytool-tests`
//! (`tests/dialects.rs`), where their outputs are held to the dialects' rules.

use schemars::{JsonSchema, schema_for};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::canonicalize;

mod canonical;
mod defaults;
mod strict_nulls;

/// Compares serialized forms, so that key order matters too.
#[track_caller]
fn assert_json(actual: &Value, expected: &Value) {
    let actual = serde_json::to_string_pretty(actual).expect("serializable");
    let expected = serde_json::to_string_pretty(expected).expect("serializable");
    assert_eq!(actual, expected);
}

fn canonical<T: JsonSchema>() -> Value {
    let raw = serde_json::to_value(schema_for!(T)).expect("serializable");
    let schema = canonicalize(raw);
    assert_json(&canonicalize(schema.clone()), &schema);
    schema
}

/// Inner doc.
#[derive(JsonSchema, Deserialize, Serialize)]
#[allow(dead_code)]
struct Inner {
    x: i32,
}
