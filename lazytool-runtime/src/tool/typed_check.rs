//! The argument check of a `#[tool]` whose parameters are all of plain types
//! ([`TypedArgument`](crate::__private::TypedArgument)s): what the JSON Schema validator would
//! say of their schema, without linking it.
//!
//! Such a schema is an object of properties, some required, each property a type or a type
//! and `null`, integer bounds, and for an array its items' schema of the same kind; nothing
//! else (descriptions and defaults aside). The check reports what the validator reports, in
//! its words and in its order, which is not the schema's: the missing required properties
//! first, in the order `required` lists them; then each present property's violations, in
//! the order of the arguments' keys when there are at most as many keys as properties or at
//! least 15 properties, otherwise in the properties' order; within one value, its type, then
//! its minimum, then its maximum, then its items in order. `tests.rs` holds the two together
//! on generated schemas and arguments.

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::argument_check::{ArgumentCheck, Violation};
use super::schema_error::SchemaError;

/// At and above this many properties the validator reports properties in the arguments' order
/// whatever their count (`jsonschema`'s `HASHMAP_THRESHOLD`).
const MANY_PROPERTIES: usize = 15;

/// Up to this many arguments, a required name is looked for by comparing keys.
const FEW_KEYS: usize = 8;

/// [`ArgumentValidation::TYPED`](super::argument_validation::ArgumentValidation::TYPED): the typed check of
/// `input`, or why `input` is not a schema it covers.
pub(crate) fn typed_check(input: &Value) -> Result<Arc<dyn ArgumentCheck>, SchemaError> {
    let object = input.as_object().ok_or(SchemaError::NotAnObject)?;
    Ok(Arc::new(
        TypedArguments::of(object).map_err(SchemaError::DoesNotCompile)?,
    ))
}

/// An argument object's schema, as the typed check reads it.
struct TypedArguments {
    properties: Vec<(String, Shape)>,
    required: Vec<String>,
}

/// One value's schema: the JSON types it may have, its bounds, and an array's items.
struct Shape {
    types: Vec<JsonType>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    items: Option<Box<Shape>>,
}

/// The JSON types, in the validator's order (the bits of its type set, lowest first).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    fn named(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }

    /// Whether `value` is of this type (an integer is a number; a number with no fraction, an
    /// integer).
    fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::Null, Value::Null)
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::String, Value::String(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Object, Value::Object(_)) => true,
            (JsonType::Integer, Value::Number(number)) => {
                number.is_i64()
                    || number.is_u64()
                    || number.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        }
    }
}

impl TypedArguments {
    fn of(schema: &Map<String, Value>) -> Result<TypedArguments, String> {
        let mut properties = Vec::new();
        let mut required = Vec::new();
        for (keyword, value) in schema {
            match (keyword.as_str(), value) {
                ("type", Value::String(kind)) if kind == "object" => {}
                ("properties", Value::Object(members)) => {
                    for (key, property) in members {
                        properties.push((key.clone(), Shape::of(property)?));
                    }
                }
                ("required", Value::Array(names)) => {
                    for name in names {
                        let name = name.as_str().ok_or("a required name is not text")?;
                        required.push(name.to_owned());
                    }
                }
                ("description" | "title" | "$schema", _) => {}
                (keyword, _) => return Err(beyond(keyword)),
            }
        }
        Ok(TypedArguments {
            properties,
            required,
        })
    }

    /// Whether `arguments` break nothing: every call asks, so it builds no path or message
    /// (asking [`violations`](Self::violations) made a valid call cost 2.7 times as many
    /// instructions, `bench/HISTORY.md`).
    fn admits(&self, arguments: &Value) -> bool {
        let Value::Object(members) = arguments else {
            return false;
        };
        self.required.iter().all(|name| has_key(members, name))
            && members
                .iter()
                .all(|(key, value)| self.shape_of(key).is_none_or(|shape| shape.admits(value)))
    }

    /// The schema of property `key`, if it is one.
    #[inline]
    fn shape_of(&self, key: &str) -> Option<&Shape> {
        self.properties
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, shape)| shape)
    }

    /// Each violation of `arguments`, located, in the validator's order.
    fn violations(&self, arguments: &Value) -> Vec<Violation> {
        let mut found = Vec::new();
        let Value::Object(members) = arguments else {
            found.push(Violation {
                path: String::new(),
                message: format!("{arguments} is not of type \"object\""),
            });
            return found;
        };
        for name in &self.required {
            if !has_key(members, name) {
                found.push(Violation {
                    path: String::new(),
                    message: format!("{} is a required property", Value::from(name.as_str())),
                });
            }
        }
        let in_arguments_order =
            self.properties.len() >= MANY_PROPERTIES || members.len() <= self.properties.len();
        if in_arguments_order {
            for (key, value) in members {
                if let Some(shape) = self.shape_of(key) {
                    shape.violations(value, &pointer("", key), &mut found);
                }
            }
        } else {
            for (key, shape) in &self.properties {
                if let Some(value) = members.get(key) {
                    shape.violations(value, &pointer("", key), &mut found);
                }
            }
        }
        found
    }
}

