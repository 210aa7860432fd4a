//! What each feature of the MCP crates builds, read from `cargo tree`: a stdio server
//! (lazytool-mcp) builds no HTTP stack and no HTTP client, the upstream side
//! (lazytool-mcp-client) no HTTP server, each feature only its own crates, and neither side
//! depends on the other.

use std::collections::BTreeSet;
use std::process::Command;

/// The HTTP server's crates, the HTTP client's, OAuth's, the flags' and the child processes'.
const SERVER_HTTP: [&str; 3] = ["axum", "axum-core", "prometheus-client"];
const CLIENT_HTTP: [&str; 3] = ["reqwest", "rustls", "hyper-rustls"];
const OAUTH: [&str; 2] = ["oauth2", "jsonwebtoken"];
const CLI: [&str; 1] = ["clap"];
const CLIENT: [&str; 1] = ["process-wrap"];
const CODE_MODE: [&str; 1] = ["rquickjs"];
const REDIS: [&str; 2] = ["redis", "tokio-rustls"];

const TREE: &str = "tree --offline --locked -e normal --prefix none --no-default-features";

/// The packages lazytool-mcp depends on (normal edges, directly or not) with `features` alone.
fn crates_with(features: &str) -> BTreeSet<String> {
    crates_of("lazytool-mcp", features)
}

/// The packages lazytool-mcp-client depends on with `features` alone.
fn client_crates_with(features: &str) -> BTreeSet<String> {
    crates_of("lazytool-mcp-client", features)
}

/// The packages `package` depends on (normal edges, directly or not) with `features` alone.
fn crates_of(package: &str, features: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(TREE.split(' '))
        .args(["-p", package, "--features", features])
        .output()
        .expect("cargo tree runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo tree failed: {stderr}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[track_caller]
fn assert_builds(crates: &BTreeSet<String>, features: &str, expected: &[&str], not: &[&str]) {
    for name in expected {
        assert!(crates.contains(*name), "`{features}` should build {name}");
    }
    for name in not {
        assert!(!crates.contains(*name), "`{features}` builds {name}");
    }
}

#[test]
fn a_stdio_server_builds_no_http_stack_nor_client() {
    let crates = crates_with("");
    let not = [
        &SERVER_HTTP[..],
        &CLIENT_HTTP,
        &OAUTH,
        &CLI,
        &CLIENT,
        &CODE_MODE,
        &REDIS,
    ]
    .concat();
    assert_builds(&crates, "no feature", &["rmcp", "lazytool-runtime"], &not);
    assert!(!crates.contains("hyper"), "no feature builds hyper");
    // The limits' token buckets: governor without `std`, whose waits and keyed stores would
    // build these (BENCHMARKS.md, "Compile time").
    for name in ["futures-timer", "parking_lot"] {
        assert!(!crates.contains(name), "no feature builds {name}");
    }
}

#[test]
fn server_http_builds_the_server_alone() {
    let crates = crates_with("server-http");
    let not = [&CLIENT_HTTP[..], &OAUTH, &CLI, &CLIENT].concat();
    assert_builds(&crates, "server-http", &SERVER_HTTP, &not);
}

#[test]
fn cli_builds_the_flags_and_the_server() {
    let crates = crates_with("cli");
    let expected = [&SERVER_HTTP[..], &CLI].concat();
    let not = [&CLIENT_HTTP[..], &OAUTH, &CLIENT].concat();
    assert_builds(&crates, "cli", &expected, &not);
}

#[test]
fn oidc_adds_token_validation_to_the_server_alone() {
    let crates = crates_with("oidc");
    let expected = [&SERVER_HTTP[..], &["jsonwebtoken", "reqwest"]].concat();
    let not = ["oauth2", "clap"];
    assert_builds(&crates, "oidc", &expected, &not);
}

#[test]
fn code_mode_adds_the_engine_alone() {
    let crates = crates_with("code-mode");
    let not = [&SERVER_HTTP[..], &CLIENT_HTTP, &OAUTH, &CLI, &CLIENT].concat();
    assert_builds(&crates, "code-mode", &CODE_MODE, &not);
}

#[test]
fn redis_adds_the_shared_store_alone() {
    let crates = crates_with("redis");
    let not = [&SERVER_HTTP[..], &OAUTH, &CLI, &CLIENT, &["reqwest"]].concat();
    assert_builds(&crates, "redis", &REDIS, &not);
}

#[test]
fn the_server_and_the_upstream_side_share_only_the_core() {
    let server = crates_with("cli,oidc,redis,code-mode");
    assert!(
        server.contains("lazytool-mcp-core"),
        "lazytool-mcp builds lazytool-mcp-core"
    );
    assert!(
        !server.contains("lazytool-mcp-client"),
        "lazytool-mcp builds the upstream side"
    );
    let client = client_crates_with("http,oauth,redis");
    assert!(
        client.contains("lazytool-mcp-core"),
        "lazytool-mcp-client builds lazytool-mcp-core"
    );
    assert!(
        !client.contains("lazytool-mcp"),
        "lazytool-mcp-client builds the serving side"
    );
}

#[test]
fn the_upstream_side_runs_child_processes_without_an_http_client() {
    let crates = client_crates_with("");
    let not = [&SERVER_HTTP[..], &CLIENT_HTTP, &OAUTH, &CLI].concat();
    assert_builds(&crates, "lazytool-mcp-client", &CLIENT, &not);
    assert!(
        !crates.contains("hyper"),
        "lazytool-mcp-client builds hyper"
    );
}

#[test]
fn http_adds_the_http_client_alone() {
    let crates = client_crates_with("http");
    let expected = [&CLIENT[..], &CLIENT_HTTP].concat();
    let not = [&SERVER_HTTP[..], &OAUTH, &CLI].concat();
    assert_builds(&crates, "lazytool-mcp-client/http", &expected, &not);
}

#[test]
fn oauth_adds_authorization_to_the_http_client() {
    let crates = client_crates_with("oauth");
    let expected = [&CLIENT[..], &CLIENT_HTTP, &OAUTH].concat();
    let not = ["prometheus-client", "clap"];
    assert_builds(&crates, "lazytool-mcp-client/oauth", &expected, &not);
}
