//! The gateway binary with a lock file, in front of tests/mcp/gateway/shifting_server.py (run
//! by `python3`), whose tools change after a call: `lock` pins it, serving lists it from the
//! lock without starting it, a call starts it, a change is blocked with the command that
//! accepts it, `lock --update` prints the diff and accepts it; a corrupt lock starts nothing;
//! stale entries and entries for another command are reported by `--check`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{Run, Scratch, WATCHDOG, finish, gateway_command};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// The shifting server's state file and what it says.
impl Scratch {
    fn state(&self) -> PathBuf {
        self.0.join("state")
    }

    fn starts(&self) -> usize {
        (std::fs::read_to_string(self.state())
            .unwrap_or_default()
            .lines())
        .filter(|line| line.starts_with("started "))
        .count()
    }
}

/// A config of one server, `shifting`, changing its tools after its first call (announced),
/// every tool eager; plus `extra` servers.
fn write_config(dir: &Scratch, extra: Value) -> PathBuf {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp/gateway/shifting_server.py");
    let mut servers = json!({"shifting": {"command": "python3", "args": [
        script.display().to_string(), "--after", "1", "--change", "description,add", "--notify",
        "--state", dir.state().display().to_string(),
    ]}});
    if let (Some(servers), Value::Object(extra)) = (servers.as_object_mut(), extra) {
        servers.extend(extra);
    }
    let config = json!({
        "mcpServers": servers,
        "lazytool": {"servers": {"shifting": {"eager": ["*"]}}},
    });
    let path = dir.0.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("writes the config");
    path
}

fn gateway(args: &[&str]) -> Command {
    let mut command = gateway_command(args);
    command.stdin(Stdio::piped());
    command
}

async fn run(args: &[&str]) -> Run {
    let mut command = gateway(args);
    command.stdin(Stdio::null());
    finish(command.spawn().expect("the gateway starts")).await
}

/// A gateway serving on stdio, asked one request at a time.
struct Serving {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next_id: u64,
}

