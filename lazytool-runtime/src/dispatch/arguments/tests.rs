use super::*;
use serde_json::json;

#[test]
fn accepts_objects_strings_and_nothing() {
    assert_eq!(normalize("t", json!({"a": 1})), Ok(json!({"a": 1})));
    assert_eq!(normalize("t", json!("{\"a\": 1}")), Ok(json!({"a": 1})));
    assert_eq!(normalize("t", Value::Null), Ok(json!({})));
    assert_eq!(normalize("t", json!("")), Ok(json!({})));
    assert_eq!(normalize("t", json!("  ")), Ok(json!({})));
    assert_eq!(normalize("t", json!("null")), Ok(json!({})));
}

#[test]
fn nulls_of_optional_properties_mean_absent() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "integer"},
            "c": {"type": "integer"},
            "nested": {"type": "object", "properties": {"d": {"type": "string"}}}
        },
        "required": ["a"]
    });
    let arguments = json!({"a": null, "b": null, "c": 1, "nested": {"d": null}});
    assert_eq!(
        drop_null_optionals(arguments, &schema),
        json!({"a": null, "c": 1, "nested": {}})
    );
}

#[test]
fn stringified_objects_and_arrays_are_repaired() {
    let schema = json!({
        "type": "object",
        "properties": {
            "filter": {"type": "object", "properties": {"tags": {"type": "array"}}},
            "ids": {"type": ["array", "null"]},
            "name": {"type": "string"},
            "either": {"type": ["string", "object"]}
        }
    });
    let mut arguments = json!({
        "filter": "{\"tags\": \"[1, 2]\"}",
        "ids": "[1]",
        "name": "[\"stays a string\"]",
        "either": "{}"
    });
    let repaired = repair_stringified(&mut arguments, &schema);
    assert_eq!(repaired, ["/filter", "/filter/tags", "/ids"]);
    assert_eq!(
        arguments,
        json!({"filter": {"tags": [1, 2]}, "ids": [1], "name": "[\"stays a string\"]", "either": "{}"})
    );
}

#[test]
fn rejects_other_shapes_with_a_reason() {
    let cases = [
        (json!([1]), "not an array"),
        (json!(3), "not a number"),
        (json!("[1]"), "not an array"),
        (json!("\"x\""), "not a string"),
        (json!("{oops"), "not valid JSON"),
    ];
    for (input, expected) in cases {
        let error = normalize("t", input).expect_err("must be rejected");
        assert_eq!(error.error_kind(), Some(ToolErrorKind::InvalidArguments));
        assert!(error.text().contains(expected), "{}", error.text());
    }
}
