//! [`strip_strict_nulls`]: the nulls strict mode sends for optional properties removed.

use serde_json::json;

use crate::schema::strip_strict_nulls;

#[test]
fn strip_strict_nulls_restores_omitted_properties() {
    let schema = json!({
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "label": {"type": "string"},
            "type": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "filter": {
                "type": "object",
                "properties": {"state": {"type": "string"}, "since": {"type": "string"}},
                "required": ["state"]
            },
            "files": {
                "type": "array",
                "items": {"$ref": "#/$defs/File"}
            }
        },
        "required": ["owner"],
        "$defs": {
            "File": {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}
        }
    });
    let arguments = json!({
        "owner": "octocat",
        "label": null,
        "type": null,
        "filter": {"state": "open", "since": null},
        "files": [{"path": "a", "mode": null}]
    });
    assert_eq!(
        strip_strict_nulls(&schema, &arguments),
        json!({
            "owner": "octocat",
            "type": null,
            "filter": {"state": "open"},
            "files": [{"path": "a"}]
        })
    );
}
