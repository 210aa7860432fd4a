//! The benchmark's inputs, written by `bfcl.py`: the catalog and the questions.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

/// One tool of the catalog, and the text the BM25 baselines index for it.
pub struct CatalogTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

impl CatalogTool {
    /// What the baselines index: the name as written, the description, and what the runtime
    /// reads of the schema (property names, titles, descriptions, string enum values).
    pub fn text(&self) -> String {
        let mut text = format!("{} {}", self.name, self.description);
        schema_text(&self.input_schema, 0, &mut text);
        text
    }
}

fn schema_text(schema: &Value, depth: usize, text: &mut String) {
    if depth > 8 {
        return;
    }
    match schema {
        Value::Array(schemas) => {
            for schema in schemas {
                schema_text(schema, depth + 1, text);
            }
        }
        Value::Object(schema) => {
            for key in ["title", "description"] {
                if let Some(Value::String(value)) = schema.get(key) {
                    text.push(' ');
                    text.push_str(value);
                }
            }
            if let Some(Value::Array(values)) = schema.get("enum") {
                for value in values.iter().filter_map(Value::as_str) {
                    text.push(' ');
                    text.push_str(value);
                }
            }
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (name, property) in properties {
                    text.push(' ');
                    text.push_str(name);
                    schema_text(property, depth + 1, text);
                }
            }
            for key in ["items", "additionalProperties", "anyOf", "oneOf", "allOf"] {
                if let Some(subschema) = schema.get(key) {
                    schema_text(subschema, depth + 1, text);
                }
            }
        }
        _ => {}
    }
}

/// One question: its query and the catalog names its ground truth calls.
pub struct Question {
    pub set: String,
    pub split: String,
    pub query: String,
    pub expected: Vec<String>,
}

pub fn read_catalog(path: &Path) -> Result<Vec<CatalogTool>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let catalog: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let tools = catalog["tools"]
        .as_array()
        .ok_or_else(|| format!("{}: no `tools` array", path.display()))?;
    Ok(tools
        .iter()
        .map(|tool| CatalogTool {
            name: tool["name"].as_str().unwrap_or_default().to_owned(),
            description: tool["description"].as_str().unwrap_or_default().to_owned(),
            input_schema: tool["inputSchema"].clone(),
        })
        .collect())
}

pub fn read_questions(path: &Path) -> Result<Vec<Question>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let question: Value = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
            let field = |name: &str| question[name].as_str().unwrap_or_default().to_owned();
            Ok(Question {
                set: field("set"),
                split: field("split"),
                query: field("query"),
                expected: question["expected"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            })
        })
        .collect()
}

/// Catalog name → the cleaned function name it counts as (`NAME_v2` → `NAME`).
pub fn read_families(path: &Path) -> Result<HashMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
