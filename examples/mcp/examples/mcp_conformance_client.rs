//! `McpSource`, the client side of lazytool (and of `lazytool-gateway`), as the official MCP
//! conformance suite's client under test.
//!
//! ```sh
//! cargo build --example mcp_conformance_client
//! python3 tests/mcp/conformance/run.py --client target/debug/examples/mcp_conformance_client target/conformance
//! ```
//!
//! The suite starts a test server per scenario and runs this program with the server's URL as
//! its last argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO` and, for scenarios
//! that need credentials, a JSON object in `MCP_CONFORMANCE_CONTEXT`. The program does what
//! any client of the server would: it lists the tools through an [`McpSource`] and calls each
//! one the scenario is about, with arguments the tool's schema accepts. It exits 0 when every
//! call answered without an error, 1 otherwise; the suite judges the rest from what the
//! server saw.
//!
//! The `auth/*` scenarios' servers require MCP authorization: the source gets [`OAuth`]
//! settings (the context's client id, secret or private key; client credentials for the
//! `auth/client-credentials-*` ones) and an [`Approver`] for the suite's authorization
//! server, which approves every request at once: it follows the authorization URL without
//! following the redirect and hands back where it points.
//!
//! An elicitation during a call has nobody to ask here: the source's [`Elicitor`] accepts
//! it with the defaults of the requested schema (SEP-1034).

use std::process::ExitCode;

use lazytool_mcp::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData};
use lazytool_mcp_client::{
    Approval, Approver, Elicited, Elicitor, Grant, McpSource, OAuth, TokenStore, Upstream,
};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{CancellationToken, Registry};
use serde_json::{Value, json};

/// The source's name, so the tools are `server__TOOL` in the registry.
const SERVER: &str = "server";

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::INFO)
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!(
            "usage: mcp_conformance_client URL (MCP_CONFORMANCE_SCENARIO names the scenario)"
        );
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url, &scenario).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_conformance_client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut upstream = Upstream::url(url);
    if scenario.starts_with("auth/") {
        upstream = upstream.oauth(oauth(scenario)?);
    }
    let source = McpSource::new(SERVER, upstream).elicitor(Defaults);
    let outcome = exercise(&source, scenario).await;
    source.shutdown().await;
    outcome
}

async fn exercise(source: &McpSource, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let tools = source.list_tools(CancellationToken::new()).await?;
    eprintln!(
        "listed {} tools in MCP {}",
        tools.len(),
        source.protocol_version().unwrap_or_default()
    );
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()?;
    // `initialize` is about the handshake alone; every other scenario's server offers the
    // tools it wants called, or its context names the calls.
    if scenario == "initialize" {
        return Ok(());
    }
    if scenario == "json-schema-2020-12-preservation" {
        return echo_schema(&registry).await;
    }
    if let Some(calls) = context()?.tool_calls {
        for call in calls {
            let name = format!("{SERVER}__{}", call.name);
            let result = registry.call(&name, call.arguments.clone()).await;
            eprintln!("{name}({}) -> {}", call.arguments, result.content());
            if result.is_error() {
                return Err(format!("{name} answered an error: {}", result.content()).into());
            }
        }
        return Ok(());
    }
    for tool in registry.tools() {
        let arguments = arguments_for(tool.input_schema());
        let result = registry.call(tool.name(), arguments.clone()).await;
        eprintln!(
            "{}({arguments}) -> {}{}",
            tool.name(),
            if result.is_error() { "error " } else { "" },
            result.content()
        );
        if result.is_error() {
            return Err(format!("{} answered an error: {}", tool.name(), result.content()).into());
        }
    }
    Ok(())
}

/// Sends `json_schema_echo` the input schema of `json_schema_2020_12_tool` exactly as the
/// server declared it: the suite checks that nothing of it was lost on the way (SEP-2106).
async fn echo_schema(registry: &Registry) -> Result<(), Box<dyn std::error::Error>> {
    let tool = registry
        .get(&format!("{SERVER}__json_schema_2020_12_tool"))
        .ok_or("the server offers no json_schema_2020_12_tool")?;
    let arguments = json!({ "schema": tool.declared_input_schema() });
    let result = registry
        .call(&format!("{SERVER}__json_schema_echo"), arguments)
        .await;
    if result.is_error() {
        return Err(format!("json_schema_echo answered an error: {}", result.content()).into());
    }
    Ok(())
}

