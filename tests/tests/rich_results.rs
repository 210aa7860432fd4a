//! Results that are more than JSON (`Content`): what each provider sends, in the shapes of
//! its API reference, and the output limit counting images by their base64 size.

use lazytool_runtime::provider::{anthropic, gemini, openai_chat, openai_responses, tanstack};
use lazytool_runtime::{
    CallLimits, Content, ContentPart, DynamicTool, Registry, ToolCall, ToolResult, tool,
};
use serde_json::{Value, json};

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of one silent sample.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";
/// The start of a PDF.
const PDF: &str = "JVBERi0xLjQK";

/// Draws the chart of a series.
#[tool]
async fn chart(points: Vec<f64>) -> Result<Content, String> {
    if points.is_empty() {
        return Err("no points".to_owned());
    }
    Ok(Content::new([
        ContentPart::text(format!("{} points", points.len())),
        ContentPart::image(PNG, "image/png"),
    ]))
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: json!({}),
    }
}

/// Text, a PNG, WAV audio, a PDF resource and a link, with a structured value.
fn everything() -> ToolResult {
    ToolResult::from(
        Content::new([
            ContentPart::text("Here is the report."),
            ContentPart::image(PNG, "image/png"),
            ContentPart::audio(WAV, "audio/wav"),
            ContentPart::resource_blob("file:///reports/q3.pdf", PDF, "application/pdf"),
            ContentPart::resource_link("file:///reports/q2.pdf", "q2.pdf"),
        ])
        .with_structured(json!({"pages": 3})),
    )
}

#[tokio::test]
async fn a_tool_returning_content_gives_its_parts() {
    let registry = Registry::from_inventory().expect("valid tools");
    let drawn = registry.call("chart", json!({"points": [1.0, 2.0]})).await;
    assert!(!drawn.is_error());
    assert_eq!(
        drawn.parts(),
        [
            ContentPart::text("2 points"),
            ContentPart::image(PNG, "image/png")
        ]
    );
    assert_eq!(drawn.structured(), None);
    assert_eq!(
        drawn.content(),
        &json!("2 points\n[image: image/png, 96 bytes of base64]")
    );
    let failed = registry.call("chart", json!({"points": []})).await;
    assert!(failed.is_error() && failed.parts().is_empty());
    assert_eq!(failed.text(), "no points");
}

#[tokio::test]
async fn a_dynamic_tool_returns_content_too() {
    let screenshot = DynamicTool::new(
        "screenshot",
        "Takes a screenshot.",
        json!({"type": "object"}),
        |_, _| async { Ok::<_, String>(Content::new([ContentPart::image(PNG, "image/png")])) },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(screenshot)
        .build()
        .expect("valid tools");
    let result = registry.call("screenshot", json!({})).await;
    assert_eq!(result.parts(), [ContentPart::image(PNG, "image/png")]);
}

#[test]
fn anthropic_sends_image_and_document_blocks_in_the_tool_result() {
    let block = anthropic::tool_result_block(&call("toolu_01", "report"), &everything());
    assert_eq!(
        block,
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01",
            "content": [
                {"type": "text", "text": "{\"pages\":3}"},
                {"type": "text", "text": "Here is the report."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                {"type": "text", "text": "[audio: audio/wav, 64 bytes of base64]"},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}},
                {"type": "text", "text": "[resource link: q2.pdf <file:///reports/q2.pdf>]"}
            ]
        })
    );
}

#[test]
fn openai_responses_sends_an_output_list_of_input_items() {
    let item = openai_responses::tool_result_item(&call("call_1", "report"), &everything());
    assert_eq!(
        item,
        json!({
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "{\"pages\":3}"},
                {"type": "input_text", "text": "Here is the report."},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "auto"},
                {"type": "input_text", "text": "[audio: audio/wav, 64 bytes of base64]"},
                {"type": "input_file", "file_data": format!("data:application/pdf;base64,{PDF}"), "filename": "q3.pdf"},
                {"type": "input_text", "text": "[resource link: q2.pdf <file:///reports/q2.pdf>]"}
            ]
        })
    );
}

#[test]
fn gemini_sends_inline_data_inside_the_function_response() {
    let part = gemini::function_response_part(&call("gemini-call-0", "report"), &everything());
    let text = "Here is the report.\n[image: image/png, 96 bytes of base64]\n[audio: audio/wav, 64 bytes of base64]\n[resource: file:///reports/q3.pdf, application/pdf, 12 bytes of base64]\n[resource link: q2.pdf <file:///reports/q2.pdf>]";
    assert_eq!(
        part,
        json!({"functionResponse": {
            "name": "report",
            "response": {"result": {"pages": 3}, "text": text},
            "parts": [
                {"inlineData": {"mimeType": "image/png", "data": PNG}},
                {"inlineData": {"mimeType": "application/pdf", "data": PDF}}
            ]
        }})
    );
}

#[test]
fn openai_chat_sends_placeholders_and_a_user_message_with_the_attachments() {
    let first = call("call_1", "report");
    let plain = call("call_2", "count");
    let report = everything();
    let count = ToolResult::success(json!(2));
    let messages = openai_chat::tool_results([(&first, &report), (&plain, &count)]);
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(messages[0]["role"], "tool");
    assert_eq!(messages[0]["content"], report.text());
    assert!(
        report
            .text()
            .contains("[image: image/png, 96 bytes of base64]")
    );
    assert_eq!(
        messages[1],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "2"})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The images and audio the tool results above refer to, in order: 2 from call call_1 (report)."},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}}
        ]})
    );
    assert_eq!(
        openai_chat::tool_results([(&plain, &count)]).len(),
        1,
        "no attachments, no user message"
    );
}

