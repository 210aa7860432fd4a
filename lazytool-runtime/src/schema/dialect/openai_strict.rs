//! OpenAI strict mode (structured outputs): every object closed, every property required.

use serde_json::{Map, Value, json};

use super::{ANY_VALUE, Rewrite, TOO_LARGE, has_map_entries};
use crate::schema::keywords::{copy_counts, copy_keys, copy_numbers, item_schema, required_names};
use crate::schema::root::prepare_root;
use crate::schema::types::schema_types;
use crate::schema::union::{distribute, rename_one_of};
use crate::schema::walk::{MAX_DEPTH, Walk, flatten_all_of, resolve};

/// String formats OpenAI strict mode supports.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Rewrites a tool's JSON Schema for OpenAI strict mode (structured outputs).
///
/// Applied to every schema: the root, properties, `items`, `anyOf` branches and `$defs`:
///
/// * objects get `additionalProperties: false` and list every property in `required` (in
///   property order); a property that was not required becomes nullable (`"type": "x"` turns
///   into `["x", "null"]`, a null is added to its `enum`, an `anyOf` gets a `{"type": "null"}`
///   branch, any other schema is wrapped as `{"anyOf": [schema, {"type": "null"}]}` with its
///   description kept outside); an object without properties gets `"properties": {}` and
///   `"required": []`, so it only accepts `{}`;
/// * `oneOf` becomes `anyOf`; `allOf` is merged into its schema (a reference back into a
///   schema being merged, recursion, stays a `$ref`); constraints beside `anyOf`
///   are pushed into its branches; a `$ref` with keywords beside it becomes
///   `{"anyOf": [{"$ref": ...}]}` carrying the description; `$ref` and `$defs` are otherwise
///   kept;
/// * `format` is kept only for `date-time`, `time`, `date`, `duration`, `email`, `hostname`,
///   `ipv4`, `ipv6` and `uuid`; other keywords strict mode does not know (`default`,
///   `examples`, `minLength`, `maxLength`, `$schema`, `patternProperties`, ...) are dropped;
///   `description`, `title`, `enum`, `const`, `pattern`, `minimum`, `maximum`,
///   `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minItems` and `maxItems` are kept;
/// * a schema that allows any value (`{}`, `true`, no type) becomes the union of string,
///   number, boolean, null and arrays of those (strict mode has no "any").
///
/// The root is made an object schema (a root `$ref` resolved, a root union of objects
/// flattened into one object, anything else that is no object dropped). A rewrite visits at
/// most 10,000 schemas (definitions that share definitions would otherwise be inlined
/// exponentially often); past that the rest becomes "any value".
///
/// ```
/// use lazytool_runtime::schema::dialect::openai_strict;
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "repo": {"type": "string", "minLength": 1},
///         "filter": {
///             "type": "object",
///             "properties": {"since": {"type": "string", "format": "date"}}
///         }
///     },
///     "required": ["repo"]
/// });
/// assert_eq!(
///     openai_strict(&schema),
///     json!({
///         "type": "object",
///         "properties": {
///             "repo": {"type": "string"},
///             "filter": {
///                 "type": ["object", "null"],
///                 "properties": {"since": {"type": ["string", "null"], "format": "date"}},
///                 "required": ["since"],
///                 "additionalProperties": false
///             }
///         },
///         "required": ["repo", "filter"],
///         "additionalProperties": false
///     })
/// );
/// ```
///
/// [`openai_strict_rewrite`] also says what the rewrite could not express.
pub fn openai_strict(schema: &Value) -> Value {
    openai_strict_rewrite(schema).schema
}

/// [`openai_strict`], with what strict mode cannot express: a map (`additionalProperties`
/// that is a schema or `true`, `patternProperties`), since strict mode closes every object
/// (the model could send only the listed properties, or `{}`); a value of any type
/// (`serde_json::Value`, an array without `items`), since strict mode's "any" has no objects;
/// an unresolvable reference; a schema too deep or too large to rewrite. Each loss names its
/// place in `schema`. A tool with losses is better sent without strict mode, which OpenAI
/// takes per function (the OpenAI providers' `render_tools` do so).
///
/// ```
/// use lazytool_runtime::schema::dialect::openai_strict_rewrite;
/// use serde_json::json;
///
/// // `ranges: Option<HashMap<String, Vec<DateRange>>>`, as schemars writes it.
/// let schema = json!({"type": "object", "properties": {"ranges": {
///     "type": ["object", "null"],
///     "additionalProperties": {"type": "array", "items": {"type": "string"}}
/// }}});
/// let rewrite = openai_strict_rewrite(&schema);
/// assert_eq!(rewrite.losses[0].path, "/properties/ranges");
/// assert_eq!(rewrite.schema["properties"]["ranges"]["additionalProperties"], false);
/// ```
pub fn openai_strict_rewrite(schema: &Value) -> Rewrite {
    let root = prepare_root(schema);
    let mut walk = Walk::new(&root);
    let schema = strict_schema(&root, &mut walk, 0);
    Rewrite {
        schema,
        losses: walk.losses,
    }
}

