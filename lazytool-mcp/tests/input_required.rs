//! Input a tool asks its client for (`ToolContext::ask`, SEP-2322): on 2026-07-28 the call
//! ends with an input-required result and runs again with the answers, whose `requestState`
//! is signed, bound to its call, expiring and accepted once; on 2025-11-25 the client is asked
//! directly. Refusals: an altered, foreign, replayed or expired state, an answer of the wrong
//! shape, a capability the client did not declare.

mod support;

use std::time::Duration;

use lazytool_mcp::McpServer;
use lazytool_runtime::{ElicitAction, InputError, Registry, ToolContext, tool};
use serde_json::{Value, json};
use support::{Client, meta};

fn form(property: &str) -> Value {
    json!({"type": "object", "properties": {property: {"type": "string"}}})
}

fn content(answer: &lazytool_runtime::Elicited, property: &str) -> String {
    match (&answer.action, &answer.content) {
        (ElicitAction::Accept, Some(content)) => {
            content[property].as_str().unwrap_or_default().to_owned()
        }
        _ => "nobody".to_owned(),
    }
}

/// Asks a name, then a colour.
#[tool]
async fn two_rounds(ctx: ToolContext) -> Result<String, String> {
    let name = ctx.elicit("name", "Your name?", form("name")).await?;
    let color = ctx.elicit("color", "Your colour?", form("color")).await?;
    Ok(format!(
        "{} likes {}",
        content(&name, "name"),
        content(&color, "color")
    ))
}

/// Asks the user, the model and the roots at once.
#[tool]
async fn three_at_once(ctx: ToolContext) -> Result<String, String> {
    let (name, answer, roots) = tokio::join!(
        ctx.elicit("name", "Your name?", form("name")),
        ctx.sample("model", "2 + 2?", 5),
        ctx.roots("roots"),
    );
    let (name, answer, roots) = (name?, answer?, roots?);
    Ok(format!(
        "{} {} {}",
        content(&name, "name"),
        answer.text().unwrap_or_default(),
        roots[0].uri
    ))
}

/// Needs the model.
#[tool]
async fn needs_sampling(ctx: ToolContext) -> Result<String, String> {
    Ok(ctx
        .sample("model", "Hello?", 5)
        .await?
        .text()
        .unwrap_or_default()
        .to_owned())
}

/// Asks the user if it can; does without otherwise.
#[tool]
async fn asks_if_it_can(ctx: ToolContext) -> Result<String, String> {
    match ctx.elicit("name", "Your name?", form("name")).await {
        Ok(name) => Ok(content(&name, "name")),
        Err(InputError::Unsupported { capability }) => Ok(format!("no {capability}")),
        Err(other) => Err(other.into()),
    }
}

/// Echoes its argument after a confirmation.
#[tool]
async fn confirm(text: String, ctx: ToolContext) -> Result<String, String> {
    ctx.elicit("ok", "Sure?", form("ok")).await?;
    Ok(text)
}

const KEY: &[u8] = b"a shared key of at least thirty-two bytes";

fn server() -> McpServer {
    let registry = Registry::builder()
        .filter(|spec| !spec.name().starts_with("test_"))
        .build()
        .expect("valid tools");
    McpServer::new(registry)
        .request_state_key(KEY.to_vec())
        .expect("a long key")
}

/// A 2026-07-28 call of `name`, with the client capabilities `capabilities`.
fn call(name: &str, arguments: Value, capabilities: Value) -> Value {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    json!({"name": name, "arguments": arguments, "_meta": meta})
}

fn every_capability() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// `call` retried with `responses` and `state`.
fn retry(mut call: Value, responses: Value, state: &Value) -> Value {
    call["inputResponses"] = responses;
    call["requestState"] = state.clone();
    call
}

