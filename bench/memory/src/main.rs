//! Peak RSS of a registry of 10,000 dynamic tools, and of 1,000 live sessions over it.
//!
//! `lazytool-bench-memory [CATALOG.json] [TOOLS] [SESSIONS]` runs each scenario in a fresh
//! child process (peak RSS only grows, so scenarios must not share a process) and prints
//! a table. The tools cycle through the catalog's schemas (default: the shared GitHub MCP
//! catalog), renamed `NAME_i`.
//!
//! Scenarios:
//! - `inputs`: only the TOOLS (name, description, schema) values a caller passes to
//!   `DynamicTool::new`, kept alive (the reference for what the registry adds).
//! - `validators`: TOOLS `jsonschema` validators compiled as the registry compiles them.
//! - `registry`: TOOLS eager dynamic tools.
//! - `sessions-names`: TOOLS lazy tools and SESSIONS sessions in the default mode (names),
//!   each having discovered 3 tools.
//! - `sessions-search`: the same in search mode.
//!
//! Figures are read from `/proc/self/status`: `VmRSS` (resident now) and `VmHWM` (peak).

use std::process::Command;

use lazytool_runtime::{
    DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry, Session, SessionOptions,
};
use serde_json::{Value, json};

const MIB: f64 = 1024.0 * 1024.0;

/// (VmRSS, VmHWM) in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("a kB figure")
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn load_catalog(path: &str) -> Vec<(String, String, Value)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let catalog: Value = serde_json::from_str(&text).expect("catalog JSON");
    catalog["tools"]
        .as_array()
        .expect("a `tools` array")
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().expect("name").to_owned(),
                tool["description"].as_str().unwrap_or_default().to_owned(),
                tool["inputSchema"].clone(),
            )
        })
        .collect()
}

fn tool_name(catalog: &[(String, String, Value)], i: usize) -> String {
    format!("{}_{i}", catalog[i % catalog.len()].0)
}

fn build_registry(catalog: &[(String, String, Value)], tools: usize, lazy: bool) -> Registry {
    let dynamic = (0..tools).map(|i| {
        let (_, description, schema) = &catalog[i % catalog.len()];
        DynamicTool::new(
            tool_name(catalog, i),
            description.as_str(),
            schema.clone(),
            |arguments: Value, _context| async move { Ok::<_, String>(arguments) },
        )
        .lazy(lazy)
    });
    Registry::builder()
        .without_inventory()
        .tools(dynamic)
        .build()
        .expect("valid tools")
}

