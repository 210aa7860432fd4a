//! What a registry knows of the tools it does not hold: [`Missing`], the sources it asks.

use std::fmt;
use std::sync::Arc;

use crate::source::ToolSource;

/// The sources a registry asks why a name is missing ([`ToolSource::missing_tool`]) and
/// what they cannot offer now ([`ToolSource::unavailable`]), in the order given.
#[derive(Clone, Default)]
pub(crate) struct Missing(Vec<Arc<dyn ToolSource>>);

impl Missing {
    pub(crate) fn push(&mut self, source: Arc<dyn ToolSource>) {
        self.0.push(source);
    }

    /// The first source's answer for `name`.
    pub(crate) fn why(&self, name: &str) -> Option<String> {
        self.0.iter().find_map(|source| source.missing_tool(name))
    }

    /// Every source's note on what it cannot offer now.
    pub(crate) fn notes(&self) -> Vec<String> {
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
