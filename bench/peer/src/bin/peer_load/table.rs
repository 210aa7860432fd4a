//! The table of every run: per server, mode and client count, the median over rounds.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::flow::Flow;
use crate::record::Record;

/// The Markdown table of `records` (rows by mode, then clients, then server in the order
/// first seen), and a line per error message.
pub fn table(records: &[Record]) -> String {
    let mut servers: Vec<&str> = Vec::new();
    for record in records {
        if !servers.contains(&record.server.as_str()) {
            servers.push(&record.server);
        }
    }
    let mut cells: BTreeMap<(u8, usize, usize), Vec<&Record>> = BTreeMap::new();
    for record in records {
        let server = servers
            .iter()
            .position(|name| *name == record.server)
            .unwrap_or(0);
        cells
            .entry((flow_order(record.flow), record.clients, server))
            .or_default()
            .push(record);
    }
    let mut out = String::new();
    out.push_str("| server | mode | clients | requests/s | min-max | p50 ms | p99 ms | errors / calls | RSS MiB (peak) |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    let mut errors = String::new();
    for runs in cells.values() {
        let Some(first) = runs.first() else { continue };
        let rps = median(runs.iter().map(|run| run.requests_per_second));
        let (slowest, fastest) = runs
            .iter()
            .map(|run| run.requests_per_second)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), rps| {
                (low.min(rps), high.max(rps))
            });
        let p50 = median(runs.iter().map(|run| run.p50_ms));
        let p99 = median(runs.iter().map(|run| run.p99_ms));
        let failed: u64 = runs.iter().map(|run| run.errors).sum();
        let calls: usize = runs.iter().map(|run| run.calls).sum();
        let last = runs.iter().max_by_key(|run| run.round).unwrap_or(first);
        let memory = match (
            last.rss_kib,
            runs.iter().filter_map(|run| run.peak_rss_kib).max(),
        ) {
            (Some(rss), Some(peak)) => format!("{:.1} ({:.1})", mib(rss), mib(peak)),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {}-{} | {} | {} | {failed} / {} | {memory} |",
            first.server,
            first.flow.label(),
            first.clients,
            thousands(rps),
            thousands(slowest),
            thousands(fastest),
            fixed(p50),
            fixed(p99),
            thousands(calls as f64),
        );
        for run in runs {
            for (message, count) in &run.error_samples {
                let _ = writeln!(
                    errors,
                    "- {} {} {} clients, round {}: {count}x {message}",
                    run.server,
                    run.flow.label(),
                    run.clients,
                    run.round
                );
            }
        }
    }
    let rounds = records.iter().map(|record| record.round).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "\nMedians of {rounds} interleaved round(s) of {} s each (requests/s: successful calls in the window; min-max over the rounds); errors and calls summed over the rounds; RSS after the last round, peak over all.",
        records.first().map_or(0.0, |record| record.seconds)
    );
    if !errors.is_empty() {
        out.push_str("\nErrors (first distinct messages of each run):\n");
        out.push_str(&errors);
    }
    out
}

fn flow_order(flow: Flow) -> u8 {
    match flow {
        Flow::Stateful => 0,
        Flow::Sessionless => 1,
        Flow::Stateless => 2,
    }
}

pub fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.filter(|value| !value.is_nan()).collect();
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Milliseconds with three significant figures, or `-`.
fn fixed(ms: f64) -> String {
    match ms {
        ms if ms.is_nan() => "-".to_owned(),
        ms if ms < 1.0 => format!("{ms:.3}"),
        ms if ms < 10.0 => format!("{ms:.2}"),
        ms if ms < 100.0 => format!("{ms:.1}"),
        ms => format!("{ms:.0}"),
    }
}

/// A whole number with thousands separators (`12,345`).
pub fn thousands(value: f64) -> String {
    if value.is_nan() {
        return "-".to_owned();
    }
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_figures() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(fixed(0.1834), "0.183");
        assert_eq!(fixed(44.02), "44.0");
        assert_eq!(median([3.0, 1.0, 2.0].into_iter()), 2.0);
        assert_eq!(median([4.0, 1.0].into_iter()), 2.5);
    }
}