/// A client metadata document URL (the suite's servers that support them accept it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// What `MCP_CONFORMANCE_CONTEXT` may carry.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Context {
    #[serde(rename = "client_id")]
    client_id: Option<String>,
    #[serde(rename = "client_secret")]
    client_secret: Option<String>,
    #[serde(rename = "private_key_pem")]
    private_key_pem: Option<String>,
    #[serde(rename = "signing_algorithm")]
    signing_algorithm: Option<String>,
    /// The calls a scenario wants made, exactly (`http-custom-headers`).
    tool_calls: Option<Vec<ToolCall>>,
}

#[derive(serde::Deserialize)]
struct ToolCall {
    name: String,
    arguments: Value,
}

/// The scenario's context, if it has one.
fn context() -> Result<Context, serde_json::Error> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text),
        Err(_) => Ok(Context::default()),
    }
}

/// The OAuth settings of an `auth/*` scenario, from its context.
fn oauth(scenario: &str) -> Result<OAuth, Box<dyn std::error::Error>> {
    let context = context()?;
    let mut oauth = OAuth::new()
        .token_store(TokenStore::memory())
        .client_metadata_url(CLIENT_METADATA_URL)
        .approver(Headless::new()?);
    if let Some(id) = context.client_id {
        oauth = oauth.client_id(id);
    }
    if let Some(secret) = context.client_secret {
        oauth = oauth.client_secret(secret);
    }
    if let Some(pem) = context.private_key_pem {
        let algorithm = context.signing_algorithm.as_deref().unwrap_or("RS256");
        oauth = oauth.private_key(pem, algorithm.parse()?);
    }
    if scenario.starts_with("auth/client-credentials") {
        oauth = oauth.grant(Grant::ClientCredentials);
    }
    Ok(oauth)
}

/// Approves by following the authorization URL once, without following its redirect: the
/// suite's authorization server redirects at once, with the code and state.
struct Headless {
    http: reqwest::Client,
}

impl Headless {
    fn new() -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Headless { http })
    }
}

impl Approver for Headless {
    fn redirect_uri(&self) -> String {
        "http://localhost:3000/callback".to_owned()
    }

    fn approve<'a>(&'a self, authorization_url: &'a str) -> Approval<'a> {
        Box::pin(async move {
            let response = (self.http.get(authorization_url).send().await)
                .map_err(|error| format!("the authorization URL: {error}"))?;
            let location = response.headers().get("location");
            let location = location.and_then(|value| value.to_str().ok());
            location.map(str::to_owned).ok_or_else(|| {
                format!(
                    "the authorization server answered {} without a redirect",
                    response.status()
                )
            })
        })
    }
}

/// Accepts a form elicitation with the default of each property of its schema that has one
/// (SEP-1034); declines a URL elicitation, which nobody could open.
struct Defaults;

impl Elicitor for Defaults {
    fn elicit<'a>(&'a self, server: &'a str, request: ElicitRequestParams) -> Elicited<'a> {
        Box::pin(async move {
            let ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } = request
            else {
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            };
            let schema = serde_json::to_value(&requested_schema)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
            let properties = schema.get("properties").and_then(Value::as_object);
            let defaults: serde_json::Map<String, Value> = (properties.into_iter().flatten())
                .filter_map(|(name, property)| {
                    Some((name.clone(), property.get("default")?.clone()))
                })
                .collect();
            eprintln!("{server} asks {message:?}: answered with the defaults {defaults:?}");
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(defaults)))
        })
    }
}

/// Arguments the schema accepts: each required property given a value of its type (numbers
/// counted up from 2, so that a sum can be checked in the server's log).
fn arguments_for(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = (schema.get("required").and_then(Value::as_array))
        .map(|names| names.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut arguments = serde_json::Map::new();
    for (index, name) in required.into_iter().enumerate() {
        let kind = properties
            .and_then(|properties| properties.get(name))
            .and_then(|property| property.get("type"))
            .and_then(Value::as_str);
        let value = match kind {
            Some("number" | "integer") => json!(index + 2),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("conformance"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}
