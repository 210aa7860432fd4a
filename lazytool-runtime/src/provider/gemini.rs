//! Google Gemini `generateContent`: the request's `tools`, the `functionCall` parts of a
//! response, and `functionResponse` parts.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::{ParseError, Provider, Reader, ToolCall, join};
use crate::schema::dialect;
use crate::{ToolDefinition, ToolResult};

/// The prefix of the ids given to calls that arrive without one.
const SYNTHESIZED_ID_PREFIX: &str = "gemini-call-";

/// Which field of a function declaration carries the schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GeminiSchemaField {
    /// `parametersJsonSchema`: the JSON Schema as it is.
    #[default]
    ParametersJsonSchema,
    /// `parameters`: the OpenAPI subset, rewritten by [`dialect::gemini_openapi`] (for
    /// endpoints or models without `parametersJsonSchema`).
    OpenApiParameters,
}

/// The array for the request's `tools` field: one tool holding every declaration,
/// `[{"functionDeclarations": [{"name", "description", "parametersJsonSchema"}]}]`, or with
/// `"parameters"` for [`GeminiSchemaField::OpenApiParameters`]. There `parameters` is left out
/// when the rewritten schema has no properties, since Gemini rejects an object without them.
/// No tools give an empty array.
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D], field: GeminiSchemaField) -> Value {
    if tools.is_empty() {
        return json!([]);
    }
    let declarations: Vec<Value> = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            let mut declaration = Map::new();
            declaration.insert("name".to_owned(), json!(tool.name));
            declaration.insert("description".to_owned(), json!(tool.description));
            match field {
                GeminiSchemaField::ParametersJsonSchema => {
                    declaration.insert(
                        "parametersJsonSchema".to_owned(),
                        super::object_root(&tool.input_schema),
                    );
                }
                GeminiSchemaField::OpenApiParameters => {
                    let parameters = dialect::gemini_openapi(&tool.input_schema);
                    let has_properties = parameters
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|properties| !properties.is_empty());
                    if has_properties {
                        declaration.insert("parameters".to_owned(), parameters);
                    }
                }
            }
            Value::Object(declaration)
        })
        .collect();
    json!([{"functionDeclarations": declarations}])
}

/// The tool calls of a `generateContent` response (`candidates[0].content.parts`) or of a
/// bare content object (`{"role": "model", "parts": [...]}`): the parts with a
/// `functionCall` (`name`, `args`, optional `id`), in order. A missing `args` is `{}`; a call
/// without an id gets `gemini-call-{index}`, its index among the calls. A candidate without
/// content (a safety stop, a malformed function call) has no calls.
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::Gemini,
    };
    let root = reader.object(response, "", "a generateContent response or a content")?;
    let (content, path) = if let Some(candidates) = root.get("candidates") {
        let first = candidates
            .as_array()
            .and_then(|candidates| candidates.first())
            .ok_or_else(|| reader.error("/candidates", "a non-empty array of candidates"))?;
        let candidate = reader.object(first, "/candidates/0", "a candidate")?;
        match candidate.get("content") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(content) => (
                reader.object(content, "/candidates/0/content", "a content")?,
                "/candidates/0/content".to_owned(),
            ),
        }
    } else if root.contains_key("parts") || root.contains_key("role") {
        (root, String::new())
    } else {
        return Err(reader.error(
            "",
            "a generateContent response (with `candidates`) or a content (with `parts`)",
        ));
    };
    let Some(parts) = reader.optional_array(content, &path, "parts")? else {
        return Ok(Vec::new());
    };
    let parts_path = join(&path, "parts");
    let mut calls = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let part_path = join(&parts_path, index);
        let part = reader.object(part, &part_path, "a part")?;
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        let call_path = join(&part_path, "functionCall");
        let call = reader.object(call, &call_path, "a function call")?;
        let name = reader.non_empty_string(call, &call_path, "name")?;
        let arguments = match call.get("args") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args.clone(),
            Some(_) => return Err(reader.error(&join(&call_path, "args"), "an args object")),
        };
        let id = match call.get("id") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            // Gemini ids are optional; an empty one is as good as none.
            None | Some(Value::Null | Value::String(_)) => {
                format!("{SYNTHESIZED_ID_PREFIX}{}", calls.len())
            }
            Some(_) => return Err(reader.error(&join(&call_path, "id"), "a string")),
        };
        calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    Ok(calls)
}

