//! Exposed names of upstream tools: `SERVER__TOOL`, made valid for every provider.

use sha2::{Digest, Sha256};

/// The longest tool name providers accept (`^[a-zA-Z0-9_-]{1,64}$`).
pub(crate) const MAX_TOOL_NAME: usize = 64;

/// `PREFIX__TOOL` (`TOOL` alone for an empty prefix) when that is a valid name; else with
/// every character outside `[a-zA-Z0-9_-]` replaced by `_`, cut to fit [`MAX_TOOL_NAME`]
/// and ended by 8 hex digits of a hash of the full name. The hash keeps the mapping
/// one-to-one (`read.file` and `read_file` stay apart, as do two long names sharing a
/// beginning) and the same on every run. Calls map back through the tool, which keeps the
/// upstream name.
pub(crate) fn exposed_name(prefix: &str, tool: &str) -> String {
    let full = if prefix.is_empty() {
        tool.to_owned()
    } else {
        format!("{prefix}__{tool}")
    };
    let valid: String = full
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if valid == full && valid.len() <= MAX_TOOL_NAME && !valid.is_empty() {
        return valid;
    }
    let digest = Sha256::digest(full.as_bytes());
    let hash: String = digest[..4]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let keep = valid.len().min(MAX_TOOL_NAME - hash.len() - 1);
    format!("{}_{hash}", &valid[..keep])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_are_prefixed_only() {
        assert_eq!(exposed_name("git", "git_status"), "git__git_status");
    }

    #[test]
    fn an_empty_prefix_keeps_the_upstream_name() {
        assert_eq!(exposed_name("", "get_me"), "get_me");
    }

    #[test]
    fn invalid_characters_become_underscores_and_a_hash_keeps_names_apart() {
        let mapped = exposed_name("fs", "read.file/v2");
        assert!(mapped.starts_with("fs__read_file_v2_"), "{mapped}");
        assert_eq!(mapped.len(), "fs__read_file_v2_".len() + 8);
        assert_ne!(mapped, exposed_name("fs", "read_file/v2"));
        assert_eq!(exposed_name("fs", "read_file_v2"), "fs__read_file_v2");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long = "a".repeat(80);
        let name = exposed_name("srv", &long);
        assert_eq!(name.len(), MAX_TOOL_NAME);
        assert_eq!(name, exposed_name("srv", &long));
        assert_ne!(name, exposed_name("srv", &format!("{long}b")));
        assert!(name.starts_with("srv__aaa"));
    }
}
