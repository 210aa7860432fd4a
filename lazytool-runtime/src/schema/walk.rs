//! One traversal of a schema document: local `$ref`s resolved and `allOf` merged on the way,
//! with recursion cut and a budget on how many schemas it visits.

use serde_json::{Map, Value};

use super::dialect::SchemaLoss;

/// How deep the rewrites follow nested schemas and references.
pub(super) const MAX_DEPTH: usize = 64;

/// How many schemas one rewrite (or one expansion) may visit. Inlining references that share
/// or nest definitions grows exponentially with the nesting (`A` using `B` twice, `B` using
/// `C` twice, ...); past this budget the rest is cut as if unresolvable. Real tool schemas
/// stay far below it (the largest of the shared GitHub catalog visits under 100).
const MAX_VISITS: usize = 10_000;

/// The schema a local reference (`#`, `#/$defs/X`, any `#/json/pointer`) points to.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

/// The state of one rewrite: the document references resolve in, the references inlined on
/// the path from the root to the schema being rewritten, what is left of the budget, where
/// the rewrite is and what it could not express.
pub(super) struct Walk<'a> {
    pub(super) root: &'a Value,
    pub(super) inlined: Vec<String>,
    visits_left: usize,
    /// The JSON pointer segments from the root to the schema being rewritten, escaped.
    path: Vec<String>,
    pub(super) losses: Vec<SchemaLoss>,
}

impl<'a> Walk<'a> {
    pub(super) fn new(root: &'a Value) -> Self {
        Self {
            root,
            inlined: Vec::new(),
            visits_left: MAX_VISITS,
            path: Vec::new(),
            losses: Vec::new(),
        }
    }

    /// Runs `rewrite` on the subschema at `segments` below the current one.
    pub(super) fn at<T>(&mut self, segments: &[&str], rewrite: impl FnOnce(&mut Self) -> T) -> T {
        let depth = self.path.len();
        self.path.extend(
            segments
                .iter()
                .map(|segment| segment.replace('~', "~0").replace('/', "~1")),
        );
        let out = rewrite(self);
        self.path.truncate(depth);
        out
    }

    /// Records that the schema being rewritten cannot be expressed as it is.
    pub(super) fn lose(&mut self, what: impl Into<String>) {
        let path = self
            .path
            .iter()
            .map(|segment| format!("/{segment}"))
            .collect();
        self.losses.push(SchemaLoss {
            path,
            what: what.into(),
        });
    }

    /// Counts one visit; `false` once the budget is spent or the inlining is too deep.
    pub(super) fn visit(&mut self) -> bool {
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

/// `schema` as a map with its top-level `$ref` resolved (its own keywords winning) and its
/// `allOf` merged in; `None` for a boolean schema or once the budget is spent.
///
/// The references it inlines are pushed onto `walk.inlined`; the caller truncates it back to
/// `mark` once it is done with the schema's children. A reference inlined before `mark` (by an
/// enclosing schema: recursion) is left in place as `$ref`; one already inlined into this
/// schema is merged only once.
pub(super) fn expand(
    schema: &Value,
    walk: &mut Walk<'_>,
    mark: usize,
) -> Option<Map<String, Value>> {
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
pub(super) fn expand_alone(schema: &Value, root: &Value) -> Option<Map<String, Value>> {
    expand(schema, &mut Walk::new(root), 0)
}

/// Replaces `allOf` by merging its branches into the schema (see [`expand`] for `mark`).
pub(super) fn flatten_all_of(map: &mut Map<String, Value>, walk: &mut Walk<'_>, mark: usize) {
    let Some(all_of) = map.remove("allOf") else {
        return;
    };
    for branch in all_of.as_array().into_iter().flatten() {
        if let Some(branch) = expand(branch, walk, mark) {
            merge_into(map, &branch);
        }
    }
}
