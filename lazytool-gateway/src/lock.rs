//! `lock [--update SERVER...]`: start the servers once, pin what starts them and their
//! definitions in the lock file, print what was pinned and the diff of every change.

use std::fmt::Write;
use std::path::Path;

use lazytool_mcp::{Lock, McpSource, ServerLock};
use lazytool_runtime::source::ToolSource;
use similar::TextDiff;

/// Pins the servers of `servers` in the lock at `path`: every server (entries of servers no
/// longer configured are removed), or with `update` only those named (the rest of the file
/// stays as it is; a file that is not there is begun). A file that cannot be read is an
/// error with `update`, and written anew without. The servers start a few at a time; when
/// one fails, nothing is written.
/// Returns what to print: per server what was pinned, and a unified diff of each entry that
/// was in the file and changed.
///
/// ```no_run
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, |_| None)?;
/// let report = lazytool_gateway::lock(&config.servers, "lazytool.lock".as_ref(), &[]).await?;
/// println!("{report}");
/// # Ok(()) }
/// ```
pub async fn lock(
    servers: &[McpSource],
    path: &Path,
    update: &[String],
) -> Result<String, Box<dyn std::error::Error>> {
    let names: Vec<&str> = servers.iter().map(|server| server.name()).collect();
    let unknown: Vec<&str> = (update.iter())
        .map(String::as_str)
        .filter(|name| !names.contains(name))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "no server named {} in the configuration (its servers: {})",
            unknown.join(", "),
            names.join(", ")
        )
        .into());
    }
    let mut lock = match (Lock::load(path), path.exists()) {
        (Ok(lock), _) => lock,
        (Err(_), false) => Lock::new(),
        (Err(error), true) if update.is_empty() => {
            tracing::warn!(target: "lazytool::lock", %error, "the lock file cannot be read: it is written anew");
            Lock::new()
        }
        (Err(error), _) => return Err(error.into()),
    };
    let chosen: Vec<&McpSource> = (servers.iter())
        .filter(|server| update.is_empty() || update.iter().any(|name| name == server.name()))
        .collect();
    let pinned = pin_all(&chosen).await;
    let mut failures = Vec::new();
    let mut report = String::new();
    let origin = path.display().to_string();
    for (server, entry) in chosen.iter().zip(pinned) {
        let name = server.name();
        match entry {
            Err(error) => failures.push(error),
            Ok(entry) => {
                let old = lock.server(name).cloned();
                let _ = writeln!(report, "{}", summary(name, old.as_ref(), &entry));
                if let Some(diff) = diff(&origin, name, old.as_ref(), &entry) {
                    report.push_str(&diff);
                }
                lock.set(name, entry);
            }
        }
    }
    if !failures.is_empty() {
        return Err(format!("{} not written: {}", path.display(), failures.join("; ")).into());
    }
    if update.is_empty() {
        for stale in lock.stale(names.iter().copied()) {
            lock.remove(&stale);
            let _ = writeln!(report, "{stale}: removed, no longer in the configuration");
        }
    }
    lock.write(path)?;
    let _ = write!(report, "wrote {}", path.display());
    Ok(report)
}

/// How many servers `lock` starts at a time: starting interpreters is CPU-bound, and a
/// server starved of CPU can miss its handshake's deadline.
const PINNING_AT_ONCE: usize = 4;

/// Starts and pins the servers, a few at a time, stopping each once pinned; in order.
async fn pin_all(servers: &[&McpSource]) -> Vec<Result<ServerLock, String>> {
    use futures_util::StreamExt;
    let pinning = servers.iter().map(|server| async move {
        // Not `error.to_string()`, which speaks of tools: the message says what failed.
        let pinned = (server.pin_now().await)
            .map_err(|error| format!("`{}`: {}", error.source_name(), error.message()));
        server.shutdown().await;
        pinned
    });
    futures_util::stream::iter(pinning)
        .buffered(PINNING_AT_ONCE)
        .collect()
        .await
}

fn summary(name: &str, old: Option<&ServerLock>, new: &ServerLock) -> String {
    let what = match old {
        None => "pinned",
        Some(old) if old == new => "unchanged",
        Some(_) => "updated",
    };
    let info = (new.server_info.as_ref())
        .and_then(|info| {
            Some(format!(
                "{} {}",
                info.get("name")?.as_str()?,
                info.get("version")?.as_str()?
            ))
        })
        .unwrap_or_else(|| "unknown server".to_owned());
    let tools: Vec<&str> = new.tools.keys().map(String::as_str).collect();
    let mut line = format!(
        "{name}: {what}: {} tools ({info}, MCP {}): {}",
        tools.len(),
        new.protocol_version.as_deref().unwrap_or("unknown"),
        tools.join(", ")
    );
    let others = [
        ("prompt", new.prompts.len()),
        ("resource", new.resources.len()),
        ("resource template", new.resource_templates.len()),
    ];
    for (kind, count) in others.into_iter().filter(|(_, count)| *count > 0) {
        let plural = if count == 1 { "" } else { "s" };
        let _ = write!(line, "; {count} {kind}{plural}");
    }
    line
}

/// The unified diff of a server's entry, `None` when it is new or did not change.
fn diff(origin: &str, name: &str, old: Option<&ServerLock>, new: &ServerLock) -> Option<String> {
    let old_text = old?.to_text();
    let new_text = new.to_text();
    if old_text == new_text {
        return None;
    }
    let diff = TextDiff::from_lines(&old_text, &new_text);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{origin}: {name} (approved)"),
            &format!("{name} (now)"),
        )
        .to_string();
    Some(text)
}
