use lazytool_runtime::tool;

/// Reads a file.
#[tool(blocking)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
