//! lazytool's search as the index of rig's tool retrieval, in rig's own loop: each request
//! carries the lazy tools matching the conversation, and their calls run through lazytool.

use lazytool_rig::{LazySearchIndex, ScriptedChat};
use rig_agent::AgentBuilder;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::catalog;

/// The content of a request's last message, as JSON text.
fn last_message(request: &Value) -> String {
    (request["messages"]
        .as_array()
        .and_then(|messages| messages.last()))
    .map(|message| message["content"].to_string())
    .unwrap_or_default()
}

#[tokio::test]
async fn lazytool_search_picks_the_tools_of_each_request() {
    let turn = AtomicUsize::new(0);
    let chat = ScriptedChat::new(move |_| match turn.fetch_add(1, Ordering::SeqCst) {
        // Missing the required arguments: lazytool's validation answers.
        0 => ScriptedChat::tool_calls(&[("c1", "merge_pull_request", "{}")]),
        1 => ScriptedChat::tool_calls(&[(
            "c2",
            "merge_pull_request",
            r#"{"owner":"o","repo":"r","pullNumber":7}"#,
        )]),
        _ => ScriptedChat::text("merged"),
    });
    let index = LazySearchIndex::new(&catalog(true));
    let agent = index.attach(AgentBuilder::new(chat.model()), 3).build();
    let response = agent
        .prompt("Merge pull request 7 of o/r")
        .max_turns(5)
        .run()
        .await
        .expect("the run answers");
    assert_eq!(response.output(), "merged");
    let requests = chat.requests();
    let first = ScriptedChat::tool_names(&requests[0]);
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(first[0], "merge_pull_request", "{first:?}");
    let result = last_message(&requests[1]);
    assert!(
        result.contains("pullNumber"),
        "the missing argument is named: {result}"
    );
    let result = last_message(&requests[2]);
    assert!(result.contains("done"), "the call ran: {result}");
}
