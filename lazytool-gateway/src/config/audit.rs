//! `lazytool.audit`: where the audit trail goes and how its file rotates: [`AuditSettings`].

use std::path::PathBuf;

use lazytool_mcp::Rotation;
use serde_json::{Map, Value};

use super::reader::{Reader, child};

const AUDIT_KEYS: &[&str] = &["path", "maxBytes", "keep", "arguments"];

/// Where the audit trail goes (`--audit` overrides `path`).
///
/// ```
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {}, "lazytool": {"audit": {"path": "audit.jsonl", "maxBytes": 1000000, "keep": 3}}}"#, |_| None).unwrap();
/// let audit = config.audit.unwrap();
/// assert_eq!(audit.path.as_deref(), Some(std::path::Path::new("audit.jsonl")));
/// assert_eq!((audit.rotation.max_bytes, audit.rotation.keep, audit.arguments), (1_000_000, 3, false));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditSettings {
    /// The file (`-`: stdout); `None` until `--audit` gives one. A relative path is relative
    /// to the configuration file's directory.
    pub path: Option<PathBuf>,
    /// When the file rotates and how many old ones are kept.
    pub rotation: Rotation,
    /// Whether argument values are written (not only their size and hash).
    pub arguments: bool,
}

impl Reader<'_> {
    pub(super) fn audit(&mut self, section: &Map<String, Value>, path: &str) -> AuditSettings {
        self.unknown_keys(section, path, AUDIT_KEYS);
        let defaults = Rotation::default();
        let file = (section.get("path")).and_then(|file| self.string(file, &child(path, "path")));
        let max_bytes = self.positive(
            section.get("maxBytes"),
            &child(path, "maxBytes"),
            defaults.max_bytes,
            "bytes",
        );
        let keep = match section.get("keep") {
            None => defaults.keep,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n <= 1000) => {
                n.as_u64().map_or(defaults.keep, |n| n as u32)
            }
            Some(other) => {
                self.problem(
                    &child(path, "keep"),
                    format!("expected how many rotated files to keep, 0 to 1000, found {other}"),
                );
                defaults.keep
            }
        };
        let arguments = match section.get("arguments") {
            None => false,
            Some(Value::Bool(keep)) => *keep,
            Some(other) => {
                self.problem(
                    &child(path, "arguments"),
                    format!("expected true or false, found {other}"),
                );
                false
            }
        };
        AuditSettings {
            path: file.map(PathBuf::from),
            rotation: Rotation { max_bytes, keep },
            arguments,
        }
    }
}
