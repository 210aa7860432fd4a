//! The schema dialects (`lazytool_runtime::schema::dialect`): what each rewrite makes of the
//! shapes that need rewriting, and that every output, the real catalog's included, obeys the
//! dialect's rules (`lazytool_tests::dialect_rules`).

use lazytool_runtime::schema::dialect::{gemini_openapi, openai_strict};
use lazytool_runtime::schema::strip_strict_nulls;
use lazytool_tests::dialect_rules::{check_gemini_openapi, check_openai_strict};
use lazytool_tests::github_catalog;
use serde_json::{Map, Value, json};

fn strict_ok(schema: &Value) -> Value {
    let out = openai_strict(schema);
    if let Err(error) = check_openai_strict(&out) {
        panic!("{error}\n{out:#}");
    }
    out
}

fn gemini_ok(schema: &Value) -> Value {
    let out = gemini_openapi(schema);
    if let Err(error) = check_gemini_openapi(&out) {
        panic!("{error}\n{out:#}");
    }
    out
}

/// Every schema of the real catalog comes out obeying both dialects, keeps its top-level
/// properties, and rewriting twice changes nothing.
#[test]
fn catalog_schemas_obey_both_dialects() {
    let tools = github_catalog::definitions();
    assert_eq!(tools.len(), 117);
    let mut dropped = Vec::new();
    for tool in &tools {
        let schema = &tool.input_schema;
        let strict = openai_strict(schema);
        if let Err(error) = check_openai_strict(&strict) {
            panic!("{} (OpenAI strict): {error}\n{strict:#}", tool.name);
        }
        let gemini = gemini_openapi(schema);
        if let Err(error) = check_gemini_openapi(&gemini) {
            panic!("{} (Gemini): {error}\n{gemini:#}", tool.name);
        }
        let names = |value: &Value| -> Vec<String> {
            value
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(names(&strict), names(schema), "{}", tool.name);
        // Gemini leaves out what it cannot express: only free-form objects here.
        for name in names(schema) {
            if gemini["properties"].get(&name).is_none() {
                dropped.push(format!("{}.{name}", tool.name));
            }
        }
        assert_eq!(
            openai_strict(&strict),
            strict,
            "{} not idempotent",
            tool.name
        );
        assert_eq!(
            gemini_openapi(&gemini),
            gemini,
            "{} not idempotent",
            tool.name
        );
        // The canonical schema's required properties stay required for Gemini.
        assert_eq!(
            gemini.get("required").cloned().unwrap_or(json!([])),
            schema.get("required").cloned().unwrap_or(json!([])),
            "{}",
            tool.name
        );
    }
    // `inputs` is `{"type": "object", "properties": {}}`: any object, which Gemini's
    // OpenAPI subset cannot say.
    assert_eq!(dropped, ["actions_run_trigger.inputs"]);
}

/// The catalog's shapes that need real rewriting come out as expected.
#[test]
fn catalog_tricky_shapes() {
    let tools = github_catalog::definitions();
    let schema = |name: &str| -> Value {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .map(|tool| tool.input_schema.clone())
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    // anyOf [string, null] with a description beside it.
    let issue_write = schema("issue_write");
    let strict = strict_ok(&issue_write);
    assert_eq!(
        strict["properties"]["type"]["anyOf"],
        json!([{"type": "string"}, {"type": "null"}])
    );
    let gemini = gemini_ok(&issue_write);
    assert_eq!(gemini["properties"]["type"]["type"], "string");
    assert_eq!(gemini["properties"]["type"]["minLength"], 1);
    assert_eq!(gemini["properties"]["type"]["nullable"], true);
    assert!(gemini["properties"]["type"]["description"].is_string());
    // A multi-type value: ["string", "number", "boolean"].
    let value = &gemini["properties"]["issue_fields"]["items"]["properties"]["value"];
    assert_eq!(
        value["anyOf"],
        json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}])
    );
    // oneOf of objects under "type": "object", and a typeless "any value".
    let projects_write = schema("projects_write");
    let strict = strict_ok(&projects_write);
    let items = &strict["properties"]["items"]["items"];
    assert_eq!(items["anyOf"].as_array().map(Vec::len), Some(3));
    assert_eq!(items["anyOf"][0]["type"], "object");
    assert!(items.get("type").is_none());
    let gemini = gemini_ok(&projects_write);
    let value = &gemini["properties"]["updated_field"]["anyOf"][0]["properties"]["value"];
    assert_eq!(
        value["anyOf"][0],
        json!({"type": "string", "nullable": true})
    );
}

