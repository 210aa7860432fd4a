//! How the names-mode discovery tool lists the lazy tools: [`DiscoveryListing`].

use crate::tool::Tool;

/// How the discovery tool's description lists the lazy tools.
///
/// ```
/// use lazytool_runtime::{DiscoveryListing, SessionOptions};
///
/// let options = SessionOptions::new().listing(DiscoveryListing::FirstSentence);
/// # let _ = options;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiscoveryListing {
    /// Bare names: `[compareProducts, calculateFinancing]` (TanStack AI's format).
    #[default]
    Names,
    /// Bare names, with names that share a `PREFIX__` written as the prefix once and the
    /// rest in braces: `[getProducts, github__{create_issue, get_me}]`, and a note saying
    /// what the braces mean. For tools from MCP servers (named `SERVER__TOOL`), whose
    /// prefix would otherwise cost about two tokens per name; without such names it is
    /// exactly [`Names`](DiscoveryListing::Names). The discovery tool also takes the
    /// grouped form back (`github__{create_issue, get_me}`), and a unique short name
    /// (`create_issue`) in any listing.
    GroupedNames,
    /// Each name with the first sentence of its description, one per line.
    FirstSentence,
    /// Each name with its whole description, one per line.
    FullDescription,
}

impl DiscoveryListing {
    /// The catalog part of the discovery tool's description for `lazy` (in name order).
    pub(super) fn render(self, lazy: &[&Tool]) -> String {
        match self {
            DiscoveryListing::Names => format!(
                "[{}]",
                lazy.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
            ),
            DiscoveryListing::GroupedNames => grouped(lazy.iter().map(|t| t.name())),
            DiscoveryListing::FirstSentence => lines(lazy, |t| first_sentence(t.description())),
            DiscoveryListing::FullDescription => lines(lazy, |t| t.description().trim()),
        }
    }
}

/// `[a, p__{b, c}]` (names in name order, so a prefix's names are adjacent), with a note
/// when anything was grouped.
fn grouped<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut rest = names.peekable();
    let mut any_group = false;
    while let Some(name) = rest.next() {
        let Some(prefix) = prefix_of(name) else {
            items.push(name.to_owned());
            continue;
        };
        let mut members = vec![&name[prefix.len()..]];
        while let Some(next) = rest.next_if(|next| prefix_of(next) == Some(prefix)) {
            members.push(&next[prefix.len()..]);
        }
        if members.len() == 1 {
            items.push(name.to_owned());
        } else {
            any_group = true;
            items.push(format!("{prefix}{{{}}}", members.join(", ")));
        }
    }
    let list = format!("[{}]", items.join(", "));
    match any_group {
        true => format!("{list} (`s__{{a, b}}` stands for s__a, s__b)"),
        false => list,
    }
}

/// `p__` of `p__rest`, when both parts are non-empty.
fn prefix_of(name: &str) -> Option<&str> {
    let end = name.find("__")? + 2;
    (end > 2 && end < name.len()).then(|| &name[..end])
}

fn lines(tools: &[&Tool], text: impl Fn(&Tool) -> &str) -> String {
    tools
        .iter()
        .map(|tool| format!("\n- {}: {}", tool.name(), text(tool)))
        .collect()
}

/// The description up to the end of its first sentence (or first line).
pub(crate) fn first_sentence(description: &str) -> &str {
    let text = description.trim();
    let line_end = text.find('\n').unwrap_or(text.len());
    let line = &text[..line_end];
    match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_names_write_a_shared_prefix_once() {
        let names = ["__x", "a", "gh__get_me", "gh__list", "git__status", "m__"];
        assert_eq!(
            grouped(names.into_iter()),
            "[__x, a, gh__{get_me, list}, git__status, m__] (`s__{a, b}` stands for s__a, s__b)"
        );
        assert_eq!(grouped(names[..2].iter().copied()), "[__x, a]");
    }

    #[test]
    fn first_sentences() {
        assert_eq!(first_sentence("Gets a product. By id."), "Gets a product.");
        assert_eq!(first_sentence("Gets a product\nby id."), "Gets a product");
        assert_eq!(
            first_sentence("  Version 1.2 of it. More."),
            "Version 1.2 of it."
        );
        assert_eq!(first_sentence(""), "");
    }
}
