use serde_json::json;

use super::*;
use crate::dispatch::parse_arguments;

/// The struct the slots stand in for, derived as `#[tool]` derived it before.
#[derive(serde::Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
struct Derived {
    query: String,
    #[serde(default)]
    limit: Option<u32>,
    tags: Vec<u8>,
    note: Option<String>,
}

fn read(arguments: serde_json::Value) -> Result<Derived, ToolResult> {
    let mut query = Slot::<String>::new("query");
    let mut limit = Slot::<Option<u32>>::new("limit");
    let mut tags = Slot::<Vec<u8>>::new("tags");
    let mut note = Slot::<Option<String>>::new("note");
    let mut arguments = arguments;
    for (key, value) in members("t", &mut arguments)? {
        match key.as_str() {
            "query" => query.fill("t", value)?,
            "limit" => limit.fill("t", value)?,
            "tags" => tags.fill("t", value)?,
            "note" => note.fill("t", value)?,
            _ => {}
        }
    }
    let query = query.required("t")?;
    let tags = tags.required("t")?;
    let note = note.required("t")?;
    Ok(Derived {
        query,
        limit: limit.or_default(),
        tags,
        note,
    })
}

fn same_as_derived(arguments: serde_json::Value) {
    let derived = parse_arguments::<Derived>("t", arguments.clone());
    let slots = read(arguments.clone());
    match (derived, slots) {
        (Ok(derived), Ok(slots)) => assert_eq!(derived, slots, "{arguments}"),
        (Err(derived), Err(slots)) => assert_eq!(
            derived.content(),
            slots.content(),
            "the same message for {arguments}"
        ),
        (derived, slots) => panic!("{arguments}: derived {derived:?}, slots {slots:?}"),
    }
}

#[test]
fn slots_read_what_the_derived_struct_read_and_refuse_what_it_refused() {
    for arguments in [
        json!({"query": "rust", "limit": 3, "tags": [1, 2], "note": "n"}),
        json!({"query": "rust", "tags": []}),
        json!({"tags": [], "query": "rust", "unknown": {"deep": [1]}, "note": null}),
        json!({"query": "rust"}),
        json!({"tags": [1]}),
        json!({}),
        json!({"query": 1, "tags": [1]}),
        json!({"query": "rust", "tags": [1, 300]}),
        // Two refused values: the first in the object's order is reported.
        json!({"tags": [1, 300], "query": 1}),
        json!({"query": 1, "tags": [1, 300]}),
        json!({"query": "rust", "limit": -1, "tags": "x"}),
        json!({"query": "rust", "tags": [], "limit": null}),
    ] {
        same_as_derived(arguments);
    }
}

#[test]
fn defaulted_slots_are_none_when_absent_or_null() {
    for (arguments, expected) in [
        (json!({}), None),
        (json!({"page": null}), None),
        (json!({"page": 4}), Some(4)),
    ] {
        let (mut page, mut arguments) = (Slot::<Option<u32>>::new("page"), arguments);
        for (_, value) in members("t", &mut arguments).expect("an object") {
            page.fill("t", value).expect("read");
        }
        assert_eq!(page.defaulted(), expected);
    }
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    let error = members("t", &mut json!(null)).expect_err("refused");
    let message = error.content().to_string();
    assert!(
        message.contains("invalid type: null, expected struct __Arguments"),
        "{message}"
    );
}