impl Serving {
    async fn start(config: &Path) -> Serving {
        let mut child = gateway(&["--config", &config.display().to_string()])
            .spawn()
            .expect("spawns");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut serving = Serving {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let init = serving.ask("initialize", params).await;
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        serving
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        serving
    }

    async fn send(&mut self, message: Value) {
        (self.stdin.write_all(format!("{message}\n").as_bytes()))
            .await
            .expect("the gateway reads");
    }

    async fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(WATCHDOG, self.lines.next_line())
                .await
                .expect("an answer")
                .expect("readable")
                .expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    async fn call(&mut self, tool: &str) -> (bool, String) {
        let answer = self
            .ask(
                "tools/call",
                json!({"name": tool, "arguments": {"text": "hi"}}),
            )
            .await;
        if let Some(error) = answer.get("error") {
            return (true, error.to_string());
        }
        let result = &answer["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        (result["isError"] == json!(true), text.to_owned())
    }

    async fn tools(&mut self) -> Vec<String> {
        let answer = self.ask("tools/list", json!({})).await;
        (answer["result"]["tools"].as_array().expect("tools").iter())
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    }

    async fn stop(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(WATCHDOG, self.child.wait()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_server_starts_on_first_call_and_its_change_waits_for_lock_update() {
    let dir = Scratch::new("lock", "serve");
    let config = write_config(&dir, json!({}));
    let config_arg = config.display().to_string();
    let locked = run(&["--config", &config_arg, "lock"]).await;
    assert!(locked.success, "{}", locked.stderr);
    assert!(
        (locked.stdout).starts_with(
            "shifting: pinned: 3 tools (shifting 1, MCP 2025-11-25): doomed, drifting, stable; 2 prompts; 1 resource; 1 resource template\n"
        ),
        "{}",
        locked.stdout
    );
    let lock_path = dir.0.join("lazytool.lock");
    assert!(
        locked
            .stdout
            .ends_with(&format!("wrote {}\n", lock_path.display()))
    );
    assert_eq!(dir.starts(), 1);

    let mut serving = Serving::start(&config).await;
    let listed = serving.tools().await;
    assert!(
        listed.contains(&"shifting__drifting".to_owned()),
        "{listed:?}"
    );
    assert_eq!(dir.starts(), 1, "listed from the lock: nothing started");
    assert_eq!(
        serving.call("shifting__stable").await,
        (false, "hi".to_owned())
    );
    assert_eq!(dir.starts(), 2, "started by the call");
    // The server changed after that call and said so: the change is blocked.
    let mut blocked = serving.call("shifting__drifting").await;
    for _ in 0..2000 {
        if blocked.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        blocked = serving.call("shifting__drifting").await;
    }
    assert_eq!(
        blocked,
        (
            true,
            format!(
                "the tool `drifting` of the MCP server `shifting` is blocked: its description changed since it was approved in the lock; to accept the change, run `lazytool-gateway --config {config_arg} lock --update shifting`"
            )
        )
    );
    assert_eq!(
        serving.call("shifting__stable").await,
        (false, "hi".to_owned())
    );
    // Not offered, yet a call to it says why rather than "unknown tool".
    assert_eq!(
        serving.call("shifting__newcomer").await,
        (
            true,
            format!(
                "the tool `newcomer` of the MCP server `shifting` is blocked: it is new (not in the lock) since it was approved in the lock; to accept the change, run `lazytool-gateway --config {config_arg} lock --update shifting`"
            )
        )
    );
    serving.stop().await;

    let updated = run(&["--config", &config_arg, "lock", "--update", "shifting"]).await;
    assert!(updated.success, "{}", updated.stderr);
    let diff = &updated.stdout;
    assert!(diff.contains("shifting: updated: 4 tools"), "{diff}");
    assert!(
        diff.contains(&format!(
            "--- {}: shifting (approved)\n+++ shifting (now)\n",
            lock_path.display()
        )),
        "{diff}"
    );
    assert!(
        diff.contains("\n-        \"description\": \"Returns its text.\",\n"),
        "{diff}"
    );
    assert!(diff.contains("id_rsa"), "{diff}");
    assert!(diff.contains("+    \"newcomer\": {"), "{diff}");
    let lock = std::fs::read_to_string(&lock_path).expect("the lock");
    assert!(lock.contains("newcomer"));

    let mut serving = Serving::start(&config).await;
    assert!(
        serving
            .tools()
            .await
            .contains(&"shifting__newcomer".to_owned())
    );
    assert_eq!(
        serving.call("shifting__newcomer").await,
        (false, "hi".to_owned())
    );
    serving.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_lock_names_its_position_and_nothing_starts() {
    let dir = Scratch::new("lock", "corrupt");
    let config = write_config(&dir, json!({}));
    let lock_path = dir.0.join("lazytool.lock");
    std::fs::write(
        &lock_path,
        "{\n  \"lockVersion\": 1,\n  \"servers\": {\"x\": 3}\n}\n",
    )
    .expect("written");
    let served = run(&["--config", &config.display().to_string()]).await;
    assert!(!served.success);
    let expected = format!(
        "lazytool-gateway: {}:3:20: invalid type: integer `3`, expected struct ServerLock",
        lock_path.display()
    );
    assert!(served.stderr.contains(&expected), "{}", served.stderr);
    assert_eq!(dir.starts(), 0, "nothing starts");
    let missing = dir.0.join("elsewhere.lock").display().to_string();
    let served = run(&[
        "--config",
        &config.display().to_string(),
        "--lock",
        &missing,
    ])
    .await;
    assert!(!served.success);
    assert!(
        served.stderr.contains(&format!("cannot read {missing}: ")),
        "{}",
        served.stderr
    );
    let update = run(&[
        "--config",
        &config.display().to_string(),
        "lock",
        "--update",
        "nobody",
    ])
    .await;
    assert!(!update.success);
    assert!(
        (update.stderr)
            .contains("no server named nobody in the configuration (its servers: shifting)"),
        "{}",
        update.stderr
    );
    assert_eq!(dir.starts(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_reports_stale_entries_and_entries_for_another_command() {
    let dir = Scratch::new("lock", "stale");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/mcp/gateway/shifting_server.py")
        .display()
        .to_string();
    let other = json!({"other": {"command": "python3", "args": [script]}});
    let config = write_config(&dir, other);
    let config_arg = config.display().to_string();
    assert!(run(&["--config", &config_arg, "lock"]).await.success);
    // `other` now starts with another argument, and `shifting` is gone.
    let changed = json!({
        "mcpServers": {"other": {"command": "python3", "args": [script, "--after", "5"]}},
    });
    std::fs::write(&config, changed.to_string()).expect("rewritten");
    let checked = run(&["--config", &config_arg, "--check"]).await;
    assert!(checked.success, "{}{}", checked.stdout, checked.stderr);
    assert!(
        (checked.stdout).contains("other: 3 tools, ") && (checked.stdout).contains(
            "\n  lock: its lock entry is for another command or URL (stale): ignored, started at once\n"
        ),
        "{}",
        checked.stdout
    );
    assert!(
        (checked.stdout).contains("\nshifting: in the lock but not configured: ignored\n"),
        "{}",
        checked.stdout
    );
}

#[test]
fn pin_and_idle_timeout_settings_are_checked() {
    let text = r#"{"mcpServers": {"a": {"command": "x"}}, "lazytool": {"servers": {"a": {"pin": "maybe", "idleTimeoutMs": -1}}}}"#;
    let error = lazytool_gateway::parse(text, |_| None).expect_err("refused");
    assert_eq!(
        error.problems,
        [
            "$.lazytool.servers.a.pin: expected \"block\", \"warn\" or \"off\", found \"maybe\"",
            "$.lazytool.servers.a.idleTimeoutMs: expected a whole number of milliseconds (0 keeps the server up), found -1",
        ]
    );
    let text = r#"{"mcpServers": {"a": {"command": "x"}}, "lazytool": {"servers": {"a": {"pin": "warn", "idleTimeoutMs": 0}}}}"#;
    assert!(lazytool_gateway::parse(text, |_| None).is_ok());
}
