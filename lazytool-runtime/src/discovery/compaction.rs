//! Surviving context compaction: a marker that records the discovered tools in the summary
//! that replaces the discovery results.
//!
//! Markers are found in the texts of messages; which parts of a message are text is each
//! history format's business ([`provider`](crate::provider)).

use crate::call::DiscoveredSet;

const OPEN: &str = "<lazytool-discovered>";
const CLOSE: &str = "</lazytool-discovered>";

/// The marker text for `set` (signed when the server signs): put it in the message that
/// summarizes the compacted part of the conversation, and
/// [`Session::from_history`](crate::Session::from_history) restores the tools from it.
pub(crate) fn marker(set: &DiscoveredSet) -> String {
    let record = serde_json::to_string(set).unwrap_or_default();
    format!("{OPEN}{record}{CLOSE}")
}

/// Every marker in `text`, in order; markers that do not hold a discovered set are skipped.
pub(crate) fn markers_in(text: &str) -> impl Iterator<Item = DiscoveredSet> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let start = find_open(rest)?;
            let after = &rest[start + OPEN.len()..];
            let end = after.find(CLOSE)?;
            rest = &after[end + CLOSE.len()..];
            if let Ok(set) = serde_json::from_str::<DiscoveredSet>(&after[..end]) {
                return Some(set);
            }
        }
    })
}

/// Where the next marker opens in `text`: found by its first byte (a `memchr` search; every
/// message of a history is searched on every request of a stateless server).
fn find_open(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('<') {
        let at = from + offset;
        if text[at..].starts_with(OPEN) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip_and_broken_ones_are_skipped() {
        let mut signed = DiscoveredSet::new(["a", "b"]);
        signed.signature = Some("5ig".into());
        let text = format!(
            "Summary. {} and {} <lazytool-discovered>not json</lazytool-discovered> {}<lazytool-discovered>{{\"tools\": [\"cut\"]}}",
            marker(&signed),
            marker(&DiscoveredSet::new(["c"])),
            marker(&DiscoveredSet::new(["d"])),
        );
        let sets: Vec<DiscoveredSet> = markers_in(&text).collect();
        assert_eq!(
            sets,
            [signed, DiscoveredSet::new(["c"]), DiscoveredSet::new(["d"])]
        );
    }
}
