use schemars::JsonSchema;
use serde_json::json;

use super::*;

/// A type with a definition of its own, which a property refers to by `$ref`.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Address {
    /// The street.
    street: String,
}

// The struct the properties stand in for, derived as `#[tool]` derived it before (without a
// doc comment, as the generated struct had none).
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Derived {
    /// What to look for.
    query: String,
    #[serde(default)]
    limit: Option<u32>,
    /// Where.
    address: Address,
    note: Option<String>,
    /// Results per page.
    #[serde(default)]
    per_page: u32,
}

#[test]
fn the_schema_of_the_properties_is_the_derived_structs() {
    let mut derived = schemars::SchemaGenerator::default()
        .into_root_schema_for::<Derived>()
        .to_value();
    let root = derived.as_object_mut().expect("an object");
    root.shift_remove("title");
    root.shift_remove("$schema");
    // The derive writes a `default` for `#[serde(default)]` fields of a serializable type;
    // `input_schema` sets a `#[tool]`'s defaults itself.
    for property in ["limit", "per_page"] {
        root["properties"][property]
            .as_object_mut()
            .expect("an object")
            .shift_remove("default");
    }
    let built = arguments_schema(&[
        ArgumentProperty::of("query", "What to look for.", false, |value: String| value),
        ArgumentProperty::of("limit", "", true, |value: Option<u32>| value),
        ArgumentProperty::of("address", "Where.", false, |value: Address| value),
        ArgumentProperty::of("note", "", false, |value: Option<String>| value),
        ArgumentProperty::of("per_page", "Results per page.", true, |value: u32| value),
    ]);
    assert_eq!(built, derived);
    assert_eq!(
        serde_json::to_string(&built).expect("JSON"),
        serde_json::to_string(&derived).expect("JSON"),
        "the same key order"
    );
    assert_eq!(built["required"], json!(["query", "address"]));
}

#[test]
fn no_properties_make_an_empty_object_schema() {
    assert_eq!(arguments_schema(&[]), json!({"type": "object"}));
}