/// Whether an id was synthesized by [`parse_tool_calls`] (`gemini-call-{index}`).
fn is_synthesized(id: &str) -> bool {
    id.strip_prefix(SYNTHESIZED_ID_PREFIX)
        .is_some_and(|index| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
}

/// The part that returns one result:
/// `{"functionResponse": {"name", "id", "response"}}`. `id` is present only when the call
/// came with one (not for a synthesized `gemini-call-{index}`); `response` must be an object:
/// `{"result": content}` for a success (the JSON value, not text), `{"error": text}` for a
/// failure.
pub fn function_response_part(call: &ToolCall, result: &ToolResult) -> Value {
    let mut response = Map::new();
    response.insert("name".to_owned(), json!(call.name));
    if !is_synthesized(&call.id) {
        response.insert("id".to_owned(), json!(call.id));
    }
    let payload = if result.is_error() {
        json!({"error": result.text()})
    } else {
        json!({"result": result.content()})
    };
    response.insert("response".to_owned(), payload);
    json!({"functionResponse": Value::Object(response)})
}

/// The content that returns the results of one model turn: `{"role": "user", "parts":
/// [functionResponse parts]}`, the parts in the order of the calls.
pub fn tool_results_content(parts: Vec<Value>) -> Value {
    json!({"role": "user", "parts": parts})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolErrorKind;
    use crate::provider::test_support::tool;

    /// A generateContent response with two functionCall parts, the second with an id.
    fn response() -> Value {
        json!({
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {
                                    "name": "issue_read",
                                    "args": {"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}
                                },
                                "thoughtSignature": "CiQBcsjafBvJ0Y2r1xdPr7mV5pJz6c7kzXo0yQ1hTvx4m2x1QwYKYwFyyNp8"
                            },
                            {
                                "functionCall": {
                                    "id": "fc_3c1d8a9e2b7f4c10",
                                    "name": "list_pull_requests",
                                    "args": {"owner": "octocat", "repo": "hello-world", "state": "open"}
                                }
                            }
                        ],
                        "role": "model"
                    },
                    "finishReason": "STOP",
                    "index": 0
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 1210,
                "candidatesTokenCount": 58,
                "totalTokenCount": 1342,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1210}],
                "thoughtsTokenCount": 74
            },
            "modelVersion": "gemini-2.5-flash",
            "responseId": "kH1yaPvGD9u0nvgP2Z2a2Ao"
        })
    }

    fn expected_calls() -> Vec<ToolCall> {
        vec![
            ToolCall {
                id: "gemini-call-0".into(),
                name: "issue_read".into(),
                arguments: json!({"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}),
            },
            ToolCall {
                id: "fc_3c1d8a9e2b7f4c10".into(),
                name: "list_pull_requests".into(),
                arguments: json!({"owner": "octocat", "repo": "hello-world", "state": "open"}),
            },
        ]
    }

    #[test]
    fn parses_two_function_calls() {
        assert_eq!(parse_tool_calls(&response()), Ok(expected_calls()));
        let content = response()["candidates"][0]["content"].clone();
        assert_eq!(parse_tool_calls(&content), Ok(expected_calls()));
    }

    #[test]
    fn calls_without_args_and_responses_without_content() {
        let content = json!({"role": "model", "parts": [
            {"text": "Checking who you are."},
            {"functionCall": {"name": "get_me", "id": ""}}
        ]});
        assert_eq!(
            parse_tool_calls(&content),
            Ok(vec![ToolCall {
                id: "gemini-call-0".into(),
                name: "get_me".into(),
                arguments: json!({}),
            }])
        );
        let blocked =
            json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}]});
        assert_eq!(parse_tool_calls(&blocked), Ok(Vec::new()));
        let no_parts =
            json!({"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]});
        assert_eq!(parse_tool_calls(&no_parts), Ok(Vec::new()));
    }

    #[test]
    fn malformed_responses_name_the_path() {
        let mut bad = response();
        bad["candidates"][0]["content"]["parts"][1]["functionCall"]["args"] = json!([]);
        assert_eq!(
            parse_tool_calls(&bad).expect_err("array args").path(),
            "/candidates/0/content/parts/1/functionCall/args"
        );
        let mut unnamed = response();
        unnamed["candidates"][0]["content"]["parts"][1]["functionCall"]["name"] = json!("");
        assert_eq!(
            parse_tool_calls(&unnamed).expect_err("empty name").path(),
            "/candidates/0/content/parts/1/functionCall/name"
        );
        let prompt_blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        assert_eq!(
            parse_tool_calls(&prompt_blocked)
                .expect_err("no candidates")
                .path(),
            ""
        );
        assert_eq!(
            parse_tool_calls(&json!({"candidates": []}))
                .expect_err("empty")
                .path(),
            "/candidates"
        );
    }

    #[test]
    fn function_responses() {
        let calls = expected_calls();
        let ok = ToolResult::success(json!({"number": 42, "state": "open"}));
        let failed = ToolResult::error(ToolErrorKind::ToolFailed, "not found");
        let first = function_response_part(&calls[0], &ok);
        assert_eq!(
            first,
            json!({"functionResponse": {
                "name": "issue_read",
                "response": {"result": {"number": 42, "state": "open"}}
            }})
        );
        let second = function_response_part(&calls[1], &failed);
        assert_eq!(
            second,
            json!({"functionResponse": {
                "name": "list_pull_requests",
                "id": "fc_3c1d8a9e2b7f4c10",
                "response": {"error": "not found"}
            }})
        );
        assert_eq!(
            tool_results_content(vec![first.clone(), second.clone()]),
            json!({"role": "user", "parts": [first, second]})
        );
        let text = ToolResult::success(json!("plain text"));
        assert_eq!(
            function_response_part(&calls[0], &text)["functionResponse"]["response"],
            json!({"result": "plain text"})
        );
    }

    #[test]
    fn synthesized_ids() {
        assert!(is_synthesized("gemini-call-0"));
        assert!(is_synthesized("gemini-call-12"));
        assert!(!is_synthesized("gemini-call-"));
        assert!(!is_synthesized("gemini-call-x"));
        assert!(!is_synthesized("fc_1"));
    }

    #[test]
    fn renders_both_schema_fields() {
        let tools = [
            tool(
                "get_issue",
                json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"number": {"type": "integer"}, "repo": {"type": ["string", "null"]}},
                    "required": ["number"]
                }),
            ),
            tool("get_me", json!({"type": "object", "properties": {}})),
        ];
        assert_eq!(
            render_tools(&tools, GeminiSchemaField::default()),
            json!([{"functionDeclarations": [
                {"name": "get_issue", "description": "The get_issue tool.", "parametersJsonSchema": tools[0].input_schema},
                {"name": "get_me", "description": "The get_me tool.", "parametersJsonSchema": tools[1].input_schema}
            ]}])
        );
        assert_eq!(
            render_tools(&tools, GeminiSchemaField::OpenApiParameters),
            json!([{"functionDeclarations": [
                {
                    "name": "get_issue",
                    "description": "The get_issue tool.",
                    "parameters": {
                        "type": "object",
                        "properties": {"number": {"type": "integer"}, "repo": {"type": "string", "nullable": true}},
                        "required": ["number"]
                    }
                },
                {"name": "get_me", "description": "The get_me tool."}
            ]}])
        );
        assert_eq!(
            render_tools::<ToolDefinition>(&[], GeminiSchemaField::default()),
            json!([])
        );
    }
}
