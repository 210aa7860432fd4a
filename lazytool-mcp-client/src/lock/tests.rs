use serde_json::json;

use super::*;
use crate::connection::upstream::Upstream;
use crate::lock::file::definition;
use crate::lock::verify::{Verdict, compare};
use rmcp::model::Tool;
use serde_json::Value;
use std::collections::BTreeMap;

fn tool(name: &str, description: &str) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "icons": [{"src": "https://example.com/i.png"}],
    }))
    .expect("a tool")
}

fn entry() -> ServerLock {
    let mut entry = ServerLock::new(&Upstream::command("srv", ["--x"]));
    entry.pin_tools(&[tool("a", "first"), tool("b", "second")]);
    entry
}

#[test]
fn a_lock_reads_back_what_it_wrote() {
    let mut lock = Lock::new();
    lock.set("srv", entry());
    let text = lock.to_text();
    assert_eq!(Lock::parse(&text, "f").expect("parses"), lock);
    // Sorted keys, so the same lock is always the same text.
    let first = text.find("\"fingerprint\"").expect("fingerprint");
    let tools = text.find("\"tools\"").expect("tools");
    assert!(first < tools);
    assert!(!text.contains("icons"), "{text}");
    assert!(
        !text.contains("prompts"),
        "empty lists are left out: {text}"
    );
}

#[test]
fn a_bad_lock_names_file_and_position() {
    let cases = [
        ("", "f:1:0: EOF while parsing a value"),
        ("{\"lockVersion\": 1}", "f:1:18: missing field `servers`"),
        (
            "{\"lockVersion\": 2, \"servers\": {}}",
            "f: lockVersion 2 is not supported (this version reads 1)",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            Lock::parse(text, "f").expect_err("refused").to_string(),
            message
        );
    }
    let unknown = Lock::parse(
        "{\"lockVersion\": 1, \"servers\": {\"s\": {\"fingerprint\": \"x\", \"extra\": 1}}}",
        "f",
    );
    assert!(
        unknown
            .expect_err("refused")
            .to_string()
            .starts_with("f:1:")
    );
}

#[test]
fn the_fingerprint_is_what_starts_the_server() {
    let entry = entry();
    assert!(entry.starts(&Upstream::command("srv", ["--x"]).env("SECRET", "1")));
    assert!(!entry.starts(&Upstream::command("srv", ["--y"])));
    assert!(!entry.starts(&Upstream::url("http://127.0.0.1:1/mcp")));
    let http = ServerLock::new(&Upstream::url("http://127.0.0.1:1/mcp"));
    assert!(
        http.starts(&Upstream::url("http://127.0.0.1:1/mcp").header("Authorization", "Bearer x"))
    );
    assert!(!http.to_text().contains("Bearer"));
}

#[test]
fn changes_are_named_field_by_field() {
    let entry = entry();
    let mut changed = tool("a", "first, now different");
    changed.input_schema = std::sync::Arc::new(serde_json::Map::new());
    let live: BTreeMap<String, Value> = [changed, tool("c", "new")]
        .iter()
        .map(|tool| (tool.name.to_string(), definition(tool)))
        .collect();
    let changes = compare(&entry.tools, &live);
    assert_eq!(
        changes,
        BTreeMap::from([
            (
                "a".to_owned(),
                Change::Changed(vec!["description".to_owned(), "inputSchema".to_owned()])
            ),
            ("b".to_owned(), Change::Removed),
            ("c".to_owned(), Change::Added),
        ])
    );
    let block = Verdict {
        pin: Pin::Block,
        changes: changes.clone(),
    };
    let refusal = block
        .refusal("srv", "a", "lock --update srv")
        .expect("blocked");
    assert_eq!(
        refusal,
        "the tool `a` of the MCP server `srv` is blocked: its description, inputSchema changed since it was approved in the lock; to accept the change, run `lock --update srv`"
    );
    assert!(!block.offers_live("a") && !block.offers_live("c"));
    assert!(block.refusal("srv", "b", "u").is_some());
    let warn = Verdict {
        pin: Pin::Warn,
        changes: changes.clone(),
    };
    assert!(warn.refusal("srv", "a", "u").is_none() && warn.refusal("srv", "c", "u").is_none());
    assert!(
        warn.refusal("srv", "b", "u").is_some(),
        "a tool that is gone answers an error"
    );
    assert!(warn.offers_live("a"));
    let off = Verdict {
        pin: Pin::Off,
        changes,
    };
    assert!(off.refusal("srv", "b", "u").is_none());
    assert_eq!(off.decisions().len(), 3);
}
