//! McpSource and McpCatalog in front of an upstream that attacks its client
//! (tests/mcp/gateway/hostile_server.py): tools that cannot be served, text meant to hide
//! instructions, answers that are not JSON-RPC, a slow start, names that could meet, secrets,
//! the environment and grandchildren.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use lazytool_mcp_client::{InheritEnv, McpCatalog, McpSource, Upstream};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{CancellationToken, Registry};
use serde_json::{Value, json};
use support::eventually;

fn hostile(state: Option<&Path>) -> Upstream {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/gateway/hostile_server.py");
    let mut args = vec![script.display().to_string()];
    args.extend(state.map(|state| state.display().to_string()));
    Upstream::command("python3", args)
}

fn faulty() -> Upstream {
    support::python_server("faulty_server.py", ["ok".to_owned()])
}

fn state_file(name: &str) -> PathBuf {
    support::fresh_path("hostile", name)
}

fn pids(state: &Path, kind: &str) -> Vec<u32> {
    let text = std::fs::read_to_string(state).unwrap_or_default();
    (text.lines())
        .filter_map(|line| line.strip_prefix(kind)?.trim().parse().ok())
        .collect()
}

/// The text of a call's result (the JSON string a plain text block becomes).
async fn call(registry: &Registry, name: &str, arguments: Value) -> (bool, String) {
    let result = registry.call(name, arguments).await;
    let text = match result.content() {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    (result.is_error(), text)
}

fn names(registry: &Registry) -> Vec<String> {
    registry
        .tools()
        .map(|tool| tool.name().to_owned())
        .collect()
}

const LEFT_OUT: [&str; 5] = [
    "bad_type",
    "bad_pattern",
    "dangling_ref",
    "__lazy__tool__discovery__",
    "__lazy__tool__call__",
];

#[tokio::test]
async fn tools_that_cannot_be_served_are_left_out_at_the_start_and_on_every_relist() {
    let sources = [
        McpSource::new("hostile", hostile(None)).prefix(""),
        McpSource::new("faulty", faulty()),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("the catalog builds whatever an upstream lists");
    let registry = catalog.registry();
    for name in ["echo", "tagged", "huge", "faulty__echo", "faulty__grow"] {
        assert!(
            registry.get(name).is_some(),
            "{name} is served: {:?}",
            names(&registry)
        );
    }
    let reports = catalog.reports();
    let left_out: Vec<&str> = (reports[0].left_out.iter())
        .map(|note| note.tool.as_str())
        .collect();
    assert_eq!(left_out, LEFT_OUT);
    let reason = |tool: &str| {
        let note = reports[0].left_out.iter().find(|note| note.tool == tool);
        note.map(|note| note.note.clone()).unwrap_or_default()
    };
    assert!(
        reason("bad_type").starts_with("invalid input schema"),
        "{}",
        reason("bad_type")
    );
    assert!(
        reason("bad_pattern").starts_with("invalid input schema"),
        "{}",
        reason("bad_pattern")
    );
    assert!(
        reason("dangling_ref").starts_with("invalid input schema"),
        "{}",
        reason("dangling_ref")
    );
    assert!(
        reason("__lazy__tool__call__").contains("reserved"),
        "{}",
        reason("__lazy__tool__call__")
    );

    // A tool that cannot be served arriving later leaves the rest of the catalog moving.
    assert_eq!(
        call(&registry, "poison", json!({})).await,
        (false, "poisoned".into())
    );
    eventually(|| catalog.registry().get("late_good").is_some()).await;
    assert!(catalog.registry().get("late_bad").is_none());
    let reports = catalog.reports();
    assert!(
        reports[0]
            .left_out
            .iter()
            .any(|note| note.tool == "late_bad"),
        "{reports:?}"
    );
    let (failed, grown) = call(&catalog.registry(), "faulty__grow", json!({})).await;
    assert!(!failed, "{grown}");
    eventually(|| catalog.registry().get("faulty__extra").is_some()).await;
    catalog.shutdown().await;
}

fn is_hidden(c: char) -> bool {
    matches!(c, '\u{E0000}'..='\u{E007F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        | '\u{200B}'..='\u{200F}' | '\u{FEFF}' | '\u{1B}' | '\u{7}')
}

#[tokio::test]
async fn what_a_model_reads_of_an_upstream_is_clean_and_bounded() {
    let source = McpSource::new("hostile", hostile(None)).max_description_chars(1_000);
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), [source])
        .await
        .expect("builds");
    let registry = catalog.registry();
    let tagged = registry.get("hostile__tagged").expect("served");
    let definition = json!({
        "description": tagged.description(),
        "inputSchema": tagged.input_schema(),
        "annotations": tagged.annotations().title,
    })
    .to_string();
    assert!(!definition.chars().any(is_hidden), "{definition:?}");
    assert_eq!(tagged.description(), "Adds numbers.evil Done.");
    assert_eq!(
        tagged.input_schema()["properties"]["mode"]["enum"],
        json!(["fast", "slow"])
    );
    assert_eq!(
        tagged.input_schema()["properties"]["mode"]["description"],
        "How."
    );
    assert_eq!(tagged.annotations().title.as_deref(), Some("Sum"));

    let huge = registry.get("hostile__huge").expect("served");
    assert!(huge.description().starts_with(&"A".repeat(1_000)));
    assert!(
        huge.description().contains("cut: 999,000 more characters"),
        "{}",
        &huge.description()[1_000..]
    );
    assert!(huge.description().chars().count() < 1_100);

    let reports = catalog.reports();
    let cleaned: Vec<String> = reports[0].cleaned.iter().map(ToString::to_string).collect();
    assert_eq!(cleaned.len(), 2, "{cleaned:?}");
    assert!(
        cleaned[0].starts_with("tagged: 440 tag characters, 2 bidi controls"),
        "{cleaned:?}"
    );
    assert!(
        cleaned[1].starts_with("huge: 1 text cut by 999,000 characters"),
        "{cleaned:?}"
    );
    catalog.shutdown().await;
}

#[tokio::test]
async fn a_tool_definition_over_the_bound_is_left_out_with_its_size() {
    // 8,000 properties described in 100 characters each: no text is cut, the whole is 1.1 MB.
    let wide = || hostile(None).env("HOSTILE_WIDE", "8000");
    let sources = [
        McpSource::new("hostile", wide()),
        McpSource::new("roomy", wide()).max_definition_bytes(2 << 20),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("the catalog builds whatever an upstream lists");
    let registry = catalog.registry();
    assert!(
        registry.get("hostile__wide").is_none(),
        "served over the bound"
    );
    assert_eq!(
        call(&registry, "hostile__echo", json!({"text": "still"})).await,
        (false, "still".into())
    );

    let roomy = registry
        .get("roomy__wide")
        .expect("served under a larger bound");
    let definition = json!({
        "name": "hostile__wide",
        "description": roomy.description(),
        "inputSchema": roomy.input_schema(),
    });
    let bytes = definition.to_string().len();
    assert!(bytes > 1_000_000, "{bytes}");
    let reports = catalog.reports();
    let wide_notes = |index: usize| -> Vec<String> {
        (reports[index].left_out.iter())
            .filter(|note| note.tool == "wide")
            .map(ToString::to_string)
            .collect()
    };
    let grouped = format!(
        "{},{:03},{:03}",
        bytes / 1_000_000,
        bytes / 1_000 % 1_000,
        bytes % 1_000
    );
    assert_eq!(
        wide_notes(0),
        [format!(
            "wide: its definition is {grouped} bytes, over the bound of 65,536 bytes"
        )]
    );
    assert!(
        reports[0]
            .tools
            .as_ref()
            .is_ok_and(|names| names.contains(&"hostile__echo".to_owned()))
    );
    assert!(wide_notes(1).is_empty(), "{:?}", reports[1].left_out);
    catalog.shutdown().await;
}

#[tokio::test]
async fn an_answer_that_is_not_json_rpc_fails_its_call_at_once() {
    let source = McpSource::new("hostile", hostile(None)).call_timeout(Duration::from_secs(600));
    let registry = support::registry_of(&source).await;
    for tool in ["hostile__junk", "hostile__junk_id"] {
        let answered =
            tokio::time::timeout(Duration::from_secs(60), call(&registry, tool, json!({})));
        let (failed, text) = answered
            .await
            .expect("answered long before the call's timeout");
        assert!(
            failed && text.contains("answered with a line that is not a JSON-RPC message"),
            "{text}"
        );
    }
    // The server keeps serving.
    assert_eq!(
        call(&registry, "hostile__echo", json!({"text": "still"})).await,
        (false, "still".into())
    );
    source.shutdown().await;
}

#[tokio::test]
async fn a_server_slower_than_the_probe_joins_within_the_start_timeout() {
    let slow = hostile(None).env("HOSTILE_SLEEP", "15");
    let source = McpSource::new("slow", slow).start_timeout(Duration::from_secs(40));
    let tools = source
        .list_tools(CancellationToken::new())
        .await
        .expect("joins");
    assert!(tools.iter().any(|tool| tool.name() == "slow__echo"));
    assert_eq!(source.protocol_version().as_deref(), Some("2025-11-25"));
    source.shutdown().await;
}

#[tokio::test]
async fn a_server_answering_the_probe_with_an_empty_result_is_reached_with_the_handshake() {
    let state = state_file("empty-probe");
    let legacy = hostile(Some(&state)).env("HOSTILE_UNKNOWN_EMPTY", "1");
    let source = McpSource::new("legacy", legacy);
    let tools = source
        .list_tools(CancellationToken::new())
        .await
        .expect("a server answering `server/discover` with `{}` is a legacy server, not a failure");
    assert!(tools.iter().any(|tool| tool.name() == "legacy__echo"));
    assert_eq!(source.protocol_version().as_deref(), Some("2025-11-25"));
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("builds");
    assert_eq!(
        call(&registry, "legacy__echo", json!({"text": "hi"})).await,
        (false, "hi".into())
    );
    // The probe's child is stopped and a new one answers the handshake alone.
    assert_eq!(pids(&state, "started ").len(), 2);
    source.shutdown().await;
}

#[tokio::test]
async fn children_get_only_the_base_environment_and_their_own_unless_told() {
    let mut seen = Vec::new();
    for inherit in [
        InheritEnv::Base,
        InheritEnv::Base.and(["CARGO_PKG_NAME"]),
        InheritEnv::All,
    ] {
        let upstream = hostile(None).env("OWN_SETTING", "1").inherit_env(inherit);
        let source = McpSource::new("env", upstream);
        let tools = source
            .list_tools(CancellationToken::new())
            .await
            .expect("lists");
        let registry =
            (Registry::builder().without_inventory().tools(tools).build()).expect("builds");
        let (failed, text) = call(&registry, "env__env", json!({})).await;
        assert!(!failed, "{text}");
        let names: Vec<String> = serde_json::from_str(&text).expect("a JSON list");
        assert!(
            names.contains(&"OWN_SETTING".to_owned()) && names.contains(&"PATH".to_owned()),
            "{names:?}"
        );
        seen.push(names);
        source.shutdown().await;
    }
    // `cargo test` runs the tests with CARGO_* variables set.
    let cargo = |names: &Vec<String>| {
        names
            .iter()
            .filter(|name| name.starts_with("CARGO"))
            .count()
    };
    assert_eq!(cargo(&seen[0]), 0, "{:?}", seen[0]);
    assert_eq!(cargo(&seen[1]), 1, "{:?}", seen[1]);
    assert!(cargo(&seen[2]) > 1, "{:?}", seen[2]);
}

#[tokio::test]
async fn a_name_once_published_never_moves_to_another_server() {
    // `a__b` is first the bare tool of `x` (no prefix); server `a`'s tool `b` would be
    // `a__b` too. When `x` drops its tool, an earlier discovery of `a__b` must not reach `a`.
    let sources = [
        McpSource::new("x", hostile(None).env("HOSTILE_TOOLS", r#"["a__b"]"#)).prefix(""),
        McpSource::new("a", hostile(None).env("HOSTILE_TOOLS", r#"["b"]"#)),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("builds");
    assert_eq!(
        call(&catalog.registry(), "a__b", json!({})).await,
        (false, "a__b".into())
    );
    assert!(catalog.reports()[1].collisions.contains(&"a__b".to_owned()));
    let dropped = call(&catalog.registry(), "drop", json!({"names": ["a__b"]})).await;
    assert_eq!(dropped, (false, "dropped".into()));
    eventually(|| catalog.registry().get("a__b").is_none()).await;
    assert!(catalog.reports()[1].collisions.contains(&"a__b".to_owned()));
    catalog.shutdown().await;
}

#[tokio::test]
async fn secrets_of_an_upstream_stay_out_of_its_errors() {
    let upstream = Upstream::url("http://127.0.0.1:1/mcp?api_key=s3cret-in-url")
        .header("Authorization", "Bearer s3cret-token");
    assert!(!format!("{upstream:?}").contains("s3cret"), "{upstream:?}");
    let source = McpSource::new("remote", upstream).start_timeout(Duration::from_secs(20));
    let error = source
        .list_tools(CancellationToken::new())
        .await
        .expect_err("nothing listens there")
        .to_string();
    assert!(!error.contains("s3cret"), "{error}");
    assert!(!format!("{source:?}").contains("s3cret"));
}

#[cfg(unix)]
#[tokio::test]
async fn stopping_a_source_stops_what_its_server_started() {
    for stop_by_drop in [false, true] {
        let state = state_file(&format!("spawn-{stop_by_drop}"));
        let source = McpSource::new("spawner", hostile(Some(&state)).env("HOSTILE_SPAWN", "1"));
        source
            .list_tools(CancellationToken::new())
            .await
            .expect("lists");
        let (started, grandchildren) = (pids(&state, "started"), pids(&state, "grandchild"));
        let (&[server], &[grandchild]) = (started.as_slice(), grandchildren.as_slice()) else {
            panic!("one start, one grandchild: {started:?} {grandchildren:?}");
        };
        assert!(running(grandchild));
        if stop_by_drop {
            drop(source);
        } else {
            source.shutdown().await;
        }
        eventually(|| !running(server) && !running(grandchild)).await;
    }
}

/// Whether `pid` is a process that has not exited (a zombie has).
#[cfg(unix)]
fn running(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    !status.is_empty() && !status.contains("State:\tZ")
}

fn lines_in(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .count()
}

/// A catalog that was shut down starts no server again: `lazytool-gateway --check` once waited
/// a second start timeout for a server that hangs, when the catalog's retry of that server
/// (after about a second) came before the report was printed.
#[tokio::test]
async fn a_server_that_failed_to_start_is_not_started_again_after_shutdown() {
    let starts = state_file("starts");
    let script = format!("echo started >> '{}'; exec sleep 30", starts.display());
    let hangs = Upstream::command("sh", ["-c".to_owned(), script]);
    let source = McpSource::new("hangs", hangs).start_timeout(Duration::from_millis(300));
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), [source])
        .await
        .expect("the catalog builds without the server");
    let started = lines_in(&starts);
    assert!(started >= 1, "the server was not started");
    catalog.shutdown().await;
    // Longer than the first retry, which comes after about a second.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(lines_in(&starts), started, "started again after shutdown");
}
