//! The load generator of the peer benchmark (`bench/peer.sh`).
//!
//! ```sh
//! peer_load run --url http://127.0.0.1:PORT/mcp --server NAME --flow stateful --clients 8 \
//!     --seconds 2 [--warmup 0.5] [--round 1] [--pid SERVER_PID]      # one JSON line
//!     [--latencies FILE]           # also every measured call: start µs, latency µs
//! peer_load table RESULTS.jsonl        # the Markdown table (and the ceiling's, with `hyper`)
//! ```

mod answer;
mod ceiling;
mod connection;
mod flow;
mod record;
mod run;
mod table;

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::connection::Target;
use crate::flow::Flow;
use crate::record::Record;
use crate::run::RunPlan;

#[derive(Parser)]
#[command(
    about = "MCP streamable HTTP load: `add(a, b)` called back to back, every answer checked"
)]
struct Arguments {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// One run; prints its record as a JSON line.
    Run {
        /// The MCP endpoint, `http://HOST:PORT/PATH`.
        #[arg(long)]
        url: String,
        /// The server's name in the table.
        #[arg(long)]
        server: String,
        #[arg(long, value_enum)]
        flow: Flow,
        /// Concurrent clients, one connection each.
        #[arg(long)]
        clients: usize,
        /// The measured window, in seconds.
        #[arg(long)]
        seconds: f64,
        /// Calls before the measured window, in seconds.
        #[arg(long, default_value_t = 0.5)]
        warmup: f64,
        #[arg(long, default_value_t = 1)]
        round: u32,
        /// The server's process, whose memory is read after the run.
        #[arg(long)]
        pid: Option<u32>,
        /// Writes every measured call to this file, a line each: its start (µs after the
        /// measured window opened) and its latency (µs), tab-separated.
        #[arg(long)]
        latencies: Option<PathBuf>,
    },
    /// Prints the table of a file of records.
    Table { records: PathBuf },
}

fn main() -> Result<(), String> {
    match Arguments::parse().command {
        Command::Run {
            url,
            server,
            flow,
            clients,
            seconds,
            warmup,
            round,
            pid,
            latencies,
        } => {
            if clients == 0 {
                return Err("--clients must be at least 1".to_owned());
            }
            let plan = RunPlan {
                target: Target::parse(&url)?,
                flow,
                clients,
                warmup: seconds_arg("--warmup", warmup)?,
                measured: seconds_arg("--seconds", seconds)?,
            };
            let runtime = tokio::runtime::Runtime::new().map_err(|error| error.to_string())?;
            let outcome = runtime.block_on(run::run(&plan));
            if let Some(path) = latencies {
                write_timeline(&path, &outcome.timeline)?;
            }
            let record = Record::new(server, flow, clients, round, plan.measured, outcome, pid);
            println!(
                "{}",
                serde_json::to_string(&record).map_err(|error| error.to_string())?
            );
            Ok(())
        }
        Command::Table { records } => {
            let text = std::fs::read_to_string(&records)
                .map_err(|error| format!("{}: {error}", records.display()))?;
            let records = text
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| {
                    serde_json::from_str::<Record>(line)
                        .map_err(|error| format!("{}: {error}: {line}", records.display()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            print!("{}", table::table(&records));
            let ceiling = ceiling::ceiling_table(&records);
            if !ceiling.is_empty() {
                print!("\n{ceiling}");
            }
            Ok(())
        }
    }
}

/// `timeline` as tab-separated lines of microseconds: start, latency.
fn write_timeline(path: &Path, timeline: &[(Duration, Duration)]) -> Result<(), String> {
    let mut text = String::with_capacity(timeline.len() * 16);
    for (start, latency) in timeline {
        let _ = writeln!(text, "{}\t{}", start.as_micros(), latency.as_micros());
    }
    std::fs::write(path, text).map_err(|error| format!("{}: {error}", path.display()))
}

fn seconds_arg(name: &str, seconds: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("{name} {seconds}: not a number of seconds"))
}