fn accept(property: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {property: value}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_newest_call_asks_round_by_round_then_completes() {
    let mut client = Client::connect(server());
    let first = call("two_rounds", json!({}), every_capability());
    let round1 = client.request(1, "tools/call", first.clone()).await;
    let result = &round1["result"];
    assert_eq!(result["resultType"], "input_required", "{round1}");
    assert_eq!(
        result["inputRequests"]["name"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        result["inputRequests"]["name"]["params"]["message"],
        "Your name?"
    );
    assert!(result["inputRequests"].get("color").is_none(), "{round1}");

    let round2 = client
        .request(
            2,
            "tools/call",
            retry(
                first.clone(),
                json!({"name": accept("name", "Ada")}),
                &result["requestState"],
            ),
        )
        .await;
    let second = &round2["result"];
    assert_eq!(second["resultType"], "input_required", "{round2}");
    assert_eq!(
        second["inputRequests"]["color"]["method"],
        "elicitation/create"
    );
    assert_ne!(second["requestState"], result["requestState"]);

    // The last round answers the colour only: the name comes back with the state.
    let round3 = client
        .request(
            3,
            "tools/call",
            retry(
                first,
                json!({"color": accept("color", "blue")}),
                &second["requestState"],
            ),
        )
        .await;
    assert_eq!(round3["result"]["resultType"], "complete", "{round3}");
    assert_eq!(text(&round3), "Ada likes blue");
}

#[tokio::test]
async fn questions_asked_at_once_come_in_one_result_and_are_answered_at_once() {
    let mut client = Client::connect(server());
    let first = call("three_at_once", json!({}), every_capability());
    let round1 = client.request(1, "tools/call", first.clone()).await;
    let requests = &round1["result"]["inputRequests"];
    let methods: Vec<&str> = ["name", "model", "roots"]
        .iter()
        .map(|key| requests[key]["method"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"],
        "{round1}"
    );
    let answers = json!({
        "name": accept("name", "Ada"),
        "model": {"role": "assistant", "content": {"type": "text", "text": "4"}, "model": "m"},
        "roots": {"roots": [{"uri": "file:///work", "name": "work"}]},
    });
    let round2 = client
        .request(
            2,
            "tools/call",
            retry(first, answers, &round1["result"]["requestState"]),
        )
        .await;
    assert_eq!(text(&round2), "Ada 4 file:///work", "{round2}");
}

#[tokio::test]
async fn an_altered_foreign_or_replayed_state_is_refused_and_runs_nothing() {
    let mut client = Client::connect(server());
    let first = call("confirm", json!({"text": "pay"}), every_capability());
    let round1 = client.request(1, "tools/call", first.clone()).await;
    let state = round1["result"]["requestState"]
        .as_str()
        .expect("a state")
        .to_owned();
    let yes = json!({"ok": accept("ok", "yes")});
    let refused = |answer: &Value| {
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("requestState"),
            "{answer}"
        );
    };

    let mut altered = state.clone();
    let last = altered.pop().expect("not empty");
    altered.push(if last == 'A' { 'B' } else { 'A' });
    refused(
        &client
            .request(
                2,
                "tools/call",
                retry(first.clone(), yes.clone(), &json!(altered)),
            )
            .await,
    );
    refused(
        &client
            .request(
                3,
                "tools/call",
                retry(
                    first.clone(),
                    yes.clone(),
                    &json!(format!("{state}-TAMPERED")),
                ),
            )
            .await,
    );
    // Another tool's call, or the same tool with other arguments.
    let other = call("two_rounds", json!({}), every_capability());
    refused(
        &client
            .request(4, "tools/call", retry(other, yes.clone(), &json!(state)))
            .await,
    );
    let other_arguments = call("confirm", json!({"text": "pay twice"}), every_capability());
    refused(
        &client
            .request(
                5,
                "tools/call",
                retry(other_arguments, yes.clone(), &json!(state)),
            )
            .await,
    );

    // Answered once; the same state again is a replay.
    let answered = client
        .request(
            6,
            "tools/call",
            retry(first.clone(), yes.clone(), &json!(state)),
        )
        .await;
    assert_eq!(text(&answered), "pay", "{answered}");
    refused(
        &client
            .request(7, "tools/call", retry(first, yes, &json!(state)))
            .await,
    );
}

#[tokio::test]
async fn a_state_is_good_on_a_replica_with_the_same_key_only() {
    let first = call("confirm", json!({"text": "hi"}), every_capability());
    let mut one = Client::connect(server());
    let round1 = one.request(1, "tools/call", first.clone()).await;
    let state = round1["result"]["requestState"].clone();
    let yes = json!({"ok": accept("ok", "yes")});

    let registry = Registry::builder()
        .filter(|spec| spec.name() == "confirm")
        .build()
        .expect("valid");
    let mut stranger = Client::connect(McpServer::new(registry));
    let refused = stranger
        .request(1, "tools/call", retry(first.clone(), yes.clone(), &state))
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let mut replica = Client::connect(server());
    let answered = replica
        .request(1, "tools/call", retry(first, yes, &state))
        .await;
    assert_eq!(text(&answered), "hi", "{answered}");
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    let registry = Registry::builder()
        .filter(|spec| spec.name() == "confirm")
        .build()
        .expect("valid");
    let server = McpServer::new(registry).request_state_ttl(Duration::from_millis(1));
    let mut client = Client::connect(server);
    let first = call("confirm", json!({"text": "late"}), every_capability());
    let round1 = client.request(1, "tools/call", first.clone()).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = client
        .request(
            2,
            "tools/call",
            retry(
                first,
                json!({"ok": accept("ok", "yes")}),
                &round1["result"]["requestState"],
            ),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test]
async fn answers_of_the_wrong_shape_or_for_no_question() {
    let mut client = Client::connect(server());
    let first = call("confirm", json!({"text": "x"}), every_capability());
    let mut wrong = first.clone();
    wrong["inputResponses"] = json!({"ok": 12345});
    let refused = client.request(1, "tools/call", wrong).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`ok`"),
        "{refused}"
    );
    // An answer to no question is ignored: the question is asked.
    let mut stray = first.clone();
    stray["inputResponses"] = json!({"other": accept("ok", "yes")});
    let asked = client.request(2, "tools/call", stray).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    // Answers without a state are taken as they are.
    let mut direct = first;
    direct["inputResponses"] = json!({"ok": accept("ok", "yes"), "extra": {"anything": true}});
    let answered = client.request(3, "tools/call", direct).await;
    assert_eq!(text(&answered), "x", "{answered}");
}

#[tokio::test]
async fn a_client_is_asked_only_what_it_declared() {
    let mut client = Client::connect(server());
    let refused = client
        .request(
            1,
            "tools/call",
            call("needs_sampling", json!({}), json!({"elicitation": {}})),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    let without = client
        .request(
            2,
            "tools/call",
            call("asks_if_it_can", json!({}), json!({"sampling": {}})),
        )
        .await;
    assert_eq!(text(&without), "no elicitation", "{without}");
}

#[tokio::test]
async fn a_session_client_is_asked_directly() {
    let mut client = Client::connect(server());
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "test", "version": "1"},
    });
    client.request(0, "initialize", params).await;
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "two_rounds", "arguments": {}}}))
        .await;
    for (property, value) in [("name", "Ada"), ("color", "green")] {
        let asked = client.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        assert!(
            asked["params"]["requestedSchema"]["properties"]
                .get(property)
                .is_some(),
            "{asked}"
        );
        client
            .send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": accept(property, value)}))
            .await;
    }
    let answer = client.response().await;
    assert_eq!(text(&answer), "Ada likes green", "{answer}");
    // No sampling declared: the tool is told, and fails saying so.
    let refused = client
        .request(
            2,
            "tools/call",
            json!({"name": "needs_sampling", "arguments": {}}),
        )
        .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text(&refused).contains("`sampling`"), "{refused}");
}

