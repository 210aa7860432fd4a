//! Code mode's host boundary, as property tests over JavaScript values: a JSON-ish value
//! written as a script's source comes back exactly, as a tool's arguments and as the
//! script's return value, or is an error naming why; a value JSON cannot carry is never a
//! successful `null`.
#![cfg(feature = "code-mode")]

use std::sync::LazyLock;

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, Session, SessionOptions, ToolResult,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

/// The depth limit of arguments and return values (the registry's default).
const MAX_DEPTH: usize = 64;

/// A value a script can write: JSON's, with strings as UTF-16 code units (so that a lone
/// surrogate can be among them).
#[derive(Clone, Debug)]
enum Js {
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    Text(Vec<u16>),
    Array(Vec<Js>),
    Object(Vec<(Vec<u16>, Js)>),
}

impl Js {
    /// The value as JavaScript source.
    fn source(&self) -> String {
        match self {
            Js::Null => "null".to_owned(),
            Js::Bool(value) => value.to_string(),
            Js::Integer(value) => format!("({value})"),
            Js::Float(value) => format!("({value:?})"),
            Js::Text(units) => literal(units),
            Js::Array(items) => {
                let items: Vec<String> = items.iter().map(Js::source).collect();
                format!("[{}]", items.join(", "))
            }
            Js::Object(members) => {
                let members: Vec<String> = (members.iter())
                    .map(|(key, value)| format!("[{}]: {}", literal(key), value.source()))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }
        }
    }

    /// The value as JSON, or what stops it being JSON (a word the error names).
    fn expected(&self) -> Result<Value, &'static str> {
        Ok(match self {
            Js::Null => Value::Null,
            Js::Bool(value) => Value::Bool(*value),
            Js::Integer(value) => json!(value),
            Js::Float(value) => json!(value),
            Js::Text(units) => Value::String(text(units)?),
            Js::Array(items) => {
                Value::Array(items.iter().map(Js::expected).collect::<Result<_, _>>()?)
            }
            Js::Object(members) => {
                let mut object = Map::new();
                for (key, value) in members {
                    let value = value.expected()?;
                    object.insert(text(key)?, value);
                }
                Value::Object(object)
            }
        })
    }

    /// Levels of non-empty arrays and objects.
    fn depth(&self) -> usize {
        match self {
            Js::Array(items) if !items.is_empty() => {
                1 + items.iter().map(Js::depth).max().unwrap_or(0)
            }
            Js::Object(members) if !members.is_empty() => {
                1 + members
                    .iter()
                    .map(|(_, value)| value.depth())
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }
}

/// UTF-16 code units as a JavaScript string literal, every unit that is not plain ASCII
/// escaped.
fn literal(units: &[u16]) -> String {
    let mut source = String::from("\"");
    for &unit in units {
        match char::from_u32(u32::from(unit)) {
            Some(c) if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' => source.push(c),
            _ => source.push_str(&format!("\\u{unit:04x}")),
        }
    }
    source.push('"');
    source
}

fn text(units: &[u16]) -> Result<String, &'static str> {
    String::from_utf16(units).map_err(|_| "lone surrogate")
}

/// A string's code units: mostly whole characters (any, surrogate pairs included), now and
/// then half of a pair alone.
fn units() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        9 => any::<char>().prop_map(|c| {
            let mut buffer = [0u16; 2];
            c.encode_utf16(&mut buffer).to_vec()
        }),
        1 => (0xD800u16..0xE000).prop_map(|unit| vec![unit]),
    ];
    prop::collection::vec(unit, 0..6).prop_map(|units| units.concat())
}

/// Keys: any text but `__proto__`, which an object literal takes as its prototype.
fn key() -> impl Strategy<Value = Vec<u16>> {
    units().prop_filter("not __proto__", |units| {
        String::from_utf16(units).map_or(true, |key| key != "__proto__")
    })
}

fn js() -> impl Strategy<Value = Js> {
    const SAFE: i64 = 1 << 53;
    let leaf = prop_oneof![
        Just(Js::Null),
        any::<bool>().prop_map(Js::Bool),
        (-SAFE..=SAFE).prop_map(Js::Integer),
        any::<f64>()
            .prop_filter("finite, not integral", |value| value.is_finite()
                && value.fract() != 0.0)
            .prop_map(Js::Float),
        units().prop_map(Js::Text),
    ];
    leaf.prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Js::Array),
            prop::collection::btree_map(key(), inner, 0..6)
                .prop_map(|members| Js::Object(members.into_iter().collect())),
        ]
    })
}

/// `value` inside `levels` arrays.
fn nested(levels: usize, value: Js) -> Js {
    (0..levels).fold(value, |value, _| Js::Array(vec![value]))
}

struct Fixture {
    runtime: Runtime,
    session: Session,
}

