//! What of a tool is indexed: its fields, read from its name, tags, description and schema.

use serde_json::Value;

use super::SearchDocument;
use super::analysis::{Analysis, Analyzer, fold};

pub(super) const FIELD_COUNT: usize = 5;

/// How much a match counts in each field: name, tags, description, parameter names,
/// parameter text.
pub(super) const FIELD_WEIGHTS: [f32; FIELD_COUNT] = [3.0, 3.0, 1.2, 1.0, 0.5];

/// How deep the input schema is walked.
pub(super) const MAX_SCHEMA_DEPTH: usize = 8;

/// The fields, as indices into [`FIELD_WEIGHTS`].
pub(super) const NAME: usize = 0;
pub(super) const TAGS: usize = 1;
pub(super) const DESCRIPTION: usize = 2;
pub(super) const PARAMETER_NAMES: usize = 3;
pub(super) const PARAMETER_TEXT: usize = 4;

/// Hands every term of `document` to `emit` with its field.
pub(super) fn document_terms(
    document: &SearchDocument<'_>,
    analyzer: &mut Analyzer,
    emit: &mut impl FnMut(usize, &str),
) {
    analyzer.text(document.name, Analysis::Identifier, &mut |term| {
        emit(NAME, term)
    });
    for tag in document.tags {
        analyzer.text(tag, Analysis::Prose, &mut |term| emit(TAGS, term));
    }
    analyzer.text(document.description, Analysis::Prose, &mut |term| {
        emit(DESCRIPTION, term)
    });
    walk_schema(document.input_schema, 0, analyzer, emit);
}

/// Hands the property names in `schema` to `emit` as [`PARAMETER_NAMES`], and its
/// descriptions, titles and enum values as [`PARAMETER_TEXT`], down to
/// [`MAX_SCHEMA_DEPTH`].
fn walk_schema(
    schema: &Value,
    depth: usize,
    analyzer: &mut Analyzer,
    emit: &mut impl FnMut(usize, &str),
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let schema = match schema {
        Value::Array(schemas) => {
            for schema in schemas {
                walk_schema(schema, depth + 1, analyzer, emit);
            }
            return;
        }
        Value::Object(schema) => schema,
        _ => return,
    };
    // One pass over the keys: schemas are walked for every tool of a catalog.
    for (key, value) in schema {
        let mut text = |value: &str, analysis| {
            analyzer.text(value, analysis, &mut |term| emit(PARAMETER_TEXT, term))
        };
        match (key.as_str(), value) {
            ("title" | "description", Value::String(value)) => text(value, Analysis::Prose),
            ("enum", Value::Array(values)) => {
                for value in values {
                    if let Value::String(value) = value {
                        text(value, Analysis::Identifier);
                    }
                }
            }
            ("const", Value::String(value)) if !schema.contains_key("enum") => {
                text(value, Analysis::Identifier)
            }
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties {
                    analyzer.text(name, Analysis::Identifier, &mut |term| {
                        emit(PARAMETER_NAMES, term)
                    });
                    walk_schema(property, depth + 1, analyzer, emit);
                }
            }
            (
                "items" | "prefixItems" | "additionalProperties" | "anyOf" | "oneOf" | "allOf",
                subschema,
            ) => walk_schema(subschema, depth + 1, analyzer, emit),
            ("$defs" | "definitions" | "patternProperties", Value::Object(subschemas)) => {
                for subschema in subschemas.values() {
                    walk_schema(subschema, depth + 1, analyzer, emit);
                }
            }
            _ => {}
        }
    }
}

/// The lookup key of a tool name: its letters and digits, lowercased, so that
/// `list_issues`, `list-issues`, `listIssues` and `list issues` all name `list_issues`.
pub(super) fn name_key(name: &str) -> String {
    let alphanumeric: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    fold(&alphanumeric)
}
