use lazytool_runtime::tools;

struct Shop<T>(T);

/// Generic impls cannot be tools.
#[tools]
impl<T: Send + Sync + 'static> Shop<T> {
    /// Lists products.
    #[tool]
    fn list(&self) -> u32 {
        1
    }
}

trait Listing {
    fn list(&self) -> u32;
}

struct Store;

#[tools]
impl Listing for Store {
    #[tool]
    fn list(&self) -> u32 {
        1
    }
}

#[tools(lazy)]
impl Store {
    /// Not a tool.
    fn helper(&self) -> u32 {
        1
    }
}

#[tools]
struct NotAnImpl;

fn main() {}
