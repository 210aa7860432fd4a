//! Property-based fuzzing (proptest) of everything that reads input a model or a client
//! controls: argument handling and dispatch, history scanning, provider response parsing and
//! the provider schema dialects. No input may panic or hang; where the right answer is known
//! (valid arguments, well-formed histories and responses), it is checked too.
//!
//! CI runs `DEFAULT_CASES`-sized runs. Raise every target to `N` cases with
//! `LAZYTOOL_FUZZ_CASES=N`, e.g.
//! `LAZYTOOL_FUZZ_CASES=100000 cargo test -p lazytool-tests --release --test fuzz`.
//! Failing inputs are recorded in `tests/proptest-regressions/fuzz.txt` and replayed first on
//! every run; keep that file committed.
//!
//! A watchdog aborts the process, printing the input, if one case runs longer than
//! `LAZYTOOL_FUZZ_HANG_SECS` seconds (default 60): a hang is reported, not waited out.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, Once, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use lazytool_runtime::provider::{anthropic, gemini, openai_chat, openai_responses};
use lazytool_runtime::schema::dialect;
use lazytool_runtime::{
    CallLimits, DISCOVERY_TOOL_NAME, DiscoveryMode, Registry, Session, SessionOptions,
    ToolErrorKind, ToolResult, tool,
};
use lazytool_tests::dialect_rules;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value, json};

// ---------------------------------------------------------------------------------------------
// Configuration, watchdog
// ---------------------------------------------------------------------------------------------

/// Cases per target when `LAZYTOOL_FUZZ_CASES` is not set (cheap targets run a multiple),
/// keeping the whole file within about a minute in a debug build.
const DEFAULT_CASES: u32 = 256;

fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("LAZYTOOL_FUZZ_CASES")
        .ok()
        .and_then(|cases| cases.trim().parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/fuzz.txt",
        ))),
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

type Running = HashMap<ThreadId, (&'static str, Instant, String)>;

fn running() -> &'static Mutex<Running> {
    static RUNNING: OnceLock<Mutex<Running>> = OnceLock::new();
    RUNNING.get_or_init(Default::default)
}

/// Registers the case about to run on this thread; the watchdog aborts the process with the
/// input if it is still running after the hang limit. Dropping the guard ends the case.
struct Watch;

impl Watch {
    fn start(target: &'static str, input: impl FnOnce() -> String) -> Watch {
        setup();
        let mut running = running().lock().unwrap_or_else(|p| p.into_inner());
        running.insert(
            std::thread::current().id(),
            (target, Instant::now(), input()),
        );
        Watch
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut running = running().lock().unwrap_or_else(|p| p.into_inner());
        running.remove(&std::thread::current().id());
    }
}

/// Once per process: the watchdog thread, and a panic hook that keeps the intentional panics
/// of `fuzz_divide` (caught and turned into error results) out of the output.
fn setup() {
    static SETUP: Once = Once::new();
    SETUP.call_once(|| {
        let limit = std::env::var("LAZYTOOL_FUZZ_HANG_SECS")
            .ok()
            .and_then(|secs| secs.trim().parse().ok())
            .unwrap_or(60);
        let limit = Duration::from_secs(limit);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let running = running().lock().unwrap_or_else(|p| p.into_inner());
                for (target, started, input) in running.values() {
                    if started.elapsed() > limit {
                        eprintln!(
                            "fuzz: HANG in `{target}`: a case ran over {limit:?}; input:\n{input}"
                        );
                        std::process::abort();
                    }
                }
            }
        });
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if message.starts_with("attempt to divide") {
                return;
            }
            default(info);
        }));
    });
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
}

fn block_on<F: Future>(future: F) -> F::Output {
    RUNTIME.with(|runtime| runtime.block_on(future))
}

// ---------------------------------------------------------------------------------------------
// The tools under test
// ---------------------------------------------------------------------------------------------

/// Echoes its scalar arguments.
#[tool(strict)]
async fn fuzz_scalars(count: i64, ratio: f64, flag: bool, label: String, small: u8) -> Value {
    json!({"count": count, "ratio": ratio, "flag": flag, "label": label, "small": small})
}