#[test]
fn strict_nested_optional_object() {
    let schema = json!({
        "type": "object",
        "properties": {
            "repo": {"type": "string"},
            "filter": {
                "type": "object",
                "description": "Optional filter",
                "properties": {
                    "label": {"type": "string", "default": "bug"},
                    "state": {"type": "string", "enum": ["open", "closed"]}
                },
                "required": ["state"]
            }
        },
        "required": ["repo"]
    });
    assert_eq!(
        strict_ok(&schema),
        json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "filter": {
                    "description": "Optional filter",
                    "type": ["object", "null"],
                    "properties": {
                        "label": {"type": ["string", "null"]},
                        "state": {"type": "string", "enum": ["open", "closed"]}
                    },
                    "required": ["label", "state"],
                    "additionalProperties": false
                }
            },
            "required": ["repo", "filter"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        gemini_ok(&schema),
        json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "filter": {
                    "description": "Optional filter",
                    "type": "object",
                    "properties": {
                        "label": {"default": "bug", "type": "string"},
                        "state": {"type": "string", "enum": ["open", "closed"]}
                    },
                    "required": ["state"]
                }
            },
            "required": ["repo"]
        })
    );
}

#[test]
fn array_of_objects() {
    let schema = json!({
        "type": "object",
        "properties": {
            "files": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "path": {"type": "string"},
                        "mode": {"type": "string", "format": "uint32"}
                    },
                    "required": ["path"]
                }
            }
        },
        "required": ["files"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["files"],
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "mode": {"type": ["string", "null"]}
                },
                "required": ["path", "mode"],
                "additionalProperties": false
            },
            "minItems": 1
        })
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["files"],
        json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "mode": {"type": "string"}},
                "required": ["path"]
            },
            "minItems": 1
        })
    );
}

#[test]
fn any_of_with_null() {
    let schema = json!({
        "type": "object",
        "properties": {
            "due": {
                "description": "Due date, or null to clear it",
                "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
            },
            "assignee": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "integer", "exclusiveMinimum": 0},
                    {"type": "null"}
                ]
            }
        },
        "required": ["due"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["due"],
        json!({
            "description": "Due date, or null to clear it",
            "anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]
        })
    );
    // Optional and already nullable: unchanged.
    assert_eq!(
        strict["properties"]["assignee"]["anyOf"][1],
        json!({"type": "integer", "exclusiveMinimum": 0})
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["due"],
        json!({
            "description": "Due date, or null to clear it",
            "type": "string",
            "format": "date-time",
            "nullable": true
        })
    );
    assert_eq!(
        gemini["properties"]["assignee"],
        json!({"anyOf": [
            {"type": "string", "nullable": true},
            {"type": "integer", "minimum": 1, "nullable": true}
        ]})
    );
}