/// The scalar types of the strict-mode "any value" union.
fn strict_scalars() -> Vec<Value> {
    vec![
        json!({"type": "string"}),
        json!({"type": "number"}),
        json!({"type": "boolean"}),
        json!({"type": "null"}),
    ]
}

/// Makes `out` the strict-mode "any value" union.
fn strict_any(out: &mut Map<String, Value>) {
    let mut branches = strict_scalars();
    branches.push(json!({"type": "array", "items": {"anyOf": strict_scalars()}}));
    out.insert("anyOf".to_owned(), Value::Array(branches));
}

fn strict_schema(schema: &Value, walk: &mut Walk<'_>, depth: usize) -> Value {
    let mark = walk.inlined.len();
    let out = strict_inlined(schema, walk, depth, mark);
    walk.inlined.truncate(mark);
    out
}

/// [`strict_schema`] with the references `schema`'s `allOf` inlines kept on `walk.inlined`
/// past `mark`, so that its children see them as recursion.
fn strict_inlined(schema: &Value, walk: &mut Walk<'_>, depth: usize, mark: usize) -> Value {
    let mut out = Map::new();
    let source = match schema {
        Value::Object(source) if depth <= MAX_DEPTH && walk.visit() => source,
        Value::Object(_) => {
            walk.lose(TOO_LARGE);
            strict_any(&mut out);
            return Value::Object(out);
        }
        _ => {
            // `false` accepts nothing: any value instead loosens it, losing nothing.
            if schema != &Value::Bool(false) {
                walk.lose(ANY_VALUE);
            }
            strict_any(&mut out);
            return Value::Object(out);
        }
    };
    // Unlike the other rewrites strict mode keeps `$ref`s (OpenAI resolves them, recursion
    // included); only those inside `allOf` are inlined.
    let mut map = source.clone();
    flatten_all_of(&mut map, walk, mark);
    rename_one_of(&mut map);
    distribute(&mut map);
    let nullable = map.get("nullable") == Some(&Value::Bool(true));

    copy_keys(&map, &mut out, &["description", "title"]);
    let mut definitions = Map::new();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get(key) {
            let defs: Map<String, Value> = defs
                .iter()
                .map(|(name, def)| {
                    let def = walk.at(&[key, name], |walk| strict_schema(def, walk, depth + 1));
                    (name.clone(), def)
                })
                .collect();
            definitions.insert(key.to_owned(), Value::Object(defs));
        }
    }

    if let Some(Value::String(reference)) = map.get("$ref") {
        if resolve(walk.root, reference).is_some() {
            let target = json!({ "$ref": reference });
            if out.is_empty() && definitions.is_empty() {
                return target;
            }
            out.insert("anyOf".to_owned(), json!([target]));
        } else {
            walk.lose(format!(
                "the reference `{reference}` does not resolve: it became any value"
            ));
            strict_any(&mut out);
        }
    } else if let Some(Value::Array(branches)) = map.get("anyOf") {
        if branches.is_empty() {
            strict_any(&mut out);
        } else {
            let branches: Vec<Value> = (branches.iter().enumerate())
                .map(|(index, branch)| {
                    walk.at(&["anyOf", &index.to_string()], |walk| {
                        strict_schema(branch, walk, depth + 1)
                    })
                })
                .collect();
            out.insert("anyOf".to_owned(), Value::Array(branches));
        }
    } else if let Some(mut types) = schema_types(&map) {
        admit_null_only_as_value(&mut map, &mut types);
        let type_value = match types.as_slice() {
            [only] => json!(only),
            _ => json!(types),
        };
        out.insert("type".to_owned(), type_value);
        strict_typed(&map, &types, walk, depth, &mut out);
    } else {
        walk.lose(ANY_VALUE);
        strict_any(&mut out);
    }
    out.extend(definitions);
    let out = Value::Object(out);
    if nullable { strict_nullable(out) } else { out }
}

