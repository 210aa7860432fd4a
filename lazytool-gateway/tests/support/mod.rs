//! What the gateway's test files share.

#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

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
