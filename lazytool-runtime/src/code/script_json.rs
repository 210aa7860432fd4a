//! A script's values read as JSON, the way `JSON.stringify` reads them but without its text:
//! a tool call's arguments. Measured in `bench/code_mode`, reading the value from the host
//! costs less than the engine's `JSON.stringify` and parsing its text (and less than
//! `rquickjs_serde`'s reader, which checks more than plain data needs).

use rquickjs::{Ctx, Object, Type, Value as ScriptValue};
use serde_json::{Map, Number, Value};

/// How deep a value may nest: deeper is refused (a cycle included).
const MAX_DEPTH: usize = 128;

/// `value` as JSON (`undefined` as `{}`, the arguments of a call given none), or why it is
/// not JSON.
pub(super) fn arguments<'js>(ctx: &Ctx<'js>, value: ScriptValue<'js>) -> Result<Value, String> {
    if value.is_undefined() {
        return Ok(Value::Object(Map::new()));
    }
    Ok(read(ctx, &value, 0)?.unwrap_or(Value::Null))
}

/// `value` as JSON, `None` where `JSON.stringify` leaves a value out (`undefined`, a
/// function, a symbol).
fn read<'js>(
    ctx: &Ctx<'js>,
    value: &ScriptValue<'js>,
    depth: usize,
) -> Result<Option<Value>, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "nested deeper than {MAX_DEPTH} levels (or circular)"
        ));
    }
    Ok(Some(match value.type_of() {
        Type::Uninitialized
        | Type::Undefined
        | Type::Symbol
        | Type::Function
        | Type::Constructor => {
            return Ok(None);
        }
        Type::Null => Value::Null,
        Type::Bool => Value::Bool(value.as_bool().unwrap_or_default()),
        Type::Int => Value::from(value.as_int().unwrap_or_default()),
        Type::Float => number(value.as_float().unwrap_or(f64::NAN)),
        Type::String => Value::String(
            (value.as_string().map(|text| text.to_string()))
                .transpose()
                .map_err(|error| error.to_string())?
                .unwrap_or_default(),
        ),
        Type::BigInt => return Err("a BigInt is not JSON".to_owned()),
        Type::Array => {
            let array = value.as_array().ok_or("an array that cannot be read")?;
            let mut items = Vec::with_capacity(array.len());
            for item in array.iter::<ScriptValue<'js>>() {
                let item = item.map_err(|error| error.to_string())?;
                items.push(read(ctx, &item, depth + 1)?.unwrap_or(Value::Null));
            }
            Value::Array(items)
        }
        Type::Object => match value.as_object() {
            Some(object) if !has_to_json(object) => {
                let mut fields = Map::new();
                for entry in object.props::<String, ScriptValue<'js>>() {
                    let (key, field) = entry.map_err(|error| error.to_string())?;
                    if let Some(field) = read(ctx, &field, depth + 1)? {
                        fields.insert(key, field);
                    }
                }
                Value::Object(fields)
            }
            _ => return stringified(ctx, value),
        },
        // A proxy, a promise, an error, a date (its `toJSON`) and whatever else: as the
        // engine's `JSON.stringify` has it.
        _ => return stringified(ctx, value),
    }))
}

/// A number as `JSON.stringify` writes it and JSON is read back: an integral one as an
/// integer (so that a parameter typed `u32` reads `3.0` as `3`), one that is not finite as
/// `null`.
fn number(value: f64) -> Value {
    // Both bounds are powers of two, so exactly representable.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    if value.fract() == 0.0 && (-I64_END..I64_END).contains(&value) {
        Value::from(value as i64)
    } else if value.fract() == 0.0 && (0.0..U64_END).contains(&value) {
        Value::from(value as u64)
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

fn has_to_json(object: &Object<'_>) -> bool {
    (object.get::<_, ScriptValue<'_>>("toJSON")).is_ok_and(|method| method.is_function())
}

fn stringified<'js>(ctx: &Ctx<'js>, value: &ScriptValue<'js>) -> Result<Option<Value>, String> {
    let text = ctx.json_stringify(value.clone()).map_err(|error| {
        // The engine's exception is taken, so that it is not thrown again later.
        let thrown = ctx.catch();
        (thrown.as_exception())
            .and_then(|exception| exception.message())
            .unwrap_or_else(|| error.to_string())
    })?;
    let Some(text) = text else {
        return Ok(None);
    };
    let text = text.to_string().map_err(|error| error.to_string())?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|error| error.to_string())
}
