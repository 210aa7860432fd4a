//! Tools as compact TypeScript declarations, from their JSON Schemas: what a script's author
//! (the model) reads instead of the schemas.
//!
//! `declare const tools: { /** What it does. */ get_price(args: { sku: string }): Promise<unknown>; }`:
//! each property's description as a JSDoc comment before it, a typed return for a tool with
//! an output schema. What TypeScript cannot say compactly (formats, bounds, patterns) is left
//! out; the arguments are still validated against the full schema when a script calls.

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::tool::Tool;

/// How deep a type is written out before it is `unknown` (recursive `$ref`s end there).
const MAX_DEPTH: usize = 8;

/// `declare const tools: { ... };` over `tools`, one method per tool, in the order given.
///
/// ```text
/// declare const tools: {
///   /** Uppercases a text. */
///   upper(args: { text: string }): Promise<string>;
/// };
/// ```
pub(crate) fn declare<'t>(tools: impl IntoIterator<Item = &'t Tool>) -> String {
    let mut out = String::from("declare const tools: {\n");
    for tool in tools {
        method(&mut out, tool);
    }
    out.push_str("};");
    out
}

fn method(out: &mut String, tool: &Tool) {
    let description = doc_text(tool.description());
    if !description.is_empty() {
        let _ = writeln!(out, "  /** {description} */");
    }
    let input = tool.input_schema();
    let args = ts_type(input, input, 0);
    let optional = input
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    let returns = match tool.output_schema() {
        Some(output) => ts_type(output, output, 0),
        None => "unknown".to_owned(),
    };
    let _ = writeln!(
        out,
        "  {}(args{}: {args}): Promise<{returns}>;",
        key(tool.name()),
        if optional { "?" } else { "" }
    );
}

/// The TypeScript type of `schema`, whose `$ref`s point into `root`.
fn ts_type(schema: &Value, root: &Value, depth: usize) -> String {
    let Some(object) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => "never".to_owned(),
            _ => "unknown".to_owned(),
        };
    };
    if depth >= MAX_DEPTH {
        return "unknown".to_owned();
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        return match resolve(root, reference) {
            Some(target) => ts_type(target, root, depth + 1),
            None => "unknown".to_owned(),
        };
    }
    if let Some(constant) = object.get("const") {
        return literal(constant);
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return join(values.iter().map(literal), " | ");
    }
    for (keyword, separator) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
        if let Some(schemas) = object.get(keyword).and_then(Value::as_array) {
            return join(
                schemas.iter().map(|s| group(ts_type(s, root, depth + 1))),
                separator,
            );
        }
    }
    match object.get("type") {
        Some(Value::String(kind)) => of_type(kind, object, root, depth),
        Some(Value::Array(kinds)) => join(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| group(of_type(kind, object, root, depth))),
            " | ",
        ),
        _ if object.contains_key("properties") => of_type("object", object, root, depth),
        _ => "unknown".to_owned(),
    }
}

fn of_type(kind: &str, object: &Map<String, Value>, root: &Value, depth: usize) -> String {
    match kind {
        "string" => "string".to_owned(),
        "number" | "integer" => "number".to_owned(),
        "boolean" => "boolean".to_owned(),
        "null" => "null".to_owned(),
        "array" => match object.get("items") {
            Some(items) => format!("{}[]", group(ts_type(items, root, depth + 1))),
            None => "unknown[]".to_owned(),
        },
        "object" => object_type(object, root, depth),
        _ => "unknown".to_owned(),
    }
}

fn object_type(object: &Map<String, Value>, root: &Value, depth: usize) -> String {
    let properties = object.get("properties").and_then(Value::as_object);
    let Some(properties) = properties.filter(|properties| !properties.is_empty()) else {
        return match object.get("additionalProperties") {
            Some(Value::Bool(false)) => "{}".to_owned(),
            Some(values @ Value::Object(_)) => {
                format!("Record<string, {}>", ts_type(values, root, depth + 1))
            }
            _ => "Record<string, unknown>".to_owned(),
        };
    };
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let members = properties.iter().map(|(name, schema)| {
        let doc = schema
            .get("description")
            .and_then(Value::as_str)
            .map(doc_text)
            .filter(|doc| !doc.is_empty())
            .map(|doc| format!("/** {doc} */ "))
            .unwrap_or_default();
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        format!(
            "{doc}{}{optional}: {}",
            key(name),
            ts_type(schema, root, depth + 1)
        )
    });
    format!("{{ {} }}", join(members, "; "))
}

/// The schema `reference` points at within `root`: `#` or a JSON pointer after it.
fn resolve<'r>(root: &'r Value, reference: &str) -> Option<&'r Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// A union member or array element in parentheses when it is itself a union or intersection.
fn group(ts: String) -> String {
    if ts.contains(" | ") || ts.contains(" & ") {
        format!("({ts})")
    } else {
        ts
    }
}

/// A property or method name: bare when it is an identifier, else a quoted string.
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_owned()
    } else {
        quoted(name)
    }
}

/// A value as a TypeScript literal type; strings in single quotes, which the JSON that
/// carries the declarations does not escape (double quotes cost a token more each).
fn literal(value: &Value) -> String {
    match value {
        Value::String(text) => quoted(text),
        other => other.to_string(),
    }
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\'' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A description on one line, unable to close its comment.
fn doc_text(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("*/", "*\\/")
}

fn join(parts: impl Iterator<Item = String>, separator: &str) -> String {
    parts.collect::<Vec<_>>().join(separator)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ts_type;

    fn ts(schema: serde_json::Value) -> String {
        ts_type(&schema, &schema, 0)
    }

    #[test]
    fn objects_list_their_properties_with_docs_and_optionality() {
        let schema = json!({"type": "object", "properties": {
            "city": {"type": "string", "description": "The city."},
            "days": {"type": "integer"},
            "mode-x": {"enum": ["a", "b"]}
        }, "required": ["city"]});
        assert_eq!(
            ts(schema),
            r#"{ /** The city. */ city: string; days?: number; 'mode-x'?: 'a' | 'b' }"#
        );
    }

    #[test]
    fn nullable_arrays_unions_and_refs() {
        assert_eq!(ts(json!({"type": ["string", "null"]})), "string | null");
        assert_eq!(
            ts(
                json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}})
            ),
            "(string | number)[]"
        );
        let schema = json!({"$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
            "$ref": "#/$defs/Node"});
        let written = ts(schema);
        assert!(written.starts_with("{ next?: { next?: "), "{written}");
        assert!(written.contains("unknown"), "{written}");
    }

    #[test]
    fn a_description_cannot_close_its_comment() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string", "description": "x */ y"}}});
        assert_eq!(ts(schema), r#"{ /** x *\/ y */ a?: string }"#);
    }
}
