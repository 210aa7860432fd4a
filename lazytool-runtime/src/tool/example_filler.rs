//! [`Filler`]: a deserializer that makes a value of any type, for the fields an example of an
//! `#[args]` struct leaves out. Two fillers that differ in every scalar tell which fields
//! were left out: those whose JSON differs between the two.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

/// The error of a type no filler can make (one whose `Deserialize` refuses every value).
pub(crate) type FillerError = de::value::Error;

/// Makes a value of any type: `None` for an `Option`, empty sequences and maps, the first
/// variant of an enum, a struct of filled fields, and each scalar at zero (`one: false`:
/// `false`, `0`, `""`) or one (`one: true`: `true`, `1`, `"1"`).
#[derive(Clone, Copy)]
pub(crate) struct Filler {
    pub(crate) one: bool,
}

impl<'de> Deserializer<'de> for Filler {
    type Error = FillerError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_bool(self.one)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_i64(i64::from(self.one))
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_i64(i64::from(self.one))
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_i64(i64::from(self.one))
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_i64(i64::from(self.one))
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_u64(u64::from(self.one))
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_u64(u64::from(self.one))
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_u64(u64::from(self.one))
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_u64(u64::from(self.one))
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_f64(f64::from(u8::from(self.one)))
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_f64(f64::from(u8::from(self.one)))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_char(if self.one { '1' } else { '0' })
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_str(if self.one { "1" } else { "" })
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_bytes(if self.one { b"1" } else { b"" })
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(Fields {
            filler: self,
            names: &[],
            next: 0,
            tuple: 0,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(Fields {
            filler: self,
            names: &[],
            next: 0,
            tuple: len,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Fields {
            filler: self,
            names: &[],
            next: 0,
            tuple: 0,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Fields {
            filler: self,
            names: fields,
            next: 0,
            tuple: 0,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(Variant {
            filler: self,
            name: variants.first().copied().unwrap_or_default(),
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }
}

/// The fields of a struct (each named once, filled), or the items of a tuple.
struct Fields {
    filler: Filler,
    names: &'static [&'static str],
    next: usize,
    tuple: usize,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = FillerError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some(name) = self.names.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize((*name).into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        seed.deserialize(self.filler)
    }
}

impl<'de> SeqAccess<'de> for Fields {
    type Error = FillerError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        if self.next >= self.tuple {
            return Ok(None);
        }
        self.next += 1;
        seed.deserialize(self.filler).map(Some)
    }
}

/// An enum's first variant, its content filled.
struct Variant {
    filler: Filler,
    name: &'static str,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = FillerError;
    type Variant = Filler;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Self::Error> {
        let value = seed.deserialize(self.name.into_deserializer())?;
        Ok((value, self.filler))
    }
}

impl<'de> VariantAccess<'de> for Filler {
    type Error = FillerError;

    fn unit_variant(self) -> Result<(), Self::Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_struct("", fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Booking {
        room_name: String,
        guests: Option<u8>,
        size: (u32, f64),
        kind: Kind,
        tags: Vec<String>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Kind {
        Meeting { seats: u16 },
        Party,
    }

    #[test]
    fn fills_every_field_with_zero_or_one() {
        let zero = Booking::deserialize(Filler { one: false }).expect("zeros fill a booking");
        let one = Booking::deserialize(Filler { one: true }).expect("ones fill a booking");
        assert_eq!(zero.room_name, "");
        assert_eq!(one.room_name, "1");
        assert_eq!((zero.guests, one.guests), (None, None));
        assert_eq!((zero.size, one.size), ((0, 0.0), (1, 1.0)));
        assert_eq!(zero.kind, Kind::Meeting { seats: 0 });
        assert_eq!(one.kind, Kind::Meeting { seats: 1 });
        assert!(zero.tags.is_empty() && one.tags.is_empty());
    }
}