/// Echoes its optional arguments, defaults applied.
#[tool(rename_all = "camelCase")]
async fn fuzz_optional(
    query: Option<String>,
    #[arg(default = 10)] page_size: u32,
    #[arg(default)] include_hidden: bool,
    max_price: Option<f64>,
) -> Value {
    json!({"query": query, "pageSize": page_size, "includeHidden": include_hidden, "maxPrice": max_price})
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Book,
    Music,
    Film,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Range {
    min: i32,
    max: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Filter {
    tags: Vec<String>,
    range: Option<Range>,
    kind: Kind,
}

/// Echoes a nested filter and a list of ids.
#[tool]
async fn fuzz_nested(filter: Filter, #[schemars(length(max = 16))] ids: Vec<u32>) -> Value {
    json!({"filter": filter, "ids": ids})
}

/// Answers pong.
#[tool]
async fn fuzz_ping() -> String {
    "pong".to_owned()
}

/// Divides; panics on a zero divisor or on overflow.
#[tool]
fn fuzz_divide(a: i64, b: i64) -> i64 {
    a / b
}

/// The weather in a city.
#[tool(lazy)]
async fn fuzz_lazy_weather(city: String) -> String {
    city
}

/// The stock of a product.
#[tool(lazy, name = "fuzz-lazy-stock")]
async fn fuzz_lazy_stock(sku: u32) -> u32 {
    sku
}

/// A third lazy tool, for gating.
#[tool(lazy, name = "fuzzLazyGated")]
async fn fuzz_lazy_gated() -> bool {
    true
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    // Only this file's tools: `lazytool_tests::cross_crate_echo`, linked in with the dialect
    // rules, stays an unknown name here (see `known_name`).
    REGISTRY.get_or_init(|| {
        Registry::builder()
            .filter(|spec| spec.module_path() == module_path!())
            .build()
            .expect("valid tools")
    })
}

fn lazy_names() -> BTreeSet<String> {
    registry()
        .tools()
        .filter(|tool| tool.is_lazy())
        .map(|tool| tool.name().to_owned())
        .collect()
}

fn is_lazy(name: &str) -> bool {
    registry().get(name).is_some_and(|tool| tool.is_lazy())
}

const LAZY: &[&str] = &["fuzz_lazy_weather", "fuzz-lazy-stock", "fuzzLazyGated"];
const EAGER: &[&str] = &[
    "fuzz_scalars",
    "fuzz_optional",
    "fuzz_nested",
    "fuzz_ping",
    "fuzz_divide",
];
const MARKER: &str = "<lazytool-discovered>";

/// Every result obeys the `ToolResult` contract: an error carries a kind and a JSON string,
/// and no result is larger than the output limit (escapes counted).
fn check_result_shape(result: &ToolResult) -> Result<(), TestCaseError> {
    check_result_within(result, registry().limits().max_output_bytes)
}

fn check_result_within(result: &ToolResult, max_output_bytes: usize) -> Result<(), TestCaseError> {
    let sent = serde_json::to_string(result.content()).map_or(0, |json| json.len());
    prop_assert!(
        sent <= max_output_bytes,
        "{} bytes sent over a limit of {}: {}",
        sent,
        max_output_bytes,
        result.text()
    );
    prop_assert_eq!(result.is_error(), result.error_kind().is_some());
    if result.is_error() {
        prop_assert!(
            result.content().is_string(),
            "error content is not a string: {}",
            result.content()
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Generic strategies: strings, JSON values
// ---------------------------------------------------------------------------------------------

fn known_name() -> BoxedStrategy<String> {
    let mut names: Vec<&'static str> = LAZY.iter().chain(EAGER).copied().collect();
    names.extend([DISCOVERY_TOOL_NAME, "cross_crate_echo"]);
    prop::sample::select(names).prop_map(str::to_owned).boxed()
}

/// Tool names: real ones, near misses, anything.
fn tool_name() -> BoxedStrategy<String> {
    prop_oneof![
        4 => known_name(),
        1 => known_name().prop_map(|n| format!(" {n}")),
        1 => known_name().prop_map(|n| n.to_uppercase()),
        1 => known_name().prop_map(|n| format!("{n}\u{0}")),
        2 => "\\PC{0,16}",
        1 => ".{0,70}",
    ]
    .boxed()
}

/// Property names the tools' schemas use, plus others.
fn key() -> BoxedStrategy<String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "count", "ratio", "flag", "label", "small", "query", "pageSize", "page_size",
            "includeHidden", "maxPrice", "filter", "ids", "tags", "range", "min", "max", "kind",
            "toolNames", "limit", "city", "sku", "a", "b", "type", "name", "arguments",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{0,8}",
        1 => ".{0,4}",
    ]
    .boxed()
}

/// Numbers as JSON text: huge, tiny, with exponents out of range, negative zero.
fn number_text() -> BoxedStrategy<String> {
    prop_oneof![
        "-?[0-9]{1,400}",
        "-?[0-9]{1,30}\\.[0-9]{1,60}",
        "-?[0-9]{1,3}(\\.[0-9]{1,3})?[eE][+-]?[0-9]{1,6}",
        prop::sample::select(vec![
            "-0",
            "0.0",
            "1e309",
            "-1e309",
            "1e-400",
            "18446744073709551616",
            "-9223372036854775809",
            "9223372036854775807",
            "4294967296",
            "256",
            "-1",
            "NaN",
            "Infinity",
            "01",
            "1.",
            ".5",
            "+1",
            "0x10",
        ])
        .prop_map(str::to_owned),
    ]
    .boxed()
}

/// A JSON value built from `string` leaves, bounded in depth (8) and size.
fn json_with(string: BoxedStrategy<String>) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => prop_oneof![Just(0i64), Just(-1), Just(1), Just(255), Just(256), Just(4294967296)]
            .prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        3 => string.prop_map(Value::String),
    ];
    leaf.prop_recursive(8, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Text that looks like JSON: valid documents, truncated or spliced ones, deep nesting.
fn json_text() -> BoxedStrategy<String> {
    let simple = json_with("\\PC{0,8}".boxed())
        .prop_map(|value| value.to_string())
        .boxed();
    prop_oneof![
        3 => simple.clone(),
        1 => (simple.clone(), any::<Index>()).prop_map(|(text, at)| {
            let cut = at.index(text.len() + 1);
            (0..=cut).rev().find(|&i| text.is_char_boundary(i)).map_or(text.clone(), |i| text[..i].to_owned())
        }),
        1 => (simple, any::<Index>(), ".{0,3}").prop_map(|(text, at, insert)| {
            let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
            let at = boundaries[at.index(boundaries.len())];
            format!("{}{insert}{}", &text[..at], &text[at..])
        }),
        1 => (1usize..300, prop::bool::ANY).prop_map(|(depth, array)| if array {
            format!("{}{}", "[".repeat(depth), "]".repeat(depth))
        } else {
            format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
        }),
        1 => number_text(),
        1 => number_text().prop_map(|n| format!("{{\"count\":{n},\"ratio\":{n},\"flag\":true,\"label\":\"x\",\"small\":{n}}}")),
    ]
    .boxed()
}

/// Strings: arbitrary unicode, control characters, JSON-looking text, huge numbers, names.
fn string() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "\\PC{0,24}",
        1 => ".{0,24}",
        1 => "[\\x00-\\x1f\"\\\\ ]{0,8}",
        2 => json_text(),
        1 => known_name(),
        1 => prop::sample::select(vec!["", " ", "\t\n", "null", "true", "{}", "[]", "\"\"", "Error: boom", MARKER])
            .prop_map(str::to_owned),
    ]
    .boxed()
}

fn arb_json() -> BoxedStrategy<Value> {
    json_with(string()).boxed()
}

// ---------------------------------------------------------------------------------------------
// Mutation: corrupting well-formed values
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    /// Removes the node from its parent (the root becomes null).
    Remove,
    /// Replaces the node with another value.
    Replace(Value),
    /// Replaces the node with a string (a random id, a name).
    String(String),
    /// Wraps the node in an array.
    Wrap,
    /// Turns a string into a number or a number into a string, anything else into null.
    Retype,
}

fn mutation() -> BoxedStrategy<Mutation> {
    prop_oneof![
        3 => Just(Mutation::Remove),
        2 => json_with("\\PC{0,6}".boxed()).prop_map(Mutation::Replace),
        2 => prop_oneof![string(), tool_name(), Just(DISCOVERY_TOOL_NAME.to_owned())].prop_map(Mutation::String),
        1 => Just(Mutation::Wrap),
        1 => Just(Mutation::Retype),
    ]
    .boxed()
}

fn mutations() -> BoxedStrategy<Vec<(Index, Mutation)>> {
    prop::collection::vec((any::<Index>(), mutation()), 0..4).boxed()
}

fn count_nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(members) => members.values().map(count_nodes).sum(),
        _ => 0,
    }
}

fn mutate_node(value: &mut Value, mutation: &Mutation) {
    *value = match (mutation, std::mem::take(value)) {
        (Mutation::Remove, _) => Value::Null,
        (Mutation::Replace(replacement), _) => replacement.clone(),
        (Mutation::String(text), _) => Value::String(text.clone()),
        (Mutation::Wrap, old) => Value::Array(vec![old]),
        (Mutation::Retype, Value::String(text)) => Value::from(text.len()),
        (Mutation::Retype, Value::Number(number)) => Value::String(number.to_string()),
        (Mutation::Retype, _) => Value::Null,
    };
}

/// Applies `mutation` to the node numbered `target` in pre-order; returns whether done.
fn mutate_at(value: &mut Value, target: &mut usize, mutation: &Mutation) -> bool {
    if *target == 0 {
        mutate_node(value, mutation);
        return true;
    }
    *target -= 1;
    match value {
        Value::Array(items) => {
            for i in 0..items.len() {
                if *target == 0 && matches!(mutation, Mutation::Remove) {
                    items.remove(i);
                    return true;
                }
                if mutate_at(&mut items[i], target, mutation) {
                    return true;
                }
            }
        }
        Value::Object(members) => {
            let keys: Vec<String> = members.keys().cloned().collect();
            for key in keys {
                if *target == 0 && matches!(mutation, Mutation::Remove) {
                    members.shift_remove(&key);
                    return true;
                }
                if let Some(member) = members.get_mut(&key)
                    && mutate_at(member, target, mutation)
                {
                    return true;
                }
            }
        }
        _ => {}
    }
    false
}

fn mutate(mut value: Value, mutations: &[(Index, Mutation)]) -> Value {
    for (at, mutation) in mutations {
        let mut target = at.index(count_nodes(&value));
        mutate_at(&mut value, &mut target, mutation);
    }
    value
}

// ---------------------------------------------------------------------------------------------
// 1. Argument handling and dispatch
// ---------------------------------------------------------------------------------------------

/// What a valid call must give.
#[derive(Clone, Debug)]
enum Expected {
    Value(Value),
    Panicked,
}

#[derive(Clone, Debug)]
struct ValidCall {
    name: &'static str,
    arguments: Value,
    expected: Expected,
}

fn finite_f64() -> BoxedStrategy<f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(1.5),
            Just(3.0),
            Just(f64::MAX),
            Just(f64::MIN_POSITIVE)
        ],
    ]
    .boxed()
}

/// Properties no schema declares, added to the arguments of non-strict tools.
fn extras() -> BoxedStrategy<Vec<(String, Value)>> {
    prop::collection::vec(("x_[a-z]{1,6}", json_with("\\PC{0,6}".boxed())), 0..3).boxed()
}