#[test]
fn type_arrays() {
    let schema = json!({
        "type": "object",
        "properties": {
            "note": {"type": ["string", "null"], "maxLength": 10},
            "value": {"type": ["string", "number"], "description": "A value", "minimum": 0}
        },
        "required": ["note", "value"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["note"],
        json!({"type": ["string", "null"]})
    );
    assert_eq!(
        strict["properties"]["value"],
        json!({"description": "A value", "type": ["string", "number"], "minimum": 0})
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["note"],
        json!({"type": "string", "maxLength": 10, "nullable": true})
    );
    assert_eq!(
        gemini["properties"]["value"],
        json!({
            "description": "A value",
            "anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}]
        })
    );
}

#[test]
fn local_ref_is_kept_for_openai_and_inlined_for_gemini() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "Owner": {
                "type": "object",
                "title": "Owner",
                "properties": {"login": {"type": "string"}},
                "required": ["login"]
            }
        },
        "properties": {
            "owner": {"$ref": "#/$defs/Owner"},
            "reviewer": {"$ref": "#/$defs/Owner", "description": "Who reviews"}
        },
        "required": ["owner", "reviewer"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["owner"],
        json!({"$ref": "#/$defs/Owner"})
    );
    assert_eq!(
        strict["properties"]["reviewer"],
        json!({"description": "Who reviews", "anyOf": [{"$ref": "#/$defs/Owner"}]})
    );
    assert_eq!(strict["$defs"]["Owner"]["additionalProperties"], false);
    assert!(strict.get("$schema").is_none());

    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini,
        json!({
            "type": "object",
            "properties": {
                "owner": {
                    "title": "Owner",
                    "type": "object",
                    "properties": {"login": {"type": "string"}},
                    "required": ["login"]
                },
                "reviewer": {
                    "description": "Who reviews",
                    "title": "Owner",
                    "type": "object",
                    "properties": {"login": {"type": "string"}},
                    "required": ["login"]
                }
            },
            "required": ["owner", "reviewer"]
        })
    );
}

#[test]
fn recursive_ref() {
    let schema = json!({
        "type": "object",
        "definitions": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}
                },
                "required": ["name"]
            }
        },
        "properties": {"tree": {"$ref": "#/definitions/Node", "description": "The tree"}},
        "required": ["tree"]
    });
    // OpenAI supports recursion through $defs/definitions: the reference stays.
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["definitions"]["Node"]["properties"]["children"],
        json!({"type": ["array", "null"], "items": {"$ref": "#/definitions/Node"}})
    );
    // Gemini: inlined once, the recursive `children` cut.
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["tree"],
        json!({
            "description": "The tree",
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        })
    );
    // A recursive reference to the root itself.
    let linked = json!({
        "type": "object",
        "properties": {"value": {"type": "integer"}, "next": {"$ref": "#"}},
        "required": ["value"]
    });
    let strict = strict_ok(&linked);
    assert_eq!(
        strict["properties"]["next"],
        json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
    );
    let gemini = gemini_ok(&linked);
    let next = &gemini["properties"]["next"];
    assert_eq!(next["properties"]["value"], json!({"type": "integer"}));
    assert!(next["properties"].get("next").is_none());
}

