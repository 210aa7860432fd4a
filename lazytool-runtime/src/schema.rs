//! Canonical tool input schemas built from schemars output.
//!
//! schemars 1.x produces draft 2020-12 root schemas that carry `$schema`, a root `title` and
//! `$defs` referenced through `$ref`. Many LLM providers handle references poorly, so
//! [`canonicalize`] inlines every non-recursive definition and keeps only what has to stay.
//!
//! The functions here rely on `serde_json`'s `preserve_order` feature: property order is part of
//! what the model sees, so maps are only ever edited in place.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

/// Turns a JSON Schema as produced by schemars 1.x (`schemars::schema_for!` /
/// `SchemaGenerator::root_schema_for`, draft 2020-12) into the canonical input schema of a tool.
///
/// The canonical form:
/// - has no `$schema` and no root `title` (a root `description` is kept);
/// - has every local reference (`#/$defs/Name`, `#/definitions/Name`) replaced by the
///   definition it points to, with keywords next to the `$ref` (such as `description`) taking
///   precedence over the definition's own; recursive definitions stay as `$ref`s;
/// - keeps in root `$defs`/`definitions` only the definitions still referenced, and drops the
///   keyword when none are;
/// - has `"properties": {}` on an object root without properties, as some providers require it.
///
/// Anything else (references to `#`, remote or dangling references, non-object roots, boolean
/// schemas) is left as it is.
pub fn canonicalize(schema: Value) -> Value {
    let Value::Object(mut root) = schema else {
        return schema;
    };
    let defs = Defs::take_from(&mut root);
    let mut root = Value::Object(root);
    let mut inliner = Inliner::new(&defs);
    inliner.inline(&mut root);
    let kept = inliner.still_referenced(&root);

    if let Value::Object(map) = &mut root {
        map.shift_remove("$schema");
        map.shift_remove("title");
        defs.restore_into(map, kept);
        if map.get("type").and_then(Value::as_str) == Some("object")
            && !map.contains_key("properties")
        {
            map.insert("properties".to_owned(), Value::Object(Map::new()));
        }
    }
    root
}

/// Sets `default` of the named property of a canonical object schema (used for
/// `#[arg(default = ...)]`). Returns false if there is no such property.
///
/// An existing `default` is replaced in place; a boolean property schema is first turned into
/// its object form.
pub fn set_property_default(schema: &mut Value, property: &str, default: Value) -> bool {
    let Some(property) = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut(property))
    else {
        return false;
    };
    if let Value::Bool(accepts) = *property {
        *property = Value::Object(object_form(accepts));
    }
    match property {
        Value::Object(map) => {
            map.insert("default".to_owned(), default);
            true
        }
        _ => false,
    }
}

/// Removes a `"default": null` that schemars puts on `Option` fields marked `#[serde(default)]`,
/// for every top-level property; leaves other defaults alone.
pub fn strip_null_defaults(schema: &mut Value) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        if let Value::Object(map) = property
            && map.get("default").is_some_and(Value::is_null)
        {
            map.shift_remove("default");
        }
    }
}

/// The root keyword a local definition lives under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Section {
    Defs,
    Definitions,
}

impl Section {
    const ALL: [Self; 2] = [Self::Defs, Self::Definitions];

    fn keyword(self) -> &'static str {
        match self {
            Self::Defs => "$defs",
            Self::Definitions => "definitions",
        }
    }
}

/// Identifies a definition: its section and its decoded name.
type DefKey = (Section, String);

/// A `$ref` into a root definition section.
struct LocalRef {
    key: DefKey,
    /// False for pointers into a definition, such as `#/$defs/Name/properties/field`.
    whole: bool,
}

impl LocalRef {
    fn of(schema: &Value) -> Option<Self> {
        schema.get("$ref")?.as_str().and_then(Self::parse)
    }

    fn parse(reference: &str) -> Option<Self> {
        let (section, rest) = reference.strip_prefix("#/")?.split_once('/')?;
        let section = Section::ALL.into_iter().find(|s| s.keyword() == section)?;
        let (name, whole) = match rest.split_once('/') {
            Some((name, _)) => (name, false),
            None => (rest, true),
        };
        Some(Self {
            key: (section, decode_pointer_segment(name)?),
            whole,
        })
    }
}