fn valid_scalars() -> BoxedStrategy<ValidCall> {
    (any::<i64>(), finite_f64(), any::<bool>(), "\\PC{0,16}|.{0,16}", any::<u8>()).prop_map(
        |(count, ratio, flag, label, small)| {
            let arguments =
                json!({"count": count, "ratio": ratio, "flag": flag, "label": label, "small": small});
            ValidCall {
                name: "fuzz_scalars",
                expected: Expected::Value(arguments.clone()),
                arguments,
            }
        },
    )
    .boxed()
}

/// An optional property: absent (outer `None`), `null` (inner `None`), or given.
fn optional<T: Strategy>(value: T) -> impl Strategy<Value = Option<Option<T::Value>>> {
    prop::option::of(prop::option::of(value))
}

fn valid_optional() -> BoxedStrategy<ValidCall> {
    (
        optional("\\PC{0,16}|.{0,16}"),
        optional(any::<u32>()),
        optional(any::<bool>()),
        optional(finite_f64()),
        extras(),
    )
        .prop_map(|(query, page_size, include_hidden, max_price, extras)| {
            let mut arguments = Map::new();
            let mut put = |key: &str, value: &Option<Option<Value>>| {
                if let Some(value) = value {
                    arguments.insert(key.to_owned(), value.clone().unwrap_or(Value::Null));
                }
            };
            put("query", &query.clone().map(|q| q.map(Value::from)));
            put("pageSize", &page_size.map(|p| p.map(Value::from)));
            put("includeHidden", &include_hidden.map(|p| p.map(Value::from)));
            put("maxPrice", &max_price.map(|p| p.map(Value::from)));
            arguments.extend(extras);
            ValidCall {
                name: "fuzz_optional",
                arguments: Value::Object(arguments),
                expected: Expected::Value(json!({
                    "query": query.flatten(),
                    "pageSize": page_size.flatten().unwrap_or(10),
                    "includeHidden": include_hidden.flatten().unwrap_or(false),
                    "maxPrice": max_price.flatten(),
                })),
            }
        })
        .boxed()
}

fn valid_nested() -> BoxedStrategy<ValidCall> {
    let kind = prop_oneof![Just(Kind::Book), Just(Kind::Music), Just(Kind::Film)];
    let range =
        prop::option::of((any::<i32>(), any::<i32>()).prop_map(|(min, max)| Range { min, max }));
    let filter = (prop::collection::vec("\\PC{0,8}|.{0,8}", 0..5), range, kind)
        .prop_map(|(tags, range, kind)| Filter { tags, range, kind });
    (
        filter,
        prop::collection::vec(any::<u32>(), 0..=16),
        0u8..3, // range absent or null when `None`
        0u8..4, // which members are sent as JSON-encoded strings
        extras(),
    )
        .prop_map(|(filter, ids, none_as, stringify, extras)| {
            let mut filter_json = serde_json::to_value(&filter).expect("serializable");
            if filter.range.is_none() && none_as == 0 {
                filter_json.as_object_mut().map(|f| f.shift_remove("range"));
            }
            let mut ids_json = json!(ids);
            if stringify & 1 == 1 {
                filter_json = Value::String(filter_json.to_string());
            }
            if stringify & 2 == 2 {
                ids_json = Value::String(ids_json.to_string());
            }
            let mut arguments = Map::new();
            arguments.insert("filter".to_owned(), filter_json);
            arguments.insert("ids".to_owned(), ids_json);
            arguments.extend(extras);
            ValidCall {
                name: "fuzz_nested",
                arguments: Value::Object(arguments),
                expected: Expected::Value(json!({"filter": filter, "ids": ids})),
            }
        })
        .boxed()
}

fn valid_ping() -> BoxedStrategy<ValidCall> {
    prop_oneof![
        prop::sample::select(vec![
            Value::Null,
            json!(""),
            json!("   "),
            json!({}),
            json!("{}"),
            json!("null"),
            json!(" {} "),
        ]),
        extras().prop_map(|extras| Value::Object(extras.into_iter().collect())),
    ]
    .prop_map(|arguments| ValidCall {
        name: "fuzz_ping",
        arguments,
        expected: Expected::Value(json!("pong")),
    })
    .boxed()
}

fn valid_divide() -> BoxedStrategy<ValidCall> {
    let a = prop_oneof![any::<i64>(), Just(i64::MIN), Just(0)];
    let b = prop_oneof![any::<i64>(), Just(0), Just(-1), Just(1)];
    (a, b)
        .prop_map(|(a, b)| ValidCall {
            name: "fuzz_divide",
            arguments: json!({"a": a, "b": b}),
            expected: a
                .checked_div(b)
                .map_or(Expected::Panicked, |q| Expected::Value(json!(q))),
        })
        .boxed()
}

fn valid_call() -> BoxedStrategy<ValidCall> {
    prop_oneof![
        valid_scalars(),
        valid_optional(),
        valid_nested(),
        valid_ping(),
        valid_divide(),
    ]
    .boxed()
}

/// Arguments of any shape: arbitrary JSON, strings, JSON-encoded strings, and valid arguments
/// of some tool with a few corruptions (which exercises validation and repair).
fn arguments() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => arb_json(),
        2 => string().prop_map(Value::String),
        1 => arb_json().prop_map(|value| Value::String(value.to_string())),
        4 => (valid_call(), mutations()).prop_map(|(call, mutations)| mutate(call.arguments, &mutations)),
        1 => (valid_call(), mutations()).prop_map(|(call, mutations)| {
            Value::String(mutate(call.arguments, &mutations).to_string())
        }),
    ]
    .boxed()
}

/// Names paired with arguments: mostly the argument shape meant for another tool or for it.
fn any_call() -> BoxedStrategy<(String, Value)> {
    prop_oneof![
        3 => (tool_name(), arguments()),
        2 => (valid_call(), mutations()).prop_map(|(call, mutations)| (call.name.to_owned(), mutate(call.arguments, &mutations))),
    ]
    .boxed()
}

