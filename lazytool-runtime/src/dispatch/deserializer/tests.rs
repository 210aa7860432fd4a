use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::*;

#[derive(Debug, Deserialize, PartialEq)]
struct Order {
    customer: String,
    note: Option<String>,
    items: Vec<Item>,
    #[serde(default)]
    gift: bool,
    by_shelf: HashMap<u32, String>,
    weights: BTreeMap<String, f64>,
    shape: Shape,
    pair: (u8, String),
    label: Label,
    initial: char,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Item {
    sku: String,
    quantity: u8,
}

#[derive(Debug, Deserialize, PartialEq)]
enum Shape {
    Dot,
    Circle(f64),
    Pair(u8, u8),
    Rect { width: u32, height: u32 },
}

#[derive(Debug, Deserialize, PartialEq)]
struct Label(String);

fn order() -> Value {
    json!({
        "customer": "Ada",
        "note": null,
        "items": [{"sku": "desk", "quantity": 1}, {"sku": "lamp", "quantity": 2}],
        "by_shelf": {"1": "top", "20": "bottom"},
        "weights": {"desk": 12.5},
        "shape": {"Rect": {"width": 3, "height": 4}},
        "pair": [7, "seven"],
        "label": "fragile",
        "initial": "A"
    })
}

/// `value` read as `T` in place, and as serde_json reads a borrowed value with
/// serde_path_to_error finding the path of an error (what `parse_arguments` did before):
/// both must give the same value, or the same message at the same path.
fn read<T: DeserializeOwned + PartialEq + Debug>(value: Value) -> Result<T, String> {
    let reference = serde_path_to_error::deserialize::<_, T>(&value).map_err(|located| {
        let path: String = located
            .path()
            .iter()
            .map(|segment| match segment {
                serde_path_to_error::Segment::Seq { index } => format!("/{index}"),
                serde_path_to_error::Segment::Map { key } => format!("/{}", pointer(key)),
                serde_path_to_error::Segment::Enum { variant } => format!("/{}", pointer(variant)),
                serde_path_to_error::Segment::Unknown => "/?".to_owned(),
            })
            .collect();
        if path.is_empty() {
            located.inner().to_string()
        } else {
            format!("at {path}: {}", located.inner())
        }
    });
    let mut in_place = value.clone();
    let read = T::deserialize(ArgumentDeserializer(&mut in_place)).map_err(|e| e.to_string());
    match (&read, &reference) {
        // serde_path_to_error writes `?` for a key it could not keep (one that is no number
        // for a map with number keys); the key is known here.
        (Err(read), Err(reference)) if reference.contains("/?") => {
            let (before, after) = reference.split_once("/?").unwrap_or_default();
            let key = read
                .strip_prefix(before)
                .and_then(|rest| rest.strip_suffix(after));
            assert!(
                key.is_some_and(|key| key.starts_with('/') && !key[1..].contains('/')),
                "reading {value}: {read} for {reference}"
            );
        }
        _ => assert_eq!(read, reference, "reading {value}"),
    }
    read
}

/// A key as a JSON Pointer segment (RFC 6901).
fn pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[test]
fn values_are_read_as_serde_json_reads_them() {
    let order = read::<Order>(order()).expect("a valid order");
    assert_eq!(order.customer, "Ada");
    assert_eq!(order.items[1].sku, "lamp");
    assert_eq!(order.by_shelf.get(&20).map(String::as_str), Some("bottom"));
    assert_eq!(
        order.shape,
        Shape::Rect {
            width: 3,
            height: 4
        }
    );
    assert_eq!(order.pair, (7, "seven".to_owned()));
    assert_eq!(order.label, Label("fragile".to_owned()));
    for shape in [
        json!("Dot"),
        json!({"Circle": 1.5}),
        json!({"Pair": [1, 2]}),
    ] {
        read::<Shape>(shape).expect("a valid shape");
    }
    read::<Item>(json!(["desk", 3])).expect("a struct may be written as an array");
    read::<Option<Value>>(json!({"any": ["thing", 1, null]})).expect("a value");
    read::<HashMap<i64, bool>>(json!({"-3": true})).expect("negative keys");
}

#[test]
fn strings_are_moved_out_not_copied() {
    let mut value = order();
    let read = Order::deserialize(ArgumentDeserializer(&mut value)).expect("a valid order");
    assert_eq!(read.customer, "Ada");
    assert_eq!(value["customer"], "", "moved into the order");
    assert_eq!(value["items"][0]["sku"], "");
    assert_eq!(
        value["items"][0]["quantity"], 1,
        "numbers are read, not taken"
    );
}

#[test]
fn errors_name_the_path_of_the_refused_value() {
    let mut order = order();
    order["items"][1]["quantity"] = json!(300);
    let error = read::<Order>(order).expect_err("300 is no u8");
    assert_eq!(
        error,
        "at /items/1/quantity: invalid value: integer `300`, expected u8"
    );
    let cases = [
        (
            "items",
            json!([{"sku": "desk", "quantity": 1, "colour": "red"}]),
        ),
        ("items", json!([{"sku": "desk"}])),
        ("by_shelf", json!({"top": "x"})),
        ("by_shelf", json!({"99999999999": "x"})),
        ("weights", json!({"a": "heavy"})),
        ("shape", json!({"Rect": {"width": -1, "height": 4}})),
        ("shape", json!({"Circle": "round"})),
        ("shape", json!({"Pair": [1, 2, 3]})),
        ("shape", json!({"Pair": 1})),
        ("shape", json!({"Rect": [1]})),
        ("shape", json!({"Dot": 1})),
        ("shape", json!("Circle")),
        ("shape", json!("Square")),
        ("shape", json!({"Dot": null, "Circle": 1.0})),
        ("shape", json!(7)),
        ("pair", json!([1])),
        ("pair", json!([1, "one", 2])),
        ("pair", json!({"a": 1})),
        ("label", json!(["fragile"])),
        ("initial", json!("AB")),
        ("note", json!(5)),
        ("customer", json!({"name": "Ada"})),
        ("gift", json!("yes")),
    ];
    for (key, wrong) in cases {
        let mut order = self::order();
        order[key] = wrong.clone();
        let error = read::<Order>(order).expect_err("a wrong value");
        assert!(
            error.starts_with(&format!("at /{key}")),
            "{key}: {wrong}: {error}"
        );
    }
    let error = read::<Order>(json!({"customer": "Ada"})).expect_err("fields missing");
    assert_eq!(error, "missing field `items`");
}

#[test]
fn keys_in_paths_are_json_pointer_segments() {
    let error = read::<HashMap<String, u8>>(json!({"a/b~c": -1})).expect_err("-1 is no u8");
    assert!(error.starts_with("at /a~1b~0c: "), "{error}");
}
