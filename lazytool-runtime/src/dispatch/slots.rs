//! Reading a `#[tool]`'s arguments into one slot per parameter, without a derived struct.
//!
//! The generated code declares a [`Slot`] per argument and hands them to [`fill_slots`], which
//! walks the argument object in its own order, as a `#[derive(Deserialize)]` visitor would:
//! each known key's value is read into its slot, unknown keys are ignored, and the first value
//! refused stops the walk. The generated code then takes each slot in parameter order: a
//! missing required key is refused there, with serde's message.
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

/// A [`Slot`] of any type, as [`fill_slots`] walks them.
pub trait FillSlot {
    /// The argument object's key this slot reads.
    fn key(&self) -> &'static str;

    /// Reads `value` into the slot, moving its strings out; the error result is tool
    /// `tool`'s.
    fn fill(&mut self, tool: &str, value: &mut Value) -> Result<(), ToolResult>;
}

impl<T> Slot<T> {
    /// An empty slot for the argument object's key `key`.
    #[inline]
    pub const fn new(key: &'static str) -> Self {
        Slot { key, value: None }
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

impl<T: DeserializeOwned> FillSlot for Slot<T> {
    #[inline]
    fn key(&self) -> &'static str {
        self.key
    }

    fn fill(&mut self, tool: &str, value: &mut Value) -> Result<(), ToolResult> {
        match T::deserialize(ArgumentDeserializer(value)) {
            Ok(read) => {
                self.value = Some(read);
                Ok(())
            }
            Err(error) => Err(unparsed(tool, &error.at(Segment::Key(self.key.to_owned())))),
        }
    }
}

/// Reads the argument object `arguments` of tool `tool` into `slots`, member by member in the
/// object's order; the error result names the first value refused and where it is.
///
/// Arguments have been validated against the tool's schema before: the root is an object.
/// Anything else is refused with serde's message for a struct.
pub fn fill_slots(
    tool: &str,
    mut arguments: Value,
    slots: &mut [&mut dyn FillSlot],
) -> Result<(), ToolResult> {
    let Value::Object(members) = &mut arguments else {
        return Err(not_an_object(tool, &arguments));
    };
    for (key, value) in members.iter_mut() {
        if let Some(slot) = slots.iter_mut().find(|slot| slot.key() == key) {
            slot.fill(tool, value)?;
        }
    }
    Ok(())
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
