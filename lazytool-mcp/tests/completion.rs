//! `completion/complete`: a prompt's arguments and a template's parameters completed by their
//! provider, at most 100 values with `hasMore` and `total`, what a principal may not see
//! answered as unknown, and the errors of bad references; on both revisions.

mod support;

use std::collections::HashMap;

use lazytool_mcp::rmcp::model::{
    ErrorData, JsonObject, Prompt, PromptArgument, Resource, ResourceTemplate,
};
use lazytool_mcp::{
    CompletionFuture, McpServer, Principal, PromptFuture, PromptProvider, ReadFuture,
    ResourceProvider,
};
use lazytool_runtime::Registry;
use serde_json::{Value, json};
use support::{Client, meta};

struct Cities;

/// 250 cities: `city-000` to `city-249`.
fn cities() -> Vec<String> {
    (0..250).map(|n| format!("city-{n:03}")).collect()
}

impl PromptProvider for Cities {
    fn prompts(&self) -> Vec<Prompt> {
        let arguments = vec![PromptArgument::new("from"), PromptArgument::new("to")];
        vec![
            Prompt::new("trip", Some("Plans a trip."), Some(arguments)),
            Prompt::new("secret", Some("Not for everyone."), None),
        ]
    }

    fn get_prompt(&self, name: String, _: JsonObject) -> PromptFuture<'_> {
        Box::pin(async move { Err(self.unknown_prompt(&name)) })
    }

    fn complete(
        &self,
        _prompt: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move {
            if argument == "nothing" {
                return Err(ErrorData::invalid_params("no argument `nothing`", None));
            }
            let from = context.get("from").cloned();
            Ok(cities()
                .into_iter()
                .filter(|city| city.starts_with(&value) && Some(city) != from.as_ref())
                .collect())
        })
    }
}

impl ResourceProvider for Cities {
    fn resources(&self) -> Vec<Resource> {
        Vec::new()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        vec![ResourceTemplate::new("weather://{city}", "weather")]
    }

    fn read_resource(&self, uri: String) -> ReadFuture<'_> {
        Box::pin(async move { Err(self.unknown_resource(&uri)) })
    }

    fn complete(
        &self,
        _template: String,
        _argument: String,
        value: String,
        _context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move { Ok(vec![format!("{value}-north"), format!("{value}-south")]) })
    }
}

fn server() -> McpServer {
    let registry = Registry::builder()
        .without_inventory()
        .build()
        .expect("no tools");
    McpServer::new(registry)
        .prompts(Cities)
        .resources(Cities)
        .allow_offers_for(|principal: &Principal, name: &str| {
            name != "secret" || principal.name() == "admin"
        })
}

fn prompt(name: &str, argument: &str, value: &str) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": argument, "value": value}})
}

async fn stateful() -> Client {
    let mut client = Client::connect(server());
    let initialized = client.initialize("2025-11-25").await;
    assert_eq!(
        initialized["result"]["capabilities"]["completions"],
        json!({})
    );
    client
}

#[tokio::test]
async fn a_prompts_argument_completes_from_its_provider_with_the_context() {
    let mut client = stateful().await;
    let answer = client
        .request(1, "completion/complete", prompt("trip", "to", "city-00"))
        .await;
    let values: Vec<String> = (0..10).map(|n| format!("city-00{n}")).collect();
    assert_eq!(
        answer["result"]["completion"],
        json!({"values": values, "total": 10, "hasMore": false})
    );
    let mut params = prompt("trip", "to", "city-00");
    params["context"] = json!({"arguments": {"from": "city-003"}});
    let answer = client.request(2, "completion/complete", params).await;
    let values = answer["result"]["completion"]["values"]
        .as_array()
        .expect("values");
    assert_eq!(values.len(), 9, "{answer}");
    assert!(!values.contains(&json!("city-003")), "{answer}");
}

#[tokio::test]
async fn past_100_values_the_rest_is_counted() {
    let mut client = stateful().await;
    let answer = client
        .request(1, "completion/complete", prompt("trip", "from", "city-"))
        .await;
    let completion = &answer["result"]["completion"];
    assert_eq!(completion["values"].as_array().map(Vec::len), Some(100));
    assert_eq!(completion["values"][0], "city-000");
    assert_eq!(completion["total"], 250);
    assert_eq!(completion["hasMore"], true);
}

#[tokio::test]
async fn a_templates_parameter_completes_on_the_newest_revision_too() {
    let mut client = Client::connect(server());
    let params = json!({
        "ref": {"type": "ref/resource", "uri": "weather://{city}"},
        "argument": {"name": "city", "value": "oslo"},
        "_meta": meta(),
    });
    let answer = client.request(1, "completion/complete", params).await;
    assert_eq!(
        answer["result"]["completion"]["values"],
        json!(["oslo-north", "oslo-south"])
    );
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
}

#[tokio::test]
async fn unknown_hidden_and_refused_completions_are_errors() {
    let mut client = stateful().await;
    // A prompt that is not offered, and one the anonymous principal may not see: the same.
    for (id, name) in [(1, "nope"), (2, "secret")] {
        let answer = client
            .request(id, "completion/complete", prompt(name, "a", ""))
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert_eq!(
            answer["error"]["message"],
            format!("no prompt named `{name}`")
        );
    }
    let template = json!({"ref": {"type": "ref/resource", "uri": "maps://{x}"}, "argument": {"name": "x", "value": ""}});
    let answer = client.request(3, "completion/complete", template).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("maps://{x}")
    );
    // The provider's own error passes as it is.
    let answer = client
        .request(4, "completion/complete", prompt("trip", "nothing", ""))
        .await;
    assert_eq!(
        answer["error"]["message"], "no argument `nothing`",
        "{answer}"
    );
    // A reference of no known kind.
    let odd =
        json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "x", "value": ""}});
    let answer = client.request(5, "completion/complete", odd).await;
    assert!(answer.get("error").is_some(), "{answer}");
}

#[tokio::test]
async fn a_server_without_prompts_or_resources_completes_nothing() {
    let registry = Registry::builder()
        .without_inventory()
        .build()
        .expect("no tools");
    let mut client = Client::connect(McpServer::new(registry));
    let initialized = client.initialize("2025-11-25").await;
    assert!(
        initialized["result"]["capabilities"]
            .get("completions")
            .is_none(),
        "{initialized}"
    );
    let answer = client
        .request(1, "completion/complete", prompt("trip", "to", ""))
        .await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
}
