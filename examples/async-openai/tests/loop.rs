//! The async-openai loop offline: discovery, a call, an argument error repaired, a tool that
//! does not exist and arguments that are not JSON, each answered in async-openai's types.

use lazytool_examples_async_openai::{Event, reply, run_chat, scripted_model};
use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
use serde_json::{Value, json};

#[tokio::test]
async fn a_conversation_in_async_openais_types() {
    let forecast = DynamicTool::new(
        "get_forecast",
        "Tomorrow's weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |arguments, _| async move {
            Ok::<_, String>(json!(format!(
                "sun in {}",
                arguments["city"].as_str().unwrap_or("?")
            )))
        },
    )
    .lazy(true);
    let registry = Registry::builder()
        .without_inventory()
        .tool(forecast)
        .build()
        .expect("registers");
    let session = registry.session();
    let model = scripted_model(|turn| match turn {
        1 => reply(
            "",
            &[(
                "c1",
                DISCOVERY_TOOL_NAME,
                r#"{"toolNames":["get_forecast"]}"#,
            )],
        ),
        2 => reply(
            "",
            &[
                ("c2", "get_forecast", "{}"),
                ("c3", "get_weather", "{}"),
                ("c4", "get_forecast", "{oops"),
            ],
        ),
        3 => reply("", &[("c5", "get_forecast", r#"{"city":"Oslo"}"#)]),
        _ => reply("Sunny.", &[]),
    });
    let mut events = Vec::new();
    let answer = run_chat(
        &session,
        "scripted",
        "Weather in Oslo?",
        6,
        model,
        |event| events.push(event),
    )
    .await;
    assert_eq!(answer.expect("the loop ends with an answer"), "Sunny.");
    let requests: Vec<Vec<String>> = events
        .iter()
        .filter_map(|event| match event {
            Event::Request { tools, .. } => Some(tools.clone()),
            Event::Answered { .. } => None,
        })
        .collect();
    assert_eq!(requests[0], [DISCOVERY_TOOL_NAME]);
    assert_eq!(requests[1], ["get_forecast"]);
    let answers: Vec<Value> = events
        .iter()
        .filter_map(|event| match event {
            Event::Answered { message } => Some(message.clone()),
            Event::Request { .. } => None,
        })
        .collect();
    let text = |index: usize| {
        answers[index]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(answers.len(), 5);
    assert!(
        text(1).contains("city"),
        "the missing argument: {}",
        text(1)
    );
    assert!(
        text(2).starts_with("Error: unknown tool 'get_weather'"),
        "{}",
        text(2)
    );
    assert!(
        text(3).starts_with("Error:"),
        "non-JSON arguments: {}",
        text(3)
    );
    assert_eq!(text(4), "sun in Oslo");
    assert_eq!(answers[4]["tool_call_id"], "c5");
}
