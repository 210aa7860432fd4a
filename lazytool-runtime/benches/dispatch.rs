//! Dispatch overhead: `registry.call` against what a user would write by hand for the same
//! guarantees (the same compiled validator, `from_value` into the same struct, a direct
//! await, `to_value`), against no validation at all, and against rmcp's own `#[tool]`
//! router serving the same tool (which validates nothing against the schema).
//!
//! `cargo bench -p lazytool-runtime --bench dispatch`

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use lazytool_runtime::Registry;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, RequestId, ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext, RunningService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

#[path = "common/greet.rs"]
mod greet;

use greet::{GreetArguments, arguments, greet_by_hand, handwritten};

/// The same tool as an rmcp user writes it: rmcp's `#[tool]` in a `#[tool_router]`, served
/// by `#[tool_handler]`.
#[derive(Clone)]
struct GreetServer {
    tool_router: ToolRouter<Self>,
}

#[rmcp::tool_router]
impl GreetServer {
    fn new() -> Self {
        GreetServer {
            tool_router: Self::tool_router(),
        }
    }

    /// Greets someone.
    #[rmcp::tool(name = "greet")]
    async fn greet(&self, Parameters(arguments): Parameters<GreetArguments>) -> String {
        greet_by_hand(arguments).await
    }
}

#[rmcp::tool_handler(router = self.tool_router)]
impl ServerHandler for GreetServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A live rmcp server connected to an rmcp client through an in-memory pipe, after the
/// handshake. The bench calls the server's `call_tool` handler directly (the router's
/// dispatch, without the JSON-RPC round trip), with a request context on the live peer.
async fn rmcp_service() -> (
    RunningService<RoleServer, GreetServer>,
    RunningService<rmcp::RoleClient, ()>,
) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(GreetServer::new().serve(server_io));
    let client = ().serve(client_io).await.expect("an rmcp client");
    let server = server
        .await
        .expect("the server task")
        .expect("an rmcp server");
    // The same answer through the whole protocol, once, outside any timing.
    let answer = client
        .call_tool(CallToolRequestParams::new("greet").with_arguments(rmcp_arguments()))
        .await
        .expect("a tools/call answer");
    let text = serde_json::to_value(&answer).expect("serializable");
    assert_eq!(text["content"][0]["text"], "hello Ada x3", "{text}");
    (server, client)
}

fn rmcp_arguments() -> serde_json::Map<String, Value> {
    match arguments() {
        Value::Object(object) => object,
        _ => unreachable!("the arguments are an object"),
    }
}

fn rmcp_request(peer: &Peer<RoleServer>) -> (CallToolRequestParams, RequestContext<RoleServer>) {
    (
        CallToolRequestParams::new("greet").with_arguments(rmcp_arguments()),
        RequestContext::new(RequestId::Number(1), peer.clone()),
    )
}

async fn rmcp_call(
    server: &GreetServer,
    (request, context): (CallToolRequestParams, RequestContext<RoleServer>),
) -> CallToolResponse {
    server
        .call_tool(request, context)
        .await
        .expect("a tool result")
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let registry = Registry::from_inventory().expect("valid tools");
    let validator =
        jsonschema::validator_for(registry.get("greet").expect("registered").input_schema())
            .expect("a valid schema");

    let mut group = c.benchmark_group("dispatch");
    group.bench_function("lazytool", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| registry.call("greet", arguments),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("handwritten", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| handwritten(Some(&validator), arguments),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("handwritten_unvalidated", |b| {
        b.to_async(&runtime).iter_batched(
            arguments,
            |arguments| handwritten(None, arguments),
            BatchSize::SmallInput,
        )
    });
    // rmcp's service needs timers (its handshake has a timeout): a runtime of its own, of
    // the same kind otherwise.
    let rmcp_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (server, client) = rmcp_runtime.block_on(rmcp_service());
    group.bench_function("rmcp", |b| {
        b.to_async(&rmcp_runtime).iter_batched(
            || rmcp_request(server.peer()),
            |request| rmcp_call(server.service(), request),
            BatchSize::SmallInput,
        )
    });
    group.finish();
    drop(rmcp_runtime.block_on(client.cancel()));
    drop(rmcp_runtime.block_on(server.cancel()));
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
