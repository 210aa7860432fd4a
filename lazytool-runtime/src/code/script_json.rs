//! A script's values read as JSON, the way `JSON.stringify` reads them but without its text
//! and within a [`Budget`]: a tool call's arguments, and the script's return value. Measured
//! in `bench/code_mode`, reading the value from the host costs less than the engine's
//! `JSON.stringify` and parsing its text (and less than `rquickjs_serde`'s reader, which
//! checks more than plain data needs).
//!
//! The script chooses every value, so nothing is allocated or copied for it before it was
//! counted: an array's length (a sparse array's too) before its items are visited, a string's
//! length before it is copied, and every visit of a value shared by several parents again, so
//! that neither `a.length = 2 ** 31 - 1` nor 60 levels of arrays holding the same child twice
//! cost more than the budget. What the script's own code throws while being read (a getter,
//! a `toJSON`, a proxy's trap, the engine's interrupt in any of them) is left pending, to be
//! thrown on as it is: an interrupt stays uncatchable.

use rquickjs::function::This;
use rquickjs::{Atom, Ctx, Error as EngineError, Object, Type, Value as ScriptValue};
use serde_json::{Map, Number, Value};

/// How much of a value may be read: bytes of compact JSON, counted as the registry's
/// argument limit counts them (strings by their length), and levels of nesting.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    pub(super) max_bytes: usize,
    /// Non-empty arrays and objects inside one another, as the registry's
    /// `max_argument_depth` counts them.
    pub(super) max_depth: usize,
}

/// Why a value could not be read as JSON.
#[derive(Debug)]
pub(super) enum Unreadable {
    /// The script's own code threw while its value was read (a getter, a `toJSON`, a proxy's
    /// trap), or the engine stopped it there: the exception is pending in the context.
    Thrown,
    /// More than the budget's bytes.
    TooLarge(usize),
    /// Nested deeper than the budget's levels.
    TooDeep(usize),
    /// An array or object that contains itself.
    Circular,
    BigInt,
    /// A string with half of a UTF-16 surrogate pair, which JSON text (UTF-8) cannot carry.
    LoneSurrogate,
    /// A function or a symbol where a value was expected (the value itself, not a member,
    /// which JSON leaves out).
    Nothing(&'static str),
    /// The engine failed without an exception of the script's (never seen).
    Engine,
}

impl Unreadable {
    /// What was wrong, for a sentence that names the value (`... is not JSON: {why}`).
    pub(super) fn why(&self) -> String {
        match self {
            Unreadable::Thrown => "reading it threw".to_owned(),
            Unreadable::TooLarge(bytes) => format!("larger than the limit of {bytes} bytes"),
            Unreadable::TooDeep(levels) => {
                format!("nested deeper than the limit of {levels} levels")
            }
            Unreadable::Circular => "circular: an array or object contains itself".to_owned(),
            Unreadable::BigInt => {
                "a BigInt is not JSON (convert it with String() or Number())".to_owned()
            }
            Unreadable::LoneSurrogate => "a string holds a lone surrogate (half of a UTF-16 \
                 pair), which JSON cannot carry"
                .to_owned(),
            Unreadable::Nothing(what) => format!("{what} is not JSON"),
            Unreadable::Engine => "the engine could not read it".to_owned(),
        }
    }
}

/// `value` as a call's arguments: `undefined` as `{}` (a call given none).
pub(super) fn arguments<'js>(
    ctx: &Ctx<'js>,
    value: ScriptValue<'js>,
    budget: Budget,
) -> Result<Value, Unreadable> {
    if value.is_undefined() {
        return Ok(Value::Object(Map::new()));
    }
    read(ctx, value, budget)
}

/// `value` as JSON within `budget`; a function or a symbol, which `JSON.stringify` leaves
/// out, is [`Unreadable::Nothing`].
pub(super) fn read<'js>(
    ctx: &Ctx<'js>,
    value: ScriptValue<'js>,
    budget: Budget,
) -> Result<Value, Unreadable> {
    let mut reader = Reader {
        ctx,
        left: budget.max_bytes,
        budget,
        ancestors: Vec::new(),
    };
    match reader.value(&Key::Root, value.clone(), 0)? {
        Some(json) => Ok(json),
        None => Err(Unreadable::Nothing(match value.type_of() {
            Type::Symbol => "a symbol",
            Type::Function | Type::Constructor => "a function",
            Type::Undefined | Type::Uninitialized => "undefined",
            _ => "a value whose toJSON returns undefined",
        })),
    }
}

