//! One reply of the model, read as it streams in (server-sent events), or whole from a
//! server that ignored `"stream": true`.

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use lazytool_runtime::ToolCall;
use lazytool_runtime::provider::{AssembleCalls, openai_chat};
use serde_json::{Map, Value};

use crate::{AgentError, excerpt};

/// What the model said in one reply: its text and its tool calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) calls: Vec<ToolCall>,
}

/// Reads a 2xx response: `text/event-stream` chunk by chunk, anything else as one
/// `chat.completion`.
pub(crate) async fn read(response: reqwest::Response) -> Result<Reply, AgentError> {
    let streamed = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    if streamed {
        read_stream(response).await
    } else {
        read_whole(&response.text().await?)
    }
}

async fn read_stream(response: reqwest::Response) -> Result<Reply, AgentError> {
    let mut events = response.bytes_stream().eventsource();
    let mut assembler = openai_chat::StreamAssembler::new();
    let mut reply = Reply::default();
    let mut refusal = String::new();
    while let Some(event) = events.next().await {
        let event = event.map_err(|error| match error {
            eventsource_stream::EventStreamError::Transport(error) => AgentError::Http(error),
            other => AgentError::InvalidStream(other.to_string()),
        })?;
        if event.data == "[DONE]" {
            break;
        }
        let chunk: Value =
            serde_json::from_str(&event.data).map_err(|source| AgentError::InvalidJson {
                source,
                body: excerpt(&event.data),
            })?;
        reply.calls.extend(assembler.push(&chunk)?);
        let delta = chunk.pointer("/choices/0/delta");
        if let Some(text) = delta
            .and_then(|delta| delta.get("content"))
            .and_then(Value::as_str)
        {
            reply.text.push_str(text);
        }
        if let Some(text) = delta
            .and_then(|delta| delta.get("refusal"))
            .and_then(Value::as_str)
        {
            refusal.push_str(text);
        }
    }
    reply.calls.extend(assembler.finish()?);
    if reply.text.is_empty() {
        reply.text = refusal;
    }
    Ok(reply)
}

fn read_whole(body: &str) -> Result<Reply, AgentError> {
    let response: Value = serde_json::from_str(body).map_err(|source| AgentError::InvalidJson {
        source,
        body: excerpt(body),
    })?;
    let message = response
        .pointer("/choices/0/message")
        .and_then(Value::as_object)
        .ok_or_else(|| AgentError::MissingField {
            path: "/choices/0/message".to_owned(),
        })?;
    let calls = openai_chat::parse_tool_calls(&response).map_err(AgentError::InvalidToolCalls)?;
    let text = answer_text(message).unwrap_or_default();
    Ok(Reply { text, calls })
}

/// The text of a whole message: its `content` as a string or as text parts, else its
/// `refusal`.
fn answer_text(message: &Map<String, Value>) -> Option<String> {
    match message.get("content") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => message
            .get("refusal")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn answer_text_reads_strings_parts_and_refusals() {
        let message = |value: Value| value.as_object().cloned().unwrap_or_default();
        assert_eq!(
            answer_text(&message(json!({"content": "hi"}))).as_deref(),
            Some("hi")
        );
        assert_eq!(
            answer_text(&message(
                json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
            ))
            .as_deref(),
            Some("ab")
        );
        assert_eq!(
            answer_text(&message(json!({"content": null, "refusal": "no"}))).as_deref(),
            Some("no")
        );
        assert_eq!(answer_text(&message(json!({"content": null}))), None);
    }

    #[test]
    fn a_whole_completion_gives_its_text_and_calls() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": "ok",
            "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "now", "arguments": "{}"}}]}}]});
        let reply = read_whole(&body.to_string()).expect("a reply");
        assert_eq!(reply.text, "ok");
        assert_eq!(reply.calls[0].id, "c1");
        assert!(matches!(
            read_whole("{}"),
            Err(AgentError::MissingField { .. })
        ));
    }
}