fn check_dispatch(name: &str, arguments: &Value, result: &ToolResult) -> Result<(), TestCaseError> {
    check_result_shape(result)?;
    let Some(tool) = registry().get(name) else {
        prop_assert_eq!(result.error_kind(), Some(ToolErrorKind::UnknownTool));
        return Ok(());
    };
    prop_assert_ne!(result.error_kind(), Some(ToolErrorKind::UnknownTool));
    if matches!(
        arguments,
        Value::Bool(_) | Value::Number(_) | Value::Array(_)
    ) {
        prop_assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
    }
    if result.error_kind() == Some(ToolErrorKind::Panicked) {
        prop_assert_eq!(tool.name(), "fuzz_divide");
    }
    if !result.is_error() {
        // What a success echoes is what the schema allows.
        match tool.name() {
            "fuzz_ping" => prop_assert_eq!(result.content(), &json!("pong")),
            "fuzz_scalars" | "fuzz_optional" | "fuzz_nested" => {
                prop_assert!(result.content().is_object())
            }
            "fuzz_lazy_weather" => prop_assert!(result.content().is_string()),
            "fuzz-lazy-stock" | "fuzz_divide" => {
                prop_assert!(result.content().is_i64() || result.content().is_u64())
            }
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES * 4))]

    /// Any name with any arguments through `Registry::call`: a result always comes back, with
    /// the kind of error the input deserves.
    #[test]
    fn registry_call_never_panics((name, arguments) in any_call()) {
        let _watch = Watch::start("registry_call_never_panics", || format!("{name:?} {arguments}"));
        let result = block_on(registry().call(&name, arguments.clone()));
        check_dispatch(&name, &arguments, &result)?;
    }

    /// Valid arguments, as an object and as a JSON-encoded string (with nested members
    /// sometimes JSON-encoded too), give the tool's value; a panic becomes an error result.
    #[test]
    fn valid_arguments_succeed(call in valid_call()) {
        let _watch = Watch::start("valid_arguments_succeed", || format!("{call:?}"));
        let mut forms = vec![call.arguments.clone()];
        // The same arguments JSON-encoded, as OpenAI sends them.
        if call.arguments.is_object() {
            forms.push(Value::String(call.arguments.to_string()));
        }
        for arguments in forms {
            let result = block_on(registry().call(call.name, arguments.clone()));
            check_result_shape(&result)?;
            match &call.expected {
                Expected::Value(expected) => {
                    prop_assert!(!result.is_error(), "{} {} failed: {}", call.name, arguments, result.text());
                    prop_assert_eq!(result.content(), expected);
                }
                Expected::Panicked => {
                    prop_assert_eq!(result.error_kind(), Some(ToolErrorKind::Panicked));
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    Call(String, Value),
    BeginTurn,
    ActiveTools,
}

/// Arguments for the discovery tool: well-formed, near misses, anything.
fn discovery_arguments() -> BoxedStrategy<Value> {
    let name = prop_oneof![
        4 => prop::sample::select(LAZY.to_vec()).prop_map(Value::from),
        1 => known_name().prop_map(Value::from),
        1 => known_name().prop_map(|n| Value::from(format!("  {n} "))),
        1 => string().prop_map(Value::from),
        1 => arb_json(),
    ];
    prop_oneof![
        4 => prop::collection::vec(name.clone(), 0..5).prop_map(|names| json!({"toolNames": names})),
        1 => prop::collection::vec(name.clone(), 0..5).prop_map(|names| Value::String(json!({"toolNames": names}).to_string())),
        1 => name.prop_map(|name| json!({"toolNames": name})),
        1 => (string(), arb_json()).prop_map(|(query, limit)| json!({"query": query, "limit": limit})),
        1 => prop::sample::select(vec!["weather", "stock", "lazy", "gated", "fuzz", " "]).prop_map(|q| json!({"query": q})),
        2 => arguments(),
    ]
    .boxed()
}

fn step() -> BoxedStrategy<Step> {
    prop_oneof![
        4 => discovery_arguments().prop_map(|a| Step::Call(DISCOVERY_TOOL_NAME.to_owned(), a)),
        4 => any_call().prop_map(|(n, a)| Step::Call(n, a)),
        2 => (prop::sample::select(LAZY.to_vec()), arguments()).prop_map(|(n, a)| Step::Call(n.to_owned(), a)),
        1 => Just(Step::BeginTurn),
        1 => Just(Step::ActiveTools),
    ]
    .boxed()
}

fn session_mode() -> BoxedStrategy<DiscoveryMode> {
    prop_oneof![
        2 => Just(DiscoveryMode::Names),
        1 => Just(DiscoveryMode::Search),
        1 => Just(DiscoveryMode::CacheStable),
    ]
    .boxed()
}

/// The lazy tool names a discovery call explicitly asks for by `toolNames`.
fn requested_lazy(arguments: &Value) -> Vec<String> {
    let arguments = match arguments {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    match arguments.get("toolNames") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|n| is_lazy(n))
            .map(str::to_owned)
            .collect(),
        Some(Value::String(name)) if is_lazy(name) => vec![name.clone()],
        _ => Vec::new(),
    }
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES))]

    /// A conversation of arbitrary calls through `Session::call`, discovery included: every
    /// call answers, discovery only ever adds existing lazy tools, and an undiscovered lazy
    /// tool never runs in the gated modes.
    #[test]
    fn session_calls_keep_discovery_consistent(
        mode in session_mode(),
        steps in prop::collection::vec(step(), 1..12),
    ) {
        let _watch = Watch::start("session_calls_keep_discovery_consistent", || format!("{mode:?} {steps:?}"));
        let lazy = lazy_names();
        let session = registry().session_with(SessionOptions::new().mode(mode));
        let gated = matches!(mode, DiscoveryMode::Names | DiscoveryMode::Search);
        let mut committed: BTreeSet<String> = BTreeSet::new();
        for step in steps {
            match step {
                Step::BeginTurn => {
                    session.begin_turn();
                    committed = session.discovered().tools.into_iter().collect();
                }
                Step::ActiveTools => {
                    let tools = session.active_tools();
                    committed = session.discovered().tools.into_iter().collect();
                    let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                    prop_assert_eq!(names.len(), tools.len(), "duplicate tools sent");
                    if mode == DiscoveryMode::Names {
                        prop_assert_eq!(
                            names.contains(DISCOVERY_TOOL_NAME),
                            committed.len() < lazy.len()
                        );
                        for name in &committed {
                            prop_assert!(names.contains(name.as_str()));
                        }
                    }
                }
                Step::Call(name, arguments) => {
                    let before = session.discovered().tools;
                    let result = block_on(session.call(&name, arguments.clone()));
                    check_result_shape(&result)?;
                    let after = session.discovered().tools;
                    prop_assert!(after.starts_with(&before), "discovery lost tools: {:?} -> {:?}", before, after);
                    let unique: BTreeSet<&String> = after.iter().collect();
                    prop_assert_eq!(unique.len(), after.len(), "duplicate discoveries: {:?}", after);
                    for discovered in &after {
                        prop_assert!(lazy.contains(discovered), "discovered {} is not lazy", discovered);
                    }
                    if name == DISCOVERY_TOOL_NAME {
                        for requested in requested_lazy(&arguments) {
                            prop_assert!(
                                after.contains(&requested),
                                "{} requested by {} but not discovered: {}", requested, arguments, result.text()
                            );
                        }
                        continue;
                    }
                    prop_assert_eq!(&before, &after, "a call other than discovery changed discovery");
                    let must_discover = gated && is_lazy(&name) && !committed.contains(&name);
                    prop_assert_eq!(
                        result.error_kind() == Some(ToolErrorKind::NotDiscovered),
                        must_discover,
                        "{} {}: {}", name, arguments, result.text()
                    );
                    if !must_discover {
                        check_dispatch(&name, &arguments, &result)?;
                    }
                }
            }
        }
    }
}

