//! The input schema of a `#[tool]` from its parameters' types, without a derived struct.
//!
//! The generated code lists one [`ArgumentProperty`] per argument (its key, its description,
//! whether it may be left out, and its type's schema function) and [`arguments_schema`] builds
//! the object schema from them as schemars' `#[derive(JsonSchema)]` would for a struct of
//! those fields: the same properties in the same order, the same `required` list, the same
//! `$defs`. The per-type code is shared by every tool with a parameter of that type.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// One property of a generated tool's argument object.
pub struct ArgumentProperty {
    key: &'static str,
    description: &'static str,
    has_default: bool,
    schema: fn(&mut SchemaGenerator) -> (Schema, bool),
}

impl ArgumentProperty {
    /// The property `key` of type `T`, with its `description` (empty for none); `has_default`
    /// when the argument may be left out whatever its type (an `Option`, an `#[arg(default)]`).
    /// An argument whose type is an `Option` may be left out in any case. `settles` is never
    /// called: the generated code names `T` through it (the conversion from `T` to the
    /// parameter), by inference, so that a parameter whose type fails its check leaves `T`
    /// open and nothing more is reported.
    pub const fn of<T: JsonSchema, R>(
        key: &'static str,
        description: &'static str,
        has_default: bool,
        settles: fn(T) -> R,
    ) -> Self {
        let _ = settles;
        ArgumentProperty {
            key,
            description,
            has_default,
            schema: subschema::<T>,
        }
    }
}

/// `T`'s schema as a property refers to it, and whether `T` is an `Option`.
fn subschema<T: JsonSchema>(generator: &mut SchemaGenerator) -> (Schema, bool) {
    (
        generator.subschema_for::<T>(),
        T::_schemars_private_is_option(),
    )
}

/// The object schema of `properties`, as schemars' root schema of a derived struct with one
/// field per property (the root's `title` and `$schema` left out: canonical schemas drop them).
pub fn arguments_schema(properties: &[ArgumentProperty]) -> Value {
    let mut generator = SchemaGenerator::default();
    let mut schema = schemars::json_schema!({"type": "object"});
    for property in properties {
        let (mut subschema, is_option) = (property.schema)(&mut generator);
        schemars::_private::insert_metadata_property_if_nonempty(
            &mut subschema,
            "description",
            property.description,
        );
        let optional = generator.contract().is_deserialize() && (property.has_default || is_option);
        schemars::_private::insert_object_property(&mut schema, property.key, optional, subschema);
    }
    let mut root = match schema.to_value() {
        Value::Object(root) => root,
        _ => Map::new(),
    };
    let definitions = generator.take_definitions(false);
    if !definitions.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(definitions));
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests;
