//! What the upstream side's tests share: the serving side's test client
//! (lazytool-mcp's `tests/support`, one file for both crates), the test servers of
//! `tests/mcp/gateway`, and a source's tools in a registry.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

use lazytool_mcp_client::{McpSource, Upstream};
use lazytool_runtime::Registry;
use lazytool_runtime::source::ToolSource;
use tokio_util::sync::CancellationToken;

#[path = "../../../lazytool-mcp/tests/support/mod.rs"]
mod server_side;
pub use server_side::*;

/// One of the test servers of `tests/mcp/gateway` (`script`: `faulty_server.py`, say), run
/// with `python3` and `args` after it.
pub fn python_server(script: &str, args: impl IntoIterator<Item = String>) -> Upstream {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/mcp/gateway")
        .join(script);
    let all: Vec<String> = std::iter::once(script.display().to_string())
        .chain(args)
        .collect();
    Upstream::command("python3", all)
}

/// `name` in this test binary's own temporary folder (`lazytool-AREA-PID`), nothing there yet.
pub fn fresh_path(area: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lazytool-{area}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// `source`'s tools listed (its server started), alone in a registry.
pub async fn registry_of(source: &McpSource) -> Registry {
    let tools = source
        .list_tools(CancellationToken::new())
        .await
        .expect("lists");
    Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("builds")
}
