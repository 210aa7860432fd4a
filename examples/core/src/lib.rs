//! The shop of TanStack AI's lazy-discovery guide: one eager tool, two lazy ones, over an
//! in-memory product store passed as `State`. The `shop` example runs them with a scripted
//! model; the `mcp_server` example (package `lazytool-examples-mcp`) serves them over MCP.

use lazytool_runtime::{Registry, RegistryError, State, tool};
use serde::Serialize;

/// A product of the catalog.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Product {
    /// The product's id.
    pub id: u32,
    /// Its name.
    pub name: String,
    /// Its price in dollars.
    pub price: f64,
}

/// The in-memory product database.
pub struct ProductStore {
    products: Vec<Product>,
}

impl ProductStore {
    /// A store with a few furniture products.
    pub fn sample() -> Self {
        let product = |id, name: &str, price| Product {
            id,
            name: name.to_owned(),
            price,
        };
        ProductStore {
            products: vec![
                product(1, "Standing desk", 499.0),
                product(2, "Office chair", 249.0),
                product(3, "Monitor arm", 89.0),
                product(4, "Desk lamp", 39.0),
            ],
        }
    }

    fn find(&self, id: u32) -> Result<&Product, String> {
        self.products
            .iter()
            .find(|product| product.id == id)
            .ok_or_else(|| format!("no product has id {id}; call getProducts for the ids"))
    }
}

/// Get all products from the catalog.
#[tool(
    name = "getProducts",
    output_schema,
    title = "Products",
    read_only,
    idempotent
)]
pub async fn get_products(store: State<ProductStore>) -> Vec<Product> {
    store.products.clone()
}

/// A side-by-side comparison.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    products: Vec<Product>,
    cheapest: String,
    price_difference: f64,
}

/// Compare two or more products side by side.
#[tool(
    lazy,
    name = "compareProducts",
    rename_all = "camelCase",
    read_only,
    example(product_ids = [1, 2]),
    example(product_ids = [2, 3, 4])
)]
pub async fn compare_products(
    /// The ids of the products to compare (at least two).
    #[schemars(length(min = 2))]
    product_ids: Vec<u32>,
    store: State<ProductStore>,
) -> Result<Comparison, String> {
    let products = product_ids
        .iter()
        .map(|id| store.find(*id).cloned())
        .collect::<Result<Vec<_>, _>>()?;
    let by_price = |a: &&Product, b: &&Product| a.price.total_cmp(&b.price);
    let cheapest = products.iter().min_by(by_price).ok_or("no products")?;
    let dearest = products.iter().max_by(by_price).ok_or("no products")?;
    Ok(Comparison {
        cheapest: cheapest.name.clone(),
        price_difference: dearest.price - cheapest.price,
        products,
    })
}

/// A monthly payment plan.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Financing {
    monthly_payment: f64,
    total_price: f64,
    months: u32,
}

/// Calculate monthly payment plans for a product.
#[tool(
    lazy,
    name = "calculateFinancing",
    rename_all = "camelCase",
    read_only,
    example(product_id = 1, months = 12)
)]
pub async fn calculate_financing(
    /// The product to finance.
    product_id: u32,
    /// The number of monthly payments.
    #[schemars(range(min = 1, max = 72))]
    months: u32,
    store: State<ProductStore>,
) -> Result<Financing, String> {
    let product = store.find(product_id)?;
    Ok(Financing {
        monthly_payment: (product.price / f64::from(months) * 100.0).round() / 100.0,
        total_price: product.price,
        months,
    })
}

/// The shop's registry: its three tools over the sample store.
pub fn registry() -> Result<Registry, RegistryError> {
    Registry::builder().state(ProductStore::sample()).build()
}

#[cfg(test)]
mod tests {
    use lazytool_runtime::ToolErrorKind;

    use super::*;

    /// The registry checks every example against its tool's schema; each is also a call
    /// dispatch accepts.
    #[tokio::test]
    async fn every_example_is_a_valid_call() {
        let registry = registry().expect("the shop's tools and examples are valid");
        let mut examples = 0;
        for tool in registry.tools() {
            for example in tool.examples() {
                let result = registry.call(tool.name(), example.clone()).await;
                assert_ne!(
                    result.error_kind(),
                    Some(ToolErrorKind::InvalidArguments),
                    "{}",
                    result.text()
                );
                examples += 1;
            }
        }
        assert_eq!(examples, 3);
    }
}