/// The same tools under small limits, so that random input reaches them.
fn tight_registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        Registry::builder()
            .filter(|spec| spec.module_path() == module_path!())
            .limits(
                CallLimits::default()
                    .max_argument_bytes(64)
                    .max_argument_depth(3)
                    .max_output_bytes(1000),
            )
            .build()
            .expect("valid tools")
    })
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES))]

    /// Every path — tools, the discovery tool, unknown and undiscovered tools — answers within
    /// the output limit, whatever the input, in every mode.
    #[test]
    fn every_path_answers_within_the_limits(
        mode in session_mode(),
        steps in prop::collection::vec(step(), 1..12),
    ) {
        let _watch = Watch::start("every_path_answers_within_the_limits", || format!("{mode:?} {steps:?}"));
        let registry = tight_registry();
        let session = registry.session_with(SessionOptions::new().mode(mode));
        for step in steps {
            match step {
                Step::Call(name, arguments) => {
                    let direct = block_on(registry.call(&name, arguments.clone()));
                    check_result_within(&direct, 1000)?;
                    let result = block_on(session.call(&name, arguments));
                    check_result_within(&result, 1000)?;
                }
                Step::BeginTurn => session.begin_turn(),
                Step::ActiveTools => {
                    session.active_tools();
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 2. History scanning
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Format {
    OpenAiChat,
    TanStack,
    TanStackFlat,
    Anthropic,
    Responses,
    Gemini,
    GeminiSnake,
}

fn format() -> BoxedStrategy<Format> {
    prop_oneof![
        Just(Format::OpenAiChat),
        Just(Format::TanStack),
        Just(Format::TanStackFlat),
        Just(Format::Anthropic),
        Just(Format::Responses),
        Just(Format::Gemini),
        Just(Format::GeminiSnake),
    ]
    .boxed()
}

fn call_id() -> BoxedStrategy<Option<String>> {
    prop_oneof![
        4 => prop::sample::select(vec!["call_1", "call_2", "toolu_1", "fc-1"]).prop_map(|id| Some(id.to_owned())),
        1 => Just(Some(String::new())),
        1 => Just(None),
        1 => "\\PC{0,8}".prop_map(Some),
    ]
    .boxed()
}

/// A discovery result's content: the tools listing of some names, in every shape results
/// take, or something else.
fn discovery_content() -> BoxedStrategy<Value> {
    let names = prop::collection::vec(prop_oneof![4 => known_name(), 1 => "\\PC{0,8}"], 0..4);
    prop_oneof![
        4 => names.clone().prop_map(|names| {
            json!({"tools": names.iter().map(|n| json!({"name": n, "description": "d", "inputSchema": {}})).collect::<Vec<_>>()})
        }),
        1 => names.prop_map(|names| json!({"tools": names, "errors": ["Unknown tool"]})),
        1 => arb_json(),
    ]
    .boxed()
}

fn text_form(content: Value, shape: u8) -> Value {
    match shape % 3 {
        0 => Value::String(content.to_string()),
        1 => json!([{"type": "text", "text": content.to_string()}]),
        _ => content,
    }
}

fn tool_call_message(format: Format, id: &Option<String>, name: &str, arguments: Value) -> Value {
    let encoded = Value::String(arguments.to_string());
    let mut call = match format {
        Format::OpenAiChat => {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": encoded}})
        }
        Format::TanStack => {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": encoded}})
        }
        Format::TanStackFlat => json!({"id": id, "name": name, "arguments": arguments}),
        Format::Anthropic => {
            json!({"type": "tool_use", "id": id, "name": name, "input": arguments})
        }
        Format::Responses => {
            json!({"type": "function_call", "id": "fc_x", "call_id": id, "name": name, "arguments": encoded})
        }
        Format::Gemini => json!({"functionCall": {"name": name, "args": arguments, "id": id}}),
        Format::GeminiSnake => {
            json!({"function_call": {"name": name, "args": arguments, "id": id}})
        }
    };
    if id.is_none() {
        // An absent id, not a null one.
        if let Some(map) = call.as_object_mut() {
            map.shift_remove("id");
            map.shift_remove("call_id");
            for inner in ["functionCall", "function_call"] {
                if let Some(inner) = map.get_mut(inner).and_then(Value::as_object_mut) {
                    inner.shift_remove("id");
                }
            }
        }
    }
    match format {
        Format::OpenAiChat => json!({"role": "assistant", "content": null, "tool_calls": [call]}),
        Format::TanStack | Format::TanStackFlat => {
            json!({"role": "assistant", "content": "", "toolCalls": [call]})
        }
        Format::Anthropic => {
            json!({"role": "assistant", "content": [{"type": "text", "text": "Loading."}, call]})
        }
        Format::Responses => call,
        Format::Gemini | Format::GeminiSnake => json!({"role": "model", "parts": [call]}),
    }
}

fn tool_result_message(
    format: Format,
    id: &Option<String>,
    name: &str,
    content: Value,
    shape: u8,
) -> Value {
    let mut message = match format {
        Format::OpenAiChat => {
            json!({"role": "tool", "tool_call_id": id, "content": text_form(content, shape)})
        }
        Format::TanStack | Format::TanStackFlat => {
            json!({"role": "tool", "toolCallId": id, "content": text_form(content, shape)})
        }
        Format::Anthropic => {
            let names: Vec<Value> = content
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|t| t.get("name").cloned())
                        .map(|n| json!({"type": "tool_reference", "tool_name": n}))
                        .collect()
                })
                .unwrap_or_default();
            let body = if shape % 4 == 3 && !names.is_empty() {
                Value::Array(names)
            } else {
                text_form(content, shape)
            };
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": body, "is_error": shape.is_multiple_of(5)}]})
        }
        Format::Responses => {
            json!({"type": "function_call_output", "call_id": id, "output": text_form(content, shape)})
        }
        Format::Gemini => {
            let response = if shape.is_multiple_of(2) {
                json!({"result": content})
            } else {
                json!({"output": content.to_string()})
            };
            json!({"role": "user", "parts": [{"functionResponse": {"name": name, "id": id, "response": response}}]})
        }
        Format::GeminiSnake => {
            json!({"role": "user", "parts": [{"function_response": {"name": name, "id": id, "response": content}}]})
        }
    };
    if id.is_none() {
        fn strip(value: &mut Value) {
            match value {
                Value::Object(map) => {
                    for key in ["tool_call_id", "toolCallId", "tool_use_id", "call_id", "id"] {
                        map.shift_remove(key);
                    }
                    map.values_mut().for_each(strip);
                }
                Value::Array(items) => items.iter_mut().for_each(strip),
                _ => {}
            }
        }
        strip(&mut message);
    }
    message
}

/// Plain messages: text, compaction markers, arbitrary JSON.
fn other_message() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => (prop::sample::select(vec!["user", "assistant", "system", "tool", "model"]), string())
            .prop_map(|(role, text)| json!({"role": role, "content": text})),
        1 => prop::collection::vec(prop_oneof![4 => known_name(), 1 => "\\PC{0,6}"], 0..3).prop_map(|names| {
            json!({"role": "system", "content": format!("Summary. {MARKER}{}</lazytool-discovered>", json!(names))})
        }),
        1 => string().prop_map(|text| json!({"role": "user", "parts": [{"text": text}]})),
        2 => arb_json(),
    ]
    .boxed()
}

/// One history entry: a tool call or result of any format (its tool sometimes the discovery
/// tool), or another message, then corrupted.
fn history_message() -> BoxedStrategy<Value> {
    let name = prop_oneof![3 => Just(DISCOVERY_TOOL_NAME.to_owned()), 2 => tool_name()];
    let call = (format(), call_id(), name.clone(), arguments())
        .prop_map(|(format, id, name, arguments)| tool_call_message(format, &id, &name, arguments));
    let result = (format(), call_id(), name, discovery_content(), any::<u8>()).prop_map(
        |(format, id, name, content, shape)| {
            tool_result_message(format, &id, &name, content, shape)
        },
    );
    let message = prop_oneof![3 => call, 3 => result, 2 => other_message()];
    (
        message,
        prop_oneof![2 => Just(Vec::new()), 1 => mutations()],
    )
        .prop_map(|(message, mutations)| mutate(message, &mutations))
        .boxed()
}

/// A history: entries in pairs (a call and its result, often adjacent) and alone.
fn history() -> BoxedStrategy<Vec<Value>> {
    let pair = (
        format(),
        format(),
        call_id(),
        prop_oneof![3 => Just(DISCOVERY_TOOL_NAME.to_owned()), 1 => tool_name()],
        discovery_content(),
        any::<u8>(),
        mutations(),
    )
        .prop_map(
            |(call_format, result_format, id, name, content, shape, mutations)| {
                let mut pair = vec![
                    tool_call_message(call_format, &id, &name, json!({"toolNames": ["x"]})),
                    tool_result_message(result_format, &id, &name, content, shape),
                ];
                if let Some((at, mutation)) = mutations.first() {
                    let i = at.index(2);
                    pair[i] = mutate(std::mem::take(&mut pair[i]), &[(*at, mutation.clone())]);
                }
                pair
            },
        );
    prop::collection::vec(
        prop_oneof![2 => pair, 3 => history_message().prop_map(|m| vec![m])],
        0..10,
    )
    .prop_map(|chunks| chunks.into_iter().flatten().collect())
    .boxed()
}

fn mentions_discovery(history: &[Value]) -> bool {
    history.iter().any(|message| {
        let text = message.to_string();
        text.contains(DISCOVERY_TOOL_NAME) || text.contains(MARKER)
    })
}