/// Makes a type that allows null agree with an `enum` or `const` beside it, as strict mode
/// requires: the values decide (`{"type": ["string", "null"], "enum": ["a"]}` only accepts
/// `"a"`, so `null` leaves the type), unless null is the only type left, where the values
/// were unsatisfiable anyway and null joins them.
fn admit_null_only_as_value(map: &mut Map<String, Value>, types: &mut Vec<String>) {
    if !types.iter().any(|t| t == "null") {
        return;
    }
    let enum_excludes_null = map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.contains(&Value::Null));
    let const_excludes_null = map.get("const").is_some_and(|value| !value.is_null());
    if !enum_excludes_null && !const_excludes_null {
        return;
    }
    if types.len() > 1 {
        types.retain(|t| t != "null");
        return;
    }
    if let Some(value) = map.remove("const")
        && !map.contains_key("enum")
    {
        map.insert("enum".to_owned(), json!([value]));
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// The type-specific keywords of a typed schema, rewritten for strict mode.
fn strict_typed(
    map: &Map<String, Value>,
    types: &[String],
    walk: &mut Walk<'_>,
    depth: usize,
    out: &mut Map<String, Value>,
) {
    let has = |name: &str| types.iter().any(|t| t == name);
    if let Some(values @ Value::Array(_)) = map.get("enum") {
        out.insert("enum".to_owned(), values.clone());
    }
    copy_keys(map, out, &["const"]);
    if has("string") {
        if let Some(pattern @ Value::String(_)) = map.get("pattern") {
            out.insert("pattern".to_owned(), pattern.clone());
        }
        if let Some(Value::String(format)) = map.get("format")
            && OPENAI_FORMATS.contains(&format.as_str())
        {
            out.insert("format".to_owned(), json!(format));
        }
    }
    if has("number") || has("integer") {
        copy_numbers(
            map,
            out,
            &[
                "multipleOf",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
            ],
        );
        // Draft 4 spelled exclusive bounds as booleans beside minimum/maximum.
        for (flag, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if map.get(flag) == Some(&Value::Bool(true))
                && let Some(value) = out.remove(bound)
            {
                out.insert(flag.to_owned(), value);
            }
        }
    }
    if has("array") {
        let items = item_schema(map).unwrap_or(Value::Bool(true));
        let items = walk.at(&["items"], |walk| strict_schema(&items, walk, depth + 1));
        out.insert("items".to_owned(), items);
        copy_counts(map, out, &["minItems", "maxItems"]);
    }
    if has("object") {
        let required = required_names(map);
        let mut properties = Map::new();
        let own = map.get("properties").and_then(Value::as_object);
        if has_map_entries(map, depth == 0) {
            walk.lose(if own.is_some_and(|own| !own.is_empty()) {
                "entries beside its properties (`additionalProperties`): strict mode closes every object, so only its properties can be sent"
            } else {
                "an object with arbitrary keys (a map or free-form object): strict mode closes every object, so only `{}` can be sent"
            });
        }
        if let Some(own) = own {
            for (name, property) in own {
                let mut property = walk.at(&["properties", name], |walk| {
                    strict_schema(property, walk, depth + 1)
                });
                if !required.contains(name) {
                    property = strict_nullable(property);
                }
                properties.insert(name.clone(), property);
            }
        }
        let names: Vec<Value> = properties.keys().map(|name| json!(name)).collect();
        out.insert("properties".to_owned(), Value::Object(properties));
        out.insert("required".to_owned(), Value::Array(names));
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

/// Whether a strict-mode schema already allows null.
fn strict_allows_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) if name == "null" => return true,
        Some(Value::Array(names)) if names.iter().any(|n| n == "null") => return true,
        _ => {}
    }
    match schema.get("anyOf") {
        Some(Value::Array(branches)) => branches.iter().any(strict_allows_null),
        _ => false,
    }
}

/// A strict-mode schema that also allows null.
fn strict_nullable(schema: Value) -> Value {
    if strict_allows_null(&schema) {
        return schema;
    }
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    let type_value = match map.get("type") {
        Some(Value::String(name)) => Some(json!([name, "null"])),
        Some(Value::Array(names)) => {
            let mut names = names.clone();
            names.push(json!("null"));
            Some(Value::Array(names))
        }
        _ => None,
    };
    if let Some(type_value) = type_value {
        map.insert("type".to_owned(), type_value);
        if let Some(value) = map.remove("const")
            && !map.contains_key("enum")
        {
            map.insert("enum".to_owned(), json!([value, null]));
        }
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return Value::Object(map);
    }
    let mut outer = Map::new();
    for key in ["description", "title"] {
        if let Some(value) = map.remove(key) {
            outer.insert(key.to_owned(), value);
        }
    }
    outer.insert(
        "anyOf".to_owned(),
        json!([Value::Object(map), {"type": "null"}]),
    );
    Value::Object(outer)
}