/// Decodes a JSON Pointer segment in URI fragment form (percent-encoding, then `~1` and `~0`),
/// as schemars encodes definition names.
fn decode_pointer_segment(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| segment.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        if let Some(byte) = escaped {
            decoded.push(byte);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(decoded).ok()?;
    Some(decoded.replace("~1", "/").replace("~0", "~"))
}

/// The boolean schema `accepts` written as an object schema.
fn object_form(accepts: bool) -> Map<String, Value> {
    let mut map = Map::new();
    if !accepts {
        map.insert("not".to_owned(), Value::Object(Map::new()));
    }
    map
}

/// How the value of a schema keyword is traversed.
enum KeywordKind {
    /// Instance data (`const`, `enum`, `default`, ...): never holds subschemas.
    Data,
    /// An object whose values are schemas (`properties`, `$defs`, ...).
    SchemaMap,
    /// A schema or an array of schemas. Unknown keywords are treated this way so that
    /// references hidden in extensions are still seen.
    Schemas,
}

fn keyword_kind(keyword: &str) -> KeywordKind {
    match keyword {
        "const" | "enum" | "default" | "examples" | "example" => KeywordKind::Data,
        "properties" | "patternProperties" | "dependentSchemas" | "dependencies" | "$defs"
        | "definitions" => KeywordKind::SchemaMap,
        _ => KeywordKind::Schemas,
    }
}

/// The direct subschemas of `schema`.
fn subschemas(schema: &Value) -> Vec<&Value> {
    let Value::Object(map) = schema else {
        return Vec::new();
    };
    let mut children = Vec::new();
    for (keyword, value) in map {
        match (keyword_kind(keyword), value) {
            (KeywordKind::Data, _) => {}
            (KeywordKind::SchemaMap, Value::Object(schemas)) => children.extend(schemas.values()),
            (_, Value::Array(schemas)) => children.extend(schemas),
            (_, value) => children.push(value),
        }
    }
    children
}

/// The direct subschemas of `schema`, mutably.
fn subschemas_mut(schema: &mut Value) -> Vec<&mut Value> {
    let Value::Object(map) = schema else {
        return Vec::new();
    };
    let mut children = Vec::new();
    for (keyword, value) in map {
        match (keyword_kind(keyword), value) {
            (KeywordKind::Data, _) => {}
            (KeywordKind::SchemaMap, Value::Object(schemas)) => {
                children.extend(schemas.values_mut());
            }
            (_, Value::Array(schemas)) => children.extend(schemas),
            (_, value) => children.push(value),
        }
    }
    children
}

/// Calls `f` with every local reference in `schema` and its subschemas.
fn visit_local_refs(schema: &Value, f: &mut impl FnMut(LocalRef)) {
    if let Some(reference) = LocalRef::of(schema) {
        f(reference);
    }
    for child in subschemas(schema) {
        visit_local_refs(child, f);
    }
}

/// The definition sections taken out of a root schema.
struct Defs {
    sections: Vec<(Section, Map<String, Value>)>,
}

impl Defs {
    /// Takes every object-valued definition section out of `root`, leaving `null` in its place
    /// so that [`Defs::restore_into`] can put the kept definitions back at the same position.
    fn take_from(root: &mut Map<String, Value>) -> Self {
        let sections = Section::ALL
            .into_iter()
            .filter_map(|section| match root.get_mut(section.keyword()) {
                Some(Value::Object(defs)) => Some((section, std::mem::take(defs))),
                _ => None,
            })
            .collect::<Vec<_>>();
        for (section, _) in &sections {
            root.insert(section.keyword().to_owned(), Value::Null);
        }
        Self { sections }
    }

    fn get(&self, (section, name): &DefKey) -> Option<&Value> {
        self.sections
            .iter()
            .find(|(s, _)| s == section)
            .and_then(|(_, defs)| defs.get(name))
    }

    fn keys(&self) -> impl Iterator<Item = DefKey> + '_ {
        self.sections
            .iter()
            .flat_map(|(section, defs)| defs.keys().map(|name| (*section, name.clone())))
    }

    /// Puts back, in their original order, the definitions of `kept`; drops empty sections.
    fn restore_into(&self, root: &mut Map<String, Value>, mut kept: HashMap<DefKey, Value>) {
        for (section, defs) in &self.sections {
            let restored = defs
                .keys()
                .filter_map(|name| {
                    let body = kept.remove(&(*section, name.clone()))?;
                    Some((name.clone(), body))
                })
                .collect::<Map<_, _>>();
            if restored.is_empty() {
                root.shift_remove(section.keyword());
            } else {
                root.insert(section.keyword().to_owned(), Value::Object(restored));
            }
        }
    }
}

