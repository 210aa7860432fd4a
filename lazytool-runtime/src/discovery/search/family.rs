//! Tool families: names that differ only by a version or a number at the end
//! (`get_weather`, `get_weather_v2`, `badge1`), which search keeps from filling every slot.

use super::fields::name_key;

/// The family of a tool name: its [`name_key`] without a trailing version (`_v2`, `-v10`,
/// `.3`) or number (`badge1`). A name that is only a number is its own family.
pub(super) fn family_key(name: &str) -> String {
    let without_number = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let without_version = match without_number.strip_suffix(['v', 'V']) {
        Some(rest) if rest.ends_with(['_', '-', '.']) => rest,
        _ => without_number,
    };
    let key = name_key(without_version);
    if key.is_empty() { name_key(name) } else { key }
}
