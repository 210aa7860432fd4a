//! The rule every tool name obeys.

use std::fmt;

/// The name of the synthetic tool through which the model discovers lazy tools.
pub const DISCOVERY_TOOL_NAME: &str = "__lazy__tool__discovery__";

/// The name of the synthetic tool that runs a lazy tool by name, with arguments validated
/// against that tool's schema: input `{"name": string, "arguments": object}`. Sessions list it
/// when they call through ([`SessionOptions::call_through`](crate::SessionOptions::call_through)),
/// as stateless MCP servers do.
///
/// ```
/// use lazytool_runtime::{CALL_THROUGH_TOOL_NAME, ToolNameError, validate_tool_name};
///
/// assert_eq!(validate_tool_name(CALL_THROUGH_TOOL_NAME), Err(ToolNameError::Reserved));
/// ```
pub const CALL_THROUGH_TOOL_NAME: &str = "__lazy__tool__call__";

/// The longest tool name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Why a name cannot be a tool's name ([`validate_tool_name`]).
///
/// ```
/// use lazytool_runtime::{ToolNameError, validate_tool_name};
///
/// assert_eq!(validate_tool_name(""), Err(ToolNameError::Empty));
/// assert_eq!(validate_tool_name("get weather"), Err(ToolNameError::InvalidCharacter { found: ' ' }));
/// assert_eq!(validate_tool_name(&"a".repeat(65)), Err(ToolNameError::TooLong { len: 65 }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolNameError {
    /// The name is empty.
    Empty,
    /// The name has more than [`MAX_TOOL_NAME_LEN`] bytes.
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The name contains a character other than an ASCII letter, digit, `_` or `-`.
    InvalidCharacter {
        /// The first such character.
        found: char,
    },
    /// The name is [`DISCOVERY_TOOL_NAME`] or [`CALL_THROUGH_TOOL_NAME`], which lazytool's
    /// own tools use.
    Reserved,
}

impl fmt::Display for ToolNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolNameError::Empty => f.write_str("a tool name cannot be empty"),
            ToolNameError::TooLong { len } => write!(
                f,
                "a tool name has at most {MAX_TOOL_NAME_LEN} characters, this one has {len}"
            ),
            ToolNameError::InvalidCharacter { found } => write!(
                f,
                "a tool name may only contain ASCII letters, digits, `_` and `-`, not {found:?}"
            ),
            ToolNameError::Reserved => write!(
                f,
                "`{DISCOVERY_TOOL_NAME}` and `{CALL_THROUGH_TOOL_NAME}` are reserved for lazytool's own tools"
            ),
        }
    }
}

impl std::error::Error for ToolNameError {}

/// Checks `name` against `^[a-zA-Z0-9_-]{1,64}$`, the strictest common rule of OpenAI,
/// Anthropic and Gemini, and against the reserved names of lazytool's own tools.
///
/// `#[tool]` applies the same rule at compile time; this check covers dynamic tools.
///
/// ```
/// use lazytool_runtime::{ToolNameError, validate_tool_name};
///
/// assert_eq!(validate_tool_name("get_products"), Ok(()));
/// assert_eq!(
///     validate_tool_name("get products"),
///     Err(ToolNameError::InvalidCharacter { found: ' ' })
/// );
/// ```
pub fn validate_tool_name(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    if name.len() > MAX_TOOL_NAME_LEN {
        return Err(ToolNameError::TooLong { len: name.len() });
    }
    if let Some(found) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(ToolNameError::InvalidCharacter { found });
    }
    if name == DISCOVERY_TOOL_NAME || name == CALL_THROUGH_TOOL_NAME {
        return Err(ToolNameError::Reserved);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_provider_safe_names() {
        for name in [
            "a",
            "get_products",
            "get-products",
            "Tool9",
            &"x".repeat(64),
        ] {
            assert_eq!(validate_tool_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn rejects_everything_else() {
        for name in [
            "",
            "has space",
            "dot.name",
            "café",
            &"x".repeat(65),
            DISCOVERY_TOOL_NAME,
            CALL_THROUGH_TOOL_NAME,
        ] {
            assert!(validate_tool_name(name).is_err(), "{name}");
        }
    }
}