fn check_discovered(
    session: &Session,
    allowed: impl Fn(&str) -> bool,
) -> Result<Vec<String>, TestCaseError> {
    let discovered = session.discovered().tools;
    let unique: BTreeSet<&String> = discovered.iter().collect();
    prop_assert_eq!(
        unique.len(),
        discovered.len(),
        "duplicates: {:?}",
        discovered
    );
    for name in &discovered {
        prop_assert!(is_lazy(name), "{} is not a lazy tool", name);
        prop_assert!(allowed(name), "{} is not allowed", name);
    }
    Ok(discovered)
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES))]

    /// Arbitrary, corrupted, mixed-format histories: no panic; only existing (and allowed)
    /// lazy tools are discovered; nothing is, unless a message names the discovery tool or
    /// holds a compaction marker.
    #[test]
    fn history_scan_never_panics(history in history()) {
        let _watch = Watch::start("history_scan_never_panics", || json!(history).to_string());
        let session = Session::from_history(registry(), &history);
        let discovered = check_discovered(&session, |_| true)?;
        if !mentions_discovery(&history) {
            prop_assert!(discovered.is_empty(), "discovered {:?} without a discovery", discovered);
        }
        let gated = Session::from_history_with(
            registry(),
            &history,
            SessionOptions::new().allow(|tool| tool.name() != "fuzzLazyGated"),
        );
        check_discovered(&gated, |name| name != "fuzzLazyGated")?;
        // The tools sent next are consistent with what was discovered.
        let names: Vec<String> = session.active_tools().into_iter().map(|t| t.name).collect();
        for name in &discovered {
            prop_assert!(names.contains(name));
        }
    }

    /// A well-formed discovery call and its result, in any format, appended to any history,
    /// discovers the lazy tools it lists (and only the lazy ones).
    #[test]
    fn history_well_formed_discovery_counts(
        history in history(),
        call_format in format(),
        result_format in format(),
        names in prop::collection::vec(known_name(), 1..4),
        shape in any::<u8>(),
    ) {
        let id = Some("fuzz-unique-call-id".to_owned());
        let content = json!({"tools": names.iter().map(|n| json!({"name": n, "description": "d", "inputSchema": {}})).collect::<Vec<_>>()});
        let call = tool_call_message(call_format, &id, DISCOVERY_TOOL_NAME, json!({"toolNames": names}));
        let result = tool_result_message(result_format, &id, DISCOVERY_TOOL_NAME, content, shape);
        let mut full = history.clone();
        full.extend([call, result]);
        let _watch = Watch::start("history_well_formed_discovery_counts", || json!(full).to_string());
        let session = Session::from_history(registry(), &full);
        let discovered = check_discovered(&session, |_| true)?;
        for name in &names {
            prop_assert_eq!(discovered.contains(name), is_lazy(name), "{}", name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Provider response parsing
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Provider {
    OpenAiChat,
    Responses,
    Anthropic,
    Gemini,
}

fn provider() -> BoxedStrategy<Provider> {
    prop_oneof![
        Just(Provider::OpenAiChat),
        Just(Provider::Responses),
        Just(Provider::Anthropic),
        Just(Provider::Gemini),
    ]
    .boxed()
}

type Parsed = Result<Vec<lazytool_runtime::ToolCall>, lazytool_runtime::provider::ParseError>;

fn parse(provider: Provider, response: &Value) -> Parsed {
    match provider {
        Provider::OpenAiChat => openai_chat::parse_tool_calls(response),
        Provider::Responses => openai_responses::parse_tool_calls(response),
        Provider::Anthropic => anthropic::parse_tool_calls(response),
        Provider::Gemini => gemini::parse_tool_calls(response),
    }
}

#[derive(Clone, Debug)]
struct GeneratedCall {
    id: Option<String>,
    name: String,
    arguments: Value,
}

/// A real-looking response of `provider` carrying `calls` (a `None` id only for Gemini),
/// in its full and its bare forms.
fn response(provider: Provider, calls: &[GeneratedCall], bare: bool, text: &str) -> Value {
    match provider {
        Provider::OpenAiChat => {
            let calls: Vec<Value> = calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id.clone().unwrap_or_default(), "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments.to_string()}
                    })
                })
                .collect();
            let message =
                json!({"role": "assistant", "content": text, "tool_calls": calls, "refusal": null});
            if bare {
                message
            } else {
                json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt",
                       "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 2}})
            }
        }
        Provider::Responses => {
            let mut items = vec![
                json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
            ];
            items.extend(calls.iter().map(|c| json!({
                "type": "function_call", "id": "fc_1", "call_id": c.id.clone().unwrap_or_default(),
                "name": c.name, "arguments": c.arguments.to_string(), "status": "completed"
            })));
            if bare {
                Value::Array(items)
            } else {
                json!({"id": "resp_1", "object": "response", "output": items})
            }
        }
        Provider::Anthropic => {
            let mut blocks = vec![json!({"type": "text", "text": text})];
            blocks.extend(calls.iter().map(|c| json!({
                "type": "tool_use", "id": c.id.clone().unwrap_or_default(), "name": c.name, "input": c.arguments
            })));
            if bare {
                Value::Array(blocks)
            } else {
                json!({"id": "msg_1", "type": "message", "role": "assistant", "content": blocks, "stop_reason": "tool_use"})
            }
        }
        Provider::Gemini => {
            let mut parts = vec![json!({"text": text})];
            parts.extend(calls.iter().map(|c| {
                let mut call = json!({"name": c.name, "args": c.arguments});
                if let Some(id) = &c.id {
                    call["id"] = json!(id);
                }
                json!({"functionCall": call})
            }));
            let content = json!({"role": "model", "parts": parts});
            if bare {
                content
            } else {
                json!({"candidates": [{"content": content, "finishReason": "STOP", "index": 0}], "modelVersion": "gemini"})
            }
        }
    }
}

fn generated_calls() -> BoxedStrategy<Vec<GeneratedCall>> {
    let object = prop::collection::vec((key(), json_with("\\PC{0,8}".boxed())), 0..4)
        .prop_map(|members| Value::Object(members.into_iter().collect()));
    prop::collection::vec(
        (
            prop::option::of("[a-zA-Z0-9_-]{1,24}"),
            "[a-zA-Z0-9_-]{1,64}",
            object,
        )
            .prop_map(|(id, name, arguments)| GeneratedCall {
                id,
                name,
                arguments,
            }),
        0..4,
    )
    .boxed()
}

fn check_parsed(
    provider: Provider,
    response: &Value,
    parsed: &Parsed,
) -> Result<(), TestCaseError> {
    match parsed {
        Ok(calls) => {
            for call in calls {
                match provider {
                    Provider::OpenAiChat | Provider::Responses => prop_assert!(
                        call.arguments.is_string() || call.arguments.is_object(),
                        "arguments {}",
                        call.arguments
                    ),
                    Provider::Anthropic | Provider::Gemini => {
                        prop_assert!(call.arguments.is_object())
                    }
                }
            }
        }
        Err(error) => {
            prop_assert!(!error.to_string().is_empty());
            prop_assert!(!error.expected().is_empty());
            // The error points into the response: its parent exists.
            let path = error.path();
            if !path.is_empty() {
                let parent = &path[..path.rfind('/').unwrap_or(0)];
                prop_assert!(
                    response.pointer(parent).is_some(),
                    "{} does not point into {}",
                    path,
                    response
                );
            }
        }
    }
    Ok(())
}

/// Ok results name a tool (non-empty name).
fn check_named(parsed: &Parsed) -> Result<(), TestCaseError> {
    if let Ok(calls) = parsed {
        for call in calls {
            prop_assert!(
                !call.name.is_empty(),
                "a call with an empty name was accepted: {:?}",
                call
            );
            prop_assert!(
                !call.id.is_empty(),
                "a call with an empty id was accepted: {:?}",
                call
            );
        }
    }
    Ok(())
}