impl Shape {
    fn of(schema: &Value) -> Result<Shape, String> {
        let Value::Object(schema) = schema else {
            return Err("a property's schema is not an object".to_owned());
        };
        let mut shape = Shape {
            types: Vec::new(),
            minimum: None,
            maximum: None,
            items: None,
        };
        for (keyword, value) in schema {
            match (keyword.as_str(), value) {
                ("type", Value::String(name)) => shape.types.push(known_type(name)?),
                ("type", Value::Array(names)) => {
                    for name in names {
                        let name = name.as_str().ok_or("a type is not text")?;
                        shape.types.push(known_type(name)?);
                    }
                }
                ("minimum", Value::Number(limit)) => shape.minimum = Some(limit.clone()),
                ("maximum", Value::Number(limit)) => shape.maximum = Some(limit.clone()),
                ("items", items) => shape.items = Some(Box::new(Shape::of(items)?)),
                ("description" | "title" | "default" | "format" | "examples", _) => {}
                (keyword, _) => return Err(beyond(keyword)),
            }
        }
        if shape.types.is_empty() {
            return Err("a property's schema has no type".to_owned());
        }
        shape.types.sort_unstable();
        shape.types.dedup();
        Ok(shape)
    }

    /// Whether `value` breaks nothing ([`violations`](Self::violations) finds none).
    fn admits(&self, value: &Value) -> bool {
        if !self.types.iter().any(|kind| kind.admits(value)) {
            return false;
        }
        if let Value::Number(number) = value {
            let below = |minimum: &Number| compare(number, minimum) == Ordering::Less;
            let above = |maximum: &Number| compare(number, maximum) == Ordering::Greater;
            if self.minimum.as_ref().is_some_and(below) || self.maximum.as_ref().is_some_and(above)
            {
                return false;
            }
        }
        match (&self.items, value) {
            (Some(items), Value::Array(elements)) => elements.iter().all(|e| items.admits(e)),
            _ => true,
        }
    }

    fn violations(&self, value: &Value, path: &str, found: &mut Vec<Violation>) {
        if !self.types.iter().any(|kind| kind.admits(value)) {
            let message = match self.types.as_slice() {
                [kind] => format!("{value} is not of type \"{}\"", kind.name()),
                kinds => {
                    let names: Vec<String> = kinds
                        .iter()
                        .map(|kind| format!("\"{}\"", kind.name()))
                        .collect();
                    format!("{value} is not of types {}", names.join(", "))
                }
            };
            found.push(Violation {
                path: path.to_owned(),
                message,
            });
        }
        if let Value::Number(number) = value {
            if let Some(minimum) = &self.minimum
                && compare(number, minimum) == Ordering::Less
            {
                found.push(Violation {
                    path: path.to_owned(),
                    message: format!("{value} is less than the minimum of {minimum}"),
                });
            }
            if let Some(maximum) = &self.maximum
                && compare(number, maximum) == Ordering::Greater
            {
                found.push(Violation {
                    path: path.to_owned(),
                    message: format!("{value} is greater than the maximum of {maximum}"),
                });
            }
        }
        if let (Some(items), Value::Array(elements)) = (&self.items, value) {
            for (index, element) in elements.iter().enumerate() {
                items.violations(element, &format!("{path}/{index}"), found);
            }
        }
    }
}

impl ArgumentCheck for TypedArguments {
    fn is_valid(&self, arguments: &Value) -> bool {
        self.admits(arguments)
    }

    fn violations(&self, arguments: &Value) -> Vec<Violation> {
        TypedArguments::violations(self, arguments)
    }
}

fn known_type(name: &str) -> Result<JsonType, String> {
    JsonType::named(name).ok_or_else(|| format!("unknown type \"{name}\""))
}

fn beyond(keyword: &str) -> String {
    format!("`{keyword}` is beyond the typed check: the tool needs the JSON Schema validator")
}

/// Whether `members` has key `name`. A few keys are found sooner by comparing them than by
/// hashing (SipHash, in serde_json's map), and most tools have a handful of parameters.
#[inline]
fn has_key(members: &Map<String, Value>, name: &str) -> bool {
    match members.len() {
        0..=FEW_KEYS => members.keys().any(|key| key == name),
        _ => members.contains_key(name),
    }
}

/// `path` followed by the JSON Pointer token of `key` (`~` as `~0`, `/` as `~1`).
fn pointer(path: &str, key: &str) -> String {
    let token = key.replace('~', "~0").replace('/', "~1");
    format!("{path}/{token}")
}

/// The exact order of two JSON numbers, floats against integers included.
fn compare(a: &Number, b: &Number) -> Ordering {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(a), None) => float_against_integer(b.as_f64().unwrap_or(f64::NAN), a).reverse(),
        (None, Some(b)) => float_against_integer(a.as_f64().unwrap_or(f64::NAN), b),
        (None, None) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            a.partial_cmp(&b).unwrap_or(Ordering::Equal)
        }
    }
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// `float` against `integer`, exactly (no rounding of the integer to a float).
fn float_against_integer(float: f64, integer: i128) -> Ordering {
    // Every i64 and u64 lies in [-2^63, 2^64).
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    const MINUS_TWO_TO_63: f64 = -9_223_372_036_854_775_808.0;
    if float.is_nan() {
        return Ordering::Equal;
    }
    if float >= TWO_TO_64 {
        return Ordering::Greater;
    }
    if float < MINUS_TWO_TO_63 {
        return Ordering::Less;
    }
    let whole = float.trunc();
    match (whole as i128).cmp(&integer) {
        Ordering::Equal => whole
            .partial_cmp(&float)
            .map_or(Ordering::Equal, Ordering::reverse),
        order => order,
    }
}

#[cfg(test)]
mod tests;
