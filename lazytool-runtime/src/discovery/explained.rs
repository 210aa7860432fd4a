//! Names asked for that no tool has, whose source said why: [`Explained`].

use super::answer::{MAX_QUOTED_NAMES, quoted_list};

/// Who knows why a name no tool has is missing, and what a search cannot offer now: the
/// registry, from the sources it was given (the discovery layer knows neither).
pub(crate) trait Explains: Send + Sync {
    /// Why `name` is missing, when known.
    fn missing_tool(&self, name: &str) -> Option<String>;
    /// What cannot be offered now, one note per source that says so.
    fn unavailable(&self) -> Vec<String>;
}

/// The names a discovery asked for that are missing for a reason their source gave, grouped
/// by reason (a server that is down explains each of its names the same way).
#[derive(Default)]
pub(super) struct Explained<'a> {
    reasons: Vec<(String, Vec<&'a str>, usize)>,
}

impl<'a> Explained<'a> {
    /// Records `name` when `registry`'s sources know why it is missing; whether they did.
    pub(super) fn add(&mut self, name: &'a str, registry: &dyn Explains) -> bool {
        let Some(why) = registry.missing_tool(name) else {
            return false;
        };
        let full = self.reasons.len() >= MAX_QUOTED_NAMES;
        match self.reasons.iter_mut().find(|(reason, ..)| *reason == why) {
            Some((_, names, total)) => {
                *total += 1;
                if names.len() < MAX_QUOTED_NAMES {
                    names.push(name);
                }
            }
            // Past the limit the reason is left out, but the name is still no unknown tool.
            None if full => {}
            None => self.reasons.push((why, vec![name], 1)),
        }
        true
    }

    /// One error per reason: `'a' and 'b' are not available now: REASON.`
    pub(super) fn errors(&self) -> impl Iterator<Item = String> + '_ {
        self.reasons.iter().map(|(why, names, total)| {
            let verb = if *total == 1 { "is" } else { "are" };
            format!(
                "{} {verb} not available now: {}.",
                quoted_list(names, *total, usize::MAX),
                why.trim_end_matches('.')
            )
        })
    }
}
