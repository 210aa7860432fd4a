//! JSON Schema dialects: rewriting a tool's canonical JSON Schema into the subsets that some
//! provider fields accept, and checking that a schema stays inside such a subset.
//!
//! * [`openai_strict`] / [`check_openai_strict`]: OpenAI structured outputs, used when a tool is
//!   sent with `"strict": true`. Every object closes (`additionalProperties: false`) and lists
//!   all its properties in `required`; optional properties become nullable instead, so a strict
//!   model sends `null` where the canonical schema would have it leave the property out
//!   ([`strip_strict_nulls`] undoes that before the arguments are checked against the canonical
//!   schema).
//! * [`gemini_openapi`] / [`check_gemini_openapi`]: the OpenAPI 3.0 subset of Gemini's
//!   `parameters` field (its `parametersJsonSchema` field takes JSON Schema as-is).
//!
//! The rewrites never fail: what a dialect cannot say is relaxed (an unsupported `format`
//! dropped, an arbitrary value turned into a union of scalars) or, for Gemini, left out (see
//! [`gemini_openapi`]).

use serde_json::{Map, Value, json};

use super::join;

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

/// Every keyword a schema may use in OpenAI strict mode.
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Every field of Gemini's `Schema` object (an OpenAPI 3.0 subset).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// String formats Gemini's Developer API accepts.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Number formats Gemini accepts.
const GEMINI_NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// The JSON Schema type names.
const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// Keywords that annotate a schema rather than constrain it: they stay on the outer schema when
/// its constraints are pushed into `anyOf` branches.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "nullable",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// How deep the rewrites follow nested schemas and references.
const MAX_DEPTH: usize = 64;

/// How many schemas one rewrite (or one expansion) may visit. Inlining references that share
/// or nest definitions grows exponentially with the nesting (`A` using `B` twice, `B` using
/// `C` twice, ...); past this budget the rest is cut as if unresolvable. Real tool schemas
/// stay far below it (the largest of the shared GitHub catalog visits under 100).
const MAX_VISITS: usize = 10_000;

// ---------------------------------------------------------------------------------------------
// Shared preparation
// ---------------------------------------------------------------------------------------------

/// The schema a local reference (`#`, `#/$defs/X`, any `#/json/pointer`) points to.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

/// The state of one rewrite: the document references resolve in, the references inlined on
/// the path from the root to the schema being rewritten, and what is left of the budget.
struct Walk<'a> {
    root: &'a Value,
    inlined: Vec<String>,
    visits_left: usize,
}

impl<'a> Walk<'a> {
    fn new(root: &'a Value) -> Self {
        Self {
            root,
            inlined: Vec::new(),
            visits_left: MAX_VISITS,
        }
    }

    /// Counts one visit; `false` once the budget is spent or the inlining is too deep.
    fn visit(&mut self) -> bool {
        if self.visits_left == 0 || self.inlined.len() > MAX_DEPTH {
            return false;
        }
        self.visits_left -= 1;
        true
    }
}

/// Merges `source` into `target`: `properties` and `required` are united, other keywords
/// only filled in where `target` lacks them.
fn merge_into(target: &mut Map<String, Value>, source: &Map<String, Value>) {
    for (key, value) in source {
        match (key.as_str(), target.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    if !mine.contains_key(name) {
                        mine.insert(name.clone(), schema.clone());
                    }
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, _) => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
}

/// `top` laid over `base`: `properties` and `required` are united (`base`'s first), other
/// keywords of `top` replace those of `base`.
fn layer(base: &Map<String, Value>, top: &Map<String, Value>) -> Map<String, Value> {
    let mut out = base.clone();
    for (key, value) in top {
        match (key.as_str(), out.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// `schema` as a map with its top-level `$ref` resolved (its own keywords winning) and its
/// `allOf` merged in; `None` for a boolean schema or once the budget is spent.
///
/// The references it inlines are pushed onto `walk.inlined`; the caller truncates it back to
/// `mark` once it is done with the schema's children. A reference inlined before `mark` (by an
/// enclosing schema: recursion) is left in place as `$ref`; one already inlined into this
/// schema is merged only once.
fn expand(schema: &Value, walk: &mut Walk<'_>, mark: usize) -> Option<Map<String, Value>> {
    if !walk.visit() {
        return None;
    }
    let mut map = schema.as_object()?.clone();
    if let Some(Value::String(reference)) = map.get("$ref").cloned() {
        let root = walk.root;
        if walk.inlined[mark..].contains(&reference) {
            map.remove("$ref");
        } else if !walk.inlined[..mark].contains(&reference) {
            match resolve(root, &reference) {
                Some(Value::Bool(true)) => {
                    map.remove("$ref");
                }
                Some(target @ Value::Object(_)) => {
                    walk.inlined.push(reference);
                    if let Some(target) = expand(target, walk, mark) {
                        map.remove("$ref");
                        merge_into(&mut map, &target);
                    }
                }
                _ => {}
            }
        }
    }
    flatten_all_of(&mut map, walk, mark);
    Some(map)
}

/// [`expand`] on its own: references are followed afresh, only cycles within this one
/// expansion are cut.
fn expand_alone(schema: &Value, root: &Value) -> Option<Map<String, Value>> {
    expand(schema, &mut Walk::new(root), 0)
}

/// Replaces `allOf` by merging its branches into the schema (see [`expand`] for `mark`).
fn flatten_all_of(map: &mut Map<String, Value>, walk: &mut Walk<'_>, mark: usize) {
    let Some(all_of) = map.remove("allOf") else {
        return;
    };
    for branch in all_of.as_array().into_iter().flatten() {
        if let Some(branch) = expand(branch, walk, mark) {
            merge_into(map, &branch);
        }
    }
}

/// `oneOf` becomes `anyOf` (neither dialect has `oneOf`); with both present `anyOf` wins.
fn rename_one_of(map: &mut Map<String, Value>) {
    if let Some(one_of) = map.remove("oneOf")
        && !map.contains_key("anyOf")
    {
        map.insert("anyOf".to_owned(), one_of);
    }
}

/// Whether a schema only allows `null`.
fn is_null_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) => name == "null",
        Some(Value::Array(names)) => matches!(names.as_slice(), [only] if only == "null"),
        _ => false,
    }
}

/// Pushes the constraints sitting beside `anyOf` (`{"type": "object", "anyOf": [...]}`) into
/// every non-null branch, so that only annotations stay beside `anyOf`.
fn distribute(map: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return;
    };
    let shared: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| key.as_str() != "anyOf" && !ANNOTATIONS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if shared.is_empty() {
        return;
    }
    let branches: Vec<Value> = branches
        .iter()
        .map(|branch| match branch {
            Value::Object(_) if is_null_schema(branch) => branch.clone(),
            Value::Object(own) => Value::Object(layer(&shared, own)),
            Value::Bool(true) => Value::Object(shared.clone()),
            other => other.clone(),
        })
        .collect();
    for key in shared.keys() {
        map.remove(key);
    }
    map.insert("anyOf".to_owned(), Value::Array(branches));
}

/// Whether a schema map describes objects.
fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(name)) => name == "object",
        None => map.contains_key("properties"),
        _ => false,
    }
}

