//! What of a tool is indexed: its fields, read from its name, tags, description and schema.

use serde_json::Value;

use super::SearchDocument;
use super::analysis::{Analysis, analyze, fold};

pub(super) const FIELD_COUNT: usize = 5;

/// How much a match counts in each field: name, tags, description, parameter names,
/// parameter text.
pub(super) const FIELD_WEIGHTS: [f32; FIELD_COUNT] = [3.0, 3.0, 1.0, 0.7, 0.5];

/// How deep the input schema is walked.
pub(super) const MAX_SCHEMA_DEPTH: usize = 8;

/// The terms of each field of `document`, in the order of [`FIELD_WEIGHTS`].
pub(super) fn document_fields(document: &SearchDocument<'_>) -> [Vec<String>; FIELD_COUNT] {
    let mut name = Vec::new();
    analyze(document.name, Analysis::Identifier, &mut name);
    let mut tags = Vec::new();
    for tag in document.tags {
        analyze(tag, Analysis::Prose, &mut tags);
    }
    let mut description = Vec::new();
    analyze(document.description, Analysis::Prose, &mut description);
    let (mut parameter_names, mut parameter_text) = (Vec::new(), Vec::new());
    walk_schema(
        document.input_schema,
        0,
        &mut parameter_names,
        &mut parameter_text,
    );
    [name, tags, description, parameter_names, parameter_text]
}

/// Adds the property names in `schema` to `names`, and its descriptions, titles and enum
/// values to `text`, down to [`MAX_SCHEMA_DEPTH`].
pub(super) fn walk_schema(
    schema: &Value,
    depth: usize,
    names: &mut Vec<String>,
    text: &mut Vec<String>,
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let schema = match schema {
        Value::Array(schemas) => {
            for schema in schemas {
                walk_schema(schema, depth + 1, names, text);
            }
            return;
        }
        Value::Object(schema) => schema,
        _ => return,
    };
    for key in ["title", "description"] {
        if let Some(Value::String(value)) = schema.get(key) {
            analyze(value, Analysis::Prose, text);
        }
    }
    let values = match schema.get("enum") {
        Some(Value::Array(values)) => values.as_slice(),
        _ => schema
            .get("const")
            .map(std::slice::from_ref)
            .unwrap_or_default(),
    };
    for value in values {
        if let Value::String(value) = value {
            analyze(value, Analysis::Identifier, text);
        }
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            analyze(name, Analysis::Identifier, names);
            walk_schema(property, depth + 1, names, text);
        }
    }
    for key in [
        "items",
        "prefixItems",
        "additionalProperties",
        "anyOf",
        "oneOf",
        "allOf",
    ] {
        if let Some(subschema) = schema.get(key) {
            walk_schema(subschema, depth + 1, names, text);
        }
    }
    for key in ["$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(subschemas)) = schema.get(key) {
            for subschema in subschemas.values() {
                walk_schema(subschema, depth + 1, names, text);
            }
        }
    }
}

/// The lookup key of a tool name: its letters and digits, lowercased, so that
/// `list_issues`, `list-issues`, `listIssues` and `list issues` all name `list_issues`.
pub(super) fn name_key(name: &str) -> String {
    let alphanumeric: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    fold(&alphanumeric)
}
