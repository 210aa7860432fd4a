//! Finding the schema that governs a part of a tool's arguments — a member of an object, an
//! item of an array — through local `$ref`s and the alternatives of `anyOf`, `oneOf` and
//! `allOf`, with a budget on the schemas visited: a recursive schema whose alternatives refer
//! back to it would otherwise cost exponential work.

use std::cell::Cell;

use serde_json::Value;

/// How many schemas one walk over a call's arguments may look at.
const MAX_VISITS: usize = 10_000;

/// How deep alternatives and references are followed.
const MAX_DEPTH: usize = 32;

/// Navigation in one tool's input schema (`root`, where references resolve).
pub(super) struct Navigator<'s> {
    root: &'s Value,
    visits_left: Cell<usize>,
}

impl<'s> Navigator<'s> {
    pub(super) fn new(root: &'s Value) -> Self {
        Navigator {
            root,
            visits_left: Cell::new(MAX_VISITS),
        }
    }

    /// Counts one visit; false once the budget is spent.
    fn visit(&self) -> bool {
        let left = self.visits_left.get();
        self.visits_left.set(left.saturating_sub(1));
        left > 0
    }

    /// `schema`, or what its local `$ref` (`#/$defs/…`, `#/definitions/…`) points to.
    pub(super) fn resolve(&self, schema: &'s Value) -> &'s Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer))
                .unwrap_or(schema),
            None => schema,
        }
    }

    /// Whether some alternative of `schema` (itself included) satisfies `test`.
    pub(super) fn any(&self, schema: &'s Value, test: &impl Fn(&'s Value) -> bool) -> bool {
        self.find(schema, 0, &|schema| test(schema).then_some(()))
            .is_some()
    }

    /// The first answer of `find` on `schema` or, depth first, on its alternatives.
    fn find<T>(
        &self,
        schema: &'s Value,
        depth: usize,
        find: &impl Fn(&'s Value) -> Option<T>,
    ) -> Option<T> {
        if depth > MAX_DEPTH || !self.visit() {
            return None;
        }
        let schema = self.resolve(schema);
        find(schema)
            .or_else(|| alternatives(schema).find_map(|branch| self.find(branch, depth + 1, find)))
    }

    /// The schema of the member `key` of an object governed by `schema`: its `properties`
    /// (in the schema or an alternative), else a schema-valued `additionalProperties`.
    pub(super) fn property(&self, schema: &'s Value, key: &str) -> Option<&'s Value> {
        self.find(schema, 0, &|schema| {
            schema
                .get("properties")
                .and_then(|properties| properties.get(key))
        })
        .or_else(|| {
            self.find(schema, 0, &|schema| {
                schema
                    .get("additionalProperties")
                    .filter(|extra| extra.is_object())
            })
        })
    }

    /// The schema of item `index` of an array governed by `schema`: `prefixItems`, else
    /// `items`.
    pub(super) fn item(&self, schema: &'s Value, index: usize) -> Option<&'s Value> {
        self.find(schema, 0, &|schema| {
            schema
                .get("prefixItems")
                .and_then(|prefix| prefix.get(index))
                .or_else(|| schema.get("items").filter(|items| items.is_object()))
        })
    }

    /// The property names an object governed by `schema` declares, from the first schema or
    /// alternative that declares any.
    pub(super) fn property_names(&self, schema: &'s Value) -> Vec<&'s str> {
        self.find(schema, 0, &|schema| {
            schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().map(String::as_str).collect())
        })
        .unwrap_or_default()
    }
}

/// The alternatives a schema allows besides itself (`anyOf`, `oneOf`, `allOf`).
fn alternatives(schema: &Value) -> impl Iterator<Item = &Value> {
    ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .filter_map(|keyword| schema.get(keyword).and_then(Value::as_array))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_self_referring_schema_costs_a_bounded_number_of_visits() {
        let root = json!({
            "$defs": {"Node": {"anyOf": [{"$ref": "#/$defs/Node"}, {"$ref": "#/$defs/Node"}]}},
            "$ref": "#/$defs/Node"
        });
        let navigator = Navigator::new(&root);
        assert_eq!(navigator.property(&root, "x"), None);
        assert_eq!(navigator.visits_left.get(), 0, "the budget ends the walk");
    }
}
