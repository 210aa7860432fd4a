//! The typed check against the JSON Schema validator: on every schema of plain parameters and
//! every argument object generated here, the same verdict and the same message.

use serde_json::json;

use super::typed_check;

/// Against the validator itself (which only the feature links).
#[cfg(feature = "json-schema")]
mod against_the_validator {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::typed_check;
    use crate::tool::json_schema_check::json_schema_check;

    /// A plain parameter's schema, as `#[tool]` writes it (before the runtime's rewrites).
    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!({"type": "boolean"})),
            Just(json!({"type": "string", "description": "Some text."})),
            Just(json!({"type": "number"})),
            Just(json!({"type": "integer", "minimum": 0, "maximum": 255})),
            Just(json!({"type": "integer", "minimum": -128, "maximum": 127})),
            Just(json!({"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 1})),
            Just(json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})),
            Just(json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})),
        ]
    }

    fn nullable(schema: Value) -> Value {
        let mut schema = schema;
        let kind = schema["type"].clone();
        schema["type"] = json!([kind, "null"]);
        schema
    }

    fn property() -> impl Strategy<Value = Value> {
        let value = prop_oneof![
            3 => scalar(),
            1 => (scalar(), any::<bool>()).prop_map(|(items, null)| {
                let items = if null { nullable(items) } else { items };
                json!({"type": "array", "items": items})
            }),
        ];
        (value, any::<bool>())
            .prop_map(|(schema, null)| if null { nullable(schema) } else { schema })
    }

    const NAMES: [&str; 20] = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r",
        "x/y", "t~1",
    ];

    fn schema() -> impl Strategy<Value = Value> {
        (1..=NAMES.len())
            .prop_flat_map(|count| {
                (
                    proptest::collection::vec(property(), count),
                    proptest::sample::subsequence((0..count).collect::<Vec<_>>(), 0..=count.min(3)),
                    any::<prop::sample::Index>(),
                )
            })
            .prop_map(|(properties, required, shuffle)| {
                let mut members = serde_json::Map::new();
                for (name, property) in NAMES.iter().zip(properties) {
                    members.insert((*name).to_owned(), property);
                }
                let mut required: Vec<Value> =
                    required.into_iter().map(|at| json!(NAMES[at])).collect();
                if !required.is_empty() {
                    let turn = shuffle.index(required.len());
                    required.rotate_left(turn);
                }
                let mut schema = json!({"type": "object", "properties": members});
                if !required.is_empty() {
                    schema["required"] = Value::Array(required);
                }
                schema
            })
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            Just(json!(true)),
            Just(json!("s")),
            Just(json!("12")),
            Just(json!(0)),
            Just(json!(-1)),
            Just(json!(1.5)),
            Just(json!(2.0)),
            Just(json!(255)),
            Just(json!(256)),
            Just(json!(256.0)),
            Just(json!(-129)),
            Just(json!(4_294_967_296u64)),
            Just(json!(-1.5)),
            Just(json!(1e20)),
            Just(json!(-9.3e18)),
            Just(json!(u64::MAX)),
            Just(json!(i64::MIN)),
            Just(json!(18_446_744_073_709_551_615.0)),
            Just(json!([])),
            Just(json!([1, "x", null, 2.5, -3])),
            Just(json!(["a", "b"])),
            Just(json!({"k": 1})),
            Just(json!("a very long text ".repeat(80))),
        ]
    }

    fn arguments() -> impl Strategy<Value = Value> {
        let keys = prop_oneof![
            8 => proptest::sample::select(NAMES.to_vec()).prop_map(str::to_owned),
            1 => Just("zz".to_owned()),
            1 => Just("A".to_owned()),
        ];
        proptest::collection::vec((keys, value()), 0..24)
            .prop_map(|members| Value::Object(members.into_iter().collect()))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        #[test]
        fn the_typed_check_says_what_the_validator_says(schema in schema(), arguments in arguments()) {
            let schema = crate::schema::canonicalize(schema);
            let typed = typed_check(&schema).expect("a schema of plain parameters");
            let validator = json_schema_check(&schema).expect("compiles");
            prop_assert_eq!(
                typed.violations(&arguments),
                validator.violations(&arguments),
                "schema {} arguments {}", schema, arguments
            );
            prop_assert_eq!(typed.is_valid(&arguments), validator.is_valid(&arguments));
        }
    }

    #[test]
    fn arguments_that_are_not_an_object_are_reported_as_the_validator_does() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let typed = typed_check(&schema).expect("plain");
        let validator = json_schema_check(&schema).expect("compiles");
        for arguments in [json!([1]), json!("x"), Value::Null] {
            assert_eq!(
                typed.violations(&arguments),
                validator.violations(&arguments)
            );
        }
    }
}

#[test]
fn a_schema_beyond_plain_parameters_is_refused_by_name() {
    for schema in [
        json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}}),
        json!({"type": "object", "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}),
    ] {
        let error = typed_check(&schema).err().expect("refused").to_string();
        assert!(
            error.contains("beyond the typed check") || error.contains("no type"),
            "{error}"
        );
    }
}
