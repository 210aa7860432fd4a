//! Tools on methods: `#[tools]` impls, run on an instance registered with
//! `RegistryBuilder::tools_of`, with the schema, descriptions and dispatch of free fns.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use lazytool_runtime::{
    CallLimits, Registry, RegistryProblem, State, ToolContext, ToolErrorKind, tool, tools,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

struct Inventory {
    stock: AtomicU32,
    warehouse: String,
}

struct Currency(&'static str);

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Item {
    /// The item's SKU.
    sku: String,
    quantity: Option<u32>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Level {
    warehouse: String,
    stock: u32,
}

#[tools]
impl Inventory {
    /// Adds stock.
    ///
    /// # Errors
    ///
    /// Fails when the stock would overflow.
    #[tool(rename_all = "camelCase")]
    async fn restock(
        &self,
        /// The item to add.
        item: Item,
        #[arg(default = Self::DEFAULT_BATCH)] batch_size: u32,
        currency: State<Currency>,
        ctx: ToolContext,
    ) -> Result<String, String> {
        let _ = ctx.call_id();
        let added = item.quantity.unwrap_or(1) * batch_size;
        let total = self
            .stock
            .fetch_add(added, Ordering::SeqCst)
            .checked_add(added)
            .ok_or("overflow")?;
        Ok(format!(
            "{} of {} ({}) in {}",
            total, item.sku, currency.0, self.warehouse
        ))
    }

    /// Reads the stock level.
    #[tool(lazy, name = "stockLevel", output_schema)]
    fn level(&self) -> Level {
        Level {
            warehouse: self.warehouse.clone(),
            stock: self.stock.load(Ordering::SeqCst),
        }
    }

    /// Panics.
    #[tool]
    fn broken(&self) -> u32 {
        panic!("broken inventory")
    }

    /// Waits forever.
    #[tool]
    async fn hang(&self) -> u32 {
        std::future::pending().await
    }

    const DEFAULT_BATCH: u32 = 10;

    /// Not a tool.
    fn warehouse(&self) -> &str {
        &self.warehouse
    }
}

/// Adds stock.
///
/// # Errors
///
/// Fails when the stock would overflow.
#[tool(rename_all = "camelCase")]
async fn restock_free(
    /// The item to add.
    item: Item,
    #[arg(default = 10)] batch_size: u32,
    currency: State<Currency>,
    ctx: ToolContext,
) -> Result<String, String> {
    let _ = (item, batch_size, currency, ctx);
    Ok(String::new())
}

fn inventory() -> Arc<Inventory> {
    Arc::new(Inventory {
        stock: AtomicU32::new(0),
        warehouse: "north".to_owned(),
    })
}

fn registry() -> Registry {
    Registry::builder()
        .state(Currency("EUR"))
        .tools_of(inventory())
        .limits(CallLimits::default().timeout(Some(Duration::from_millis(20))))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_method_runs_on_the_registered_instance() {
    let registry = registry();
    let result = registry
        .call("restock", json!({"item": {"sku": "A-1", "quantity": 2}}))
        .await;
    assert_eq!(result.content(), &json!("20 of A-1 (EUR) in north"));
    let result = registry
        .call("restock", json!({"item": {"sku": "A-1"}, "batchSize": 1}))
        .await;
    assert_eq!(result.content(), &json!("21 of A-1 (EUR) in north"));

    let level = registry.call("stockLevel", json!({})).await;
    assert_eq!(level.content(), &json!({"warehouse": "north", "stock": 21}));
}

#[test]
fn a_method_has_the_schema_and_description_of_the_same_free_fn() {
    let registry = registry();
    let method = registry.get("restock").unwrap();
    let free = registry.get("restock_free").unwrap();
    assert_eq!(method.input_schema(), free.input_schema());
    assert_eq!(method.description(), free.description());
    assert_eq!(method.description(), "Adds stock.");
    assert_eq!(
        method.input_schema()["properties"]["batchSize"]["default"],
        json!(10)
    );

    let level = registry.get("stockLevel").unwrap();
    assert!(level.is_lazy());
    assert_eq!(
        level.output_schema().unwrap()["required"],
        json!(["warehouse", "stock"])
    );
    assert!(level.location().file().ends_with("methods.rs"));
}

#[tokio::test]
async fn a_method_fails_like_a_free_fn() {
    let registry = registry();
    let invalid = registry
        .call("restock", json!({"item": {"quantity": 1}}))
        .await;
    assert_eq!(invalid.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert!(
        invalid.content().as_str().unwrap().contains("sku"),
        "{invalid:?}"
    );

    let full = json!({"item": {"sku": "B", "quantity": u32::MAX}, "batchSize": 1});
    assert!(!registry.call("restock", full).await.is_error());
    let overflow = registry
        .call("restock", json!({"item": {"sku": "B"}, "batchSize": 1}))
        .await;
    assert_eq!(overflow.error_kind(), Some(ToolErrorKind::ToolFailed));
    assert_eq!(overflow.content(), &json!("overflow"));

    let panicked = registry.call("broken", json!({})).await;
    assert_eq!(panicked.error_kind(), Some(ToolErrorKind::Panicked));
    let timed_out = registry.call("hang", json!({})).await;
    assert_eq!(timed_out.error_kind(), Some(ToolErrorKind::TimedOut));
}

#[test]
fn without_an_instance_building_fails_naming_the_tools_and_the_type() {
    let error = Registry::builder()
        .state(Currency("EUR"))
        .build()
        .expect_err("no Inventory registered");
    let mut missing: Vec<&str> = error
        .problems()
        .iter()
        .map(|problem| match problem {
            RegistryProblem::MissingInstance {
                tool, type_name, ..
            } => {
                assert!(type_name.ends_with("::Inventory"), "{type_name}");
                tool.as_str()
            }
            other => panic!("unexpected problem: {other}"),
        })
        .collect();
    missing.sort_unstable();
    assert_eq!(missing, ["broken", "hang", "restock", "stockLevel"]);
    assert!(error.to_string().contains("tools_of"), "{error}");

    // Left out, the methods need no instance.
    let registry = Registry::builder()
        .state(Currency("EUR"))
        .filter(|spec| spec.module_path().ends_with("methods") && spec.name() == "restock_free")
        .build()
        .unwrap();
    assert_eq!(registry.tools().count(), 1);
}

#[test]
fn tools_of_takes_the_methods_even_without_inventory() {
    let registry = Registry::builder()
        .without_inventory()
        .state(Currency("EUR"))
        .tools_of(inventory())
        .build()
        .unwrap();
    let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    assert_eq!(names, ["broken", "hang", "restock", "stockLevel"]);
    assert_eq!(inventory().warehouse(), "north");
}