/// The key a value is read under: what `toJSON` is given.
enum Key<'js> {
    Root,
    Index(usize),
    Name(rquickjs::String<'js>),
}

struct Reader<'a, 'js> {
    ctx: &'a Ctx<'js>,
    /// Bytes of the budget not yet spent.
    left: usize,
    budget: Budget,
    /// The arrays and objects being read, outermost first: a value among them is a cycle.
    ancestors: Vec<ScriptValue<'js>>,
}

impl<'js> Reader<'_, 'js> {
    /// `value` as JSON, `None` where `JSON.stringify` leaves a value out (`undefined`, a
    /// function, a symbol).
    fn value(
        &mut self,
        key: &Key<'js>,
        value: ScriptValue<'js>,
        depth: usize,
    ) -> Result<Option<Value>, Unreadable> {
        let value = self.through_to_json(key, value)?;
        let json = match value.type_of() {
            Type::Uninitialized
            | Type::Undefined
            | Type::Symbol
            | Type::Function
            | Type::Constructor => return Ok(None),
            Type::Null => Value::Null,
            Type::Bool => Value::Bool(value.as_bool().unwrap_or_default()),
            Type::Int => Value::from(value.as_int().unwrap_or_default()),
            Type::Float => number(value.as_float().unwrap_or(f64::NAN)),
            Type::String => match value.as_string() {
                Some(text) => Value::String(self.string(text)?),
                None => return Err(Unreadable::Engine),
            },
            Type::BigInt => return Err(Unreadable::BigInt),
            _ => match value.as_object() {
                Some(object) if self.is_array(object)? => self.array(object, depth)?,
                Some(object) => self.object(object, depth)?,
                None => return Ok(None),
            },
        };
        if !json.is_array() && !json.is_object() {
            self.spend(scalar_size(&json))?;
        }
        Ok(Some(json))
    }

    /// `value`, or what its `toJSON` method makes of it (a date's text, say).
    fn through_to_json(
        &self,
        key: &Key<'js>,
        value: ScriptValue<'js>,
    ) -> Result<ScriptValue<'js>, Unreadable> {
        let Some(object) = value.as_object() else {
            return Ok(value);
        };
        let method: ScriptValue<'js> = object.get("toJSON").map_err(|e| self.failed(e))?;
        let Some(method) = method.as_function() else {
            return Ok(value);
        };
        let key = match key {
            Key::Root => rquickjs::String::from_str(self.ctx.clone(), ""),
            Key::Index(index) => rquickjs::String::from_str(self.ctx.clone(), &index.to_string()),
            Key::Name(name) => Ok(name.clone()),
        }
        .map_err(|e| self.failed(e))?;
        method
            .call((This(value.clone()), key))
            .map_err(|e| self.failed(e))
    }

    /// Whether `object` is an array, or a proxy of one (as `Array.isArray` says).
    fn is_array(&mut self, object: &Object<'js>) -> Result<bool, Unreadable> {
        let mut object = object.clone();
        loop {
            if object.as_value().is_array() {
                return Ok(true);
            }
            let Some(proxy) = object.as_value().as_proxy() else {
                return Ok(false);
            };
            // Each hop of a chain of proxies is counted: a chain as long as memory allows
            // costs no more than the budget.
            self.spend(1)?;
            let target = proxy.target().map_err(|e| self.failed(e))?;
            object = target;
        }
    }

    fn array(&mut self, array: &Object<'js>, depth: usize) -> Result<Value, Unreadable> {
        let length: ScriptValue<'js> = array.get("length").map_err(|e| self.failed(e))?;
        let length = match length.type_of() {
            Type::Int => usize::try_from(length.as_int().unwrap_or_default()).unwrap_or(0),
            // Past 2^31 (an array's length reaches 2^32 - 1, a proxy's anything): counted
            // whole, so refused.
            Type::Float => match length.as_float() {
                Some(length) if length >= 1.0 => usize::MAX,
                _ => 0,
            },
            _ => 0,
        };
        // Brackets and commas, before a single item is visited: a sparse array's length is
        // what it costs.
        self.spend(length.max(1).saturating_add(1))?;
        if length > 0 {
            self.enter(array, depth)?;
        }
        let mut items = Vec::new();
        for index in 0..length {
            let at = u32::try_from(index).map_err(|_| self.too_large())?;
            let item: ScriptValue<'js> = array.get(at).map_err(|e| self.failed(e))?;
            let item = match self.value(&Key::Index(index), item, depth + 1)? {
                Some(item) => item,
                None => {
                    self.spend(scalar_size(&Value::Null))?;
                    Value::Null
                }
            };
            items.push(item);
        }
        if length > 0 {
            self.ancestors.pop();
        }
        Ok(Value::Array(items))
    }

    fn object(&mut self, object: &Object<'js>, depth: usize) -> Result<Value, Unreadable> {
        // The opening brace; the closing one is a member's (or an empty object's) below.
        self.spend(1)?;
        let mut fields = Map::new();
        let mut entered = false;
        // Keys as atoms, read below as counted strings (a key may be long, or hold a lone
        // surrogate).
        for key in object.keys::<Atom<'js>>() {
            let key = key.map_err(|e| self.failed(e))?;
            let name = key.to_js_string().map_err(|e| self.failed(e))?;
            let field: ScriptValue<'js> = object.get(key).map_err(|e| self.failed(e))?;
            if !entered {
                self.enter(object, depth)?;
                entered = true;
            }
            if let Some(field) = self.value(&Key::Name(name.clone()), field, depth + 1)? {
                let name = self.string(&name)?;
                // Quotes and colon, and the comma or closing brace (the quotes were counted
                // with the name).
                self.spend(2)?;
                fields.insert(name, field);
            }
        }
        if entered {
            self.ancestors.pop();
        }
        if fields.is_empty() {
            self.spend(1)?;
        }
        Ok(Value::Object(fields))
    }

    /// Goes into a non-empty array or object at `depth`, unless it is too deep or one of
    /// its own ancestors.
    fn enter(&mut self, container: &Object<'js>, depth: usize) -> Result<(), Unreadable> {
        let container = container.as_value();
        if self.ancestors.contains(container) {
            return Err(Unreadable::Circular);
        }
        if depth >= self.budget.max_depth {
            return Err(Unreadable::TooDeep(self.budget.max_depth));
        }
        self.ancestors.push(container.clone());
        Ok(())
    }

    /// `text` as a Rust string, its length spent before it is copied.
    fn string(&mut self, text: &rquickjs::String<'js>) -> Result<String, Unreadable> {
        // The engine's UTF-8 form (WTF-8 for lone surrogates): its length at no copy for
        // ASCII text, and within the script's memory limit otherwise.
        let length = (text.clone().to_cstring())
            .map_err(|e| self.failed(e))?
            .len();
        self.spend(length.saturating_add(2))?;
        text.to_string().map_err(|error| match error {
            // What QuickJS writes for a lone surrogate is WTF-8, not UTF-8.
            EngineError::Utf8(_) => Unreadable::LoneSurrogate,
            other => self.failed(other),
        })
    }

    fn spend(&mut self, bytes: usize) -> Result<(), Unreadable> {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(self.too_large()),
        }
    }

    fn too_large(&self) -> Unreadable {
        Unreadable::TooLarge(self.budget.max_bytes)
    }

    /// An engine error while reading: the script's exception if one is pending (it is left
    /// there, to be thrown on as it is).
    fn failed(&self, _error: EngineError) -> Unreadable {
        if self.ctx.has_exception() {
            Unreadable::Thrown
        } else {
            Unreadable::Engine
        }
    }
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

/// The bytes a scalar takes as the registry's limits count it (a float's upper bound of 24,
/// a string's quotes only: its text is spent as it is read).
fn scalar_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => match (number.as_u64(), number.as_i64()) {
            (Some(integer), _) => digits(integer),
            (None, Some(integer)) => 1 + digits(integer.unsigned_abs()),
            _ => 24,
        },
        Value::String(_) | Value::Array(_) | Value::Object(_) => 0,
    }
}

fn digits(integer: u64) -> usize {
    integer.checked_ilog10().map_or(1, |log| log as usize + 1)
}
