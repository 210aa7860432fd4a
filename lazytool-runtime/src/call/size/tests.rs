use super::*;
use serde_json::json;

fn nested(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// `check` without what it learned on the way.
fn checks(value: &Value, max_bytes: usize, max_depth: usize) -> Result<(), Excess> {
    check(value, max_bytes, max_depth).map(|_| ())
}

#[test]
fn the_check_finds_floats_at_any_depth() {
    let has_float = |value: Value| check(&value, usize::MAX, 64).map(|c| c.has_float);
    assert_eq!(
        has_float(json!({"a": 1, "b": "2.5", "c": [true]})),
        Ok(false)
    );
    assert_eq!(has_float(json!({"a": 1, "b": 2.0})), Ok(true), "flat");
    assert_eq!(
        has_float(json!({"a": [1, {"b": [1e2]}]})),
        Ok(true),
        "nested"
    );
    assert_eq!(has_float(json!([0.5])), Ok(true), "in an array");
    assert_eq!(has_float(json!(-0.0)), Ok(true), "a scalar");
    assert_eq!(has_float(json!({})), Ok(false));
}

#[test]
fn depth_and_size_are_bounded() {
    assert_eq!(checks(&nested(3), 1000, 3), Ok(()));
    assert_eq!(checks(&nested(4), 1000, 3), Err(Excess::TooDeep));
    assert_eq!(
        checks(&json!({"a": "x".repeat(100)}), 50, 8),
        Err(Excess::TooLarge)
    );
    assert_eq!(checks(&json!({"a": "x".repeat(10)}), 50, 8), Ok(()));
}

#[test]
fn sizes_are_those_of_compact_json() {
    let values = [
        json!({}),
        json!([]),
        json!({"a": [], "b": {}, "c": [[], {}]}),
        json!({"quote\"d": "tab\t nul\u{0} é \\ \u{1f}", "n": [-12, 0, 7, u64::MAX, i64::MIN]}),
        json!([null, true, false, "x", {"k": [1, [2, {"deep": "\n"}]]}]),
        json!("\u{0}".repeat(10)),
    ];
    for value in values {
        let compact = serde_json::to_string(&value).unwrap_or_default().len();
        assert_eq!(json_size(&value, usize::MAX), Some(compact), "{value}");
        assert!(fits(&value, compact), "{value} at its size");
        assert!(
            !fits(&value, compact - 1),
            "{value} one byte under its size"
        );
    }
    assert!(
        json_size(&json!(1.5), usize::MAX) >= Some(3),
        "floats: a bound"
    );
}

#[test]
fn arguments_count_strings_by_length() {
    let value = json!({"k": "\u{0}\u{0}"});
    assert_eq!(checks(&value, 10, 8), Ok(()), "{{\"k\":\"..\"}}: 10 bytes");
    assert_eq!(checks(&value, 9, 8), Err(Excess::TooLarge));
    assert!(!fits(&value, 19), "escaped: 20 bytes");
    assert!(fits(&value, 20));
}

#[test]
fn a_very_deep_value_is_checked_without_overflowing() {
    let deep = nested(200_000);
    assert_eq!(checks(&deep, usize::MAX, 64), Err(Excess::TooDeep));
    super::super::limits::dispose(deep);
}

#[test]
fn flat_arguments_near_the_limit_are_measured_exactly() {
    // Numbers count by a bound first; near the limit the exact size decides.
    let value = json!({"a": 1, "b": -25, "c": u64::MAX, "d": "x"});
    let exact = serde_json::to_string(&value).unwrap_or_default().len();
    assert_eq!(checks(&value, exact, 8), Ok(()));
    assert_eq!(checks(&value, exact - 1, 8), Err(Excess::TooLarge));
    assert!(
        fits(&json!("x".repeat(10)), 12),
        "a text by its escaped length"
    );
    assert!(!fits(&json!("\n".repeat(10)), 12));
}