/// The root of a tool schema made into one object schema: a root `$ref` is resolved, `allOf`
/// merged, and a root union of object schemas (a null branch aside) flattened into one object
/// whose properties are all the branches' properties and whose required properties are those
/// every branch requires. Whatever still keeps the root from being an object schema (a union
/// of other schemas, an unresolvable or recursive `$ref`, another or a nullable type) is
/// dropped: a tool's arguments are always an object.
fn prepare_root(schema: &Value) -> Value {
    let Some(mut map) = expand(schema, &mut Walk::new(schema), 0) else {
        return json!({"type": "object", "properties": {}});
    };
    rename_one_of(&mut map);
    if let Some(flat) = flatten_object_union(&map, schema) {
        map = flat;
    }
    for key in ["anyOf", "$ref", "nullable", "enum", "const"] {
        map.remove(key);
    }
    map.insert("type".to_owned(), json!("object"));
    Value::Object(map)
}

/// A schema whose `anyOf` branches (a null branch aside) are all object schemas, as one
/// object schema (see [`prepare_root`]); `None` for any other schema.
fn flatten_object_union(map: &Map<String, Value>, root: &Value) -> Option<Map<String, Value>> {
    let mut map = map.clone();
    distribute(&mut map);
    let Some(Value::Array(branches)) = map.remove("anyOf") else {
        return None;
    };
    let expanded = branches
        .iter()
        .filter(|branch| !is_null_schema(branch))
        .map(|branch| expand_alone(branch, root))
        .collect::<Option<Vec<_>>>()?;
    if expanded.is_empty() || !expanded.iter().all(is_object_schema) {
        return None;
    }
    let mut properties = Map::new();
    let mut required: Option<Vec<Value>> = None;
    for branch in &expanded {
        if let Some(Value::Object(own)) = branch.get("properties") {
            for (name, property) in own {
                if !properties.contains_key(name) {
                    properties.insert(name.clone(), property.clone());
                }
            }
        }
        let own: Vec<Value> = match branch.get("required") {
            Some(Value::Array(names)) => names.clone(),
            _ => Vec::new(),
        };
        required = Some(match required {
            None => own,
            Some(so_far) => so_far.into_iter().filter(|n| own.contains(n)).collect(),
        });
    }
    map.insert("properties".to_owned(), Value::Object(properties));
    map.insert(
        "required".to_owned(),
        Value::Array(required.unwrap_or_default()),
    );
    Some(map)
}

/// The JSON type of a value, as a schema type name.
fn value_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The types a schema map allows: its `type` (a name or an array of names), else inferred
/// from its shape (`properties`, `items`, `enum`, `const`); `None` when it says nothing about
/// the type (any value).
fn schema_types(map: &Map<String, Value>) -> Option<Vec<String>> {
    fn add(types: &mut Vec<String>, name: &str) {
        if JSON_TYPES.contains(&name) && !types.iter().any(|t| t == name) {
            types.push(name.to_owned());
        }
    }
    let mut types: Vec<String> = Vec::new();
    match map.get("type") {
        Some(Value::String(name)) => add(&mut types, name),
        Some(Value::Array(names)) => {
            for name in names.iter().filter_map(Value::as_str) {
                add(&mut types, name);
            }
        }
        _ => {}
    }
    if types.is_empty() {
        if ["properties", "additionalProperties", "required"]
            .iter()
            .any(|key| map.contains_key(*key))
        {
            add(&mut types, "object");
        } else if ["items", "prefixItems"]
            .iter()
            .any(|key| map.contains_key(*key))
        {
            add(&mut types, "array");
        } else if let Some(Value::Array(values)) = map.get("enum") {
            for value in values {
                add(&mut types, value_type(value));
            }
        } else if let Some(value) = map.get("const") {
            add(&mut types, value_type(value));
        }
        if types.iter().any(|t| t == "number") {
            types.retain(|t| t != "integer");
        }
    }
    (!types.is_empty()).then_some(types)
}

/// Copies `keys` of `from` that are present into `to`.
fn copy_keys(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// Copies `keys` of `from` that hold numbers.
fn copy_numbers(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value @ Value::Number(_)) = from.get(*key) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// Copies `keys` of `from` that hold non-negative integers.
fn copy_counts(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key).filter(|value| value.is_u64()) {
            to.insert((*key).to_owned(), value.clone());
        }
    }
}

/// The item schema of an array schema: `items`, a tuple (`items` as an array, or
/// `prefixItems`) as the union of its members, or `None` when unconstrained.
fn item_schema(map: &Map<String, Value>) -> Option<Value> {
    match map.get("items") {
        Some(Value::Array(tuple)) => Some(json!({ "anyOf": tuple })),
        Some(items) => Some(items.clone()),
        None => match map.get("prefixItems") {
            Some(Value::Array(tuple)) => Some(json!({ "anyOf": tuple })),
            _ => None,
        },
    }
}

