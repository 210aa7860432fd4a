//! What the first request of rig's loop carries for the 117 tools of GitHub's MCP server
//! (data/github-mcp-tools.json), lazy through lazytool against the same tools given to rig
//! eagerly: `o200k_base` tokens of the `tools` array rig's OpenAI Chat wire sent.

use lazytool_rig::{LazyTools, ScriptedChat};
use lazytool_runtime::Registry;
use lazytool_runtime::tokens::count_json_tokens;
use rig_agent::AgentBuilder;

mod common;
use common::catalog;

/// The tokens of the `tools` of the first request rig sends with `registry`'s tools attached.
async fn first_request_tokens(registry: &Registry) -> (usize, usize) {
    let chat = ScriptedChat::new(|_| ScriptedChat::text("done"));
    let lazy = LazyTools::new(registry.session());
    let agent = lazy.attach(AgentBuilder::new(chat.model())).build();
    agent
        .prompt("List my issues.")
        .run()
        .await
        .expect("the run answers");
    let tools = chat.requests()[0]["tools"].clone();
    let count = tools.as_array().map_or(0, Vec::len);
    (count, count_json_tokens(&tools))
}

#[tokio::test]
async fn the_first_request_carries_a_fraction_of_the_eager_tokens() {
    let (eager_tools, eager) = first_request_tokens(&catalog(false)).await;
    let (lazy_tools, lazy) = first_request_tokens(&catalog(true)).await;
    println!(
        "rig first request, 117 GitHub MCP tools: eager {eager_tools} tools {eager} tokens, \
         lazy {lazy_tools} tool(s) {lazy} tokens ({:.1}%)",
        lazy as f64 * 100.0 / eager as f64
    );
    assert_eq!(eager_tools, 117);
    assert_eq!(lazy_tools, 1, "the discovery tool alone");
    assert!(
        lazy * 20 < eager,
        "lazy {lazy} is not under 5% of eager {eager}"
    );
}
