use std::sync::Arc;

use lazytool_runtime::tools;

struct Shop;

#[tools]
impl Shop {
    /// Restocks.
    #[tool]
    async fn restock(&mut self, amount: u32) -> u32 {
        amount
    }

    /// Closes the shop.
    #[tool]
    fn close(self) -> bool {
        true
    }

    /// Counts references.
    #[tool]
    fn references(self: Arc<Self>) -> usize {
        Arc::strong_count(&self)
    }

    /// Opens a shop.
    #[tool]
    fn open(name: String) -> String {
        name
    }
}

fn main() {}
