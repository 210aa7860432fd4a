//! Code mode's benchmark (issue 37, item 6): `bash bench/code_mode.sh [--tasks | --costs]
//! [CATALOG.json]`. The README next to this file says what is measured and how.

mod conversation;
mod costs;
mod github;
mod tasks;
mod ways;

use lazytool_runtime::{Registry, catalog_tools};
use serde_json::Value;

use ways::{WAYS, Way};

fn registry(catalog: &Value, lazy: bool) -> Result<Registry, String> {
    let tools = catalog_tools(catalog, |name, arguments: Value, _| async move {
        Ok::<_, String>(github::answer(&name, &arguments))
    })
    .map_err(|error| error.to_string())?;
    Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(lazy)))
        .build()
        .map_err(|error| error.to_string())
}

async fn tasks(catalog: &Value) -> Result<(), String> {
    let (eager, lazy) = (registry(catalog, false)?, registry(catalog, true)?);
    println!("| task | eager | lazy names | lazy search | code mode | code / names |");
    println!("|---|---|---|---|---|---|");
    let mut totals = [(0usize, 0usize); 4];
    for task in tasks::all() {
        let mut row = format!("| {} |", task.name);
        for (index, way) in WAYS.into_iter().enumerate() {
            let cost = ways::solve(&task, way, &eager, &lazy).await;
            if !cost.errors.is_empty() {
                return Err(format!(
                    "{} ({}): {}",
                    task.name,
                    way.label(),
                    cost.errors.join("; ")
                ));
            }
            totals[index].0 += cost.tokens;
            totals[index].1 += cost.requests;
            row.push_str(&format!(" {} / {} |", cost.tokens, cost.requests));
        }
        let names = row_tokens(&row, Way::Names);
        let code = row_tokens(&row, Way::Code);
        row.push_str(&format!(" {:.0}% |", 100.0 * code as f64 / names as f64));
        println!("{row}");
    }
    let mut row = "| **total** |".to_owned();
    for (tokens, requests) in totals {
        row.push_str(&format!(" **{tokens} / {requests}** |"));
    }
    row.push_str(&format!(
        " **{:.0}%** |",
        100.0 * totals[3].0 as f64 / totals[1].0 as f64
    ));
    println!("{row}");
    println!("\n(tokens in context summed over every request, o200k_base / model round trips)");
    Ok(())
}

/// The tokens of `way` in a row being written (`| name | t / r | ...`).
fn row_tokens(row: &str, way: Way) -> usize {
    let index = WAYS.iter().position(|w| *w == way).unwrap_or(0);
    (row.split('|').nth(index + 2))
        .and_then(|cell| cell.split('/').next())
        .and_then(|tokens| tokens.trim().parse().ok())
        .unwrap_or(0)
}

/// Both runners' costs, measured in turn in this run.
async fn costs() -> Result<(), String> {
    use lazytool_runtime::CodeMode;
    let in_process = costs::measure(CodeMode::in_process()).await?;
    let worker = costs::measure(CodeMode::new()).await?;
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    let us = |time: std::time::Duration| time.as_secs_f64() * 1e6;
    println!("| cost | in process | in worker processes | target (workers) |");
    println!("|---|---|---|---|");
    println!(
        "| a script's start (`return 1`), p50 | {:.0} µs | {:.0} µs | ≤ 1 ms |",
        us(in_process.start_p50),
        us(worker.start_p50)
    );
    println!(
        "| a tool call from a script (scripts of 50 calls less the start, p50) | {:.2} µs | {:.2} µs | ≤ 25 µs |",
        us(in_process.per_call_from_script),
        us(worker.per_call_from_script)
    );
    println!(
        "| the same call made directly, p50 | {:.2} µs | {:.2} µs | |",
        us(in_process.direct_call_p50),
        us(worker.direct_call_p50)
    );
    println!(
        "| the engine's floor: a script's own function returning a promise, awaited, p50 | {:.2} µs | {:.2} µs | |",
        us(in_process.engine_floor),
        us(worker.engine_floor)
    );
    println!(
        "| a busy loop ends after its wall time (100 ms), p50 of 10 | {:.1} ms | {:.1} ms | |",
        in_process.busy_loop_late_p50.as_secs_f64() * 1e3,
        worker.busy_loop_late_p50.as_secs_f64() * 1e3
    );
    println!(
        "| `Array.prototype.join.call({{length: 2 ** 53 - 1}})` (QuickJS polls no interrupt) ends after its wall time (100 ms), p50 of 10 | never (runs to its end) | {:.1} ms | wall time + a short grace |",
        worker.builtin_late_p50.unwrap_or_default().as_secs_f64() * 1e3
    );
    println!(
        "| 100 concurrent scripts (1,000 objects each, all awaiting a tool): PSS of the process and its workers | {:.1} MiB ({:.1} MiB more) | {:.1} MiB ({:.1} MiB more; {} workers) | ≤ 600 MiB |",
        mib(in_process.pss_with_scripts),
        mib(in_process.pss_with_scripts.saturating_sub(in_process.pss_before)),
        mib(worker.pss_with_scripts),
        mib(worker.pss_with_scripts.saturating_sub(worker.pss_before)),
        worker.workers
    );
    Ok(())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = |flag: &str| args.iter().any(|arg| arg == flag);
    let path = (args.iter().find(|arg| !arg.starts_with("--")).cloned())
        .unwrap_or_else(|| "data/github-mcp-tools.json".to_owned());
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    let catalog: Value = serde_json::from_str(&text).map_err(|error| format!("{path}: {error}"))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(async {
        if !only("--costs") {
            tasks(&catalog).await?;
        }
        if !only("--tasks") {
            println!();
            costs().await?;
        }
        Ok(())
    })
}
