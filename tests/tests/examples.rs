//! `#[tool(example(...))]` and dynamic tools' examples: serialized at their declared types,
//! checked against the schema when the registry is built, and valid arguments of their tool.

use lazytool_runtime::{
    DynamicTool, Registry, RegistryProblem, State, ToolErrorKind, ToolSpec, catalog_tools, tool,
    tools,
};
use serde_json::{Value, json};

/// Tomorrow's weather in a city.
#[tool(example(city = "Paris", days = 3), example(city = "Oslo"))]
async fn get_forecast(city: String, days: Option<u32>) -> String {
    format!("{city}: sunny for {} days", days.unwrap_or(1))
}

/// Finds products.
#[tool(
    rename_all = "camelCase",
    example(search_text = "desk", tags = ["office", "wood"], max_price = 250.5),
    example(search_text = "lamp", tags = [], page = 2)
)]
async fn find_products(
    search_text: String,
    tags: Vec<String>,
    max_price: Option<f64>,
    #[arg(default = 1)] page: u32,
    offset: State<u32>,
) -> String {
    format!("{search_text} {tags:?} {max_price:?} {} {}", page, *offset)
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Booking {
    room_name: String,
    guests: Option<u8>,
    #[serde(default)]
    notes: Vec<String>,
}

/// Books a room.
#[tool(example(room_name = "Lovelace", guests = Some(4)), example(room_name = "Hopper", notes = ["projector"]))]
async fn book_room(#[args] booking: Booking) -> String {
    format!(
        "{} for {:?} ({:?})",
        booking.room_name, booking.guests, booking.notes
    )
}

/// Reserves a table; the schema allows 1 to 12 guests, which `u8` alone does not say.
#[tool(example(guests = 4), example(guests = 20))]
async fn reserve_table(#[schemars(range(min = 1, max = 12))] guests: u8) -> String {
    format!("a table for {guests}")
}

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Desk {
    floor: u8,
    window: Option<bool>,
}

/// Books a desk; its example leaves out the floor, which the macro cannot see is required.
#[tool(example(window = Some(true)))]
async fn book_desk(#[args] desk: Desk) -> String {
    format!("floor {} {:?}", desk.floor, desk.window)
}

struct Library;

impl Library {
    const LONGEST_LOAN: u8 = 21;
}

#[tools]
impl Library {
    /// Borrows a book.
    #[tool(example(title = "Dune", days = Self::LONGEST_LOAN))]
    fn borrow_book(&self, title: String, days: Option<u8>) -> String {
        format!("borrowed {title} for {days:?} days")
    }
}

/// Every tool of this file but the one whose second example breaks its schema.
fn registry() -> Registry {
    Registry::builder()
        .state(10_u32)
        .tools_of(std::sync::Arc::new(Library))
        .filter(|spec: &ToolSpec| !["reserve_table", "book_desk"].contains(&spec.name()))
        .build()
        .unwrap()
}

#[test]
fn examples_are_json_of_the_declared_types_by_json_name() {
    let registry = registry();
    let examples = |name: &str| registry.get(name).unwrap().examples().to_vec();
    assert_eq!(
        examples("get_forecast"),
        [json!({"city": "Paris", "days": 3}), json!({"city": "Oslo"})]
    );
    assert_eq!(
        examples("find_products"),
        [
            json!({"searchText": "desk", "tags": ["office", "wood"], "maxPrice": 250.5}),
            json!({"searchText": "lamp", "tags": [], "page": 2}),
        ]
    );
    // The `#[args]` struct's own names; an absent `Option` is left out, a default kept.
    assert_eq!(
        examples("book_room"),
        [
            json!({"roomName": "Lovelace", "guests": 4, "notes": []}),
            json!({"roomName": "Hopper", "notes": ["projector"]}),
        ]
    );
    assert_eq!(
        examples("borrow_book"),
        [json!({"title": "Dune", "days": 21})]
    );
}

#[test]
fn a_bound_only_the_schema_says_is_caught_naming_the_tool_and_the_example() {
    let error = Registry::builder()
        .filter(|spec: &ToolSpec| spec.name() == "reserve_table")
        .build()
        .unwrap_err();
    let [
        RegistryProblem::InvalidExample {
            tool,
            index,
            reason,
            ..
        },
    ] = error.problems()
    else {
        panic!("expected one invalid example: {error}");
    };
    assert_eq!((tool.as_str(), *index), ("reserve_table", 1));
    assert!(
        reason.contains("/guests") && reason.contains("20"),
        "{reason}"
    );
    let message = error.to_string();
    assert!(
        message
            .starts_with("cannot build the tool registry: example 1 of tool `reserve_table` at ")
            && message.contains("tests/examples.rs:"),
        "{message}"
    );
}

#[test]
fn an_args_example_leaving_out_a_required_field_is_caught_when_the_registry_is_built() {
    let error = Registry::builder()
        .filter(|spec: &ToolSpec| spec.name() == "book_desk")
        .build()
        .unwrap_err();
    let [
        RegistryProblem::InvalidExample {
            tool,
            index: 0,
            reason,
            ..
        },
    ] = error.problems()
    else {
        panic!("expected one invalid example: {error}");
    };
    assert_eq!(tool, "book_desk");
    assert_eq!(
        reason,
        "it cannot be serialized: it leaves out a required field (missing field `floor`)"
    );
}

#[test]
fn a_dynamic_tools_examples_are_checked_against_its_schema() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
        "required": ["n"]});
    let tool = |examples: Vec<Value>| {
        DynamicTool::new(
            "half",
            "Halves a number.",
            schema.clone(),
            |arguments, _| async move {
                Ok::<_, String>(json!(arguments["n"].as_i64().unwrap_or(0) / 2))
            },
        )
        .examples(examples)
    };
    let registry = Registry::builder()
        .without_inventory()
        .tool(tool(vec![json!({"n": 8}), json!({"n": 0})]))
        .build()
        .unwrap();
    assert_eq!(
        registry.get("half").unwrap().examples(),
        [json!({"n": 8}), json!({"n": 0})]
    );

    let error = Registry::builder()
        .without_inventory()
        .tool(tool(vec![
            json!({"n": 8}),
            json!({"n": -1}),
            json!({"m": 1}),
        ]))
        .build()
        .unwrap_err();
    let invalid: Vec<(&str, usize)> = error
        .problems()
        .iter()
        .filter_map(|problem| match problem {
            RegistryProblem::InvalidExample { tool, index, .. } => Some((tool.as_str(), *index)),
            _ => None,
        })
        .collect();
    assert_eq!(invalid, [("half", 1), ("half", 2)]);
    assert!(
        error.to_string().contains("example 2 of tool `half`"),
        "{error}"
    );
}