#[test]
fn tanstack_sends_the_text_with_placeholders() {
    let message = tanstack::tool_result_message(&call("tc_1", "report"), &everything());
    let text = "{\"pages\":3}\nHere is the report.\n[image: image/png, 96 bytes of base64]\n[audio: audio/wav, 64 bytes of base64]\n[resource: file:///reports/q3.pdf, application/pdf, 12 bytes of base64]\n[resource link: q2.pdf <file:///reports/q2.pdf>]";
    assert_eq!(
        message,
        json!({"role": "tool", "content": text, "toolCallId": "tc_1"})
    );
    assert_eq!(everything().text(), text);
}

#[test]
fn image_types_a_provider_refuses_become_text() {
    let tiff = ToolResult::from(Content::new([ContentPart::image("SUkqAA==", "image/tiff")]));
    let placeholder = "[image: image/tiff, 8 bytes of base64]";
    let block = anthropic::tool_result_block(&call("toolu_1", "scan"), &tiff);
    assert_eq!(
        block["content"],
        json!([{"type": "text", "text": placeholder}])
    );
    let item = openai_responses::tool_result_item(&call("call_1", "scan"), &tiff);
    assert_eq!(
        item["output"],
        json!([{"type": "input_text", "text": placeholder}])
    );
    let part = gemini::function_response_part(&call("call_1", "scan"), &tiff);
    assert_eq!(
        part["functionResponse"],
        json!({"name": "scan", "id": "call_1", "response": {"result": placeholder}})
    );
    assert_eq!(
        openai_chat::attachments_message([(&call("call_1", "scan"), &tiff)]),
        None
    );
}

/// `sent` bytes of base64 image data.
fn image_tool(name: &str, sent: usize) -> DynamicTool {
    DynamicTool::new(
        name,
        "Returns images.",
        json!({"type": "object"}),
        move |_, _| async move {
            Ok::<_, String>(Content::new([
                ContentPart::text("two images"),
                ContentPart::image("A".repeat(sent), "image/png"),
                ContentPart::image("B".repeat(sent), "image/png"),
            ]))
        },
    )
}

/// The bytes the output limit counts: structured JSON, text escaped, data by its length.
fn counted(result: &ToolResult) -> usize {
    let structured = result
        .structured()
        .map_or(0, |value| value.to_string().len());
    let parts: usize = result
        .parts()
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => serde_json::to_string(text).map_or(0, |t| t.len() - 2),
            ContentPart::Image { data, mime_type } => data.len() + mime_type.len(),
            other => serde_json::to_string(other).map_or(0, |t| t.len()),
        })
        .sum();
    structured + parts
}

#[tokio::test]
async fn the_output_limit_counts_images_by_their_base64_size() {
    let registry = Registry::builder()
        .without_inventory()
        .tool(image_tool("small", 1_000))
        .tool(image_tool("large", 60_000))
        .limits(CallLimits::default().max_output_bytes(100_000))
        .build()
        .expect("valid tools");

    let small = registry.call("small", json!({})).await;
    assert_eq!(small.parts().len(), 3, "within the limit: whole");

    let large = registry.call("large", json!({})).await;
    assert!(!large.is_error(), "a cut result stays a success");
    assert!(counted(&large) <= 100_000, "{}", counted(&large));
    let parts = large.parts();
    assert_eq!(parts[0], ContentPart::text("two images"));
    assert_eq!(
        parts[1],
        ContentPart::image("A".repeat(60_000), "image/png")
    );
    assert_eq!(parts.len(), 3, "the second image is left out: {parts:?}");
    let ContentPart::Text { text: notice } = &parts[2] else {
        panic!("a notice at the end: {parts:?}");
    };
    assert!(
        notice.starts_with("[Output truncated: 1 of 3 parts left out or cut"),
        "{notice}"
    );
    assert!(large.text().contains("Output truncated"));
}

#[tokio::test]
async fn a_structured_value_and_text_over_the_limit_are_cut_too() {
    let wordy = DynamicTool::new("wordy", "Talks.", json!({"type": "object"}), |_, _| async {
        Ok::<_, String>(
            Content::new([ContentPart::text("é".repeat(5_000))])
                .with_structured(json!({"rows": vec!["x".repeat(100); 100]})),
        )
    });
    let registry = Registry::builder()
        .without_inventory()
        .tool(wordy)
        .limits(CallLimits::default().max_output_bytes(2_000))
        .build()
        .expect("valid tools");
    let result = registry.call("wordy", json!({})).await;
    assert!(counted(&result) <= 2_000, "{}", counted(&result));
    assert_eq!(
        result.structured(),
        None,
        "the structured value did not fit"
    );
    let texts: Vec<&str> = result
        .parts()
        .iter()
        .filter_map(|part| match part {
            ContentPart::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts[0].starts_with("éé") && texts[0].ends_with('…'),
        "cut text"
    );
    assert!(
        texts[1].starts_with("[Output truncated: 2 of 2 parts"),
        "{}",
        texts[1]
    );
    assert_eq!(result.content(), &Value::String(texts.join("\n")));
}
