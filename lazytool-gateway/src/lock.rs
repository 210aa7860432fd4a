//! `lock [--update SERVER...]`: which servers, the lock file read or begun, what was pinned
//! and the diff of every change printed. Starting and pinning the servers is
//! `lazytool_mcp_client::Lock::pin_servers`.

use std::fmt::Write;
use std::path::Path;

use lazytool_mcp_client::{Lock, McpSource, Repinned};
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
    let origin = path.display().to_string();
    let repinned = (lock.pin_servers(&chosen).await)
        .map_err(|failures| format!("{} not written: {failures}", path.display()))?;
    let mut report = String::new();
    for repinned in &repinned {
        let _ = writeln!(report, "{}", summary(repinned));
        if let Some(diff) = diff(&origin, repinned) {
            report.push_str(&diff);
        }
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

fn summary(repinned: &Repinned) -> String {
    let Repinned { name, new, .. } = repinned;
    let what = if repinned.is_new() {
        "pinned"
    } else if repinned.is_unchanged() {
        "unchanged"
    } else {
        "updated"
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
fn diff(origin: &str, repinned: &Repinned) -> Option<String> {
    let Repinned { name, old, new, .. } = repinned;
    let old_text = old.as_ref()?.to_text();
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
