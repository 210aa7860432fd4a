//! [`canonicalize`]: references inlined, definitions kept only where recursive.

use schemars::{JsonSchema, schema_for};
use serde::Deserialize;
use serde_json::json;

use super::{Inner, assert_json, canonical};
use crate::schema::canonicalize;

/// Color doc.
#[derive(JsonSchema, Deserialize)]
#[allow(dead_code)]
enum Color {
    Red,
    Green,
}

#[derive(JsonSchema, Deserialize)]
#[serde(tag = "kind")]
#[allow(dead_code)]
enum Shape {
    Circle { r: f64 },
    Square { s: f64 },
}

/// Outer doc.
#[derive(JsonSchema, Deserialize)]
#[allow(dead_code)]
struct Outer {
    /// The inner one.
    inner: Inner,
    other: Inner,
    color: Color,
    shape: Shape,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Node {
    children: Vec<Node>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct A {
    b: Option<Box<B>>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct B {
    a: Vec<A>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Tree {
    root: Node,
    a: A,
    inner: Inner,
}

#[derive(JsonSchema)]
struct Empty {}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Zam {
    z: bool,
    a: bool,
    m: bool,
}

#[derive(JsonSchema)]
#[schemars(rename = "My Thing/v1")]
#[allow(dead_code)]
struct Odd {
    y: bool,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct HasOdd {
    odd: Odd,
}

#[test]
fn nested_structs_and_enums_are_inlined() {
    let variant = |kind: &str, field: &str| {
        json!({
            "type": "object",
            "properties": {
                "kind": {"type": "string", "const": kind},
                field: {"type": "number"}
            },
            "required": ["kind", field]
        })
    };
    assert_json(
        &canonical::<Outer>(),
        &json!({
            "description": "Outer doc.",
            "type": "object",
            "properties": {
                "inner": {
                    "description": "The inner one.",
                    "type": "object",
                    "properties": {"x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}},
                    "required": ["x"]
                },
                "other": {
                    "description": "Inner doc.",
                    "type": "object",
                    "properties": {"x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}},
                    "required": ["x"]
                },
                "color": {
                    "description": "Color doc.",
                    "type": "string",
                    "enum": ["Red", "Green"]
                },
                "shape": {"oneOf": [variant("Circle", "r"), variant("Square", "s")]}
            },
            "required": ["inner", "other", "color", "shape"]
        }),
    );
}

#[test]
fn recursive_root_keeps_its_self_reference() {
    assert_json(
        &canonical::<Node>(),
        &json!({
            "type": "object",
            "properties": {
                "children": {"type": "array", "items": {"$ref": "#"}}
            },
            "required": ["children"]
        }),
    );
}

#[test]
fn definition_pointing_back_to_the_root_is_inlined() {
    assert_json(
        &canonical::<A>(),
        &json!({
            "type": "object",
            "properties": {
                "b": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {
                                "a": {"type": "array", "items": {"$ref": "#"}}
                            },
                            "required": ["a"]
                        },
                        {"type": "null"}
                    ]
                }
            }
        }),
    );
}

#[test]
fn recursive_and_mutually_recursive_definitions_are_kept() {
    assert_json(
        &canonical::<Tree>(),
        &json!({
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "a": {"$ref": "#/$defs/A"},
                "inner": {
                    "description": "Inner doc.",
                    "type": "object",
                    "properties": {"x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}},
                    "required": ["x"]
                }
            },
            "required": ["root", "a", "inner"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                    },
                    "required": ["children"]
                },
                "A": {
                    "type": "object",
                    "properties": {
                        "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}
                    }
                },
                "B": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "array", "items": {"$ref": "#/$defs/A"}}
                    },
                    "required": ["a"]
                }
            }
        }),
    );
}

#[test]
fn empty_struct_gets_empty_properties() {
    assert_json(
        &canonical::<Empty>(),
        &json!({"type": "object", "properties": {}}),
    );
}

#[test]
fn property_order_is_preserved() {
    let schema = canonical::<Zam>();
    let names = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect::<Vec<_>>();
    assert_eq!(names, ["z", "a", "m"]);
    assert_json(
        &schema,
        &json!({
            "type": "object",
            "properties": {
                "z": {"type": "boolean"},
                "a": {"type": "boolean"},
                "m": {"type": "boolean"}
            },
            "required": ["z", "a", "m"]
        }),
    );
}

#[test]
fn encoded_definition_names_are_resolved() {
    let raw = serde_json::to_value(schema_for!(HasOdd)).expect("serializable");
    assert_eq!(raw["properties"]["odd"]["$ref"], "#/$defs/My%20Thing~1v1");
    assert_json(
        &canonicalize(raw),
        &json!({
            "type": "object",
            "properties": {
                "odd": {
                    "type": "object",
                    "properties": {"y": {"type": "boolean"}},
                    "required": ["y"]
                }
            },
            "required": ["odd"]
        }),
    );
}

#[test]
fn ref_siblings_win_and_new_keys_go_last() {
    let schema = json!({
        "type": "object",
        "properties": {
            "p": {"description": "mine", "$ref": "#/$defs/T", "default": 3},
            "q": {"$ref": "#/$defs/T", "title": "Q"}
        },
        "$defs": {
            "T": {"description": "theirs", "type": "integer", "title": "T"}
        }
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "type": "object",
            "properties": {
                "p": {"description": "mine", "type": "integer", "title": "T", "default": 3},
                "q": {"description": "theirs", "type": "integer", "title": "Q"}
            }
        }),
    );
}

