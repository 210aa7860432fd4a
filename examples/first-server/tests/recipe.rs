//! The guide's "Your first MCP server" (`lazytool_mcp::guide::first_server`) is this package:
//! its `main.rs` word for word, its dependencies with `git` where the package says `path`, and
//! the server it builds answers an MCP client on stdio as the chapter says.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const CHAPTER: &str = include_str!("../../../lazytool-mcp/src/guide/first_server.md");
const MAIN: &str = include_str!("../src/main.rs");
const MANIFEST: &str = include_str!("../Cargo.toml");
const GIT: &str = r#"{ git = "https://github.com/lazytool/lazytool" }"#;

/// The body of the chapter's first fenced block of `language`.
fn block(language: &str) -> String {
    let fence = format!("```{language}\n");
    let body = CHAPTER
        .split_once(&fence)
        .expect("the recipe has the block")
        .1;
    body.split_once("```\n")
        .expect("the block is closed")
        .0
        .to_owned()
}

fn dependencies(manifest: &str) -> Vec<String> {
    let section = manifest
        .split_once("[dependencies]\n")
        .expect("a [dependencies] table")
        .1;
    section
        .lines()
        .take_while(|line| !line.trim().is_empty() && !line.starts_with('['))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_guide_shows_this_main_rs() {
    let shown = block("rust,no_run,standalone_crate");
    let main = MAIN
        .split_once("\n\n")
        .expect("a module doc, then the code")
        .1;
    assert_eq!(
        shown, main,
        "the guide's main.rs differs from examples/first-server/src/main.rs"
    );
}

#[test]
fn the_guide_shows_these_dependencies_from_git() {
    let shown = dependencies(&block("toml"));
    let ours: Vec<String> = (dependencies(MANIFEST).into_iter())
        .map(|line| match line.split_once(" = { path = ") {
            Some((name, _)) => format!("{name} = {GIT}"),
            None => line,
        })
        .collect();
    assert_eq!(
        shown, ours,
        "the guide's [dependencies] differ from examples/first-server/Cargo.toml"
    );
}

#[test]
fn the_server_answers_an_mcp_client_on_stdio() {
    let mut server = Command::new(env!("CARGO_BIN_EXE_my-tools"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the recipe's server starts");
    let mut input = server.stdin.take().expect("stdin is piped");
    let mut output = BufReader::new(server.stdout.take().expect("stdout is piped"));
    let mut ask = |message: Value| -> Option<Value> {
        writeln!(input, "{message}").expect("the server reads its stdin");
        let id = message.get("id")?;
        loop {
            // Notifications (`tools/list_changed` after a discovery) may come between answers.
            let mut line = String::new();
            output.read_line(&mut line).expect("the server answers");
            let answer: Value = serde_json::from_str(&line).expect("an answer is one JSON line");
            if answer.get("id") == Some(id) {
                return Some(answer);
            }
        }
    };

    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "recipe", "version": "0"}}});
    let answer = ask(initialize).expect("initialize is answered");
    assert_eq!(answer["result"]["serverInfo"]["name"], "my-tools");
    assert_eq!(
        answer["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .expect("tools/list is answered");
    let names: Vec<&str> = (list["result"]["tools"]
        .as_array()
        .expect("a list of tools")
        .iter())
    .map(|tool| tool["name"].as_str().expect("a name"))
    .collect();
    assert_eq!(names, ["add", "__lazy__tool__discovery__"]);

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}});
    let answer = ask(call).expect("tools/call is answered");
    assert_eq!(answer["result"]["content"][0]["text"], "5.0");

    let discover = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "__lazy__tool__discovery__", "arguments": {"toolNames": ["greet"]}}});
    ask(discover).expect("the discovery is answered");
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "greet", "arguments": {"name": "Ada"}}});
    let answer = ask(call).expect("tools/call is answered");
    assert_eq!(answer["result"]["content"][0]["text"], "Hello, Ada!");

    drop(input); // end of stdin ends the server
    assert!(server.wait().expect("the server exits").success());
}
