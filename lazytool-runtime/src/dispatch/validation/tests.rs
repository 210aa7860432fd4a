use super::*;
use crate::tool::MAX_VIOLATION_BYTES;
use serde_json::json;

fn problems(schema: &Value, arguments: &Value) -> String {
    let check = crate::tool::ArgumentValidation::JSON_SCHEMA
        .check_of(schema)
        .unwrap_or_else(|error| panic!("{error}"));
    validate("t", &*check, schema, arguments)
        .expect_err("invalid")
        .text()
}

#[test]
fn a_misnamed_key_is_named_with_the_right_one() {
    let schema = json!({
        "type": "object",
        "properties": {
            "durationMinutes": {"type": "integer"},
            "trip": {"type": "object", "properties": {"startDate": {"type": "string"}}, "required": ["startDate"]}
        },
        "required": ["durationMinutes", "trip"]
    });
    let text = problems(
        &schema,
        &json!({"duration_minutes": 5, "trip": {"start_date": "x"}}),
    );
    assert!(
        text.contains(r#"at /duration_minutes: unexpected property "duration_minutes": did you mean "durationMinutes"?"#),
        "{text}"
    );
    assert!(
        text.contains(
            r#"at /trip/start_date: unexpected property "start_date": did you mean "startDate"?"#
        ),
        "{text}"
    );
}

#[test]
fn a_failed_any_of_says_which_alternative_came_closest_and_what_it_lacked() {
    let schema = json!({
        "type": "object",
        "properties": {"target": {"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"id": {"type": "integer"}, "kind": {"type": "string"}}, "required": ["id", "kind"]},
            {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"], "additionalProperties": false}
        ]}}
    });
    let text = problems(&schema, &json!({"target": {"id": 3}}));
    assert!(
        text.contains(r#"at /target: {"id":3} matches none of the 3 alternatives of 'anyOf'; the closest, alternative 2 of 3, fails because "kind" is a required property"#),
        "{text}"
    );
}

#[test]
fn each_violation_is_bounded() {
    let schema = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let keys: serde_json::Map<String, Value> = (0..65_000)
        .map(|i| (format!("key_{i}"), json!(1)))
        .collect();
    let text = problems(&schema, &Value::Object(keys));
    assert!(text.len() < 2 * MAX_VIOLATION_BYTES, "{}", text.len());
}