/// One scenario, in this process; prints `figures BASE REG_RSS REG_HWM SES_RSS SES_HWM`.
fn child(scenario: &str, catalog_path: &str, tools: usize, sessions: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let catalog = load_catalog(catalog_path);
    let (base, _) = memory();

    if scenario == "inputs" {
        // What the caller hands to `DynamicTool::new`, kept alive: the reference point for
        // what the registry adds (canonical schema copy, compiled validator, bookkeeping).
        let inputs: Vec<(String, String, Value)> = (0..tools)
            .map(|i| {
                let (_, description, schema) = &catalog[i % catalog.len()];
                (tool_name(&catalog, i), description.clone(), schema.clone())
            })
            .collect();
        let (rss, hwm) = memory();
        println!("figures {base} {rss} {hwm} {rss} {hwm}");
        drop(inputs);
        return;
    }
    if scenario == "validators" {
        // TOOLS validators compiled as the registry compiles them, from the catalog's
        // schemas (not kept per tool): what one compiled validator weighs alone.
        let validators: Vec<jsonschema::Validator> = (0..tools)
            .map(|i| {
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&catalog[i % catalog.len()].2)
                    .expect("schema compiles")
            })
            .collect();
        let (rss, hwm) = memory();
        println!("figures {base} {rss} {hwm} {rss} {hwm}");
        drop(validators);
        return;
    }
    let lazy = scenario != "registry";
    let registry = build_registry(&catalog, tools, lazy);
    assert_eq!(registry.len(), tools);
    let (registry_rss, registry_hwm) = memory();

    let mut live: Vec<Session> = Vec::new();
    if lazy {
        let options = match scenario {
            "sessions-names" => SessionOptions::new(),
            "sessions-search" => SessionOptions::new().mode(DiscoveryMode::Search),
            other => panic!("unknown scenario {other}"),
        };
        for s in 0..sessions {
            let session = registry.session_with(options.clone());
            let names: Vec<String> = (0..3).map(|k| tool_name(&catalog, (s * 3 + k) % tools)).collect();
            let result = runtime.block_on(session.call(DISCOVERY_TOOL_NAME, json!({ "toolNames": names })));
            assert!(!result.is_error(), "discovery failed: {}", result.content());
            session.begin_turn();
            assert_eq!(session.discovered().tools.len(), 3);
            live.push(session);
        }
    }
    let (sessions_rss, sessions_hwm) = memory();
    println!("figures {base} {registry_rss} {registry_hwm} {sessions_rss} {sessions_hwm}");
    drop(live);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        let tools = args[4].parse().expect("TOOLS");
        let sessions = args[5].parse().expect("SESSIONS");
        child(&args[2], &args[3], tools, sessions);
        return;
    }
    let catalog = args.get(1).cloned().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/github-mcp-tools.json").to_owned()
    });
    let catalog = std::fs::canonicalize(&catalog).map_or(catalog, |path| path.display().to_string());
    let tools: usize = args.get(2).map_or(10_000, |n| n.parse().expect("TOOLS"));
    let sessions: usize = args.get(3).map_or(1_000, |n| n.parse().expect("SESSIONS"));
    let schemas = load_catalog(&catalog).len();
    println!("memory: {tools} dynamic tools (cycling the {schemas} schemas of {catalog}), {sessions} sessions x 3 discovered tools");
    println!(
        "{:<16} {:>9} {:>10} {:>10} {:>11} {:>10} {:>12} {:>14}",
        "scenario", "base MiB", "+tools MiB", "peak MiB", "+sess MiB", "peak MiB", "B/tool", "B/session"
    );
    let mut summary = Vec::new();
    for scenario in ["inputs", "validators", "registry", "sessions-names", "sessions-search"] {
        let exe = std::env::current_exe().expect("current exe");
        let output = Command::new(exe)
            .args(["--child", scenario, &catalog, &tools.to_string(), &sessions.to_string()])
            .output()
            .expect("child process");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{scenario} failed: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        let f: Vec<u64> = stdout
            .lines()
            .find_map(|line| line.strip_prefix("figures "))
            .expect("figures line")
            .split(' ')
            .map(|n| n.parse().expect("a number"))
            .collect();
        let [base, reg_rss, reg_hwm, ses_rss, ses_hwm] = f[..] else { unreachable!() };
        let per_tool = (reg_rss - base) / tools as u64;
        let sessions_part = scenario.starts_with("sessions");
        let per_session = if sessions_part { (ses_rss - reg_rss) / sessions as u64 } else { 0 };
        println!(
            "{:<16} {:>9.1} {:>10.1} {:>10.1} {:>11} {:>10} {:>12} {:>14}",
            scenario,
            base as f64 / MIB,
            (reg_rss - base) as f64 / MIB,
            reg_hwm as f64 / MIB,
            if sessions_part { format!("{:.1}", (ses_rss - reg_rss) as f64 / MIB) } else { "-".into() },
            if sessions_part { format!("{:.1}", ses_hwm as f64 / MIB) } else { "-".into() },
            per_tool,
            if sessions_part { per_session.to_string() } else { "-".into() },
        );
        summary.push(format!(
            "{scenario}_peak_mib={:.1} {scenario}_bytes_per_{}={}",
            ses_hwm.max(reg_hwm) as f64 / MIB,
            if sessions_part { "session" } else { "tool" },
            if sessions_part { per_session } else { per_tool },
        ));
    }
    println!("memory: {}", summary.join(" "));
}