/// A prompt that asks the user for its topic.
struct Essay;

impl lazytool_mcp::PromptProvider for Essay {
    fn prompts(&self) -> Vec<lazytool_mcp::rmcp::model::Prompt> {
        vec![lazytool_mcp::rmcp::model::Prompt::new(
            "essay",
            Some("An essay."),
            None,
        )]
    }

    fn get_prompt(
        &self,
        name: String,
        _: lazytool_mcp::rmcp::model::JsonObject,
    ) -> lazytool_mcp::PromptFuture<'_> {
        Box::pin(async move { Err(self.unknown_prompt(&name)) })
    }

    fn get_prompt_in(
        &self,
        _name: String,
        _arguments: lazytool_mcp::rmcp::model::JsonObject,
        context: ToolContext,
    ) -> lazytool_mcp::PromptFuture<'_> {
        use lazytool_mcp::rmcp::model::{ErrorData, GetPromptResult, PromptMessage, Role};
        Box::pin(async move {
            let topic = context
                .elicit("topic", "Which topic?", form("topic"))
                .await
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
            let text = format!("Write about {}.", content(&topic, "topic"));
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                text,
            )]))
        })
    }
}

#[tokio::test]
async fn a_prompt_asks_as_a_tool_does() {
    let mut client = Client::connect(server().prompts(Essay));
    let mut first = call("essay", json!({}), every_capability());
    first.as_object_mut().map(|first| first.remove("arguments"));
    let round1 = client.request(1, "prompts/get", first.clone()).await;
    assert_eq!(round1["result"]["resultType"], "input_required", "{round1}");
    assert_eq!(
        round1["result"]["inputRequests"]["topic"]["method"],
        "elicitation/create"
    );
    // The state of a prompt is not a tool's.
    let state = &round1["result"]["requestState"];
    let as_tool = retry(
        call("essay", json!({}), every_capability()),
        json!({}),
        state,
    );
    let refused = client.request(2, "tools/call", as_tool).await;
    assert!(refused.get("error").is_some(), "{refused}");

    let round2 = client
        .request(
            3,
            "prompts/get",
            retry(first, json!({"topic": accept("topic", "rivers")}), state),
        )
        .await;
    assert_eq!(
        round2["result"]["messages"][0]["content"]["text"], "Write about rivers.",
        "{round2}"
    );
}
