//! What of a tool is indexed: its fields, read from its name, tags, description and schema.

use serde_json::Value;

use super::analysis::{Analysis, fold};
use super::document::SearchDocument;

pub(super) const FIELD_COUNT: usize = 5;

/// How deep the input schema is walked.
pub(super) const MAX_SCHEMA_DEPTH: usize = 8;

/// The fields, as indices into [`FIELD_WEIGHTS`](super::weights::FIELD_WEIGHTS).
pub(super) const NAME: usize = 0;
pub(super) const TAGS: usize = 1;
pub(super) const DESCRIPTION: usize = 2;
pub(super) const PARAMETER_NAMES: usize = 3;
pub(super) const PARAMETER_TEXT: usize = 4;

/// Hands every text of `document` to `emit` with its field and how it is analysed.
pub(super) fn document_texts(
    document: &SearchDocument<'_>,
    emit: &mut impl FnMut(usize, &str, Analysis),
) {
    emit(NAME, document.name, Analysis::Identifier);
    for tag in document.tags {
        emit(TAGS, tag, Analysis::Prose);
    }
    emit(DESCRIPTION, document.description, Analysis::Prose);
    walk_schema(document.input_schema, 0, emit);
}

/// Hands the property names in `schema` to `emit` as [`PARAMETER_NAMES`], and its
/// descriptions, titles and enum values as [`PARAMETER_TEXT`], down to
/// [`MAX_SCHEMA_DEPTH`].
fn walk_schema(schema: &Value, depth: usize, emit: &mut impl FnMut(usize, &str, Analysis)) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let schema = match schema {
        Value::Array(schemas) => {
            for schema in schemas {
                walk_schema(schema, depth + 1, emit);
            }
            return;
        }
        Value::Object(schema) => schema,
        _ => return,
    };
    // One pass over the keys: schemas are walked for every tool of a catalog.
    for (key, value) in schema {
        match (key.as_str(), value) {
            ("title" | "description", Value::String(value)) => {
                emit(PARAMETER_TEXT, value, Analysis::Prose)
            }
            ("enum", Value::Array(values)) => {
                for value in values {
                    if let Value::String(value) = value {
                        emit(PARAMETER_TEXT, value, Analysis::Identifier);
                    }
                }
            }
            ("const", Value::String(value)) if !schema.contains_key("enum") => {
                emit(PARAMETER_TEXT, value, Analysis::Identifier)
            }
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties {
                    emit(PARAMETER_NAMES, name, Analysis::Identifier);
                    walk_schema(property, depth + 1, emit);
                }
            }
            (
                "items" | "prefixItems" | "additionalProperties" | "anyOf" | "oneOf" | "allOf",
                subschema,
            ) => walk_schema(subschema, depth + 1, emit),
            ("$defs" | "definitions" | "patternProperties", Value::Object(subschemas)) => {
                for subschema in subschemas.values() {
                    walk_schema(subschema, depth + 1, emit);
                }
            }
            _ => {}
        }
    }
}

/// The lookup key of a tool name: its letters and digits, lowercased, so that
/// `list_issues`, `list-issues`, `listIssues` and `list issues` all name `list_issues`.
pub(super) fn name_key(name: &str) -> String {
    if name.is_ascii() {
        return name
            .bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|byte| char::from(byte.to_ascii_lowercase()))
            .collect();
    }
    let alphanumeric: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    fold(&alphanumeric)
}
