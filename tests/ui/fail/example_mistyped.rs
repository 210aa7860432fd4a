use lazytool_runtime::tool;

/// Tomorrow's weather in a city.
#[tool(example(city = 3, days = "three", units = ["metric", 2]))]
async fn get_forecast(city: String, days: Option<u32>, units: Vec<String>) -> String {
    format!("{city} {days:?} {units:?}")
}

fn main() {}
