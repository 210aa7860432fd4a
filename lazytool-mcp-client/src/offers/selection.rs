//! Which upstream tools a gateway offers, and which of them are eager: [`ToolSelection`].

use glob::Pattern;

/// Glob patterns (`*`, `?`, `[abc]`) over an upstream server's own tool names (before
/// prefixing): a tool is offered when it matches some `allow` pattern (or none are given) and
/// no `deny` pattern; it is eager when it matches an `eager` pattern, lazy otherwise.
///
/// ```
/// use lazytool_mcp_client::ToolSelection;
///
/// let selection = ToolSelection::new()
///     .allow(["read_*", "list_*"]).unwrap()
///     .deny(["read_secret*"]).unwrap()
///     .eager(["list_*"]).unwrap();
/// assert!(selection.offers("read_file") && !selection.offers("read_secrets"));
/// assert!(!selection.offers("write_file"));
/// assert!(selection.is_eager("list_directory") && !selection.is_eager("read_file"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ToolSelection {
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
    eager: Vec<Pattern>,
}

/// A glob pattern that does not parse: the pattern and why.
///
/// ```
/// use lazytool_mcp_client::ToolSelection;
///
/// let error = ToolSelection::new().allow(["[read"]).unwrap_err();
/// assert!(error.to_string().starts_with("invalid pattern `[read`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid pattern `{}`: {}", self.pattern, self.message)
    }
}

impl std::error::Error for PatternError {}

impl ToolSelection {
    /// Every tool offered, every tool lazy.
    pub fn new() -> Self {
        ToolSelection::default()
    }

    /// Offers only the tools matching one of `patterns` (added to earlier ones).
    pub fn allow<S: AsRef<str>>(
        mut self,
        patterns: impl IntoIterator<Item = S>,
    ) -> Result<Self, PatternError> {
        self.allow.extend(parse(patterns)?);
        Ok(self)
    }

    /// Never offers the tools matching one of `patterns`.
    pub fn deny<S: AsRef<str>>(
        mut self,
        patterns: impl IntoIterator<Item = S>,
    ) -> Result<Self, PatternError> {
        self.deny.extend(parse(patterns)?);
        Ok(self)
    }

    /// Makes the tools matching one of `patterns` eager (sent on every request).
    pub fn eager<S: AsRef<str>>(
        mut self,
        patterns: impl IntoIterator<Item = S>,
    ) -> Result<Self, PatternError> {
        self.eager.extend(parse(patterns)?);
        Ok(self)
    }

    /// Whether the upstream tool `name` is offered.
    pub fn offers(&self, name: &str) -> bool {
        (self.allow.is_empty() || matches(&self.allow, name)) && !matches(&self.deny, name)
    }

    /// Whether the upstream tool `name` is eager.
    pub fn is_eager(&self, name: &str) -> bool {
        matches(&self.eager, name)
    }
}

/// Parses each pattern; every pattern that fails is checked, the first failure returned.
pub(crate) fn parse<S: AsRef<str>>(
    patterns: impl IntoIterator<Item = S>,
) -> Result<Vec<Pattern>, PatternError> {
    patterns
        .into_iter()
        .map(|pattern| {
            let pattern = pattern.as_ref();
            Pattern::new(pattern).map_err(|error| PatternError {
                pattern: pattern.to_owned(),
                message: error.msg.to_owned(),
            })
        })
        .collect()
}

fn matches(patterns: &[Pattern], name: &str) -> bool {
    patterns.iter().any(|pattern| pattern.matches(name))
}
