//! The three engines over one catalog: lazytool's search, plain Okapi BM25 and tantivy.

use std::collections::HashMap;

use lazytool_runtime::{Registry, catalog_tools};
use serde_json::{Value, json};

use crate::data::CatalogTool;
use crate::plain_bm25::PlainBm25;
use crate::tantivy_engine::TantivyEngine;

pub const NAMES: [&str; 3] = [
    "lazytool",
    "plain Okapi BM25, same text",
    "tantivy 0.27, BM25, `en_stem`, same text",
];

pub struct Engines<'c> {
    catalog: &'c [CatalogTool],
    registry: Registry,
    positions: HashMap<String, usize>,
    plain: PlainBm25,
    tantivy: TantivyEngine,
}

impl<'c> Engines<'c> {
    pub fn new(catalog: &'c [CatalogTool]) -> Result<Engines<'c>, String> {
        let listing = json!({"tools": catalog.iter().map(|tool| json!({
            "name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
        })).collect::<Vec<Value>>()});
        let tools = catalog_tools(&listing, |_, _, _| async { Ok::<_, String>(Value::Null) })
            .map_err(|error| error.to_string())?;
        let registry = Registry::builder()
            .without_inventory()
            .tools(tools.into_iter().map(|tool| tool.lazy(true)))
            .build()
            .map_err(|error| error.to_string())?;
        let texts: Vec<String> = catalog.iter().map(CatalogTool::text).collect();
        let plain = PlainBm25::new(&texts);
        let tantivy = TantivyEngine::new(&texts).map_err(|error| error.to_string())?;
        let positions = catalog
            .iter()
            .enumerate()
            .map(|(at, tool)| (tool.name.clone(), at))
            .collect();
        Ok(Engines {
            catalog,
            registry,
            positions,
            plain,
            tantivy,
        })
    }

    /// Each engine's names for `query`, best first, at most `limit`.
    pub fn rank(&mut self, query: &str, limit: usize) -> Result<[Vec<&'c str>; 3], String> {
        let catalog = self.catalog;
        let names = |ranked: Vec<usize>| -> Vec<&'c str> {
            ranked
                .into_iter()
                .filter_map(|at| catalog.get(at))
                .map(|tool| tool.name.as_str())
                .collect()
        };
        let lazytool = names(
            self.registry
                .search(query, limit)
                .into_iter()
                .filter_map(|tool| self.positions.get(tool.name()).copied())
                .collect(),
        );
        let plain = names(self.plain.search(query, limit));
        let tantivy = names(
            self.tantivy
                .search(query, limit)
                .map_err(|error| error.to_string())?,
        );
        Ok([lazytool, plain, tantivy])
    }
}
