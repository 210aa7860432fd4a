//! What the gateway's test files share.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

/// Far above what the runs take; only there so that a gateway that hangs fails the test.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// The gateway binary with `args`, no `RUST_LOG`, its stdout and stderr piped, killed when
/// dropped.
pub fn gateway_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lazytool-gateway"));
    command
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// How a gateway run ended and what it wrote.
pub struct Run {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Waits for `child` to exit (within [`WATCHDOG`]): its status and output.
pub async fn finish(child: Child) -> Run {
    let output = tokio::time::timeout(WATCHDOG, child.wait_with_output())
        .await
        .expect("the gateway exits in time")
        .expect("the gateway ran");
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A folder of one test's own (`lazytool-gateway-AREA-NAME-PID`), empty at first, removed
/// when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(area: &str, name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "lazytool-gateway-{area}-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