/// Inlines references to non-recursive definitions.
struct Inliner<'a> {
    defs: &'a Defs,
    recursive: HashSet<DefKey>,
    /// Definition bodies with their own references already inlined.
    resolved: HashMap<DefKey, Value>,
}

impl<'a> Inliner<'a> {
    fn new(defs: &'a Defs) -> Self {
        Self {
            defs,
            recursive: recursive_defs(defs),
            resolved: HashMap::new(),
        }
    }

    fn inline(&mut self, schema: &mut Value) {
        for child in subschemas_mut(schema) {
            self.inline(child);
        }
        let Some(reference) = LocalRef::of(schema).filter(|r| r.whole) else {
            return;
        };
        if self.recursive.contains(&reference.key) {
            return;
        }
        let Some(target) = self
            .resolve(&reference.key)
            .filter(|target| target.is_object() || target.is_boolean())
        else {
            return;
        };
        if let Value::Object(map) = schema {
            let mut siblings = std::mem::take(map);
            siblings.shift_remove("$ref");
            *schema = with_siblings(target, siblings);
        }
    }

    /// The body of the definition `key` with its references inlined.
    ///
    /// Only non-recursive definitions are expanded, and those form an acyclic graph, so this
    /// terminates even when `key` itself is recursive.
    fn resolve(&mut self, key: &DefKey) -> Option<Value> {
        if let Some(body) = self.resolved.get(key) {
            return Some(body.clone());
        }
        let mut body = self.defs.get(key)?.clone();
        self.inline(&mut body);
        self.resolved.insert(key.clone(), body.clone());
        Some(body)
    }

    /// The resolved bodies of the definitions that `root` still refers to, directly or through
    /// other kept definitions.
    fn still_referenced(&mut self, root: &Value) -> HashMap<DefKey, Value> {
        let mut pending = Vec::new();
        visit_local_refs(root, &mut |reference| pending.push(reference.key));
        let mut kept = HashMap::new();
        while let Some(key) = pending.pop() {
            if kept.contains_key(&key) {
                continue;
            }
            if let Some(body) = self.resolve(&key) {
                visit_local_refs(&body, &mut |reference| pending.push(reference.key));
                kept.insert(key, body);
            }
        }
        kept
    }
}

/// `target` with `siblings` (the keywords next to a `$ref`) merged over it.
fn with_siblings(target: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return target;
    }
    let mut merged = match target {
        Value::Object(map) => map,
        Value::Bool(accepts) => object_form(accepts),
        _ => Map::new(),
    };
    merged.extend(siblings);
    Value::Object(merged)
}

/// The definitions that refer back to themselves, directly or through other definitions.
fn recursive_defs(defs: &Defs) -> HashSet<DefKey> {
    let graph = defs
        .keys()
        .map(|key| {
            let mut edges = Vec::new();
            if let Some(body) = defs.get(&key) {
                visit_local_refs(body, &mut |reference| {
                    if reference.whole && defs.get(&reference.key).is_some() {
                        edges.push(reference.key);
                    }
                });
            }
            (key, edges)
        })
        .collect::<HashMap<_, _>>();
    graph
        .keys()
        .filter(|key| reaches_itself(&graph, key))
        .cloned()
        .collect()
}

fn reaches_itself(graph: &HashMap<DefKey, Vec<DefKey>>, start: &DefKey) -> bool {
    let mut seen = HashSet::new();
    let mut stack = graph.get(start).into_iter().flatten().collect::<Vec<_>>();
    while let Some(key) = stack.pop() {
        if key == start {
            return true;
        }
        if seen.insert(key) {
            stack.extend(graph.get(key).into_iter().flatten());
        }
    }
    false
}