#[test]
fn const_values() {
    let schema = json!({
        "type": "object",
        "properties": {
            "kind": {"const": "issue"},
            "version": {"type": "integer", "const": 2},
            "optional_kind": {"type": "string", "const": "pr"}
        },
        "required": ["kind", "version"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["kind"],
        json!({"type": "string", "const": "issue"})
    );
    assert_eq!(
        strict["properties"]["optional_kind"],
        json!({"type": ["string", "null"], "enum": ["pr", null]})
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["kind"],
        json!({"type": "string", "enum": ["issue"]})
    );
    assert_eq!(
        gemini["properties"]["version"],
        json!({"type": "integer", "minimum": 2, "maximum": 2})
    );
}

#[test]
fn gemini_drops_what_it_cannot_express() {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "headers": {"type": "array", "items": {"type": "object"}},
            "size": {"type": "integer", "enum": [1, 2, 3], "description": "Page size."},
            "state": {"type": "string", "enum": ["open", null]},
            "when": {"type": "string", "format": "date", "examples": ["2024-01-01"]},
            "count": {"type": "number", "exclusiveMinimum": 0.5, "format": "uint32"},
            "keep": {"type": "string"}
        },
        "required": ["labels", "keep"]
    });
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini,
        json!({
            "type": "object",
            "properties": {
                "size": {"description": "Page size. Allowed values: 1, 2, 3.", "type": "integer"},
                "state": {"type": "string", "enum": ["open"], "nullable": true},
                "when": {"type": "string"},
                "count": {"type": "number", "minimum": 0.5},
                "keep": {"type": "string"}
            },
            "required": ["keep"]
        })
    );
    // The same free-form object is closed for OpenAI.
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["labels"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn any_value_and_empty_schemas() {
    let schema = json!({
        "type": "object",
        "properties": {"value": {"description": "Anything"}, "flag": true},
        "required": ["value", "flag"]
    });
    let strict = strict_ok(&schema);
    assert_eq!(strict["properties"]["value"]["description"], "Anything");
    assert_eq!(
        strict["properties"]["value"]["anyOf"][3],
        json!({"type": "null"})
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(
        gemini["properties"]["flag"]["anyOf"][2],
        json!({"type": "boolean", "nullable": true})
    );
    // No parameters at all.
    for empty in [
        json!({}),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
    ] {
        assert_eq!(
            strict_ok(&empty),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        assert_eq!(
            gemini_ok(&empty),
            json!({"type": "object", "properties": {}})
        );
    }
}

#[test]
fn all_of_and_root_union() {
    let schema = json!({
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "boolean"}}}
        ]
    });
    let strict = strict_ok(&schema);
    assert_eq!(strict["required"], json!(["a", "b"]));
    assert_eq!(
        strict["properties"]["b"],
        json!({"type": ["boolean", "null"]})
    );
    let root_union = json!({
        "type": "object",
        "properties": {"owner": {"type": "string"}},
        "required": ["owner"],
        "oneOf": [
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"properties": {"name": {"type": "string"}}, "required": ["name"]}
        ]
    });
    let strict = strict_ok(&root_union);
    assert_eq!(strict["required"], json!(["owner", "id", "name"]));
    assert_eq!(
        strict["properties"]["id"],
        json!({"type": ["integer", "null"]})
    );
    let gemini = gemini_ok(&root_union);
    assert_eq!(gemini["required"], json!(["owner"]));
}

#[test]
fn recursive_all_of_is_kept_as_a_reference_or_cut() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"allOf": [{"$ref": "#"}]},
            "b": {"allOf": [{"$ref": "#"}], "description": "Again"}
        }
    });
    let strict = strict_ok(&schema);
    // Inlined once, then the recursion is a reference, as strict mode allows.
    let a = &strict["properties"]["a"];
    assert_eq!(a["type"], json!(["object", "null"]));
    assert_eq!(
        a["properties"]["a"],
        json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
    );
    // Gemini cannot express recursion: the recursive properties are cut, and with them
    // the objects left without properties.
    assert_eq!(
        gemini_ok(&schema),
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn shared_definitions_stay_within_the_budget() {
    // `D0` uses `D1` twice, `D1` uses `D2` twice, ...: inlining it all would give 2^40
    // schemas. The rewrite stops at its budget and still gives valid schemas.
    let mut defs = Map::new();
    for level in 0..40 {
        let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
        defs.insert(
            format!("D{level}"),
            json!({"type": "object", "properties": {"l": next.clone(), "r": {"allOf": [next]}}}),
        );
    }
    defs.insert("D40".to_owned(), json!({"type": "string"}));
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/D0"}},
        "$defs": defs
    });
    let strict = strict_ok(&schema);
    assert_eq!(
        strict["properties"]["tree"],
        json!({"anyOf": [{"$ref": "#/$defs/D0"}, {"type": "null"}]})
    );
    let gemini = gemini_ok(&schema);
    assert_eq!(gemini["properties"]["tree"]["type"], json!("object"));
    let arguments = json!({"tree": {"l": {"l": null, "r": null}, "r": null}});
    assert_eq!(
        strip_strict_nulls(&schema, &arguments),
        json!({"tree": {"l": {}}})
    );
}

