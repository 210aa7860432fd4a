//! The canonical form of a tool's input schema, built from schemars output: non-recursive
//! local references inlined, only the definitions that must stay kept.
//!
//! schemars 1.x produces draft 2020-12 root schemas that carry `$schema`, a root `title` and
//! `$defs` referenced through `$ref`. Many LLM providers handle references poorly, so
//! [`canonicalize`] inlines every non-recursive definition and keeps only what has to stay.
//!
//! This relies on `serde_json`'s `preserve_order` feature: property order is part of what the
//! model sees, so maps are only ever edited in place.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::definitions::{DefKey, Defs, LocalRef, visit_local_refs};
use super::formats::standardize_formats;
use super::subschemas::subschemas_mut;

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
/// - has `"properties": {}` on an object root without properties, as some providers require it;
/// - has only the `format`s JSON Schema defines, the integer ones schemars writes (`uint32`,
///   `int64`, ...) replaced by their bounds (`minimum`/`maximum`).
///
/// Anything else (references to `#`, remote or dangling references, non-object roots, boolean
/// schemas) is left as it is.
pub(crate) fn canonicalize(schema: Value) -> Value {
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
    standardize_formats(&mut root);
    root
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

/// The boolean schema `accepts` written as an object schema.
pub(super) fn object_form(accepts: bool) -> Map<String, Value> {
    let mut map = Map::new();
    if !accepts {
        map.insert("not".to_owned(), Value::Object(Map::new()));
    }
    map
}
