//! The ranking of search discovery on the GitHub MCP server's 117 tools: requests phrased as
//! users phrase them must find their tool in the top three.

use std::time::Instant;

use lazytool_runtime::{Registry, catalog_tools};
use lazytool_tests::github_queries::{LATER, TUNING};
use serde_json::{Value, json};

const CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");

fn catalog() -> Value {
    let text = std::fs::read_to_string(CATALOG).expect("data/github-mcp-tools.json");
    serde_json::from_str(&text).expect("a valid catalog")
}

fn lazy_registry(catalog: &Value) -> Registry {
    let tools = catalog_tools(catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })
        .expect("a valid catalog");
    Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()
        .expect("valid tools")
}

fn github_registry() -> Registry {
    lazy_registry(&catalog())
}

/// The share of `cases` whose tool is first, and in the top three.
fn hit_rates(
    registry: &Registry,
    cases: &[(&str, &str)],
    misses: &mut Vec<String>,
) -> (usize, usize) {
    let (mut first, mut top3) = (0, 0);
    for &(query, intended) in cases {
        assert!(
            registry.get(intended).is_some(),
            "{intended} is not in the catalog"
        );
        let found: Vec<&str> = registry
            .search(query, 3)
            .into_iter()
            .map(|tool| tool.name())
            .collect();
        first += usize::from(found.first() == Some(&intended));
        if found.contains(&intended) {
            top3 += 1;
        } else {
            misses.push(format!("{query:?}: wanted {intended}, got {found:?}"));
        }
    }
    (first, top3)
}

#[test]
fn finds_the_intended_tool_in_the_top_three() {
    let registry = github_registry();
    let mut misses = Vec::new();
    let mut total = (0, 0, 0);
    for (label, cases) in [("tuning", TUNING), ("later", LATER)] {
        let (first, top3) = hit_rates(&registry, cases, &mut misses);
        println!(
            "{label}: top-1 {first}/{n}, top-3 {top3}/{n}",
            n = cases.len()
        );
        total = (total.0 + first, total.1 + top3, total.2 + cases.len());
    }
    let (first, top3, count) = total;
    println!("misses:\n  {}", misses.join("\n  "));
    let rate = top3 as f64 / count as f64;
    println!(
        "all: top-1 {first}/{count} ({:.1}%), top-3 {top3}/{count} ({:.1}%)",
        100.0 * first as f64 / count as f64,
        100.0 * rate
    );
    assert!(rate >= 0.95, "top-3 hit rate {rate:.3} is below 0.95");
}

#[test]
fn scales_to_ten_thousand_tools() {
    let catalog = catalog();
    let tools = catalog["tools"].as_array().expect("a tools array");
    let copies: Vec<Value> = (0..10_000)
        .map(|i| {
            let mut tool = tools[i % tools.len()].clone();
            tool["name"] = json!(format!("{}_{i}", tool["name"].as_str().unwrap_or_default()));
            tool
        })
        .collect();
    let registry = lazy_registry(&json!({"tools": copies}));
    let started = Instant::now();
    let found = registry.search("show me the open PRs in my repo", 5);
    println!("built and searched in {:?}", started.elapsed());
    assert_eq!(found.len(), 5);
    let name = copies[4242]["name"].as_str().unwrap_or_default();
    let found: Vec<&str> = registry
        .search(name, 1)
        .into_iter()
        .map(|tool| tool.name())
        .collect();
    assert_eq!(found, [name]);
}
