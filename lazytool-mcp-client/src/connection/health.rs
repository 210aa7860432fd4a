//! How an upstream stands, read without waiting for a start under way: `Health`, and what
//! a model is told of a server that is down.

use std::time::Duration;

use tokio::time::Instant;

/// How an upstream stands. Its errors are redacted before they are kept here.
#[derive(Clone, Debug, Default)]
pub(crate) enum Health {
    /// Never started.
    #[default]
    NotStarted,
    /// A start is under way; the last failure, if the last start failed.
    Starting {
        last_error: Option<String>,
    },
    Running,
    /// Its start failed, or it exited (`exited`); not started again before `retry_at`.
    Failed {
        error: String,
        retry_at: Instant,
        exited: bool,
    },
    /// Stopped when idle or shut down; the next use starts it.
    Stopped,
}

impl Health {
    /// What a model is told of the server `server` whose tools are missing, `None` when it
    /// is up or stopped on purpose (its tools are then listed, or truly unknown).
    pub(crate) fn down(&self, server: &str) -> Option<String> {
        match self {
            Health::NotStarted => Some(format!("the MCP server `{server}` has not started yet")),
            Health::Starting { last_error: None } => Some(format!(
                "the MCP server `{server}` is starting; ask again in a moment"
            )),
            Health::Starting {
                last_error: Some(error),
            } => Some(format!(
                "the MCP server `{server}` failed to start: {error}; it is being started again now, ask again in a moment"
            )),
            Health::Failed {
                error,
                retry_at,
                exited,
            } => {
                let what = if *exited {
                    "is down"
                } else {
                    "failed to start"
                };
                let when = retry_in(retry_at.saturating_duration_since(Instant::now()));
                Some(format!("the MCP server `{server}` {what}: {error}; {when}"))
            }
            Health::Running | Health::Stopped => None,
        }
    }
}

/// When the next start is attempted, `wait` from now.
fn retry_in(wait: Duration) -> String {
    if wait.is_zero() {
        "its next start attempt is due now".to_owned()
    } else {
        format!("its next start attempt is in {:.1} s", wait.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_start_names_the_server_its_error_and_the_retry() {
        let failed = Health::Failed {
            error: "cannot start `mcp-server-tme`: No such file or directory".to_owned(),
            retry_at: Instant::now() + Duration::from_secs(30),
            exited: false,
        };
        let text = failed.down("time").expect("a failed server is down");
        assert!(
            text.starts_with("the MCP server `time` failed to start: cannot start `mcp-server-tme`: No such file or directory; its next start attempt is in "),
            "{text}"
        );
        assert!(text.ends_with(" s"), "{text}");
        assert_eq!(Health::Running.down("time"), None);
        assert_eq!(Health::Stopped.down("time"), None);
    }
}