/// The names in `required`.
fn required_names(map: &Map<String, Value>) -> Vec<String> {
    match map.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// A check failure at `path` (shown as a `#`-rooted JSON pointer).
fn failure(path: &str, message: impl std::fmt::Display) -> String {
    format!("#{path}: {message}")
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict
// ---------------------------------------------------------------------------------------------

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
/// exponentially often); past that the rest becomes "any value". The result passes
/// [`check_openai_strict`].
pub fn openai_strict(schema: &Value) -> Value {
    let root = prepare_root(schema);
    strict_schema(&root, &mut Walk::new(&root), 0)
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
        _ => {
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
                .map(|(name, def)| (name.clone(), strict_schema(def, walk, depth + 1)))
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
            strict_any(&mut out);
        }
    } else if let Some(Value::Array(branches)) = map.get("anyOf") {
        if branches.is_empty() {
            strict_any(&mut out);
        } else {
            let branches: Vec<Value> = branches
                .iter()
                .map(|branch| strict_schema(branch, walk, depth + 1))
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
        let items = match item_schema(map) {
            Some(items) => strict_schema(&items, walk, depth + 1),
            None => strict_schema(&Value::Bool(true), walk, depth + 1),
        };
        out.insert("items".to_owned(), items);
        copy_counts(map, out, &["minItems", "maxItems"]);
    }
    if has("object") {
        let required = required_names(map);
        let mut properties = Map::new();
        if let Some(Value::Object(own)) = map.get("properties") {
            for (name, property) in own {
                let mut property = strict_schema(property, walk, depth + 1);
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

/// Checks that a schema obeys OpenAI strict mode, as [`openai_strict`] produces it.
///
/// The root must be an object schema; every schema is either a lone `$ref` (resolving inside
/// the schema), an `anyOf` (with only `description`/`title`/`$defs` beside it), or has a
/// `type`; only strict-mode keywords appear; objects list every property in `required` and
/// have `additionalProperties: false`; arrays have `items`; `format` is a supported one; a
/// nullable `enum` lists null. The error names the first violating schema by its path
/// (`#/properties/x/anyOf/0`).
pub fn check_openai_strict(schema: &Value) -> Result<(), String> {
    match schema.get("type") {
        Some(Value::String(name)) if name == "object" => {}
        _ => {
            return Err(failure(
                "",
                "the root must be an object schema (\"type\": \"object\")",
            ));
        }
    }
    check_strict(schema, schema, "")
}

fn check_strict(schema: &Value, root: &Value, path: &str) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(failure(path, "expected a schema object"));
    };
    if let Some(key) = map
        .keys()
        .find(|key| !OPENAI_KEYWORDS.contains(&key.as_str()))
    {
        return Err(failure(
            path,
            format!("keyword `{key}` is not supported in strict mode"),
        ));
    }
    for key in ["$defs", "definitions"] {
        if let Some(defs) = map.get(key) {
            let Some(defs) = defs.as_object() else {
                return Err(failure(&join(path, key), "expected an object of schemas"));
            };
            for (name, def) in defs {
                check_strict(def, root, &join(&join(path, key), name))?;
            }
        }
    }
    if let Some(reference) = map.get("$ref") {
        let Some(reference) = reference.as_str() else {
            return Err(failure(path, "`$ref` must be a string"));
        };
        if let Some(key) = map.keys().find(|key| key.as_str() != "$ref") {
            return Err(failure(
                path,
                format!("`$ref` must stand alone, found `{key}` beside it"),
            ));
        }
        if resolve(root, reference).is_none() {
            return Err(failure(
                path,
                format!("`$ref` {reference} does not resolve inside the schema"),
            ));
        }
        return Ok(());
    }
    if let Some(any_of) = map.get("anyOf") {
        let Some(branches) = any_of.as_array().filter(|b| !b.is_empty()) else {
            return Err(failure(path, "`anyOf` must be a non-empty array"));
        };
        if let Some(key) = map.keys().find(|key| {
            !["anyOf", "description", "title", "$defs", "definitions"].contains(&key.as_str())
        }) {
            return Err(failure(
                path,
                format!("`{key}` beside `anyOf` (constraints belong in the branches)"),
            ));
        }
        for (index, branch) in branches.iter().enumerate() {
            check_strict(branch, root, &join(&join(path, "anyOf"), index))?;
        }
        return Ok(());
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) if !names.is_empty() => {
            let mut types = Vec::new();
            for name in names {
                match name.as_str() {
                    Some(name) if !types.contains(&name) => types.push(name),
                    _ => {
                        return Err(failure(path, "`type` must list distinct type names"));
                    }
                }
            }
            types
        }
        _ => {
            return Err(failure(
                path,
                "every schema needs a `type`, an `anyOf` or a `$ref`",
            ));
        }
    };
    if let Some(name) = types.iter().find(|name| !JSON_TYPES.contains(name)) {
        return Err(failure(path, format!("unknown type `{name}`")));
    }
    let has = |name: &str| types.contains(&name);

    if has("object") {
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            return Err(failure(path, "an object schema needs `properties`"));
        };
        let Some(required) = map.get("required").and_then(Value::as_array) else {
            return Err(failure(path, "an object schema needs `required`"));
        };
        let mut names = Vec::new();
        for name in required {
            let Some(name) = name.as_str() else {
                return Err(failure(path, "`required` must list strings"));
            };
            if !properties.contains_key(name) {
                return Err(failure(
                    path,
                    format!("`required` lists `{name}`, which is not a property"),
                ));
            }
            names.push(name);
        }
        if let Some(name) = properties
            .keys()
            .find(|name| !names.contains(&name.as_str()))
        {
            return Err(failure(
                path,
                format!("property `{name}` is not listed in `required`"),
            ));
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(failure(path, "`additionalProperties` must be false"));
        }
        for (name, property) in properties {
            check_strict(property, root, &join(&join(path, "properties"), name))?;
        }
    } else if let Some(key) = ["properties", "required", "additionalProperties"]
        .iter()
        .find(|key| map.contains_key(**key))
    {
        return Err(failure(path, format!("`{key}` on a non-object schema")));
    }

    if has("array") {
        let Some(items) = map.get("items") else {
            return Err(failure(path, "an array schema needs `items`"));
        };
        check_strict(items, root, &join(path, "items"))?;
    } else if map.contains_key("items") {
        return Err(failure(path, "`items` on a non-array schema"));
    }

    if let Some(format) = map.get("format") {
        match format.as_str() {
            Some(format) if has("string") && OPENAI_FORMATS.contains(&format) => {}
            _ => {
                return Err(failure(
                    path,
                    format!("`format` {format} is not supported in strict mode"),
                ));
            }
        }
    }
    if let Some(values) = map.get("enum") {
        let Some(values) = values.as_array().filter(|v| !v.is_empty()) else {
            return Err(failure(path, "`enum` must be a non-empty array"));
        };
        if has("null") && !values.contains(&Value::Null) {
            return Err(failure(path, "a nullable `enum` must list null"));
        }
    }
    if let Some(value) = map.get("const")
        && has("null")
        && types.len() > 1
        && !value.is_null()
    {
        return Err(failure(
            path,
            "a nullable schema cannot have a non-null `const`",
        ));
    }
    for key in [
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    ] {
        if map.get(key).is_some_and(|value| !value.is_number()) {
            return Err(failure(path, format!("`{key}` must be a number")));
        }
    }
    for key in ["minItems", "maxItems"] {
        if map.get(key).is_some_and(|value| !value.is_u64()) {
            return Err(failure(
                path,
                format!("`{key}` must be a non-negative integer"),
            ));
        }
    }
    if map.get("pattern").is_some_and(|value| !value.is_string()) {
        return Err(failure(path, "`pattern` must be a string"));
    }
    Ok(())
}

/// Removes the `null`s a strict-mode model sends for properties the canonical schema left
/// optional, so the arguments validate against the canonical (`original`) schema again.
///
/// A null member is removed when its property is not required and its canonical schema does
/// not allow null; everything else is kept. Follows properties, `items`, local `$ref`s,
/// `allOf`, and of `anyOf`/`oneOf` the one non-null branch or, for an object value, the first
/// object branch that declares all its non-null members. OpenAI Chat sends arguments as a JSON
/// string: parse it first.
pub fn strip_strict_nulls(original: &Value, arguments: &Value) -> Value {
    strip_nulls(original, original, arguments, 0)
}

/// Whether a canonical schema allows null.
fn allows_null(schema: &Value, walk: &mut Walk<'_>, depth: usize) -> bool {
    let mark = walk.inlined.len();
    let map = expand(schema, walk, mark).filter(|_| depth <= MAX_DEPTH);
    walk.inlined.truncate(mark);
    let Some(map) = map else {
        return schema != &Value::Bool(false);
    };
    if map.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return branches
                .iter()
                .any(|branch| allows_null(branch, walk, depth + 1));
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = map.get("const") {
        return value.is_null();
    }
    match schema_types(&map) {
        Some(types) => types.iter().any(|t| t == "null"),
        None => true,
    }
}

fn strip_nulls(root: &Value, schema: &Value, value: &Value, depth: usize) -> Value {
    let Some(mut map) = expand_alone(schema, root).filter(|_| depth <= MAX_DEPTH) else {
        return value.clone();
    };
    rename_one_of(&mut map);
    let branches: Vec<Map<String, Value>> = match map.get("anyOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .filter(|branch| !is_null_schema(branch))
            .filter_map(|branch| expand_alone(branch, root))
            .collect(),
        _ => Vec::new(),
    };
    match value {
        Value::Object(members) => {
            let shape = if map.contains_key("properties") || branches.is_empty() {
                Some(&map)
            } else if branches.len() == 1 {
                branches.first()
            } else {
                branches.iter().find(|branch| {
                    let declared = branch.get("properties").and_then(Value::as_object);
                    declared.is_some_and(|declared| {
                        members
                            .iter()
                            .all(|(name, member)| member.is_null() || declared.contains_key(name))
                    })
                })
            };
            let Some(shape) = shape else {
                return value.clone();
            };
            let required = required_names(shape);
            let declared = shape.get("properties").and_then(Value::as_object);
            let mut kept = Map::new();
            for (name, member) in members {
                let property = declared.and_then(|declared| declared.get(name));
                if member.is_null()
                    && !required.contains(name)
                    && property.is_some_and(|p| !allows_null(p, &mut Walk::new(root), 0))
                {
                    continue;
                }
                let member = match property {
                    Some(property) => strip_nulls(root, property, member, depth + 1),
                    None => member.clone(),
                };
                kept.insert(name.clone(), member);
            }
            Value::Object(kept)
        }
        Value::Array(elements) => {
            let items = item_schema(&map).or_else(|| match branches.as_slice() {
                [only] => item_schema(only),
                _ => None,
            });
            match items {
                Some(items) => Value::Array(
                    elements
                        .iter()
                        .map(|element| strip_nulls(root, &items, element, depth + 1))
                        .collect(),
                ),
                None => value.clone(),
            }
        }
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini OpenAPI
// ---------------------------------------------------------------------------------------------

/// Rewrites a tool's JSON Schema into the OpenAPI 3.0 subset of Gemini's `parameters` field.
///
/// * local `$ref`s are inlined (the referring schema's own keywords winning); a reference back
///   into a schema that is being inlined (recursion) is cut;
/// * `["x", "null"]` types become `"type": "x", "nullable": true`; several non-null types
///   become an `anyOf` of one schema per type; an `anyOf` branch `{"type": "null"}` becomes
///   `nullable: true` on the rest, and a single remaining branch is inlined; `oneOf` becomes
///   `anyOf`; `allOf` is merged; constraints beside `anyOf` are pushed into its branches;
/// * `const` becomes a one-value `enum` for strings, `minimum` = `maximum` for numbers;
///   `enum` is kept for strings only (other values are listed in the description);
///   numeric `exclusiveMinimum`/`exclusiveMaximum` are folded into `minimum`/`maximum` (plus
///   one for integers); `format` is kept for `enum`/`date-time` strings and
///   `int32`/`int64`/`float`/`double` numbers; keywords outside Gemini's `Schema`
///   (`additionalProperties`, `$schema`, `$defs`, `examples`, ...) are dropped; `default`,
///   `title`, `example`, `pattern`, lengths and bounds are kept;
/// * a schema that allows any value becomes the union of nullable string, number, boolean
///   and arrays of those.
///
/// Gemini rejects an object schema without properties and an array without `items`. A
/// property whose schema cannot be expressed (a free-form object, an object whose properties
/// all dropped out, a cut recursive reference, an array of any of those) is therefore left
/// out of its parent, and out of `required`; an `anyOf` branch likewise. The root is always
/// an object schema and may end up with no properties: send such a tool without
/// `parameters` (as [`gemini::render_tools`](super::gemini::render_tools) does). The result
/// passes [`check_gemini_openapi`].
pub fn gemini_openapi(schema: &Value) -> Value {
    let root = prepare_root(schema);
    match gemini_schema(&root, &mut Walk::new(&root), 0, true) {
        Some(Value::Object(map)) if map.get("type") == Some(&json!("object")) => Value::Object(map),
        _ => {
            let mut map = Map::new();
            if let Value::Object(source) = &root {
                copy_keys(source, &mut map, &["description", "title"]);
            }
            map.insert("type".to_owned(), json!("object"));
            map.insert("properties".to_owned(), json!({}));
            Value::Object(map)
        }
    }
}

/// The nullable scalar types of the Gemini "any value" union.
fn gemini_scalars() -> Vec<Value> {
    vec![
        json!({"type": "string", "nullable": true}),
        json!({"type": "number", "nullable": true}),
        json!({"type": "boolean", "nullable": true}),
    ]
}

/// The Gemini "any value" union.
fn gemini_any() -> Map<String, Value> {
    let mut branches = gemini_scalars();
    branches.push(json!({"type": "array", "nullable": true, "items": {"anyOf": gemini_scalars()}}));
    let mut map = Map::new();
    map.insert("anyOf".to_owned(), Value::Array(branches));
    map
}

/// One schema out of alternatives: none is `None`, one is itself, more an `anyOf`.
fn gemini_union(mut branches: Vec<Value>) -> Option<Map<String, Value>> {
    match branches.len() {
        0 => None,
        1 => match branches.pop() {
            Some(Value::Object(map)) => Some(map),
            _ => None,
        },
        _ => {
            let mut map = Map::new();
            map.insert("anyOf".to_owned(), Value::Array(branches));
            Some(map)
        }
    }
}

/// Marks a Gemini schema nullable (every branch of an `anyOf`).
fn gemini_set_nullable(map: &mut Map<String, Value>) {
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for branch in branches {
            if let Value::Object(branch) = branch {
                branch.insert("nullable".to_owned(), Value::Bool(true));
            }
        }
    } else {
        map.insert("nullable".to_owned(), Value::Bool(true));
    }
}

/// Lists values in a description note.
fn values_note(values: &[Value]) -> String {
    let listed: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("Allowed values: {}.", listed.join(", "))
}

fn gemini_schema(
    schema: &Value,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
) -> Option<Value> {
    let mark = walk.inlined.len();
    let out = gemini_inlined(schema, walk, depth, is_root, mark);
    walk.inlined.truncate(mark);
    out
}

/// [`gemini_schema`] with the references `schema` inlines kept on `walk.inlined` past `mark`,
/// so that its children see them as recursion.
fn gemini_inlined(
    schema: &Value,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
    mark: usize,
) -> Option<Value> {
    if schema == &Value::Bool(false) || depth > MAX_DEPTH {
        return None;
    }
    if !schema.is_object() {
        return Some(Value::Object(gemini_any()));
    }
    let mut map = expand(schema, walk, mark)?;
    if map.contains_key("$ref") {
        // Recursion (cut here) or a reference that does not resolve.
        return None;
    }
    rename_one_of(&mut map);
    distribute(&mut map);
    let mut nullable = map.get("nullable") == Some(&Value::Bool(true));

    let mut out = Map::new();
    copy_keys(
        &map,
        &mut out,
        &["description", "title", "default", "example"],
    );
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && values.contains(&Value::Null)
    {
        values.retain(|value| !value.is_null());
        nullable = true;
    }

    let body = if let Some(Value::Array(branches)) = map.get("anyOf") {
        let mut kept = Vec::new();
        for branch in branches {
            if is_null_schema(branch) {
                nullable = true;
            } else if let Some(branch) = gemini_schema(branch, walk, depth + 1, false) {
                kept.push(branch);
            }
        }
        gemini_union(kept)?
    } else if let Some(mut types) = schema_types(&map) {
        if types.iter().any(|t| t == "null") {
            nullable = true;
            types.retain(|t| t != "null");
        }
        let mut notes = Vec::new();
        let mut parts = Vec::new();
        for name in &types {
            if let Some(part) = gemini_typed(&map, name, walk, depth, is_root, &mut notes) {
                parts.push(Value::Object(part));
            }
        }
        if !notes.is_empty() {
            let mut text = out
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            for note in notes {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&note);
            }
            out.insert("description".to_owned(), Value::String(text));
        }
        gemini_union(parts)?
    } else {
        gemini_any()
    };
    for (key, value) in body {
        if !out.contains_key(&key) {
            out.insert(key, value);
        }
    }
    if nullable {
        gemini_set_nullable(&mut out);
    }
    Some(Value::Object(out))
}

/// The schema of one type out of a (possibly multi-typed) schema map, with the keywords that
/// apply to that type; `None` when Gemini cannot express it.
fn gemini_typed(
    map: &Map<String, Value>,
    name: &str,
    walk: &mut Walk<'_>,
    depth: usize,
    is_root: bool,
    notes: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    out.insert("type".to_owned(), json!(name));
    let values: Option<Vec<Value>> = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (None, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    };
    // The values of this type (an integer is a number too); `None` when there are none.
    let values = values
        .map(|values| {
            values
                .into_iter()
                .filter(|value| {
                    let kind = value_type(value);
                    kind == name || name == "number" && kind == "integer"
                })
                .collect::<Vec<_>>()
        })
        .filter(|values| !values.is_empty());
    match name {
        "string" => {
            if let Some(values) = values {
                out.insert("enum".to_owned(), Value::Array(values));
            }
            if let Some(Value::String(format)) = map.get("format")
                && GEMINI_STRING_FORMATS.contains(&format.as_str())
            {
                out.insert("format".to_owned(), json!(format));
            }
            copy_counts(map, &mut out, &["minLength", "maxLength"]);
            if let Some(pattern @ Value::String(_)) = map.get("pattern") {
                out.insert("pattern".to_owned(), pattern.clone());
            }
        }
        "number" | "integer" => {
            if let Some(Value::String(format)) = map.get("format")
                && GEMINI_NUMBER_FORMATS.contains(&format.as_str())
            {
                out.insert("format".to_owned(), json!(format));
            }
            copy_numbers(map, &mut out, &["minimum", "maximum"]);
            fold_exclusive(map, name == "integer", &mut out);
            match values.as_deref() {
                Some([only]) => {
                    out.insert("minimum".to_owned(), only.clone());
                    out.insert("maximum".to_owned(), only.clone());
                }
                Some(values) => notes.push(values_note(values)),
                None => {}
            }
        }
        "boolean" => {
            if let Some(values) = values {
                notes.push(values_note(&values));
            }
        }
        "array" => {
            let items = match item_schema(map) {
                Some(items) => gemini_schema(&items, walk, depth + 1, false)?,
                None => Value::Object(gemini_any()),
            };
            out.insert("items".to_owned(), items);
            copy_counts(map, &mut out, &["minItems", "maxItems"]);
        }
        "object" => {
            let mut properties = Map::new();
            if let Some(Value::Object(own)) = map.get("properties") {
                for (property, schema) in own {
                    if let Some(schema) = gemini_schema(schema, walk, depth + 1, false) {
                        properties.insert(property.clone(), schema);
                    }
                }
            }
            if properties.is_empty() && !is_root {
                return None;
            }
            let required: Vec<Value> = required_names(map)
                .into_iter()
                .filter(|property| properties.contains_key(property))
                .map(Value::String)
                .collect();
            out.insert("properties".to_owned(), Value::Object(properties));
            if !required.is_empty() {
                out.insert("required".to_owned(), Value::Array(required));
            }
            copy_counts(map, &mut out, &["minProperties", "maxProperties"]);
        }
        _ => return None,
    }
    Some(out)
}

/// Folds `exclusiveMinimum`/`exclusiveMaximum` (numbers, JSON Schema 2020-12; or draft 4
/// booleans) into `minimum`/`maximum`.
fn fold_exclusive(map: &Map<String, Value>, integer: bool, out: &mut Map<String, Value>) {
    for (exclusive, bound, step, tighter) in [
        ("exclusiveMinimum", "minimum", 1_i64, true),
        ("exclusiveMaximum", "maximum", -1_i64, false),
    ] {
        let limit = match map.get(exclusive) {
            Some(Value::Number(limit)) => Some(limit.clone()),
            Some(Value::Bool(true)) => match out.get(bound) {
                Some(Value::Number(limit)) => Some(limit.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(limit) = limit else {
            continue;
        };
        let limit = match limit.as_i64() {
            Some(whole) if integer => json!(whole.saturating_add(step)),
            _ => Value::Number(limit),
        };
        let keep_existing = match (out.get(bound).and_then(Value::as_f64), limit.as_f64()) {
            (Some(existing), Some(new)) => {
                if tighter {
                    existing > new
                } else {
                    existing < new
                }
            }
            _ => false,
        };
        if !keep_existing {
            out.insert(bound.to_owned(), limit);
        }
    }
}

/// Checks that a schema obeys Gemini's OpenAPI `parameters` subset, as [`gemini_openapi`]
/// produces it.
///
/// The root must be an object schema (it alone may have no properties); every schema has a
/// single `type` (string, number, integer, boolean, array, object) or an `anyOf` with only
/// annotations beside it; only Gemini `Schema` fields appear; objects other than the root
/// have properties and `required` names only those; arrays have `items`; `enum` lists strings
/// on a string schema; `format` fits its type. The error names the first violating schema by
/// its path (`#/properties/x/items`).
pub fn check_gemini_openapi(schema: &Value) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some(name) if name.eq_ignore_ascii_case("object") => {}
        _ => {
            return Err(failure(
                "",
                "the root must be an object schema (\"type\": \"object\")",
            ));
        }
    }
    check_gemini(schema, "", true)
}

fn check_gemini(schema: &Value, path: &str, is_root: bool) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(failure(path, "expected a schema object"));
    };
    if let Some(key) = map
        .keys()
        .find(|key| !GEMINI_KEYWORDS.contains(&key.as_str()))
    {
        return Err(failure(
            path,
            format!("`{key}` is not a field of Gemini's Schema"),
        ));
    }
    if map.get("nullable").is_some_and(|value| !value.is_boolean()) {
        return Err(failure(path, "`nullable` must be a boolean"));
    }
    if let Some(any_of) = map.get("anyOf") {
        let Some(branches) = any_of.as_array().filter(|b| !b.is_empty()) else {
            return Err(failure(path, "`anyOf` must be a non-empty array"));
        };
        if let Some(key) = map.keys().find(|key| {
            ![
                "anyOf",
                "description",
                "title",
                "default",
                "example",
                "nullable",
            ]
            .contains(&key.as_str())
        }) {
            return Err(failure(
                path,
                format!("`{key}` beside `anyOf` (constraints belong in the branches)"),
            ));
        }
        for (index, branch) in branches.iter().enumerate() {
            check_gemini(branch, &join(&join(path, "anyOf"), index), false)?;
        }
        return Ok(());
    }
    let Some(name) = map.get("type").and_then(Value::as_str) else {
        return Err(failure(
            path,
            "every schema needs a single `type` name or an `anyOf`",
        ));
    };
    let name = name.to_ascii_lowercase();
    let kind = name.as_str();
    if !["string", "number", "integer", "boolean", "array", "object"].contains(&kind) {
        return Err(failure(path, format!("`type` {name} is not a Gemini type")));
    }
    for (keys, owner) in [
        (
            &[
                "properties",
                "required",
                "minProperties",
                "maxProperties",
                "propertyOrdering",
            ][..],
            &["object"][..],
        ),
        (&["items", "minItems", "maxItems"][..], &["array"][..]),
        (
            &["minLength", "maxLength", "pattern", "enum"][..],
            &["string"][..],
        ),
        (&["minimum", "maximum"][..], &["number", "integer"][..]),
    ] {
        if !owner.contains(&kind)
            && let Some(key) = keys.iter().find(|key| map.contains_key(**key))
        {
            return Err(failure(path, format!("`{key}` on a {kind} schema")));
        }
    }
    match kind {
        "object" => {
            let properties = match map.get("properties") {
                Some(Value::Object(properties)) => Some(properties),
                None => None,
                Some(_) => return Err(failure(path, "`properties` must be an object")),
            };
            let empty = properties.is_none_or(|properties| properties.is_empty());
            if empty && !is_root {
                return Err(failure(
                    path,
                    "an object schema needs properties (Gemini rejects empty OBJECT types)",
                ));
            }
            if let Some(required) = map.get("required") {
                let Some(required) = required.as_array() else {
                    return Err(failure(path, "`required` must be an array"));
                };
                for name in required {
                    let declared = name
                        .as_str()
                        .is_some_and(|name| properties.is_some_and(|p| p.contains_key(name)));
                    if !declared {
                        return Err(failure(
                            path,
                            format!("`required` lists {name}, which is not a property"),
                        ));
                    }
                }
            }
            for (name, property) in properties.into_iter().flatten() {
                check_gemini(property, &join(&join(path, "properties"), name), false)?;
            }
        }
        "array" => {
            let Some(items) = map.get("items") else {
                return Err(failure(path, "an array schema needs `items`"));
            };
            check_gemini(items, &join(path, "items"), false)?;
        }
        _ => {}
    }
    if let Some(values) = map.get("enum") {
        let all_strings = values
            .as_array()
            .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_string));
        if !all_strings {
            return Err(failure(path, "`enum` must be a non-empty array of strings"));
        }
    }
    if let Some(format) = map.get("format") {
        let allowed = match kind {
            "string" => GEMINI_STRING_FORMATS,
            "number" | "integer" => GEMINI_NUMBER_FORMATS,
            _ => &[][..],
        };
        if !format.as_str().is_some_and(|f| allowed.contains(&f)) {
            return Err(failure(
                path,
                format!("`format` {format} is not accepted on a {kind} schema"),
            ));
        }
    }
    for key in ["minimum", "maximum"] {
        if map.get(key).is_some_and(|value| !value.is_number()) {
            return Err(failure(path, format!("`{key}` must be a number")));
        }
    }
    for key in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
    ] {
        if map.get(key).is_some_and(|value| !value.is_u64()) {
            return Err(failure(
                path,
                format!("`{key}` must be a non-negative integer"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::provider::tests::catalog_tools;

    fn strict_ok(schema: &Value) -> Value {
        let out = openai_strict(schema);
        if let Err(error) = check_openai_strict(&out) {
            panic!("{error}\n{out:#}");
        }
        out
    }

    fn gemini_ok(schema: &Value) -> Value {
        let out = gemini_openapi(schema);
        if let Err(error) = check_gemini_openapi(&out) {
            panic!("{error}\n{out:#}");
        }
        out
    }

    /// Every schema of the real catalog comes out obeying both dialects, keeps its top-level
    /// properties, and rewriting twice changes nothing.
    #[test]
    fn catalog_schemas_obey_both_dialects() {
        let tools = catalog_tools();
        assert_eq!(tools.len(), 117);
        let mut dropped = Vec::new();
        for tool in &tools {
            let schema = &tool.input_schema;
            let strict = openai_strict(schema);
            if let Err(error) = check_openai_strict(&strict) {
                panic!("{} (OpenAI strict): {error}\n{strict:#}", tool.name);
            }
            let gemini = gemini_openapi(schema);
            if let Err(error) = check_gemini_openapi(&gemini) {
                panic!("{} (Gemini): {error}\n{gemini:#}", tool.name);
            }
            let names = |value: &Value| -> Vec<String> {
                value
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default()
            };
            assert_eq!(names(&strict), names(schema), "{}", tool.name);
            // Gemini leaves out what it cannot express: only free-form objects here.
            for name in names(schema) {
                if gemini["properties"].get(&name).is_none() {
                    dropped.push(format!("{}.{name}", tool.name));
                }
            }
            assert_eq!(
                openai_strict(&strict),
                strict,
                "{} not idempotent",
                tool.name
            );
            assert_eq!(
                gemini_openapi(&gemini),
                gemini,
                "{} not idempotent",
                tool.name
            );
            // The canonical schema's required properties stay required for Gemini.
            assert_eq!(
                gemini.get("required").cloned().unwrap_or(json!([])),
                schema.get("required").cloned().unwrap_or(json!([])),
                "{}",
                tool.name
            );
        }
        // `inputs` is `{"type": "object", "properties": {}}`: any object, which Gemini's
        // OpenAPI subset cannot say.
        assert_eq!(dropped, ["actions_run_trigger.inputs"]);
    }

    /// The catalog's shapes that need real rewriting come out as expected.
    #[test]
    fn catalog_tricky_shapes() {
        let tools = catalog_tools();
        let schema = |name: &str| -> Value {
            tools
                .iter()
                .find(|tool| tool.name == name)
                .map(|tool| tool.input_schema.clone())
                .unwrap_or_else(|| panic!("no tool {name}"))
        };
        // anyOf [string, null] with a description beside it.
        let issue_write = schema("issue_write");
        let strict = strict_ok(&issue_write);
        assert_eq!(
            strict["properties"]["type"]["anyOf"],
            json!([{"type": "string"}, {"type": "null"}])
        );
        let gemini = gemini_ok(&issue_write);
        assert_eq!(gemini["properties"]["type"]["type"], "string");
        assert_eq!(gemini["properties"]["type"]["minLength"], 1);
        assert_eq!(gemini["properties"]["type"]["nullable"], true);
        assert!(gemini["properties"]["type"]["description"].is_string());
        // A multi-type value: ["string", "number", "boolean"].
        let value = &gemini["properties"]["issue_fields"]["items"]["properties"]["value"];
        assert_eq!(
            value["anyOf"],
            json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}])
        );
        // oneOf of objects under "type": "object", and a typeless "any value".
        let projects_write = schema("projects_write");
        let strict = strict_ok(&projects_write);
        let items = &strict["properties"]["items"]["items"];
        assert_eq!(items["anyOf"].as_array().map(Vec::len), Some(3));
        assert_eq!(items["anyOf"][0]["type"], "object");
        assert!(items.get("type").is_none());
        let gemini = gemini_ok(&projects_write);
        let value = &gemini["properties"]["updated_field"]["anyOf"][0]["properties"]["value"];
        assert_eq!(
            value["anyOf"][0],
            json!({"type": "string", "nullable": true})
        );
    }

    #[test]
    fn strict_nested_optional_object() {
        let schema = json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "filter": {
                    "type": "object",
                    "description": "Optional filter",
                    "properties": {
                        "label": {"type": "string", "default": "bug"},
                        "state": {"type": "string", "enum": ["open", "closed"]}
                    },
                    "required": ["state"]
                }
            },
            "required": ["repo"]
        });
        assert_eq!(
            strict_ok(&schema),
            json!({
                "type": "object",
                "properties": {
                    "repo": {"type": "string"},
                    "filter": {
                        "description": "Optional filter",
                        "type": ["object", "null"],
                        "properties": {
                            "label": {"type": ["string", "null"]},
                            "state": {"type": "string", "enum": ["open", "closed"]}
                        },
                        "required": ["label", "state"],
                        "additionalProperties": false
                    }
                },
                "required": ["repo", "filter"],
                "additionalProperties": false
            })
        );
        assert_eq!(
            gemini_ok(&schema),
            json!({
                "type": "object",
                "properties": {
                    "repo": {"type": "string"},
                    "filter": {
                        "description": "Optional filter",
                        "type": "object",
                        "properties": {
                            "label": {"default": "bug", "type": "string"},
                            "state": {"type": "string", "enum": ["open", "closed"]}
                        },
                        "required": ["state"]
                    }
                },
                "required": ["repo"]
            })
        );
    }

    #[test]
    fn array_of_objects() {
        let schema = json!({
            "type": "object",
            "properties": {
                "files": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "path": {"type": "string"},
                            "mode": {"type": "string", "format": "uint32"}
                        },
                        "required": ["path"]
                    }
                }
            },
            "required": ["files"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["files"],
            json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "mode": {"type": ["string", "null"]}
                    },
                    "required": ["path", "mode"],
                    "additionalProperties": false
                },
                "minItems": 1
            })
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["files"],
            json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "mode": {"type": "string"}},
                    "required": ["path"]
                },
                "minItems": 1
            })
        );
    }

    #[test]
    fn any_of_with_null() {
        let schema = json!({
            "type": "object",
            "properties": {
                "due": {
                    "description": "Due date, or null to clear it",
                    "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
                },
                "assignee": {
                    "anyOf": [
                        {"type": "string"},
                        {"type": "integer", "exclusiveMinimum": 0},
                        {"type": "null"}
                    ]
                }
            },
            "required": ["due"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["due"],
            json!({
                "description": "Due date, or null to clear it",
                "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
            })
        );
        // Optional and already nullable: unchanged.
        assert_eq!(
            strict["properties"]["assignee"]["anyOf"][1],
            json!({"type": "integer", "exclusiveMinimum": 0})
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["due"],
            json!({
                "description": "Due date, or null to clear it",
                "type": "string",
                "format": "date-time",
                "nullable": true
            })
        );
        assert_eq!(
            gemini["properties"]["assignee"],
            json!({"anyOf": [
                {"type": "string", "nullable": true},
                {"type": "integer", "minimum": 1, "nullable": true}
            ]})
        );
    }

    #[test]
    fn type_arrays() {
        let schema = json!({
            "type": "object",
            "properties": {
                "note": {"type": ["string", "null"], "maxLength": 10},
                "value": {"type": ["string", "number"], "description": "A value", "minimum": 0}
            },
            "required": ["note", "value"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["note"],
            json!({"type": ["string", "null"]})
        );
        assert_eq!(
            strict["properties"]["value"],
            json!({"description": "A value", "type": ["string", "number"], "minimum": 0})
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["note"],
            json!({"type": "string", "maxLength": 10, "nullable": true})
        );
        assert_eq!(
            gemini["properties"]["value"],
            json!({
                "description": "A value",
                "anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}]
            })
        );
    }

    #[test]
    fn local_ref_is_kept_for_openai_and_inlined_for_gemini() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "Owner": {
                    "type": "object",
                    "title": "Owner",
                    "properties": {"login": {"type": "string"}},
                    "required": ["login"]
                }
            },
            "properties": {
                "owner": {"$ref": "#/$defs/Owner"},
                "reviewer": {"$ref": "#/$defs/Owner", "description": "Who reviews"}
            },
            "required": ["owner", "reviewer"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["owner"],
            json!({"$ref": "#/$defs/Owner"})
        );
        assert_eq!(
            strict["properties"]["reviewer"],
            json!({"description": "Who reviews", "anyOf": [{"$ref": "#/$defs/Owner"}]})
        );
        assert_eq!(strict["$defs"]["Owner"]["additionalProperties"], false);
        assert!(strict.get("$schema").is_none());

        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini,
            json!({
                "type": "object",
                "properties": {
                    "owner": {
                        "title": "Owner",
                        "type": "object",
                        "properties": {"login": {"type": "string"}},
                        "required": ["login"]
                    },
                    "reviewer": {
                        "description": "Who reviews",
                        "title": "Owner",
                        "type": "object",
                        "properties": {"login": {"type": "string"}},
                        "required": ["login"]
                    }
                },
                "required": ["owner", "reviewer"]
            })
        );
    }

    #[test]
    fn recursive_ref() {
        let schema = json!({
            "type": "object",
            "definitions": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}
                    },
                    "required": ["name"]
                }
            },
            "properties": {"tree": {"$ref": "#/definitions/Node", "description": "The tree"}},
            "required": ["tree"]
        });
        // OpenAI supports recursion through $defs/definitions: the reference stays.
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["definitions"]["Node"]["properties"]["children"],
            json!({"type": ["array", "null"], "items": {"$ref": "#/definitions/Node"}})
        );
        // Gemini: inlined once, the recursive `children` cut.
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["tree"],
            json!({
                "description": "The tree",
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"]
            })
        );
        // A recursive reference to the root itself.
        let linked = json!({
            "type": "object",
            "properties": {"value": {"type": "integer"}, "next": {"$ref": "#"}},
            "required": ["value"]
        });
        let strict = strict_ok(&linked);
        assert_eq!(
            strict["properties"]["next"],
            json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
        );
        let gemini = gemini_ok(&linked);
        let next = &gemini["properties"]["next"];
        assert_eq!(next["properties"]["value"], json!({"type": "integer"}));
        assert!(next["properties"].get("next").is_none());
    }

    #[test]
    fn const_values() {
        let schema = json!({
            "type": "object",
            "properties": {
                "kind": {"const": "issue"},
                "version": {"type": "integer", "const": 2},
                "optional_kind": {"type": "string", "const": "pr"}
            },
            "required": ["kind", "version"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["kind"],
            json!({"type": "string", "const": "issue"})
        );
        assert_eq!(
            strict["properties"]["optional_kind"],
            json!({"type": ["string", "null"], "enum": ["pr", null]})
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["kind"],
            json!({"type": "string", "enum": ["issue"]})
        );
        assert_eq!(
            gemini["properties"]["version"],
            json!({"type": "integer", "minimum": 2, "maximum": 2})
        );
    }

    #[test]
    fn gemini_drops_what_it_cannot_express() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "headers": {"type": "array", "items": {"type": "object"}},
                "size": {"type": "integer", "enum": [1, 2, 3], "description": "Page size."},
                "state": {"type": "string", "enum": ["open", null]},
                "when": {"type": "string", "format": "date", "examples": ["2024-01-01"]},
                "count": {"type": "number", "exclusiveMinimum": 0.5, "format": "uint32"},
                "keep": {"type": "string"}
            },
            "required": ["labels", "keep"]
        });
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini,
            json!({
                "type": "object",
                "properties": {
                    "size": {"description": "Page size. Allowed values: 1, 2, 3.", "type": "integer"},
                    "state": {"type": "string", "enum": ["open"], "nullable": true},
                    "when": {"type": "string"},
                    "count": {"type": "number", "minimum": 0.5},
                    "keep": {"type": "string"}
                },
                "required": ["keep"]
            })
        );
        // The same free-form object is closed for OpenAI.
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["labels"],
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }

    #[test]
    fn any_value_and_empty_schemas() {
        let schema = json!({
            "type": "object",
            "properties": {"value": {"description": "Anything"}, "flag": true},
            "required": ["value", "flag"]
        });
        let strict = strict_ok(&schema);
        assert_eq!(strict["properties"]["value"]["description"], "Anything");
        assert_eq!(
            strict["properties"]["value"]["anyOf"][3],
            json!({"type": "null"})
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(
            gemini["properties"]["flag"]["anyOf"][2],
            json!({"type": "boolean", "nullable": true})
        );
        // No parameters at all.
        for empty in [
            json!({}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
        ] {
            assert_eq!(
                strict_ok(&empty),
                json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
            );
            assert_eq!(
                gemini_ok(&empty),
                json!({"type": "object", "properties": {}})
            );
        }
    }

    #[test]
    fn all_of_and_root_union() {
        let schema = json!({
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "boolean"}}}
            ]
        });
        let strict = strict_ok(&schema);
        assert_eq!(strict["required"], json!(["a", "b"]));
        assert_eq!(
            strict["properties"]["b"],
            json!({"type": ["boolean", "null"]})
        );
        let root_union = json!({
            "type": "object",
            "properties": {"owner": {"type": "string"}},
            "required": ["owner"],
            "oneOf": [
                {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
                {"properties": {"name": {"type": "string"}}, "required": ["name"]}
            ]
        });
        let strict = strict_ok(&root_union);
        assert_eq!(strict["required"], json!(["owner", "id", "name"]));
        assert_eq!(
            strict["properties"]["id"],
            json!({"type": ["integer", "null"]})
        );
        let gemini = gemini_ok(&root_union);
        assert_eq!(gemini["required"], json!(["owner"]));
    }

    #[test]
    fn recursive_all_of_is_kept_as_a_reference_or_cut() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"allOf": [{"$ref": "#"}]},
                "b": {"allOf": [{"$ref": "#"}], "description": "Again"}
            }
        });
        let strict = strict_ok(&schema);
        // Inlined once, then the recursion is a reference, as strict mode allows.
        let a = &strict["properties"]["a"];
        assert_eq!(a["type"], json!(["object", "null"]));
        assert_eq!(
            a["properties"]["a"],
            json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
        );
        // Gemini cannot express recursion: the recursive properties are cut, and with them
        // the objects left without properties.
        assert_eq!(
            gemini_ok(&schema),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn shared_definitions_stay_within_the_budget() {
        // `D0` uses `D1` twice, `D1` uses `D2` twice, ...: inlining it all would give 2^40
        // schemas. The rewrite stops at its budget and still gives valid schemas.
        let mut defs = Map::new();
        for level in 0..40 {
            let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
            defs.insert(
                format!("D{level}"),
                json!({"type": "object", "properties": {"l": next.clone(), "r": {"allOf": [next]}}}),
            );
        }
        defs.insert("D40".to_owned(), json!({"type": "string"}));
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/D0"}},
            "$defs": defs
        });
        let strict = strict_ok(&schema);
        assert_eq!(
            strict["properties"]["tree"],
            json!({"anyOf": [{"$ref": "#/$defs/D0"}, {"type": "null"}]})
        );
        let gemini = gemini_ok(&schema);
        assert_eq!(gemini["properties"]["tree"]["type"], json!("object"));
        let arguments = json!({"tree": {"l": {"l": null, "r": null}, "r": null}});
        assert_eq!(
            strip_strict_nulls(&schema, &arguments),
            json!({"tree": {"l": {}}})
        );
    }

    #[test]
    fn nullable_enum_and_const_agree_with_their_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "mode": {"type": ["string", "null"], "enum": ["fast", "slow"]},
                "kind": {"type": ["string", "null"], "const": "issue"},
                "either": {"type": ["string", "null"], "enum": ["a", null]},
                "nothing": {"type": "null", "enum": ["a"]}
            },
            "required": ["mode", "kind", "either", "nothing"]
        });
        let strict = strict_ok(&schema);
        // The values decide: null was never allowed.
        assert_eq!(
            strict["properties"]["mode"],
            json!({"type": "string", "enum": ["fast", "slow"]})
        );
        assert_eq!(
            strict["properties"]["kind"],
            json!({"type": "string", "const": "issue"})
        );
        assert_eq!(
            strict["properties"]["either"],
            json!({"type": ["string", "null"], "enum": ["a", null]})
        );
        assert_eq!(
            strict["properties"]["nothing"],
            json!({"type": "null", "enum": ["a", null]})
        );
    }

    #[test]
    fn every_root_becomes_an_object_schema() {
        for root in [
            json!({"type": "object", "anyOf": []}),
            json!({"$ref": "#"}),
            json!({"$ref": "#/$defs/Missing", "properties": {"a": {"type": "string"}}}),
            json!({"type": "string"}),
            json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}}),
            json!({"type": "object", "nullable": true}),
            json!({"type": "object", "properties": {"x": {"type": "integer"}}, "anyOf": [{"type": "string"}]}),
            json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]}),
            json!(true),
            json!(false),
            json!([1, 2]),
        ] {
            let strict = strict_ok(&root);
            assert_eq!(strict["type"], json!("object"), "{root}");
            let gemini = gemini_ok(&root);
            assert_eq!(gemini["type"], json!("object"), "{root}");
        }
        // What can be kept is kept: the properties beside a contradicting union, the object
        // branch of a nullable union.
        let contradicting = json!({"type": "object", "properties": {"x": {"type": "integer"}}, "anyOf": [{"type": "string"}]});
        assert_eq!(
            strict_ok(&contradicting)["properties"]["x"],
            json!({"type": ["integer", "null"]})
        );
        let nullable_union = json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "null"}]});
        assert_eq!(strict_ok(&nullable_union)["required"], json!(["a"]));
    }

    #[test]
    fn checkers_name_the_violation() {
        let open =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert_eq!(
            check_openai_strict(&open),
            Err("#: `additionalProperties` must be false".to_owned())
        );
        let optional = json!({
            "type": "object", "additionalProperties": false, "required": [],
            "properties": {"a": {"type": "string"}}
        });
        assert_eq!(
            check_openai_strict(&optional),
            Err("#: property `a` is not listed in `required`".to_owned())
        );
        let nested = json!({
            "type": "object", "additionalProperties": false, "required": ["a"],
            "properties": {"a": {"type": "array", "items": {"type": "string", "default": "x"}}}
        });
        assert_eq!(
            check_openai_strict(&nested),
            Err(
                "#/properties/a/items: keyword `default` is not supported in strict mode"
                    .to_owned()
            )
        );
        let format = json!({
            "type": "object", "additionalProperties": false, "required": ["a"],
            "properties": {"a": {"type": "string", "format": "uint32"}}
        });
        assert!(check_openai_strict(&format).is_err_and(|e| e.starts_with("#/properties/a:")));
        assert!(check_openai_strict(&json!({"anyOf": []})).is_err());

        let empty_object = json!({"type": "object", "properties": {"a": {"type": "object"}}});
        assert_eq!(
            check_gemini_openapi(&empty_object),
            Err("#/properties/a: an object schema needs properties (Gemini rejects empty OBJECT types)".to_owned())
        );
        let type_array =
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}});
        assert!(check_gemini_openapi(&type_array).is_err_and(|e| e.starts_with("#/properties/a:")));
        let numeric_enum =
            json!({"type": "object", "properties": {"a": {"type": "integer", "enum": [1]}}});
        assert!(check_gemini_openapi(&numeric_enum).is_err());
        let extra = json!({"type": "object", "additionalProperties": false, "properties": {}});
        assert!(check_gemini_openapi(&extra).is_err_and(|e| e.contains("additionalProperties")));
        let no_items = json!({"type": "object", "properties": {"a": {"type": "array"}}});
        assert!(check_gemini_openapi(&no_items).is_err());
    }

    #[test]
    fn strip_strict_nulls_restores_omitted_properties() {
        let schema = json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string"},
                "label": {"type": "string"},
                "type": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "filter": {
                    "type": "object",
                    "properties": {"state": {"type": "string"}, "since": {"type": "string"}},
                    "required": ["state"]
                },
                "files": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/File"}
                }
            },
            "required": ["owner"],
            "$defs": {
                "File": {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}
            }
        });
        let arguments = json!({
            "owner": "octocat",
            "label": null,
            "type": null,
            "filter": {"state": "open", "since": null},
            "files": [{"path": "a", "mode": null}]
        });
        assert_eq!(
            strip_strict_nulls(&schema, &arguments),
            json!({
                "owner": "octocat",
                "type": null,
                "filter": {"state": "open"},
                "files": [{"path": "a"}]
            })
        );
    }
}
