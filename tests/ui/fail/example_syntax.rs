use lazytool_runtime::tool;

/// Tomorrow's weather in a city.
#[tool(example)]
async fn get_forecast(city: String) -> String {
    city
}

/// Today's weather in a city.
#[tool(example(city))]
async fn get_weather(city: String) -> String {
    city
}

fn main() {}
