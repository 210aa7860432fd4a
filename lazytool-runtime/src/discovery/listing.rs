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
    /// Bare names: `[compareProducts, calculateFinancing]` (TanStack AI's format; the
    /// cheapest).
    #[default]
    Names,
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
            DiscoveryListing::FirstSentence => lines(lazy, |t| first_sentence(t.description())),
            DiscoveryListing::FullDescription => lines(lazy, |t| t.description().trim()),
        }
    }
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