/// A response to parse: arbitrary JSON, or a real-looking one, corrupted or not.
fn provider_input() -> BoxedStrategy<(Provider, Value)> {
    prop_oneof![
        1 => (provider(), arb_json()),
        3 => (provider(), generated_calls(), any::<bool>(), "\\PC{0,8}", mutations()).prop_map(
            |(provider, calls, bare, text, mutations)| (provider, mutate(response(provider, &calls, bare, &text), &mutations))
        ),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES * 2))]

    /// Any JSON, and corrupted real responses, through every provider's parser: no panic, and
    /// each outcome well-formed (arguments of the documented type, errors pointing into the
    /// response).
    #[test]
    fn provider_parsing_never_panics((provider, response) in provider_input()) {
        let _watch = Watch::start("provider_parsing_never_panics", || format!("{provider:?} {response}"));
        let parsed = parse(provider, &response);
        check_parsed(provider, &response, &parsed)?;
    }

    /// Real responses parse into exactly the calls they carry.
    #[test]
    fn provider_parsing_reads_real_responses(
        provider in provider(),
        calls in generated_calls(),
        bare in any::<bool>(),
        text in "\\PC{0,8}",
    ) {
        let calls: Vec<GeneratedCall> = calls.into_iter().map(|mut c| {
            if !matches!(provider, Provider::Gemini) && c.id.is_none() { c.id = Some("id".to_owned()); }
            c
        }).collect();
        let response = response(provider, &calls, bare, &text);
        let _watch = Watch::start("provider_parsing_reads_real_responses", || format!("{provider:?} {response}"));
        let parsed = parse(provider, &response);
        check_parsed(provider, &response, &parsed)?;
        let parsed = parsed.map_err(|e| TestCaseError::fail(format!("{e} in {response}")))?;
        prop_assert_eq!(parsed.len(), calls.len());
        for (index, (parsed, call)) in parsed.iter().zip(&calls).enumerate() {
            prop_assert_eq!(&parsed.name, &call.name);
            let id = call.id.clone().unwrap_or_else(|| format!("gemini-call-{index}"));
            prop_assert_eq!(&parsed.id, &id);
            let arguments = match &parsed.arguments {
                Value::String(text) => serde_json::from_str(text).map_err(|e| TestCaseError::fail(e.to_string()))?,
                other => other.clone(),
            };
            prop_assert_eq!(&arguments, &call.arguments);
        }
    }
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES * 2))]

    /// Accepted calls name a tool and carry an id: no parser returns an empty name or id.
    #[test]
    fn provider_parsing_accepts_only_named_calls(
        (provider, response) in prop_oneof![
            provider_input(),
            // Real responses, one call's name (or id) blanked.
            (provider(), generated_calls(), any::<bool>(), any::<Index>(), any::<bool>()).prop_map(
                |(provider, mut calls, bare, at, id)| {
                    if !calls.is_empty() {
                        let at = at.index(calls.len());
                        let call = &mut calls[at];
                        if id { call.id = Some(String::new()) } else { call.name = String::new() }
                    }
                    (provider, response(provider, &calls, bare, ""))
                }
            ),
        ]
    ) {
        let _watch = Watch::start("provider_parsing_accepts_only_named_calls", || format!("{provider:?} {response}"));
        check_named(&parse(provider, &response))?;
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Provider schema dialects
// ---------------------------------------------------------------------------------------------

fn reference() -> BoxedStrategy<Value> {
    prop::sample::select(vec![
        "#/$defs/A",
        "#/$defs/B",
        "#",
        "#/properties/a",
        "#/definitions/A",
        "#/$defs/Missing",
        "#/$defs/A/properties/next",
        "https://example.com/schema.json",
        "not a reference",
        "#/$defs/A/items",
        "#/$defs/~1odd",
    ])
    .prop_map(|r| json!({"$ref": r}))
    .boxed()
}

/// Keywords a schema may carry besides its structure (valid and invalid values alike).
fn schema_extras() -> BoxedStrategy<Vec<(String, Value)>> {
    let entry = prop_oneof![
        prop::sample::select(vec!["description", "title", "pattern", "$comment"])
            .prop_flat_map(|k| "\\PC{0,8}".prop_map(move |v| (k.to_owned(), json!(v)))),
        prop::sample::select(vec![
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties"
        ])
        .prop_flat_map(|k| prop_oneof![
            any::<i64>().prop_map(Value::from),
            finite_f64().prop_map(Value::from),
            Just(json!(true)),
            Just(json!("3"))
        ]
        .prop_map(move |v| (k.to_owned(), v))),
        prop::sample::select(vec![
            "date-time",
            "date",
            "time",
            "email",
            "uuid",
            "int32",
            "int64",
            "float",
            "double",
            "uri",
            "enum",
            "byte",
            ""
        ])
        .prop_map(|f| ("format".to_owned(), json!(f))),
        json_with("\\PC{0,4}".boxed()).prop_map(|v| ("default".to_owned(), v)),
        json_with("\\PC{0,4}".boxed()).prop_map(|v| ("const".to_owned(), v)),
        prop::collection::vec(json_with("\\PC{0,4}".boxed()), 0..4)
            .prop_map(|v| ("enum".to_owned(), Value::Array(v))),
        prop::collection::vec(json_with("\\PC{0,4}".boxed()), 0..2)
            .prop_map(|v| ("examples".to_owned(), Value::Array(v))),
        any::<bool>().prop_map(|b| ("nullable".to_owned(), json!(b))),
        any::<bool>().prop_map(|b| ("deprecated".to_owned(), json!(b))),
        Just((
            "$schema".to_owned(),
            json!("https://json-schema.org/draft/2020-12/schema")
        )),
        ("x-[a-z]{1,4}", json_with("\\PC{0,4}".boxed())),
    ];
    prop::collection::vec(entry, 0..3).boxed()
}

fn type_value() -> BoxedStrategy<Value> {
    let name = prop::sample::select(vec![
        "string", "number", "integer", "boolean", "null", "object", "array",
    ]);
    prop_oneof![
        4 => name.clone().prop_map(Value::from),
        2 => prop::collection::vec(name, 0..4).prop_map(|names| json!(names)),
        1 => prop::sample::select(vec![json!("Object"), json!("any"), json!(5), json!(null)]),
    ]
    .boxed()
}

fn with_extras(schema: Value, extras: Vec<(String, Value)>) -> Value {
    match schema {
        Value::Object(mut map) => {
            for (key, value) in extras {
                map.entry(key).or_insert(value);
            }
            Value::Object(map)
        }
        other => other,
    }
}

/// A schema-shaped value: typed schemas, objects, arrays, unions, references and
/// definitions, boolean schemas, with assorted keywords; bounded depth.
fn schema(all_of: bool) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        1 => prop::sample::select(vec![json!({}), json!(true), json!(false)]),
        4 => (type_value(), schema_extras()).prop_map(|(kind, extras)| with_extras(json!({"type": kind}), extras)),
        2 => reference(),
        1 => schema_extras().prop_map(|extras| with_extras(json!({}), extras)),
    ];
    leaf.prop_recursive(6, 48, 5, move |inner| {
        let properties = prop::collection::vec((prop_oneof![3 => prop::sample::select(vec!["a", "b", "next", "type", "$ref"]).prop_map(str::to_owned), 1 => "\\PC{0,6}"], inner.clone()), 0..5);
        prop_oneof![
            4 => (properties, prop::collection::vec(prop::sample::select(vec!["a", "b", "next", "missing"]), 0..3),
                  prop::option::of(prop_oneof![any::<bool>().prop_map(Value::Bool), inner.clone()]),
                  prop::option::of(type_value()), schema_extras())
                .prop_map(|(properties, required, additional, kind, extras)| {
                    let mut map = Map::new();
                    map.insert("type".to_owned(), kind.unwrap_or(json!("object")));
                    map.insert("properties".to_owned(), Value::Object(properties.into_iter().collect()));
                    map.insert("required".to_owned(), json!(required));
                    if let Some(additional) = additional {
                        map.insert("additionalProperties".to_owned(), additional);
                    }
                    with_extras(Value::Object(map), extras)
                }),
            2 => (inner.clone(), prop::option::of(type_value()), schema_extras()).prop_map(|(items, kind, extras)| {
                with_extras(json!({"type": kind.unwrap_or(json!("array")), "items": items}), extras)
            }),
            1 => (inner.clone(), schema_extras()).prop_map(|(items, extras)| with_extras(json!({"items": items}), extras)),
            3 => (prop::sample::select(if all_of { vec!["anyOf", "oneOf", "allOf"] } else { vec!["anyOf", "oneOf"] }), prop::collection::vec(inner.clone(), 0..4), prop::option::of(type_value()), schema_extras())
                .prop_map(|(keyword, branches, kind, extras)| {
                    let mut map = Map::new();
                    map.insert(keyword.to_owned(), Value::Array(branches));
                    if let Some(kind) = kind { map.insert("type".to_owned(), kind); }
                    with_extras(Value::Object(map), extras)
                }),
            2 => (inner.clone(), inner.clone(), inner.clone(), prop::sample::select(vec!["$defs", "definitions"]))
                .prop_map(|(body, a, b, key)| {
                    let mut body = match body { Value::Object(map) => map, other => { let mut m = Map::new(); m.insert("anyOf".to_owned(), json!([other])); m } };
                    body.insert(key.to_owned(), json!({"A": a, "B": b, "/odd": {"type": "string"}}));
                    Value::Object(body)
                }),
            1 => (inner.clone(), reference()).prop_map(|(not, reference)| {
                let mut reference = reference;
                reference["not"] = not;
                reference["description"] = json!("a reference with siblings");
                reference
            }),
            1 => (inner, "\\PC{0,6}").prop_map(|(value, key)| {
                json!({"type": "object", "patternProperties": {key: value}, "propertyNames": {"pattern": "^x"}})
            }),
        ]
    })
    .boxed()
}

