//! One run's figures as a JSON line, and a server process's memory from `/proc`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::flow::Flow;
use crate::run::RunOutcome;

/// One run of one server, mode and client count.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    pub server: String,
    pub flow: Flow,
    pub clients: usize,
    pub round: u32,
    /// The measured window.
    pub seconds: f64,
    /// Successful calls started in the window.
    pub calls: usize,
    pub errors: u64,
    pub requests_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The server's `VmRSS` and `VmHWM` (peak) after the run, in KiB.
    pub rss_kib: Option<u64>,
    pub peak_rss_kib: Option<u64>,
    pub error_samples: BTreeMap<String, u64>,
}

impl Record {
    /// The record of `outcome`; the memory of process `pid`, if given, read now.
    pub fn new(
        server: String,
        flow: Flow,
        clients: usize,
        round: u32,
        measured: Duration,
        outcome: RunOutcome,
        pid: Option<u32>,
    ) -> Self {
        let seconds = measured.as_secs_f64();
        let memory = pid.and_then(memory_kib);
        Record {
            server,
            flow,
            clients,
            round,
            seconds,
            calls: outcome.latencies.len(),
            errors: outcome.errors,
            requests_per_second: outcome.latencies.len() as f64 / seconds,
            p50_ms: percentile(&outcome.latencies, 0.50),
            p99_ms: percentile(&outcome.latencies, 0.99),
            rss_kib: memory.map(|(rss, _)| rss),
            peak_rss_kib: memory.map(|(_, peak)| peak),
            error_samples: outcome.error_samples,
        }
    }
}

/// The nearest-rank percentile of sorted `latencies`, in milliseconds (NaN when empty).
pub fn percentile(latencies: &[Duration], fraction: f64) -> f64 {
    if latencies.is_empty() {
        return f64::NAN;
    }
    let rank = (fraction * latencies.len() as f64).ceil() as usize;
    let index = rank.clamp(1, latencies.len()) - 1;
    latencies[index].as_secs_f64() * 1e3
}

/// `VmRSS` and `VmHWM` of process `pid`, in KiB.
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let latencies: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&latencies, 0.50), 50.0);
        assert_eq!(percentile(&latencies, 0.99), 99.0);
        assert_eq!(percentile(&latencies[..1], 0.99), 1.0);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn reads_this_process_memory() {
        let (rss, peak) = memory_kib(std::process::id()).expect("/proc/self/status");
        assert!(rss > 0 && peak >= rss);
    }
}
