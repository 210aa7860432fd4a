//! A server's live definitions held to its lock entry: what changed ([`Change`]), what the
//! server's [`Pin`] makes of it ([`Verdict`]).

use std::collections::BTreeMap;

use serde_json::Value;

use super::file::Pinned;

/// What a server's definitions that differ from its lock entry become: its tools', and
/// likewise its prompts', resources' and resource templates' (whose refused requests are
/// `-32600` errors rather than `isError` results).
///
/// ```
/// use lazytool_mcp_client::Pin;
///
/// assert_eq!(Pin::default(), Pin::Block);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pin {
    /// A changed tool, and a tool not in the lock, are not offered (a changed one keeps its
    /// approved definition, and its calls answer an error saying what changed); a tool that
    /// disappeared answers an error. Unchanged tools are served.
    #[default]
    Block,
    /// Changed and new tools are served as the server defines them now, with a warning
    /// naming what changed; a tool that disappeared answers an error.
    Warn,
    /// The live definitions are served as they are.
    Off,
}

/// How one definition differs from the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// These fields of it changed (`description`, `inputSchema`, ...).
    Changed(Vec<String>),
    /// It is not in the lock.
    Added,
    /// It is in the lock but the server no longer offers it.
    Removed,
}

impl Change {
    pub(crate) fn describe(&self) -> String {
        match self {
            Change::Changed(fields) => format!("its {} changed", fields.join(", ")),
            Change::Added => "it is new (not in the lock)".to_owned(),
            Change::Removed => "the server no longer offers it".to_owned(),
        }
    }
}

/// The changes of a server's definitions against its lock entry, by name.
pub(crate) fn compare(
    locked: &BTreeMap<String, Pinned>,
    live: &BTreeMap<String, Value>,
) -> BTreeMap<String, Change> {
    let mut changes = BTreeMap::new();
    for (name, definition) in live {
        match locked.get(name) {
            None => {
                changes.insert(name.clone(), Change::Added);
            }
            Some(pinned) if pinned.definition != *definition => {
                changes.insert(
                    name.clone(),
                    Change::Changed(fields(&pinned.definition, definition)),
                );
            }
            Some(_) => {}
        }
    }
    for name in locked.keys().filter(|name| !live.contains_key(*name)) {
        changes.insert(name.clone(), Change::Removed);
    }
    changes
}

/// The top-level fields in which two definitions differ.
fn fields(old: &Value, new: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let old = old.as_object().unwrap_or(&empty);
    let new = new.as_object().unwrap_or(&empty);
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|key| old.get(*key) != new.get(*key))
        .cloned()
        .collect()
}

/// What a server's [`Pin`] makes of its changes.
#[derive(Clone, Debug)]
pub(crate) struct Verdict {
    pub(crate) pin: Pin,
    pub(crate) changes: BTreeMap<String, Change>,
}

impl Verdict {
    /// Whether the live definition of `tool` may be offered.
    pub(crate) fn offers_live(&self, tool: &str) -> bool {
        self.pin != Pin::Block || !self.changes.contains_key(tool)
    }

    /// Why a call to `tool` is refused, if it is: blocked (changed or new under `block`) or
    /// gone (under `block` and `warn`).
    pub(crate) fn refusal(&self, server: &str, tool: &str, approve: &str) -> Option<String> {
        self.refusal_of("tool", server, tool, approve)
    }

    /// Why a request for the `kind` (tool, prompt, resource, resource template) `item` is
    /// refused, if it is.
    pub(crate) fn refusal_of(
        &self,
        kind: &str,
        server: &str,
        item: &str,
        approve: &str,
    ) -> Option<String> {
        let change = self.changes.get(item)?;
        let refused = match (self.pin, change) {
            (Pin::Off, _) => false,
            (Pin::Warn, Change::Removed) => true,
            (Pin::Warn, _) => false,
            (Pin::Block, _) => true,
        };
        refused.then(|| {
            format!(
                "the {kind} `{item}` of the MCP server `{server}` is blocked: {} since it was approved in the lock; to accept the change, run `{approve}`",
                change.describe()
            )
        })
    }

    /// One line per change: what it is and what was decided.
    pub(crate) fn decisions(&self) -> Vec<(String, String)> {
        (self.changes.iter())
            .map(|(tool, change)| {
                let decision = match (self.pin, change) {
                    (Pin::Off, _) => "served (pin off)",
                    (Pin::Warn, Change::Removed) => "its calls answer an error",
                    (Pin::Warn, _) => "served with a warning (pin warn)",
                    (Pin::Block, Change::Changed(_)) => {
                        "blocked: its approved definition is listed and its calls answer an error"
                    }
                    (Pin::Block, Change::Added) => "blocked: not offered",
                    (Pin::Block, Change::Removed) => "its calls answer an error",
                };
                (tool.clone(), format!("{}; {decision}", change.describe()))
            })
            .collect()
    }
}