/// A copy of `schema` for validation only: integer subschemas whose `format` names a Rust
/// integer type (as schemars writes them: `uint8`, `int32`, ...) get that type's bounds as
/// `minimum`/`maximum` where they have none, so that validation, with its paths, rejects
/// what deserialization would. Models still see the schema without them.
pub(crate) fn with_integer_bounds(schema: &Value) -> Value {
    let mut schema = schema.clone();
    add_integer_bounds(&mut schema, 0);
    schema
}

fn add_integer_bounds(schema: &mut Value, depth: usize) {
    const MAX_DEPTH: usize = 64;
    let Value::Object(map) = schema else { return };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some((minimum, maximum)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_bounds)
    {
        map.entry("minimum").or_insert(minimum);
        map.entry("maximum").or_insert(maximum);
    }
    for value in map.values_mut() {
        match value {
            Value::Object(_) => add_integer_bounds(value, depth + 1),
            Value::Array(items) => {
                for item in items {
                    add_integer_bounds(item, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn integer_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}

/// Whether some object in `schema` has a property that is not required: only then can a
/// `null` given for an optional property need stripping before validation.
pub(crate) fn has_optional_properties(schema: &Value) -> bool {
    fn walk(schema: &Value, depth: usize) -> bool {
        let Value::Object(map) = schema else {
            return false;
        };
        if depth > 64 {
            return true;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required = map.get("required").and_then(Value::as_array);
            let required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
            if properties.keys().any(|name| !required(name)) {
                return true;
            }
        }
        map.values().any(|value| match value {
            Value::Object(_) => walk(value, depth + 1),
            Value::Array(items) => items.iter().any(|item| walk(item, depth + 1)),
            _ => false,
        })
    }
    walk(schema, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::{JsonSchema, schema_for};
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    /// Compares serialized forms, so that key order matters too.
    #[track_caller]
    fn assert_json(actual: &Value, expected: &Value) {
        let actual = serde_json::to_string_pretty(actual).expect("serializable");
        let expected = serde_json::to_string_pretty(expected).expect("serializable");
        assert_eq!(actual, expected);
    }

    fn canonical<T: JsonSchema>() -> Value {
        let raw = serde_json::to_value(schema_for!(T)).expect("serializable");
        let schema = canonicalize(raw);
        assert_json(&canonicalize(schema.clone()), &schema);
        schema
    }

    /// Inner doc.
    #[derive(JsonSchema, Deserialize, Serialize)]
    #[allow(dead_code)]
    struct Inner {
        x: i32,
    }

    /// Color doc.
    #[derive(JsonSchema, Deserialize)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    #[derive(JsonSchema, Deserialize)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Shape {
        Circle { r: f64 },
        Square { s: f64 },
    }

    /// Outer doc.
    #[derive(JsonSchema, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        /// The inner one.
        inner: Inner,
        other: Inner,
        color: Color,
        shape: Shape,
    }

    #[derive(JsonSchema, Deserialize)]
    #[allow(dead_code)]
    struct Options {
        plain: Option<u32>,
        #[serde(default)]
        defaulted: Option<u32>,
        /// Maybe inner.
        #[serde(default)]
        inner: Option<Inner>,
        #[serde(default)]
        count: u32,
        #[serde(default)]
        name: String,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Node {
        children: Vec<Node>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct A {
        b: Option<Box<B>>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct B {
        a: Vec<A>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        root: Node,
        a: A,
        inner: Inner,
    }

    #[derive(JsonSchema)]
    struct Empty {}

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Zam {
        z: bool,
        a: bool,
        m: bool,
    }

    #[derive(JsonSchema)]
    #[schemars(rename = "My Thing/v1")]
    #[allow(dead_code)]
    struct Odd {
        y: bool,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct HasOdd {
        odd: Odd,
    }

    #[test]
    fn nested_structs_and_enums_are_inlined() {
        let variant = |kind: &str, field: &str| {
            json!({
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "const": kind},
                    field: {"type": "number", "format": "double"}
                },
                "required": ["kind", field]
            })
        };
        assert_json(
            &canonical::<Outer>(),
            &json!({
                "description": "Outer doc.",
                "type": "object",
                "properties": {
                    "inner": {
                        "description": "The inner one.",
                        "type": "object",
                        "properties": {"x": {"type": "integer", "format": "int32"}},
                        "required": ["x"]
                    },
                    "other": {
                        "description": "Inner doc.",
                        "type": "object",
                        "properties": {"x": {"type": "integer", "format": "int32"}},
                        "required": ["x"]
                    },
                    "color": {
                        "description": "Color doc.",
                        "type": "string",
                        "enum": ["Red", "Green"]
                    },
                    "shape": {"oneOf": [variant("Circle", "r"), variant("Square", "s")]}
                },
                "required": ["inner", "other", "color", "shape"]
            }),
        );
    }

    #[test]
    fn option_fields_and_null_defaults() {
        let mut schema = canonical::<Options>();
        let inner = json!({
            "description": "Inner doc.",
            "type": "object",
            "properties": {"x": {"type": "integer", "format": "int32"}},
            "required": ["x"]
        });
        assert_json(
            &schema,
            &json!({
                "type": "object",
                "properties": {
                    "plain": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                    "defaulted": {
                        "type": ["integer", "null"],
                        "format": "uint32",
                        "minimum": 0,
                        "default": null
                    },
                    "inner": {
                        "description": "Maybe inner.",
                        "anyOf": [inner, {"type": "null"}],
                        "default": null
                    },
                    "count": {"type": "integer", "format": "uint32", "minimum": 0, "default": 0},
                    "name": {"type": "string", "default": ""}
                }
            }),
        );

        strip_null_defaults(&mut schema);
        assert_json(
            &schema,
            &json!({
                "type": "object",
                "properties": {
                    "plain": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                    "defaulted": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                    "inner": {
                        "description": "Maybe inner.",
                        "anyOf": [inner, {"type": "null"}]
                    },
                    "count": {"type": "integer", "format": "uint32", "minimum": 0, "default": 0},
                    "name": {"type": "string", "default": ""}
                }
            }),
        );
    }

    #[test]
    fn recursive_root_keeps_its_self_reference() {
        assert_json(
            &canonical::<Node>(),
            &json!({
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"$ref": "#"}}
                },
                "required": ["children"]
            }),
        );
    }

    #[test]
    fn definition_pointing_back_to_the_root_is_inlined() {
        assert_json(
            &canonical::<A>(),
            &json!({
                "type": "object",
                "properties": {
                    "b": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "a": {"type": "array", "items": {"$ref": "#"}}
                                },
                                "required": ["a"]
                            },
                            {"type": "null"}
                        ]
                    }
                }
            }),
        );
    }

    #[test]
    fn recursive_and_mutually_recursive_definitions_are_kept() {
        assert_json(
            &canonical::<Tree>(),
            &json!({
                "type": "object",
                "properties": {
                    "root": {"$ref": "#/$defs/Node"},
                    "a": {"$ref": "#/$defs/A"},
                    "inner": {
                        "description": "Inner doc.",
                        "type": "object",
                        "properties": {"x": {"type": "integer", "format": "int32"}},
                        "required": ["x"]
                    }
                },
                "required": ["root", "a", "inner"],
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                        },
                        "required": ["children"]
                    },
                    "A": {
                        "type": "object",
                        "properties": {
                            "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}
                        }
                    },
                    "B": {
                        "type": "object",
                        "properties": {
                            "a": {"type": "array", "items": {"$ref": "#/$defs/A"}}
                        },
                        "required": ["a"]
                    }
                }
            }),
        );
    }

    #[test]
    fn empty_struct_gets_empty_properties() {
        assert_json(
            &canonical::<Empty>(),
            &json!({"type": "object", "properties": {}}),
        );
    }

    #[test]
    fn property_order_is_preserved() {
        let schema = canonical::<Zam>();
        let names = schema["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .collect::<Vec<_>>();
        assert_eq!(names, ["z", "a", "m"]);
        assert_json(
            &schema,
            &json!({
                "type": "object",
                "properties": {
                    "z": {"type": "boolean"},
                    "a": {"type": "boolean"},
                    "m": {"type": "boolean"}
                },
                "required": ["z", "a", "m"]
            }),
        );
    }

    #[test]
    fn encoded_definition_names_are_resolved() {
        let raw = serde_json::to_value(schema_for!(HasOdd)).expect("serializable");
        assert_eq!(raw["properties"]["odd"]["$ref"], "#/$defs/My%20Thing~1v1");
        assert_json(
            &canonicalize(raw),
            &json!({
                "type": "object",
                "properties": {
                    "odd": {
                        "type": "object",
                        "properties": {"y": {"type": "boolean"}},
                        "required": ["y"]
                    }
                },
                "required": ["odd"]
            }),
        );
    }

    #[test]
    fn ref_siblings_win_and_new_keys_go_last() {
        let schema = json!({
            "type": "object",
            "properties": {
                "p": {"description": "mine", "$ref": "#/$defs/T", "default": 3},
                "q": {"$ref": "#/$defs/T", "title": "Q"}
            },
            "$defs": {
                "T": {"description": "theirs", "type": "integer", "title": "T"}
            }
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "type": "object",
                "properties": {
                    "p": {"description": "mine", "type": "integer", "title": "T", "default": 3},
                    "q": {"description": "theirs", "type": "integer", "title": "Q"}
                }
            }),
        );
    }

    #[test]
    fn aliases_chains_and_definitions_section_are_inlined() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "title": "Root",
            "description": "Root doc.",
            "type": "object",
            "properties": {
                "alias": {"$ref": "#/definitions/Alias"},
                "wrapper": {"$ref": "#/definitions/Wrapper"}
            },
            "definitions": {
                "Alias": {"$ref": "#/definitions/Target", "description": "alias"},
                "Target": {"type": "string"},
                "Wrapper": {"type": "array", "items": {"$ref": "#/definitions/Alias"}},
                "Unused": {"type": "null"}
            }
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "description": "Root doc.",
                "type": "object",
                "properties": {
                    "alias": {"type": "string", "description": "alias"},
                    "wrapper": {
                        "type": "array",
                        "items": {"type": "string", "description": "alias"}
                    }
                }
            }),
        );
    }

    #[test]
    fn non_recursive_definition_using_a_recursive_one() {
        let schema = json!({
            "type": "object",
            "properties": {"holder": {"$ref": "#/$defs/Holder"}},
            "$defs": {
                "Holder": {"type": "object", "properties": {"list": {"$ref": "#/$defs/List"}}},
                "List": {
                    "type": "object",
                    "properties": {
                        "head": {"$ref": "#/$defs/Item"},
                        "tail": {"anyOf": [{"$ref": "#/$defs/List"}, {"type": "null"}]}
                    }
                },
                "Item": {"type": "integer"}
            }
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "type": "object",
                "properties": {
                    "holder": {
                        "type": "object",
                        "properties": {"list": {"$ref": "#/$defs/List"}}
                    }
                },
                "$defs": {
                    "List": {
                        "type": "object",
                        "properties": {
                            "head": {"type": "integer"},
                            "tail": {"anyOf": [{"$ref": "#/$defs/List"}, {"type": "null"}]}
                        }
                    }
                }
            }),
        );
    }

    #[test]
    fn unresolvable_references_are_left_alone() {
        let schema = json!({
            "type": "object",
            "properties": {
                "missing": {"$ref": "#/$defs/Missing", "description": "kept"},
                "root": {"$ref": "#"},
                "remote": {"$ref": "https://example.com/schema.json#/$defs/X"},
                "deep": {"$ref": "#/$defs/Deep/properties/x"},
                "data": {"const": {"$ref": "#/$defs/Deep"}}
            },
            "$defs": {
                "Deep": {"type": "object", "properties": {"x": {"type": "string"}}},
                "X": {"type": "string"}
            }
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "type": "object",
                "properties": {
                    "missing": {"$ref": "#/$defs/Missing", "description": "kept"},
                    "root": {"$ref": "#"},
                    "remote": {"$ref": "https://example.com/schema.json#/$defs/X"},
                    "deep": {"$ref": "#/$defs/Deep/properties/x"},
                    "data": {"const": {"$ref": "#/$defs/Deep"}}
                },
                "$defs": {
                    "Deep": {"type": "object", "properties": {"x": {"type": "string"}}}
                }
            }),
        );
    }

    #[test]
    fn boolean_schemas() {
        assert_json(&canonicalize(json!(true)), &json!(true));
        assert_json(&canonicalize(json!(false)), &json!(false));
        let schema = json!({
            "type": "object",
            "properties": {
                "any": {"$ref": "#/$defs/Any"},
                "none": {"$ref": "#/$defs/None", "description": "never"},
                "literal": true
            },
            "$defs": {"Any": true, "None": false}
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "type": "object",
                "properties": {
                    "any": true,
                    "none": {"not": {}, "description": "never"},
                    "literal": true
                }
            }),
        );
    }

    #[test]
    fn malformed_input_does_not_panic() {
        for value in [json!(null), json!(42), json!("s"), json!([{"$ref": "#"}])] {
            assert_json(&canonicalize(value.clone()), &value);
        }
        let odd_defs = json!({
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": 7}},
            "$defs": [1, 2],
            "definitions": {"N": 5}
        });
        assert_json(
            &canonicalize(odd_defs),
            &json!({
                "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": 7}},
                "$defs": [1, 2]
            }),
        );
        let number_def = json!({"$ref": "#/definitions/N", "definitions": {"N": 5}});
        assert_json(&canonicalize(number_def.clone()), &number_def);
        let bad_escape = json!({"$ref": "#/$defs/%FF%", "$defs": {"ÿ": true}});
        assert_json(&canonicalize(bad_escape), &json!({"$ref": "#/$defs/%FF%"}));
    }

    #[test]
    fn root_reference_is_inlined() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": "#/$defs/Args",
            "$defs": {"Args": {"title": "Args", "type": "object"}}
        });
        assert_json(
            &canonicalize(schema),
            &json!({"type": "object", "properties": {}}),
        );
    }

    #[test]
    fn mutual_recursion_through_siblings_terminates() {
        let schema = json!({
            "$ref": "#/$defs/P",
            "$defs": {
                "P": {"allOf": [{"$ref": "#/$defs/Q"}], "description": "p"},
                "Q": {"not": {"$ref": "#/$defs/P", "description": "q"}}
            }
        });
        assert_json(
            &canonicalize(schema),
            &json!({
                "$ref": "#/$defs/P",
                "$defs": {
                    "P": {"allOf": [{"$ref": "#/$defs/Q"}], "description": "p"},
                    "Q": {"not": {"$ref": "#/$defs/P", "description": "q"}}
                }
            }),
        );
    }

    #[test]
    fn property_defaults() {
        let mut schema = canonical::<Options>();
        assert!(set_property_default(&mut schema, "count", json!(7)));
        assert!(set_property_default(&mut schema, "plain", json!(1)));
        assert!(!set_property_default(&mut schema, "nope", json!(1)));
        assert_json(
            &schema["properties"]["count"],
            &json!({"type": "integer", "format": "uint32", "minimum": 0, "default": 7}),
        );
        assert_json(
            &schema["properties"]["plain"],
            &json!({"type": ["integer", "null"], "format": "uint32", "minimum": 0, "default": 1}),
        );

        let mut boolean = json!({"type": "object", "properties": {"any": true, "n": 3}});
        assert!(set_property_default(&mut boolean, "any", json!("x")));
        assert!(!set_property_default(&mut boolean, "n", json!("x")));
        assert_json(&boolean["properties"]["any"], &json!({"default": "x"}));
        assert!(!set_property_default(&mut json!(true), "any", json!(1)));
        assert!(!set_property_default(&mut json!([]), "any", json!(1)));
    }

    #[test]
    fn strip_null_defaults_ignores_non_objects() {
        for mut value in [
            json!(true),
            json!({"properties": 3}),
            json!({"properties": {"a": false}}),
        ] {
            let before = value.clone();
            strip_null_defaults(&mut value);
            assert_json(&value, &before);
        }
    }
}
