use lazytool_runtime::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Units {
    Metric,
    Imperial,
}

/// Tomorrow's weather in a city.
#[tool(example(units = Units::Metric))]
async fn get_forecast(units: Units) -> String {
    match units {
        Units::Metric => "20 C".to_owned(),
        Units::Imperial => "68 F".to_owned(),
    }
}

fn main() {}
