use lazytool_runtime::tool;

#[derive(Debug)]
struct ShopError;

/// Gets a price.
#[tool]
async fn get_price(id: u32) -> Result<f64, ShopError> {
    if id == 0 { Err(ShopError) } else { Ok(1.0) }
}

fn main() {}