/// A tool's input schema: usually an object root with definitions, sometimes anything.
fn root_schema(all_of: bool) -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (prop::collection::vec(("[a-z]{1,6}|a|b|next", schema(all_of)), 0..5), schema(all_of), schema(all_of), prop::collection::vec(prop::sample::select(vec!["a", "b", "next", "missing"]), 0..3))
            .prop_map(|(properties, a, b, required)| json!({
                "type": "object",
                "properties": properties.into_iter().collect::<Map<String, Value>>(),
                "required": required,
                "$defs": {"A": a, "B": b},
            })),
        2 => schema(all_of),
        1 => arb_json(),
    ]
    .boxed()
}

const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "null", "object", "array",
];
const CLEAN_REFS: &[&str] = &["#/$defs/A", "#/$defs/B", "#"];

/// Makes a generated schema valid-looking, in place: `type` a known name or a non-empty list
/// of distinct ones, references only to `$defs` or the root, and a non-empty `enum`.
fn sanitize(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    match map.get("type") {
        Some(Value::String(name)) if JSON_TYPES.contains(&name.as_str()) => {}
        Some(Value::Array(names)) => {
            let mut kept: Vec<Value> = Vec::new();
            for name in names {
                if name.as_str().is_some_and(|n| JSON_TYPES.contains(&n)) && !kept.contains(name) {
                    kept.push(name.clone());
                }
            }
            if kept.is_empty() {
                map.shift_remove("type");
            } else {
                map.insert("type".to_owned(), Value::Array(kept));
            }
        }
        Some(_) => {
            map.shift_remove("type");
        }
        None => {}
    }
    if map
        .get("enum")
        .is_some_and(|e| e.as_array().is_none_or(Vec::is_empty))
    {
        map.shift_remove("enum");
    }
    if let Some(reference) = map.get_mut("$ref")
        && reference.as_str().is_none_or(|r| !CLEAN_REFS.contains(&r))
    {
        *reference = json!("#/$defs/A");
    }
    for key in ["items", "additionalProperties", "not", "propertyNames"] {
        if let Some(inner) = map.get_mut(key) {
            sanitize(inner);
        }
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(inner)) = map.get_mut(key) {
            inner.values_mut().for_each(sanitize);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(inner)) = map.get_mut(key) {
            inner.iter_mut().for_each(sanitize);
        }
        if map
            .get(key)
            .is_some_and(|branches| branches.as_array().is_none_or(Vec::is_empty))
        {
            map.shift_remove(key);
        }
    }
}

/// A valid-looking tool input schema (`allOf` and recursion included), sanitized.
fn clean_root_schema() -> BoxedStrategy<Value> {
    root_schema(true)
        .prop_map(|mut schema| {
            if !schema.is_object() {
                schema = json!({"type": "object", "properties": {"x": schema}, "$defs": {"A": {"type": "string"}}});
            }
            sanitize(&mut schema);
            schema
        })
        .boxed()
}

fn check_strict_twice(schema: &Value) -> Result<(), TestCaseError> {
    let strict = dialect::openai_strict(schema);
    if let Err(error) = dialect_rules::check_openai_strict(&strict) {
        return Err(TestCaseError::fail(format!(
            "{error}\ninput: {schema}\noutput: {strict}"
        )));
    }
    let again = dialect::openai_strict(&strict);
    if let Err(error) = dialect_rules::check_openai_strict(&again) {
        return Err(TestCaseError::fail(format!(
            "second pass: {error}\ninput: {strict}\noutput: {again}"
        )));
    }
    Ok(())
}

fn check_gemini(schema: &Value) -> Result<(), TestCaseError> {
    let openapi = dialect::gemini_openapi(schema);
    if let Err(error) = dialect_rules::check_gemini_openapi(&openapi) {
        return Err(TestCaseError::fail(format!(
            "{error}\ninput: {schema}\noutput: {openapi}"
        )));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES))]

    /// Any schema-shaped value (invalid ones included, `allOf` excepted): neither rewrite
    /// panics, and both give an object root whatever the input.
    #[test]
    fn dialects_never_panic(schema in root_schema(false)) {
        let _watch = Watch::start("dialects_never_panic", || schema.to_string());
        let strict = dialect::openai_strict(&schema);
        prop_assert_eq!(strict.get("type"), Some(&json!("object")), "{}", strict);
        let _ = dialect_rules::check_openai_strict(&strict);
        check_gemini(&schema)?;
    }

    /// `openai_strict` turns every valid-looking schema into one `check_openai_strict`
    /// accepts, and so does rewriting its own output.
    #[test]
    fn openai_strict_output_passes_its_check(schema in clean_root_schema()) {
        let _watch = Watch::start("openai_strict_output_passes_its_check", || schema.to_string());
        check_strict_twice(&schema)?;
    }

    /// `gemini_openapi` turns every valid-looking schema into one `check_gemini_openapi`
    /// accepts.
    #[test]
    fn gemini_openapi_output_passes_its_check(schema in clean_root_schema()) {
        let _watch = Watch::start("gemini_openapi_output_passes_its_check", || schema.to_string());
        check_gemini(&schema)?;
    }
}

proptest! {
    #![proptest_config(config(DEFAULT_CASES))]

    /// A nullable property with an `enum` or `const` that does not list null.
    #[test]
    fn openai_strict_nullable_enum_passes_its_check(
        kind in prop::sample::select(vec!["string", "number", "integer", "boolean"]),
        values in prop::collection::vec(json_with("\\PC{0,4}".boxed()), 1..4),
        use_const in any::<bool>(),
    ) {
        let mut property = json!({"type": [kind, "null"]});
        let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
        prop_assume!(!values.is_empty());
        if use_const {
            property["const"] = values[0].clone();
        } else {
            property["enum"] = Value::Array(values);
        }
        let schema = json!({"type": "object", "properties": {"s": property}});
        check_strict_twice(&schema)?;
    }

    /// Schemas with `allOf`, which may wrap recursive references.
    #[test]
    fn dialects_terminate_on_recursive_all_of(schema in root_schema(true)) {
        let _watch = Watch::start("dialects_terminate_on_recursive_all_of", || schema.to_string());
        let _ = dialect_rules::check_openai_strict(&dialect::openai_strict(&schema));
        check_gemini(&schema)?;
    }
}
