//! What a registry knows of the tools it does not hold: [`Missing`], the sources it asks.

use std::fmt;
use std::sync::Arc;

use crate::discovery::Explains;

/// One source a registry asks why a name is missing: a [`ToolSource`](crate::source::ToolSource)
/// given to [`RegistryBuilder::explain_missing`](crate::RegistryBuilder::explain_missing).
pub(crate) trait MissingSource: Send + Sync {
    /// The source's name, for `Debug`.
    fn name(&self) -> &str;
    /// Why `name` is missing, when the source knows.
    fn missing_tool(&self, name: &str) -> Option<String>;
    /// What the source cannot offer now.
    fn unavailable(&self) -> Option<String>;
}

/// The sources a registry asks why a name is missing and what they cannot offer now, in the
/// order given.
#[derive(Clone, Default)]
pub(crate) struct Missing(Vec<Arc<dyn MissingSource>>);

impl Missing {
    pub(crate) fn push(&mut self, source: Arc<dyn MissingSource>) {
        self.0.push(source);
    }
}

impl Explains for Missing {
    /// The first source's answer for `name`.
    fn missing_tool(&self, name: &str) -> Option<String> {
        self.0.iter().find_map(|source| source.missing_tool(name))
    }

    /// Every source's note on what it cannot offer now.
    fn unavailable(&self) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|source| source.unavailable())
            .collect()
    }
}

impl fmt::Debug for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|source| source.name()))
            .finish()
    }
}
