//! [`set_property_default`] and [`strip_null_defaults`].

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Inner, assert_json, canonical};
use crate::schema::{set_property_default, strip_null_defaults};

#[derive(JsonSchema, Deserialize)]
#[allow(dead_code)]
struct Options {
    plain: Option<u32>,
    #[serde(default)]
    defaulted: Option<u32>,
    /// Maybe inner.
    #[serde(default)]
    inner: Option<Inner>,
    #[serde(default)]
    count: u32,
    #[serde(default)]
    name: String,
}

#[test]
fn option_fields_and_null_defaults() {
    let mut schema = canonical::<Options>();
    let inner = json!({
        "description": "Inner doc.",
        "type": "object",
        "properties": {"x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}},
        "required": ["x"]
    });
    assert_json(
        &schema,
        &json!({
            "type": "object",
            "properties": {
                "plain": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX},
                "defaulted": {
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "maximum": u32::MAX,
                    "default": null
                },
                "inner": {
                    "description": "Maybe inner.",
                    "anyOf": [inner, {"type": "null"}],
                    "default": null
                },
                "count": {"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 0},
                "name": {"type": "string", "default": ""}
            }
        }),
    );

    strip_null_defaults(&mut schema);
    assert_json(
        &schema,
        &json!({
            "type": "object",
            "properties": {
                "plain": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX},
                "defaulted": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX},
                "inner": {
                    "description": "Maybe inner.",
                    "anyOf": [inner, {"type": "null"}]
                },
                "count": {"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 0},
                "name": {"type": "string", "default": ""}
            }
        }),
    );
}

#[test]
fn property_defaults() {
    let mut schema = canonical::<Options>();
    assert!(set_property_default(&mut schema, "count", json!(7)));
    assert!(set_property_default(&mut schema, "plain", json!(1)));
    assert!(!set_property_default(&mut schema, "nope", json!(1)));
    assert_json(
        &schema["properties"]["count"],
        &json!({"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 7}),
    );
    assert_json(
        &schema["properties"]["plain"],
        &json!({"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX, "default": 1}),
    );

    let mut boolean = json!({"type": "object", "properties": {"any": true, "n": 3}});
    assert!(set_property_default(&mut boolean, "any", json!("x")));
    assert!(!set_property_default(&mut boolean, "n", json!("x")));
    assert_json(&boolean["properties"]["any"], &json!({"default": "x"}));
    assert!(!set_property_default(&mut json!(true), "any", json!(1)));
    assert!(!set_property_default(&mut json!([]), "any", json!(1)));
}

#[test]
fn strip_null_defaults_ignores_non_objects() {
    for mut value in [
        json!(true),
        json!({"properties": 3}),
        json!({"properties": {"a": false}}),
    ] {
        let before = value.clone();
        strip_null_defaults(&mut value);
        assert_json(&value, &before);
    }
}
