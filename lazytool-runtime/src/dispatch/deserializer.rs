//! The deserializer generated calls read their arguments with: [`ArgumentDeserializer`].
//!
//! serde_json offers two ways to read a `Value`: by reference, which copies every string into
//! the value it builds (an allocation each), and by value, which moves them but costs more
//! than those copies in moves of its own and leaves nothing to find where a refused value was.
//! This one walks the arguments in place: strings are moved out (`mem::take`), everything
//! else is read by reference through serde_json's own deserializer, so behaviour and messages
//! are serde_json's. An error carries the path of the value it is about, gathered as it
//! propagates out: nothing is tracked while reading succeeds.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_json::Value;

/// Reads a value in place, moving its strings into what it builds (the value is left with
/// empty strings where they were).
pub(crate) struct ArgumentDeserializer<'de>(pub(crate) &'de mut Value);

/// A deserialization error and where it happened: the JSON Pointer of the value it is about.
#[derive(Debug)]
pub(crate) struct LocatedError {
    error: serde_json::Error,
    /// Innermost first: segments are added as the error propagates out.
    reversed_path: Vec<Segment>,
}

#[derive(Debug)]
pub(super) enum Segment {
    Index(usize),
    Key(String),
}

impl LocatedError {
    /// The path of the refused value as a JSON Pointer (`/items/1/quantity`), empty for the
    /// arguments themselves.
    pub(crate) fn path(&self) -> String {
        let mut path = String::new();
        for segment in self.reversed_path.iter().rev() {
            path.push('/');
            match segment {
                Segment::Index(index) => path.push_str(&index.to_string()),
                Segment::Key(key) => path.push_str(&key.replace('~', "~0").replace('/', "~1")),
            }
        }
        path
    }

    #[cold]
    pub(super) fn at(mut self, segment: Segment) -> Self {
        self.reversed_path.push(segment);
        self
    }
}

impl From<serde_json::Error> for LocatedError {
    #[cold]
    fn from(error: serde_json::Error) -> Self {
        LocatedError {
            error,
            reversed_path: Vec::new(),
        }
    }
}

impl fmt::Display for LocatedError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(formatter, "{}", self.error)
        } else {
            write!(formatter, "at {path}: {}", self.error)
        }
    }
}

impl std::error::Error for LocatedError {}

/// Every message is serde_json's.
impl de::Error for LocatedError {
    #[cold]
    fn custom<T: fmt::Display>(message: T) -> Self {
        <serde_json::Error as de::Error>::custom(message).into()
    }

    #[cold]
    fn invalid_type(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_type(unexpected, expected).into()
    }

    #[cold]
    fn invalid_value(unexpected: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_value(unexpected, expected).into()
    }

    #[cold]
    fn invalid_length(len: usize, expected: &dyn de::Expected) -> Self {
        <serde_json::Error as de::Error>::invalid_length(len, expected).into()
    }

    #[cold]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        <serde_json::Error as de::Error>::unknown_variant(variant, expected).into()
    }

    #[cold]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        <serde_json::Error as de::Error>::unknown_field(field, expected).into()
    }

    #[cold]
    fn missing_field(field: &'static str) -> Self {
        <serde_json::Error as de::Error>::missing_field(field).into()
    }

    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        <serde_json::Error as de::Error>::duplicate_field(field).into()
    }
}

