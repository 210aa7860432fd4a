use lazytool_runtime::{State, tool};

/// Tomorrow's weather in a city.
#[tool(
    example(cty = "Paris", days = 3),
    example(city = "Oslo", db = 1, city = "Bergen"),
    example(days = 2)
)]
async fn get_forecast(city: String, days: Option<u32>, db: State<u32>) -> String {
    format!("{city} {days:?} {}", *db)
}

fn main() {}
