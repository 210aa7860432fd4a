//! Every server's requests/s as a share of the ceiling, the bare hyper server (`hyper_add`)
//! measured in the same rounds.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::flow::Flow;
use crate::record::Record;
use crate::table::{median, thousands};

/// The server name of the ceiling in the records (`peer.sh` runs `hyper_add` as `hyper`).
pub const CEILING: &str = "hyper";

/// The Markdown table of each other server and mode's requests/s as a share of the
/// ceiling's at the same client count: per round the ratio of the two, then the median over
/// the rounds, so that a round slowed by the machine slows both sides of its ratio. Empty
/// when the records hold no ceiling.
pub fn ceiling_table(records: &[Record]) -> String {
    let mut ceiling: BTreeMap<(usize, u32), f64> = BTreeMap::new();
    for record in records.iter().filter(|record| record.server == CEILING) {
        ceiling.insert((record.clients, record.round), record.requests_per_second);
    }
    if ceiling.is_empty() {
        return String::new();
    }
    let mut clients: Vec<usize> = ceiling.keys().map(|(clients, _)| *clients).collect();
    clients.dedup();
    let mut rows: Vec<(&str, Flow)> = Vec::new();
    let mut ratios: BTreeMap<(&str, u8, usize), Vec<f64>> = BTreeMap::new();
    for record in records.iter().filter(|record| record.server != CEILING) {
        let row = (record.server.as_str(), record.flow);
        if !rows.contains(&row) {
            rows.push(row);
        }
        if let Some(top) = ceiling.get(&(record.clients, record.round)) {
            ratios
                .entry((&record.server, flow_key(record.flow), record.clients))
                .or_default()
                .push(record.requests_per_second / top);
        }
    }
    rows.sort_by_key(|(_, flow)| flow_key(*flow));

    let mut out = String::from("| of the hyper ceiling |");
    let mut rule = String::from("|---|");
    for count in &clients {
        let _ = write!(
            out,
            " {count} client{} |",
            if *count == 1 { "" } else { "s" }
        );
        rule.push_str("---:|");
    }
    let _ = write!(out, "\n{rule}\n| **hyper** (requests/s) |");
    for count in &clients {
        let rps = median(
            ceiling
                .iter()
                .filter(|((at, _), _)| at == count)
                .map(|(_, rps)| *rps),
        );
        let _ = write!(out, " {} |", thousands(rps));
    }
    out.push('\n');
    for (server, flow) in rows {
        let _ = write!(out, "| {server} {} |", flow.label());
        for count in &clients {
            let cell = ratios
                .get(&(server, flow_key(flow), *count))
                .map(|ratios| median(ratios.iter().copied()))
                .map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}"));
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str(
        "\nEach cell: the server's requests/s divided by hyper's at the same client count in the same round, median over the rounds (hyper: its median requests/s).\n",
    );
    out
}

fn flow_key(flow: Flow) -> u8 {
    match flow {
        Flow::Stateful => 0,
        Flow::Sessionless => 1,
        Flow::Stateless => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(server: &str, flow: Flow, clients: usize, round: u32, rps: f64) -> Record {
        Record {
            server: server.to_owned(),
            flow,
            clients,
            round,
            seconds: 2.0,
            calls: 0,
            errors: 0,
            requests_per_second: rps,
            p50_ms: f64::NAN,
            p99_ms: f64::NAN,
            rss_kib: None,
            peak_rss_kib: None,
            error_samples: BTreeMap::new(),
        }
    }

    #[test]
    fn ratios_are_taken_per_round_then_the_median() {
        let records = [
            record("hyper", Flow::Stateless, 1, 1, 1000.0),
            record("lazytool", Flow::Stateful, 1, 1, 500.0),
            record("lazytool", Flow::Stateless, 1, 1, 800.0),
            record("hyper", Flow::Stateless, 1, 2, 2000.0),
            record("lazytool", Flow::Stateful, 1, 2, 1200.0),
            record("lazytool", Flow::Stateless, 1, 2, 1800.0),
            record("hyper", Flow::Stateless, 1, 3, 4000.0),
            record("lazytool", Flow::Stateful, 1, 3, 2800.0),
            record("lazytool", Flow::Stateless, 1, 3, 2400.0),
        ];
        let table = ceiling_table(&records);
        assert!(
            table.contains("| **hyper** (requests/s) | 2,000 |"),
            "{table}"
        );
        // Stateful ratios 0.5, 0.6, 0.7; stateless 0.8, 0.9, 0.6, whose median (0.8) is not
        // the ratio of the medians (1,800 / 2,000).
        assert!(table.contains("| lazytool stateful | 0.60 |"), "{table}");
        assert!(table.contains("| lazytool stateless | 0.80 |"), "{table}");
    }

    #[test]
    fn no_ceiling_no_table() {
        let records = [record("lazytool", Flow::Stateful, 1, 1, 500.0)];
        assert_eq!(ceiling_table(&records), "");
    }
}