/// Forwards to serde_json's deserializer of a borrowed `Value`.
macro_rules! by_reference {
    ($($method:ident($($argument:ident: $type:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($argument: $type,)* visitor: V) -> Result<V::Value, LocatedError> {
                let value: &'de Value = self.0;
                Deserializer::$method(value, $($argument,)* visitor).map_err(LocatedError::from)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for ArgumentDeserializer<'de> {
    type Error = LocatedError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::String(text) => visitor.visit_string(std::mem::take(text)),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(members) => visit_object(members, visitor),
            other => {
                let other: &'de Value = other;
                other.deserialize_any(visitor).map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::String(text) => visitor.visit_string(std::mem::take(text)),
            other => {
                let other: &'de Value = other;
                other
                    .deserialize_string(visitor)
                    .map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        self.deserialize_string(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => {
                let other: &'de Value = other;
                other.deserialize_seq(visitor).map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::Object(members) => visit_object(members, visitor),
            other => {
                let other: &'de Value = other;
                other.deserialize_map(visitor).map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::Object(members) => visit_object(members, visitor),
            Value::Array(items) => visit_array(items, visitor),
            other => {
                let other: &'de Value = other;
                (other.deserialize_struct(name, fields, visitor)).map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Variant {
                name: variant,
                value: None,
            }),
            Value::Object(members) => {
                let mut members = members.iter_mut();
                match (members.next(), members.next()) {
                    (Some((variant, value)), None) => visitor.visit_enum(Variant {
                        name: variant,
                        value: Some(value),
                    }),
                    _ => Err(de::Error::invalid_value(
                        de::Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            // serde_json's error for anything else.
            other => {
                let other: &'de Value = other;
                (other.deserialize_enum(name, variants, visitor)).map_err(LocatedError::from)
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        visitor.visit_unit()
    }

    by_reference! {
        deserialize_bool(), deserialize_i8(), deserialize_i16(), deserialize_i32(),
        deserialize_i64(), deserialize_i128(), deserialize_u8(), deserialize_u16(),
        deserialize_u32(), deserialize_u64(), deserialize_u128(), deserialize_f32(),
        deserialize_f64(), deserialize_char(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_unit(), deserialize_unit_struct(name: &'static str),
    }
}

/// An array's items, each read in place; an error is located at its index.
fn visit_array<'de, V: Visitor<'de>>(
    items: &'de mut [Value],
    visitor: V,
) -> Result<V::Value, LocatedError> {
    let len = items.len();
    let mut access = Items {
        items: items.iter_mut(),
        index: 0,
    };
    let value = visitor.visit_seq(&mut access)?;
    if access.items.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in array"))
    }
}

struct Items<'de> {
    items: std::slice::IterMut<'de, Value>,
    index: usize,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = LocatedError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, LocatedError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        match seed.deserialize(ArgumentDeserializer(item)) {
            Ok(value) => Ok(Some(value)),
            Err(error) => Err(error.at(Segment::Index(index))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's members, each read in place; an error reading a key or its value is located
/// at the key.
fn visit_object<'de, V: Visitor<'de>>(
    members: &'de mut serde_json::Map<String, Value>,
    visitor: V,
) -> Result<V::Value, LocatedError> {
    let len = members.len();
    let mut access = Members {
        members: members.iter_mut(),
        pending: None,
    };
    let value = visitor.visit_map(&mut access)?;
    if access.members.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

struct Members<'de> {
    members: serde_json::map::IterMut<'de>,
    /// The member whose key was read and whose value is next.
    pending: Option<(&'de String, &'de mut Value)>,
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = LocatedError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, LocatedError> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.pending = Some((key, value));
        match seed.deserialize(KeyDeserializer(key)) {
            Ok(read) => Ok(Some(read)),
            Err(error) => Err(error.at(Segment::Key(key.clone()))),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, LocatedError> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        seed.deserialize(ArgumentDeserializer(value))
            .map_err(|error| error.at(Segment::Key(key.clone())))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// An externally tagged enum's variant (`"Unit"`, or `{"Variant": value}`); an error reading
/// the value is located at the variant's name.
struct Variant<'de> {
    name: &'de String,
    value: Option<&'de mut Value>,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = LocatedError;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self), LocatedError> {
        let variant = seed.deserialize(KeyDeserializer(self.name))?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = LocatedError;

    fn unit_variant(self) -> Result<(), LocatedError> {
        match self.value {
            Some(value) => {
                let name = self.name;
                de::Deserialize::deserialize(ArgumentDeserializer(value))
                    .map_err(|error: LocatedError| error.at(Segment::Key(name.clone())))
            }
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, LocatedError> {
        let name = self.name;
        match self.value {
            Some(value) => seed.deserialize(ArgumentDeserializer(value)),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
        .map_err(|error| error.at(Segment::Key(name.clone())))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        let name = self.name;
        match self.value {
            Some(Value::Array(items)) if items.is_empty() => visitor.visit_unit(),
            Some(Value::Array(items)) => visit_array(items, visitor),
            Some(other) => Err(invalid_type(other, &"tuple variant")),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
        .map_err(|error| error.at(Segment::Key(name.clone())))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        let name = self.name;
        match self.value {
            Some(Value::Object(members)) => visit_object(members, visitor),
            Some(other) => Err(invalid_type(other, &"struct variant")),
            None => Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
        .map_err(|error| error.at(Segment::Key(name.clone())))
    }
}

/// serde_json's error for a value of the wrong type.
#[cold]
fn invalid_type(value: &Value, expected: &dyn de::Expected) -> LocatedError {
    let unexpected = match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(value) => de::Unexpected::Bool(*value),
        Value::Number(number) => {
            if let Some(value) = number.as_u64() {
                de::Unexpected::Unsigned(value)
            } else if let Some(value) = number.as_i64() {
                de::Unexpected::Signed(value)
            } else {
                de::Unexpected::Float(number.as_f64().unwrap_or_default())
            }
        }
        Value::String(text) => de::Unexpected::Str(text),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    };
    de::Error::invalid_type(unexpected, expected)
}

/// An object's key, as serde_json reads keys: a string, or a number or a boolean written in
/// one (`{"1": ...}` for a `HashMap<u32, _>`).
struct KeyDeserializer<'de>(&'de str);

macro_rules! numeric_key {
    ($($method:ident),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
                let numeric = self.0.starts_with(|first: char| first == '-' || first.is_ascii_digit())
                    && self.0.ends_with(|last: char| last.is_ascii_digit());
                if !numeric {
                    return Err(de::Error::custom("invalid value: expected key to be a number in quotes"));
                }
                let mut number = serde_json::Deserializer::from_str(self.0);
                let value = number.$method(visitor)?;
                number.end()?;
                Ok(value)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for KeyDeserializer<'de> {
    type Error = LocatedError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        visitor.visit_borrowed_str(self.0)
    }

    numeric_key! {
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64, deserialize_i128,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64, deserialize_u128,
        deserialize_f32, deserialize_f64,
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(
                de::Unexpected::Str(other),
                &visitor,
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LocatedError> {
        // Keys are never null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LocatedError> {
        let key = de::value::BorrowedStrDeserializer::<'de, LocatedError>::new(self.0);
        key.deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests;