/// One runtime and one session for every case: a script's sandbox is its own anyway.
static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let take = DynamicTool::new(
        "take",
        "Echoes its arguments.",
        json!({"type": "object"}),
        |arguments, _| async move { Ok::<_, String>(arguments) },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(take)
        .build()
        .expect("a valid tool");
    let session = registry.session_with(SessionOptions::new().code_mode(CodeMode::new()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    Fixture { runtime, session }
});

fn script(code: &str) -> ToolResult {
    let fixture = &*FIXTURE;
    fixture.runtime.block_on(
        fixture
            .session
            .call(CODE_TOOL_NAME, json!({ "code": code })),
    )
}

/// `result` is `expected`, or an error naming why it is not JSON.
fn check(
    code: &str,
    result: &ToolResult,
    expected: Result<Value, &str>,
) -> Result<(), TestCaseError> {
    match expected {
        Ok(value) => {
            prop_assert!(!result.is_error(), "{code}: {}", result.text());
            prop_assert_eq!(result.content(), &value, "{}", code);
        }
        Err(why) => {
            prop_assert!(result.is_error(), "{code}: a success: {}", result.text());
            prop_assert!(result.text().contains(why), "{code}: {}", result.text());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_returned_value_comes_back_exactly_or_says_why(value in js()) {
        let code = format!("return {};", value.source());
        check(&code, &script(&code), value.expected())?;
    }

    #[test]
    fn an_argument_crosses_to_a_tool_and_back_exactly_or_says_why(value in js()) {
        let code = format!("const {{ v }} = await tools.take({{ v: {} }});\nreturn [v];", value.source());
        check(&code, &script(&code), value.expected().map(|value| json!([value])))?;
    }

    #[test]
    fn one_depth_limit_holds_for_arguments_and_returns(levels in 0..MAX_DEPTH + 8, value in js()) {
        let value = nested(levels, value);
        let expected = match value.expected() {
            // Depth is checked as values are read, a lone surrogate when its string is: the
            // first met says why, both are errors.
            Err(_) => Err("not JSON"),
            Ok(_) if value.depth() > MAX_DEPTH => Err("nested deeper than the limit of 64 levels"),
            Ok(json) => Ok(json),
        };
        let code = format!("return {};", value.source());
        check(&code, &script(&code), expected.clone())?;
        // The tool's arguments are one level more than the value itself.
        let code = format!("return await tools.take({});", Js::Object(vec![(vec![u16::from(b'v')], value.clone())]).source());
        let expected = match expected {
            Ok(_) if value.depth() + 1 > MAX_DEPTH => Err("nested deeper than the limit of 64 levels"),
            Ok(json) => Ok(json!({ "v": json })),
            Err(why) => Err(why),
        };
        check(&code, &script(&code), expected)?;
    }

    #[test]
    fn a_value_json_cannot_carry_is_never_a_successful_null(
        poison in prop::sample::select(vec![
            ("(() => { const a = [1]; a.push(a); return a; })()", "circular"),
            ("(() => { const o = {}; o.o = { o }; return o; })()", "circular"),
            ("10n", "BigInt"),
            ("'x\\ud800'", "lone surrogate"),
            ("'\\udc00y'", "lone surrogate"),
            ("{ get g() { throw new Error('from a getter'); } }", "from a getter"),
            ("{ toJSON() { throw new Error('from toJSON'); } }", "from toJSON"),
            ("new Proxy({}, { ownKeys() { throw new Error('from a trap'); } })", "from a trap"),
        ]),
        around in prop::collection::vec(prop::option::of(key()), 0..4),
    ) {
        let (poison, why) = poison;
        // The poison inside arrays (`None`) and objects under a key.
        let mut source = poison.to_owned();
        for wrapper in &around {
            source = match wrapper {
                None => format!("[{source}]"),
                Some(key) => format!("{{ [{}]: {source} }}", literal(key)),
            };
        }
        let code = format!("return {source};");
        let result = script(&code);
        prop_assert!(result.is_error(), "{code}: a success: {}", result.text());
        prop_assert!(result.text().contains(why), "{code}: {}", result.text());
        // As a tool's arguments: refused, the tool never called.
        let code = format!("return await tools.take({{ v: {source} }});");
        let result = script(&code);
        prop_assert!(result.is_error(), "{code}: a success: {}", result.text());
        prop_assert!(result.text().contains(why), "{code}: {}", result.text());
    }
}

#[test]
fn functions_symbols_and_toplevel_nothing_are_errors_or_undefined() {
    for (code, expected) in [
        ("return () => 1;", Err("a function is not JSON")),
        ("return Symbol('s');", Err("a symbol is not JSON")),
        (
            "return { toJSON() { return undefined; } };",
            Err("toJSON returns undefined"),
        ),
        ("return undefined;", Ok(Value::Null)),
        ("return { f() {}, s: Symbol('s') };", Ok(json!({}))),
    ] {
        let result = script(code);
        check(code, &result, expected).expect("as expected");
    }
}
