use std::cell::Cell;

use lazytool_runtime::tools;

struct Counter {
    count: Cell<u32>,
}

#[tools]
impl Counter {
    /// Counts.
    #[tool]
    fn count(&self) -> u32 {
        self.count.get()
    }
}

fn main() {}
