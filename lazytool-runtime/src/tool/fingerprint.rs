//! What the model reads of a tool when it discovers it: [`DiscoveryEntry`], and its
//! fingerprint in 32 hex digits ([`Tool::fingerprint`]).

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Tool;

/// The bytes of the digest kept: 128 bits leave no collision to find by chance.
const KEPT_BYTES: usize = 16;

/// One entry of a discovery result: what the model needs to call the tool.
#[derive(Serialize)]
pub(crate) struct DiscoveryEntry<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    skill: Option<&'a str>,
    #[serde(rename = "inputExamples", skip_serializing_if = "<[Value]>::is_empty")]
    input_examples: &'a [Value],
}

impl<'a> DiscoveryEntry<'a> {
    pub(crate) fn of(tool: &'a Tool) -> Self {
        DiscoveryEntry {
            name: tool.name(),
            description: tool.description(),
            input_schema: tool.input_schema(),
            skill: tool.skill(),
            input_examples: tool.examples(),
        }
    }
}

/// The SHA-256 of `tool`'s discovery entry as compact JSON, its first 16 bytes in hex.
pub(super) fn fingerprint(tool: &Tool) -> String {
    let mut hasher = Sha256::new();
    // Writing JSON to a hasher cannot fail: every key is a string.
    serde_json::to_writer(HashWriter(&mut hasher), &DiscoveryEntry::of(tool)).ok();
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
