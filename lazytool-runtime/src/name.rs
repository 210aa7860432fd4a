//! The rule every tool name obeys.

/// The name of the synthetic tool through which the model discovers lazy tools.
pub const DISCOVERY_TOOL_NAME: &str = "__lazy__tool__discovery__";

/// The longest tool name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Checks `name` against `^[a-zA-Z0-9_-]{1,64}$`, the strictest common rule of OpenAI,
/// Anthropic and Gemini, and against the reserved discovery tool name.
///
/// `#[tool]` applies the same rule at compile time; this check covers dynamic tools.
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a tool name cannot be empty".to_owned());
    }
    if name.len() > MAX_TOOL_NAME_LEN {
        return Err(format!(
            "a tool name has at most {MAX_TOOL_NAME_LEN} characters, this one has {}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "a tool name may only contain ASCII letters, digits, `_` and `-`, not {bad:?}"
        ));
    }
    if name == DISCOVERY_TOOL_NAME {
        return Err(format!(
            "`{DISCOVERY_TOOL_NAME}` is reserved for the discovery tool"
        ));
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
        ] {
            assert!(validate_tool_name(name).is_err(), "{name}");
        }
    }
}
