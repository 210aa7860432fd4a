//! Reading a `#[tool]`'s arguments into one slot per parameter, without a derived struct.
//!
//! The generated code declares a [`Slot`] per argument and walks the argument object's
//! [`members`] in their order, as a `#[derive(Deserialize)]` visitor would: each known key's
//! value is read into its slot ([`Slot::fill`], the key matched by a `match` on it), unknown
//! keys are ignored, and the first value refused stops the walk. The generated code then takes
//! each slot in parameter order: a missing required key is refused there, with serde's
//! message.
//!
//! What the model sees is what the derived struct gave it: the same messages, located at the
//! same paths, the same first error. What the user's crate compiles is smaller: a slot's code
//! is generic over the field's type only, so every tool taking a `String` shares one copy.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use super::deserializer::{ArgumentDeserializer, LocatedError, Segment};
use super::parse::unparsed;
use crate::call::ToolResult;

/// One argument of a generated tool: its key in the argument object and, once read, its
/// value.
pub struct Slot<T> {
    key: &'static str,
    value: Option<T>,
}

impl<T> Slot<T> {
    /// An empty slot for the argument object's key `key`.
    #[inline]
    pub const fn new(key: &'static str) -> Self {
        Slot { key, value: None }
    }

    /// Reads `value`, the member of the argument object at this slot's key, moving its
    /// strings out; the error result is tool `tool`'s, located at the key.
    #[inline]
    pub fn fill(&mut self, tool: &str, value: &mut Value) -> Result<(), ToolResult>
    where
        T: DeserializeOwned,
    {
        match T::deserialize(ArgumentDeserializer(value)) {
            Ok(read) => {
                self.value = Some(read);
                Ok(())
            }
            Err(error) => Err(refused(tool, self.key, error)),
        }
    }

    /// The value read for a required argument; when its key was absent, what serde makes of a
    /// missing field of that type (`None` for an `Option`, else "missing field").
    #[inline]
    pub fn required(self, tool: &str) -> Result<T, ToolResult>
    where
        T: DeserializeOwned,
    {
        match self.value {
            Some(value) => Ok(value),
            None => T::deserialize(MissingField(self.key)).map_err(|error| unparsed(tool, &error)),
        }
    }

    /// The value read for an argument with `#[serde(default)]` semantics: its type's default
    /// when its key was absent.
    #[inline]
    pub fn or_default(self) -> T
    where
        T: Default,
    {
        self.value.unwrap_or_default()
    }
}

impl<T> Slot<Option<T>> {
    /// The value read for an `#[arg(default)]` argument: `None` when its key was absent or
    /// `null`, so that the declared default applies.
    #[inline]
    pub fn defaulted(self) -> Option<T> {
        self.value.flatten()
    }
}

/// The members of the argument object `arguments` of tool `tool`, in the object's order.
///
/// Arguments have been validated against the tool's schema before: the root is an object.
/// Anything else is refused with serde's message for a struct.
#[inline]
pub fn members<'a>(
    tool: &str,
    arguments: &'a mut Value,
) -> Result<serde_json::map::IterMut<'a>, ToolResult> {
    match arguments {
        Value::Object(members) => Ok(members.iter_mut()),
        other => Err(not_an_object(tool, other)),
    }
}

#[cold]
#[inline(never)]
fn refused(tool: &str, key: &str, error: LocatedError) -> ToolResult {
    unparsed(tool, &error.at(Segment::Key(key.to_owned())))
}

#[cold]
#[inline(never)]
fn not_an_object(tool: &str, arguments: &Value) -> ToolResult {
    let unexpected = match arguments {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(value) => de::Unexpected::Bool(*value),
        Value::Number(_) => de::Unexpected::Other("number"),
        Value::String(text) => de::Unexpected::Str(text),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    };
    let error: LocatedError = de::Error::invalid_type(unexpected, &"struct __Arguments");
    unparsed(tool, &error)
}

/// What a derived struct deserializes a field from when its key is absent: `None` for an
/// `Option`, "missing field `key`" for anything else (serde's own behaviour).
struct MissingField(&'static str);

impl<'de> Deserializer<'de> for MissingField {
    type Error = LocatedError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, LocatedError> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests;
