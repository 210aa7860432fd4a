//! Tools tokens per request, eager vs names mode vs search mode, as an SVG line chart.
//!
//! `cargo run --release --example token_plot -- CATALOG.json OUT.svg`
//!
//! The conversation is `token_report`'s: every tool of the catalog lazy, 10 requests, the
//! first 5 tools of the catalog discovered (1 after request 1, 2 after request 2, 2 after
//! request 5). Each point is the `o200k_base` token count of the OpenAI Chat `tools` JSON
//! that request carries (discovery results, which travel as messages, are not in it). In
//! search mode the same tools are found through `{"query", "limit": 1}` calls (the words of
//! the tool's name); a query that would not find its tool falls back to `toolNames`.

use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{
    DISCOVERY_TOOL_NAME, DiscoveryMode, Registry, Session, SessionOptions, ToolDefinition,
    catalog_tools,
};
use plotters::prelude::*;
use serde_json::{Value, json};

/// Discoveries made after request `k` (1-based): indices into the catalog.
const SCHEDULE: [(usize, std::ops::Range<usize>); 3] = [(1, 0..1), (2, 1..3), (5, 3..5)];
const REQUESTS: usize = 10;

fn tokens(tools: &[ToolDefinition]) -> usize {
    if tools.is_empty() {
        return 0;
    }
    count_json_tokens(&openai_chat::render_tools(
        tools,
        &OpenAiChatOptions::default(),
    ))
}

/// Discovers `name` in a search-mode session through a query, or through `toolNames` when
/// the query does not find it.
async fn discover_by_search(session: &Session, name: &str) {
    let query = name.replace(['_', '-'], " ");
    session
        .call(DISCOVERY_TOOL_NAME, json!({"query": query, "limit": 1}))
        .await;
    if !session.discovered().tools.iter().any(|found| found == name) {
        eprintln!("token_plot: the query {query:?} did not find {name}; using toolNames");
        session
            .call(DISCOVERY_TOOL_NAME, json!({"toolNames": [name]}))
            .await;
    }
}

/// The tools tokens of each of the 10 requests in `mode`.
async fn per_request(registry: &Registry, order: &[String], mode: DiscoveryMode) -> Vec<usize> {
    let search = mode == DiscoveryMode::Search;
    let session = registry.session_with(SessionOptions::new().mode(mode));
    let mut counts = Vec::with_capacity(REQUESTS);
    for request in 1..=REQUESTS {
        counts.push(tokens(&session.active_tools()));
        for (after, range) in SCHEDULE.iter().cloned() {
            if after != request {
                continue;
            }
            let wanted = &order[range];
            if search {
                for name in wanted {
                    discover_by_search(&session, name).await;
                }
            } else {
                session
                    .call(DISCOVERY_TOOL_NAME, json!({ "toolNames": wanted }))
                    .await;
            }
        }
    }
    counts
}

fn load(path: &str) -> Result<(Registry, Vec<String>), Box<dyn std::error::Error>> {
    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let tools = catalog_tools(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })?;
    let order: Vec<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
    if order.len() < 5 {
        return Err("the conversation needs a catalog of at least 5 tools".into());
    }
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()?;
    Ok((registry, order))
}

/// `12345` as `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn plot(
    out: &str,
    tool_count: usize,
    lines: &[(&str, RGBColor, &[usize])],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(out, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = lines
        .iter()
        .flat_map(|(_, _, counts)| counts.iter())
        .copied()
        .max()
        .unwrap_or(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Tools tokens per request, {tool_count} tools (OpenAI Chat, o200k_base)"),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(
            0.5f64..REQUESTS as f64 + 0.5,
            (50f64..top * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_labels(REQUESTS)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| thousands(*y as usize))
        .x_desc("request (5 tools discovered: 1 after request 1, 2 after 2, 2 after 5)")
        .y_desc("tokens (log scale)")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    for &(label, color, counts) in lines {
        let points: Vec<(f64, f64)> = (1..)
            .zip(counts)
            .map(|(request, &count)| (f64::from(request), count as f64))
            .collect();
        let total: usize = counts.iter().sum();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))?
            .label(format!(
                "{label}: {} in {REQUESTS} requests",
                thousands(total)
            ))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], color.stroke_width(3)));
        chart.draw_series(
            points
                .iter()
                .map(|&point| Circle::new(point, 4, color.filled())),
        )?;
        // The first and last counts, above their points (below for the lowest line).
        for &(x, y) in [points.first(), points.last()].into_iter().flatten() {
            let text = thousands(y as usize);
            let lowest = lines
                .iter()
                .all(|(_, _, other)| other[x as usize - 1] as f64 >= y);
            let offset = if lowest { (-16, 10) } else { (-16, -22) };
            chart.draw_series(std::iter::once(
                EmptyElement::at((x, y))
                    + Text::new(text, offset, ("sans-serif", 14).into_font().color(&color)),
            ))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: token_plot CATALOG.json OUT.svg".into());
    };
    let (registry, order) = load(&path)?;
    let every_tool: Vec<ToolDefinition> = registry.tools().map(|tool| tool.definition()).collect();
    let eager = vec![tokens(&every_tool); REQUESTS];
    let names = per_request(&registry, &order, DiscoveryMode::Names).await;
    let search = per_request(&registry, &order, DiscoveryMode::Search).await;

    println!("| request | eager | names | search |");
    println!("|---:|---:|---:|---:|");
    for request in 0..REQUESTS {
        println!(
            "| {} | {} | {} | {} |",
            request + 1,
            eager[request],
            names[request],
            search[request]
        );
    }
    let lines: [(&str, RGBColor, &[usize]); 3] = [
        ("eager", RGBColor(200, 55, 45), &eager),
        ("names mode", RGBColor(40, 100, 190), &names),
        ("search mode", RGBColor(30, 150, 80), &search),
    ];
    plot(&out, registry.len(), &lines)?;
    println!("token_plot: wrote {out}");
    Ok(())
}