#[test]
fn aliases_chains_and_definitions_section_are_inlined() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Root",
        "description": "Root doc.",
        "type": "object",
        "properties": {
            "alias": {"$ref": "#/definitions/Alias"},
            "wrapper": {"$ref": "#/definitions/Wrapper"}
        },
        "definitions": {
            "Alias": {"$ref": "#/definitions/Target", "description": "alias"},
            "Target": {"type": "string"},
            "Wrapper": {"type": "array", "items": {"$ref": "#/definitions/Alias"}},
            "Unused": {"type": "null"}
        }
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "description": "Root doc.",
            "type": "object",
            "properties": {
                "alias": {"type": "string", "description": "alias"},
                "wrapper": {
                    "type": "array",
                    "items": {"type": "string", "description": "alias"}
                }
            }
        }),
    );
}

#[test]
fn non_recursive_definition_using_a_recursive_one() {
    let schema = json!({
        "type": "object",
        "properties": {"holder": {"$ref": "#/$defs/Holder"}},
        "$defs": {
            "Holder": {"type": "object", "properties": {"list": {"$ref": "#/$defs/List"}}},
            "List": {
                "type": "object",
                "properties": {
                    "head": {"$ref": "#/$defs/Item"},
                    "tail": {"anyOf": [{"$ref": "#/$defs/List"}, {"type": "null"}]}
                }
            },
            "Item": {"type": "integer"}
        }
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "type": "object",
            "properties": {
                "holder": {
                    "type": "object",
                    "properties": {"list": {"$ref": "#/$defs/List"}}
                }
            },
            "$defs": {
                "List": {
                    "type": "object",
                    "properties": {
                        "head": {"type": "integer"},
                        "tail": {"anyOf": [{"$ref": "#/$defs/List"}, {"type": "null"}]}
                    }
                }
            }
        }),
    );
}

#[test]
fn unresolvable_references_are_left_alone() {
    let schema = json!({
        "type": "object",
        "properties": {
            "missing": {"$ref": "#/$defs/Missing", "description": "kept"},
            "root": {"$ref": "#"},
            "remote": {"$ref": "https://example.com/schema.json#/$defs/X"},
            "deep": {"$ref": "#/$defs/Deep/properties/x"},
            "data": {"const": {"$ref": "#/$defs/Deep"}}
        },
        "$defs": {
            "Deep": {"type": "object", "properties": {"x": {"type": "string"}}},
            "X": {"type": "string"}
        }
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "type": "object",
            "properties": {
                "missing": {"$ref": "#/$defs/Missing", "description": "kept"},
                "root": {"$ref": "#"},
                "remote": {"$ref": "https://example.com/schema.json#/$defs/X"},
                "deep": {"$ref": "#/$defs/Deep/properties/x"},
                "data": {"const": {"$ref": "#/$defs/Deep"}}
            },
            "$defs": {
                "Deep": {"type": "object", "properties": {"x": {"type": "string"}}}
            }
        }),
    );
}

#[test]
fn boolean_schemas() {
    assert_json(&canonicalize(json!(true)), &json!(true));
    assert_json(&canonicalize(json!(false)), &json!(false));
    let schema = json!({
        "type": "object",
        "properties": {
            "any": {"$ref": "#/$defs/Any"},
            "none": {"$ref": "#/$defs/None", "description": "never"},
            "literal": true
        },
        "$defs": {"Any": true, "None": false}
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "type": "object",
            "properties": {
                "any": true,
                "none": {"not": {}, "description": "never"},
                "literal": true
            }
        }),
    );
}

#[test]
fn malformed_input_does_not_panic() {
    for value in [json!(null), json!(42), json!("s"), json!([{"$ref": "#"}])] {
        assert_json(&canonicalize(value.clone()), &value);
    }
    let odd_defs = json!({
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": 7}},
        "$defs": [1, 2],
        "definitions": {"N": 5}
    });
    assert_json(
        &canonicalize(odd_defs),
        &json!({
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": 7}},
            "$defs": [1, 2]
        }),
    );
    let number_def = json!({"$ref": "#/definitions/N", "definitions": {"N": 5}});
    assert_json(&canonicalize(number_def.clone()), &number_def);
    let bad_escape = json!({"$ref": "#/$defs/%FF%", "$defs": {"ÿ": true}});
    assert_json(&canonicalize(bad_escape), &json!({"$ref": "#/$defs/%FF%"}));
}

#[test]
fn root_reference_is_inlined() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"title": "Args", "type": "object"}}
    });
    assert_json(
        &canonicalize(schema),
        &json!({"type": "object", "properties": {}}),
    );
}

#[test]
fn mutual_recursion_through_siblings_terminates() {
    let schema = json!({
        "$ref": "#/$defs/P",
        "$defs": {
            "P": {"allOf": [{"$ref": "#/$defs/Q"}], "description": "p"},
            "Q": {"not": {"$ref": "#/$defs/P", "description": "q"}}
        }
    });
    assert_json(
        &canonicalize(schema),
        &json!({
            "$ref": "#/$defs/P",
            "$defs": {
                "P": {"allOf": [{"$ref": "#/$defs/Q"}], "description": "p"},
                "Q": {"not": {"$ref": "#/$defs/P", "description": "q"}}
            }
        }),
    );
}