#[test]
fn nullable_enum_and_const_agree_with_their_type() {
    let schema = json!({
        "type": "object",
        "properties": {
            "mode": {"type": ["string", "null"], "enum": ["fast", "slow"]},
            "kind": {"type": ["string", "null"], "const": "issue"},
            "either": {"type": ["string", "null"], "enum": ["a", null]},
            "nothing": {"type": "null", "enum": ["a"]}
        },
        "required": ["mode", "kind", "either", "nothing"]
    });
    let strict = strict_ok(&schema);
    // The values decide: null was never allowed.
    assert_eq!(
        strict["properties"]["mode"],
        json!({"type": "string", "enum": ["fast", "slow"]})
    );
    assert_eq!(
        strict["properties"]["kind"],
        json!({"type": "string", "const": "issue"})
    );
    assert_eq!(
        strict["properties"]["either"],
        json!({"type": ["string", "null"], "enum": ["a", null]})
    );
    assert_eq!(
        strict["properties"]["nothing"],
        json!({"type": "null", "enum": ["a", null]})
    );
}

#[test]
fn every_root_becomes_an_object_schema() {
    for root in [
        json!({"type": "object", "anyOf": []}),
        json!({"$ref": "#"}),
        json!({"$ref": "#/$defs/Missing", "properties": {"a": {"type": "string"}}}),
        json!({"type": "string"}),
        json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "nullable": true}),
        json!({"type": "object", "properties": {"x": {"type": "integer"}}, "anyOf": [{"type": "string"}]}),
        json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]}),
        json!(true),
        json!(false),
        json!([1, 2]),
    ] {
        let strict = strict_ok(&root);
        assert_eq!(strict["type"], json!("object"), "{root}");
        let gemini = gemini_ok(&root);
        assert_eq!(gemini["type"], json!("object"), "{root}");
    }
    // What can be kept is kept: the properties beside a contradicting union, the object
    // branch of a nullable union.
    let contradicting = json!({"type": "object", "properties": {"x": {"type": "integer"}}, "anyOf": [{"type": "string"}]});
    assert_eq!(
        strict_ok(&contradicting)["properties"]["x"],
        json!({"type": ["integer", "null"]})
    );
    let nullable_union = json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "null"}]});
    assert_eq!(strict_ok(&nullable_union)["required"], json!(["a"]));
}

#[test]
fn checkers_name_the_violation() {
    let open =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    assert_eq!(
        check_openai_strict(&open),
        Err("#: `additionalProperties` must be false".to_owned())
    );
    let optional = json!({
        "type": "object", "additionalProperties": false, "required": [],
        "properties": {"a": {"type": "string"}}
    });
    assert_eq!(
        check_openai_strict(&optional),
        Err("#: property `a` is not listed in `required`".to_owned())
    );
    let nested = json!({
        "type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {"a": {"type": "array", "items": {"type": "string", "default": "x"}}}
    });
    assert_eq!(
        check_openai_strict(&nested),
        Err("#/properties/a/items: keyword `default` is not supported in strict mode".to_owned())
    );
    let format = json!({
        "type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {"a": {"type": "string", "format": "uint32"}}
    });
    assert!(check_openai_strict(&format).is_err_and(|e| e.starts_with("#/properties/a:")));
    assert!(check_openai_strict(&json!({"anyOf": []})).is_err());

    let empty_object = json!({"type": "object", "properties": {"a": {"type": "object"}}});
    assert_eq!(
        check_gemini_openapi(&empty_object),
        Err(
            "#/properties/a: an object schema needs properties (Gemini rejects empty OBJECT types)"
                .to_owned()
        )
    );
    let type_array = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}});
    assert!(check_gemini_openapi(&type_array).is_err_and(|e| e.starts_with("#/properties/a:")));
    let numeric_enum =
        json!({"type": "object", "properties": {"a": {"type": "integer", "enum": [1]}}});
    assert!(check_gemini_openapi(&numeric_enum).is_err());
    let extra = json!({"type": "object", "additionalProperties": false, "properties": {}});
    assert!(check_gemini_openapi(&extra).is_err_and(|e| e.contains("additionalProperties")));
    let no_items = json!({"type": "object", "properties": {"a": {"type": "array"}}});
    assert!(check_gemini_openapi(&no_items).is_err());
}