#[test]
fn a_catalogs_input_examples_are_read_and_checked() {
    let catalog = json!({"tools": [
        {"name": "search", "inputSchema": {"type": "object",
            "properties": {"q": {"type": "string", "maxLength": 5}}, "required": ["q"]},
         "inputExamples": [{"q": "rust"}, {"q": "far too long"}]},
        {"name": "broken", "inputSchema": {"type": "object"}, "inputExamples": {"q": "x"}},
    ]});
    let handler = |_, _: Value, _| async { Ok::<_, String>(json!(null)) };
    let error = catalog_tools(&catalog, handler).unwrap_err();
    assert_eq!(
        error.problems(),
        ["tool 1: `broken`: `inputExamples` is not an array"]
    );
    let tools = catalog_tools(&json!([catalog["tools"][0]]), handler).unwrap();
    let error = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .unwrap_err();
    let [
        RegistryProblem::InvalidExample {
            tool,
            index: 1,
            reason,
            ..
        },
    ] = error.problems()
    else {
        panic!("expected the second example refused: {error}");
    };
    assert_eq!(tool, "search");
    assert!(
        reason.starts_with("at /q: ") && reason.contains("far too long"),
        "{reason}"
    );
}

/// Every example of every tool of this test binary, called: each is accepted by dispatch
/// (validated and deserialized into the tool's own types), not only by the registry's check.
#[tokio::test]
async fn every_example_of_every_tool_is_a_valid_call() {
    let registry = registry();
    let mut called = 0;
    for tool in registry.tools() {
        for example in tool.examples() {
            let result = registry.call(tool.name(), example.clone()).await;
            assert_ne!(
                result.error_kind(),
                Some(ToolErrorKind::InvalidArguments),
                "{}: {example}: {}",
                tool.name(),
                result.text()
            );
            called += 1;
        }
    }
    assert_eq!(called, 7);
}
