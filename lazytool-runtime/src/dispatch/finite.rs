//! Finding a float JSON cannot hold (NaN, an infinity) in a tool's value, with its path:
//! serde_json writes one as `null` without a word, so the value is serialized once more
//! through a serializer that writes nothing and stops there.

use std::fmt;

use serde::Serialize;
use serde::ser;

/// The JSON Pointer of the first NaN or infinite float in `value`, or `None` when there is
/// none (or the value cannot be serialized at all, which the caller reports).
pub(super) fn non_finite_path<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    match value.serialize(Finder) {
        Ok(()) => None,
        Err(Stop::NonFinite(mut path)) => {
            path.reverse();
            Some(path.concat())
        }
        Err(Stop::Other) => None,
    }
}

/// Why the walk stopped: a non-finite float, with the path segments from the float up.
#[derive(Debug)]
enum Stop {
    NonFinite(Vec<String>),
    Other,
}

impl Stop {
    fn within(self, segment: impl fmt::Display) -> Stop {
        match self {
            Stop::NonFinite(mut path) => {
                let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
                path.push(format!("/{segment}"));
                Stop::NonFinite(path)
            }
            other => other,
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stopped")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<M: fmt::Display>(_: M) -> Self {
        Stop::Other
    }
}

struct Finder;

fn float(value: f64) -> Result<(), Stop> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Stop::NonFinite(Vec::new()))
    }
}

/// A map key as text, the way serde_json writes keys.
fn key_text<K: Serialize + ?Sized>(key: &K) -> String {
    match serde_json::to_value(key) {
        Ok(serde_json::Value::String(key)) => key,
        Ok(other) => other.to_string(),
        Err(_) => "?".to_owned(),
    }
}

/// The containers: each remembers its next index or last key for the path.
struct Walk {
    index: usize,
    key: Option<String>,
}

impl Walk {
    fn new() -> Self {
        Walk {
            index: 0,
            key: None,
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let index = self.index;
        self.index += 1;
        value.serialize(Finder).map_err(|stop| stop.within(index))
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Stop> {
        value.serialize(Finder).map_err(|stop| stop.within(key))
    }
}

impl ser::SerializeSeq for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.item(value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTuple for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.item(value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.item(value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let variant = self.key.clone().unwrap_or_default();
        self.item(value).map_err(|stop| stop.within(variant))
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeMap for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.key = Some(key_text(key));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let key = self.key.take().unwrap_or_default();
        self.member(&key, value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStruct for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.member(key, value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Walk {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        let variant = self.key.clone().unwrap_or_default();
        self.member(key, value).map_err(|stop| stop.within(variant))
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::Serializer for Finder {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Walk;
    type SerializeTuple = Walk;
    type SerializeTupleStruct = Walk;
    type SerializeTupleVariant = Walk;
    type SerializeMap = Walk;
    type SerializeStruct = Walk;
    type SerializeStructVariant = Walk;

    fn serialize_f32(self, value: f32) -> Result<(), Stop> {
        float(f64::from(value))
    }
    fn serialize_f64(self, value: f64) -> Result<(), Stop> {
        float(value)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_char(self, _: char) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self).map_err(|stop| stop.within(variant))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Walk, Stop> {
        Ok(Walk::new())
    }
    fn serialize_tuple(self, _: usize) -> Result<Walk, Stop> {
        Ok(Walk::new())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Walk, Stop> {
        Ok(Walk::new())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Walk, Stop> {
        Ok(Walk {
            index: 0,
            key: Some(variant.to_owned()),
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Walk, Stop> {
        Ok(Walk::new())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Walk, Stop> {
        Ok(Walk::new())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Walk, Stop> {
        Ok(Walk {
            index: 0,
            key: Some(variant.to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    enum Shape {
        Circle { radius: f64 },
        Pair(f32, f32),
    }

    #[test]
    fn finds_the_first_non_finite_float_with_its_path() {
        assert_eq!(non_finite_path(&vec![1.0, 2.0]), None);
        assert_eq!(non_finite_path(&vec![1.0, f64::NAN]), Some("/1".to_owned()));
        assert_eq!(
            non_finite_path(&Shape::Circle {
                radius: f64::INFINITY
            }),
            Some("/Circle/radius".to_owned())
        );
        assert_eq!(
            non_finite_path(&vec![Shape::Pair(1.0, f32::NEG_INFINITY)]),
            Some("/0/Pair/1".to_owned())
        );
        assert_eq!(non_finite_path(&f64::NAN), Some(String::new()));
    }
}
