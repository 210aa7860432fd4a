//! What the model read of a tool, in 32 hex digits: [`Tool::fingerprint`].

use sha2::{Digest, Sha256};

use super::answer::DiscoveredTool;
use crate::tool::Tool;

/// The bytes of the digest kept: 128 bits leave no collision to find by chance.
const KEPT_BYTES: usize = 16;

/// The SHA-256 of `tool`'s discovery entry as compact JSON, its first 16 bytes in hex.
pub(crate) fn fingerprint(tool: &Tool) -> String {
    let mut hasher = Sha256::new();
    // Writing JSON to a hasher cannot fail: every key is a string.
    serde_json::to_writer(HashWriter(&mut hasher), &DiscoveredTool::of(tool)).ok();
    hasher.finalize()[..KEPT_BYTES]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

struct HashWriter<'h>(&'h mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
