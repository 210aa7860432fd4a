//! How a name the model asked for meets the lazy tools' names when it is none of them: a
//! unique short name (`create_issue` for `github__create_issue`), and otherwise the closest
//! names to offer instead.

use std::collections::HashMap;

use crate::tool::MAX_TOOL_NAME_LEN;

/// How many names an unknown name's error offers.
pub(super) const MAX_CLOSEST: usize = 10;

/// The lazy tools' names by their short name: the part after a `PREFIX__` (the `SERVER__`
/// of tools from MCP servers).
pub(super) struct ShortNames {
    /// Indices into the lazy names, in name order.
    by_short: HashMap<String, Vec<usize>>,
}

/// What a short name stands for.
pub(super) enum Short<'n> {
    None,
    One(&'n str),
    /// Several tools end that way: the model must say which.
    Many(Vec<&'n str>),
}

impl ShortNames {
    pub(super) fn new(names: &[String]) -> Self {
        let mut by_short: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, name) in names.iter().enumerate() {
            if let Some(short) = short_name(name) {
                by_short.entry(short.to_owned()).or_default().push(index);
            }
        }
        ShortNames { by_short }
    }

    /// The full names `short` is the short name of.
    pub(super) fn resolve<'n>(&self, short: &str, names: &'n [String]) -> Short<'n> {
        let full = |index: &usize| names.get(*index).map(String::as_str);
        match self.by_short.get(short).map(Vec::as_slice) {
            None | Some([]) => Short::None,
            Some([one]) => full(one).map_or(Short::None, Short::One),
            Some(many) => Short::Many(many.iter().filter_map(full).collect()),
        }
    }
}

/// `rest` of `prefix__rest`, when both parts are non-empty.
pub(super) fn short_name(name: &str) -> Option<&str> {
    let (prefix, rest) = name.split_once("__")?;
    (!prefix.is_empty() && !rest.is_empty()).then_some(rest)
}

/// The names of `names` closest to each of `requested` (at most [`MAX_CLOSEST`] in all,
/// the best match of each requested name first, then the second best of each, ...).
/// Each name is compared whole and by its short name, case aside; a name holding the
/// requested one (or held by it) comes before others.
pub(super) fn closest<'n>(requested: &[&str], names: &'n [String]) -> Vec<&'n str> {
    let ranked: Vec<Vec<&str>> = requested
        .iter()
        .map(|wanted| ranked(wanted, names))
        .collect();
    let mut chosen: Vec<&str> = Vec::new();
    for rank in 0..MAX_CLOSEST {
        for list in &ranked {
            if let Some(name) = list.get(rank)
                && !chosen.contains(name)
                && chosen.len() < MAX_CLOSEST
            {
                chosen.push(name);
            }
        }
    }
    chosen
}

/// The [`MAX_CLOSEST`] names most like `wanted`, best first.
fn ranked<'n>(wanted: &str, names: &'n [String]) -> Vec<&'n str> {
    // A name is at most this long: a longer request is no name, and costs no more.
    let wanted: String = wanted
        .chars()
        .take(MAX_TOOL_NAME_LEN)
        .collect::<String>()
        .to_lowercase();
    let mut scored: Vec<(f64, &str)> = names
        .iter()
        .map(|name| (similarity(&wanted, &name.to_lowercase()), name.as_str()))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.truncate(MAX_CLOSEST);
    scored.into_iter().map(|(_, name)| name).collect()
}

/// From 0 (nothing alike) to 2: Jaro-Winkler similarity to the name or its short name,
/// plus one when either holds the other.
fn similarity(wanted: &str, name: &str) -> f64 {
    let short = short_name(name).unwrap_or(name);
    let alike = strsim::jaro_winkler(wanted, name).max(strsim::jaro_winkler(wanted, short));
    let holds = wanted.len() >= 3 && (short.contains(wanted) || wanted.contains(short));
    alike + f64::from(u8::from(holds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn short_names_resolve_when_unique() {
        let names = names(&[
            "github__create_issue",
            "github__get_me",
            "gitlab__get_me",
            "plain",
            "__odd",
            "time__get__now",
        ]);
        let short = ShortNames::new(&names);
        assert!(matches!(
            short.resolve("create_issue", &names),
            Short::One("github__create_issue")
        ));
        assert!(matches!(
            short.resolve("get__now", &names),
            Short::One("time__get__now")
        ));
        let Short::Many(both) = short.resolve("get_me", &names) else {
            panic!("two tools end in get_me");
        };
        assert_eq!(both, ["github__get_me", "gitlab__get_me"]);
        for none in ["plain", "odd", "issue"] {
            assert!(matches!(short.resolve(none, &names), Short::None), "{none}");
        }
    }

    #[test]
    fn the_closest_names_come_first_and_are_bounded() {
        let mut list: Vec<String> = (0..50).map(|i| format!("other__tool_{i}")).collect();
        list.extend(names(&[
            "github__create_issue",
            "github__update_issue",
            "github__create_pull_request",
        ]));
        let found = closest(&["creat_issue"], &list);
        assert_eq!(found.len(), MAX_CLOSEST);
        assert_eq!(found[0], "github__create_issue");
        let found = closest(&["issue"], &list);
        assert_eq!(found[..2], ["github__create_issue", "github__update_issue"]);
        // Each requested name gets its best match first.
        let found = closest(&["creat_issue", "pull_request"], &list);
        assert_eq!(
            found[..2],
            ["github__create_issue", "github__create_pull_request"]
        );
        assert!(closest(&["x"], &[]).is_empty());
    }
}
