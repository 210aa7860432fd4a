use super::*;
use serde_json::json;

#[test]
fn whole_floats_become_integers_where_the_schema_wants_them() {
    let schema = json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "maybe": {"type": ["integer", "null"]},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "loose": {"anyOf": [{"type": "integer"}, {"type": "number"}]},
            "list": {"type": "array", "items": {"type": "integer"}},
            "point": {"$ref": "#/$defs/Point"},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}}
        },
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}}
    });
    let mut arguments = json!({
        "count": 42.0, "ratio": 2.0, "maybe": 1e2, "either": 3.0, "loose": 4.0,
        "list": [1.0, 2.5, -3.0], "point": {"x": 7.0}, "map": {"a": 1.0},
        "unknown": 5.0, "huge": 1e300
    });
    integralize(&mut arguments, &schema);
    assert_eq!(
        arguments,
        json!({
            "count": 42, "ratio": 2.0, "maybe": 100, "either": 3, "loose": 4.0,
            "list": [1, 2.5, -3], "point": {"x": 7}, "map": {"a": 1},
            "unknown": 5.0, "huge": 1e300
        })
    );
}

#[test]
fn only_floats_that_are_exactly_the_integer_written_are_rewritten() {
    let schema = json!({"type": "array", "items": {"type": "integer"}});
    // What serde_json reads from `-9223372036854775809` (past i64) is the float -2^63.
    let past_i64: Value = serde_json::from_str("-9223372036854775809").expect("a number");
    let mut arguments = json!([
        9_007_199_254_740_991.0,
        -9_007_199_254_740_991.0,
        9_007_199_254_740_992.0,
        9.223372036854775e18,
        1e19,
        past_i64
    ]);
    integralize(&mut arguments, &schema);
    assert_eq!(
        arguments,
        json!([
            9_007_199_254_740_991_i64,
            -9_007_199_254_740_991_i64,
            9_007_199_254_740_992.0,
            9.223372036854775e18,
            1e19,
            -9.223_372_036_854_776e18
        ])
    );
}
