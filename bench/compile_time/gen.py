#!/usr/bin/env python3
"""Generates the crates of the compile-time benchmark (see ../compile_time.sh).

    gen.py OUT_DIR WORKSPACE LOCKFILE [N]

Tools only (a registry against a router against a table):
OUT_DIR/generated:       N `#[tool]` async fns registered through inventory (lazytool);
                         `main` builds `Registry::from_inventory()`.
OUT_DIR/handwritten:     the same N fns with what a user writes without lazytool: a
                         `#[derive(Deserialize, JsonSchema)]` args struct per tool, a `match`
                         dispatch, and a registration table of (name, description, schema fn).
OUT_DIR/rmcp:            the same N fns as rmcp's current release documents them: one
                         `#[tool_router]` impl whose `#[tool]` methods take `Parameters<T>` of a
                         `#[derive(Deserialize, JsonSchema)]` struct; `main` builds the router
                         and lists its tools. rmcp with `server` and `macros` only.
Served over stdio:
OUT_DIR/generated-stdio: `generated`'s tools served by `lazytool-mcp` without default
                         features (`McpServer::serve_stdio`, no validator).
OUT_DIR/rmcp-stdio:      `rmcp`'s tools with `#[tool_router(server_handler)]`, served by
                         rmcp's stdio transport (`server`, `macros`, `transport-io`).
Served over streamable HTTP (on 127.0.0.1:8080, at /mcp):
OUT_DIR/generated-http:  `generated`'s tools served by `lazytool-mcp` with `server-http` only
                         (`McpServer::serve_http`, no validator).
OUT_DIR/rmcp-http:       `rmcp-stdio`'s handler served as rmcp's `counter_streamhttp` example
                         serves one: `StreamableHttpService` with `LocalSessionManager` in an
                         axum router, `axum::serve` (`server`, `macros`,
                         `transport-streamable-http-server`; axum with `http1` and `tokio`).
Every crate has the same output structs, fn bodies and doc comments, and its own
`[workspace]` table so that it never joins the lazytool workspace.
"""

import os
import shutil
import sys

# Five realistic shapes, cycled. Each parameter: (name, type, doc, default expr or None).
SHAPES = [
    dict(
        verb="search_issues",
        doc="Search the issues of project {i} by keyword.\n\nReturns the matching issues, most recent first.",
        params=[
            ("query", "String", "Search keywords, for example `is:open label:bug`.", None),
            ("limit", "Option<u32>", "Maximum number of results to return.", None),
            ("page", "u32", "Page number, starting at 1.", "1"),
        ],
        out=[("total", "u32"), ("items", "Vec<String>")],
        body="Ok({Out} {{ total: limit.unwrap_or(10) * page, items: vec![query] }})",
    ),
    dict(
        verb="label_pull_request",
        doc="Add labels to a pull request of repository set {i}.\n\nLabels that do not exist yet are created.",
        params=[
            ("owner", "String", "Repository owner (a user or an organization).", None),
            ("repo", "String", "Repository name.", None),
            ("number", "u32", "The pull request's number.", None),
            ("labels", "Vec<String>", "The labels to add.", None),
        ],
        out=[("url", "String"), ("labels", "Vec<String>"), ("changed", "bool")],
        body='Ok({Out} {{ url: format!("https://example.com/{{owner}}/{{repo}}/pull/{{number}}"), changed: !labels.is_empty(), labels }})',
    ),
    dict(
        verb="get_record",
        doc="Get one record of table {i} by its id.",
        params=[
            ("id", "u32", "The record's id.", None),
            ("note", "Option<String>", "A note to attach to the audit log.", None),
        ],
        out=[("id", "u32"), ("note", "Option<String>")],
        body="if id == 0 {{ return Err(\"no record 0\".to_owned()); }} Ok({Out} {{ id, note }})",
    ),
    dict(
        verb="list_files",
        doc="List the files under a path of storage bucket {i}.\n\nFolders are listed before files; hidden files are skipped.",
        params=[
            ("path", "String", "The folder to list, relative to the bucket root.", None),
            ("tags", "Vec<String>", "Only files carrying all of these tags.", None),
            ("per_page", "u32", "Results per page (at most 100).", "30"),
            ("since", "Option<String>", "Only files changed after this ISO 8601 timestamp.", None),
            ("recursive", "Option<bool>", "Whether to descend into sub-folders.", None),
        ],
        out=[("path", "String"), ("files", "Vec<String>"), ("per_page", "u32"), ("truncated", "bool")],
        body="Ok({Out} {{ files: tags, per_page, truncated: since.is_some() || recursive.unwrap_or(false), path }})",
    ),
    dict(
        verb="create_branch",
        doc="Create a branch in repository {i}.",
        params=[
            ("name", "String", "The new branch's name.", None),
            ("count", "u32", "How many commits back from the head to branch from.", None),
            ("from", "String", "The branch to start from.", 'String::from("main")'),
        ],
        out=[("name", "String"), ("from", "String"), ("count", "u32")],
        body="Ok({Out} {{ name, from, count }})",
    ),
]


def camel(s):
    return "".join(part.capitalize() for part in s.split("_"))


def tools(n):
    for i in range(n):
        shape = SHAPES[i % len(SHAPES)]
        fn = f"{shape['verb']}_{i:03}"
        yield i, shape, fn, camel(fn) + "Output"


def doc_lines(text, indent=""):
    return "".join(f"{indent}///{' ' + line if line else ''}\n" for line in text.split("\n"))


def output_struct(shape, out):
    fields = "".join(f"    {name}: {ty},\n" for name, ty in shape["out"])
    return f"#[derive(Serialize)]\nstruct {out} {{\n{fields}}}\n"


def signature_params(shape):
    return ", ".join(f"{name}: {ty}" for name, ty, _, _ in shape["params"])


def body(shape, out):
    return shape["body"].format(Out=out)


def free_fn(shape, fn, out):
    """The tool's own fn, as `generated` and `handwritten` have it."""
    return f"async fn {fn}({signature_params(shape)}) -> Result<{out}, String> {{\n    {body(shape, out)}\n}}\n\n"


def args_struct(shape, args):
    parts = ["#[derive(Deserialize, JsonSchema)]\n", f"struct {args} {{\n"]
    for name, ty, doc, default in shape["params"]:
        parts.append(doc_lines(doc, "    "))
        if default is not None:
            parts.append(f'    #[serde(default = "default_{name}")]\n')
        parts.append(f"    {name}: {ty},\n")
    parts.append("}\n\n")
    return "".join(parts)


DEFAULT_FNS = (
    "fn default_page() -> u32 {\n    1\n}\n\n"
    "fn default_per_page() -> u32 {\n    30\n}\n\n"
    'fn default_from() -> String {\n    String::from("main")\n}\n\n'
)


def generated(n, served=None):
    parts = [
        "//! Generated by bench/compile_time/gen.py: tools declared with `#[tool]`.\n",
        "#![allow(dead_code)]\n\n",
        "use lazytool_runtime::{tool, Registry};\nuse serde::Serialize;\n\n",
    ]
    for i, shape, fn, out in tools(n):
        parts.append(output_struct(shape, out))
        parts.append("\n")
        parts.append(doc_lines(shape["doc"].format(i=i)))
        parts.append("#[tool]\n")
        parts.append(f"async fn {fn}(\n")
        for name, ty, doc, default in shape["params"]:
            parts.append(doc_lines(doc, "    "))
            if default is not None:
                parts.append(f"    #[arg(default = {default})]\n")
            parts.append(f"    {name}: {ty},\n")
        parts.append(f") -> Result<{out}, String> {{\n    {body(shape, out)}\n}}\n\n")
    if served:
        serve = {"stdio": "serve_stdio()", "http": 'serve_http("127.0.0.1:8080")'}[served]
        parts.append(
            f"""#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {{
    let registry = Registry::from_inventory()?;
    lazytool_mcp::McpServer::new(registry).{serve}.await?;
    Ok(())
}}
"""
        )
        return "".join(parts)
    parts.append(
        """#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::from_inventory().expect("valid tools");
    println!("{}", registry.len());
    // `generated NAME '{"arg": ...}'` calls one tool.
    let mut args = std::env::args().skip(1);
    if let Some(name) = args.next() {
        let arguments = serde_json::Value::String(args.next().unwrap_or_default());
        let result = registry.call(&name, arguments).await;
        println!("{}", result.content());
    }
}
"""
    )
    return "".join(parts)


def handwritten(n):
    parts = [
        "//! Generated by bench/compile_time/gen.py: the same tools written by hand, without lazytool.\n",
        "#![allow(dead_code)]\n\n",
        "use schemars::{JsonSchema, Schema, schema_for};\nuse serde::{Deserialize, Serialize};\nuse serde_json::Value;\n\n",
        DEFAULT_FNS,
    ]
    for i, shape, fn, out in tools(n):
        args = camel(fn) + "Args"
        parts.append(output_struct(shape, out))
        parts.append("\n")
        parts.append(args_struct(shape, args))
        parts.append(doc_lines(shape["doc"].format(i=i)))
        parts.append(free_fn(shape, fn, out))
    # Dispatch.
    parts.append("/// Runs the tool `name`: arguments deserialized, result serialized.\n")
    parts.append("async fn dispatch(name: &str, arguments: Value) -> Result<Value, String> {\n")
    parts.append("    match name {\n")
    for i, shape, fn, out in tools(n):
        args = camel(fn) + "Args"
        fields = ", ".join(f"a.{name}" for name, _, _, _ in shape["params"])
        parts.append(
            f'        "{fn}" => {{\n'
            f"            let a: {args} = serde_json::from_value(arguments).map_err(|e| e.to_string())?;\n"
            f"            let output = {fn}({fields}).await?;\n"
            f"            serde_json::to_value(output).map_err(|e| e.to_string())\n"
            f"        }}\n"
        )
    parts.append('        _ => Err(format!("unknown tool {name}")),\n    }\n}\n\n')
    # Registration table.
    parts.append("type Registration = (&'static str, &'static str, fn() -> Schema);\n\n")
    parts.append('#[tokio::main(flavor = "current_thread")]\nasync fn main() {\n')
    parts.append("    let registrations: Vec<Registration> = vec![\n")
    for i, shape, fn, out in tools(n):
        args = camel(fn) + "Args"
        description = shape["doc"].format(i=i).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        parts.append(f'        ("{fn}", "{description}", || schema_for!({args})),\n')
    parts.append("    ];\n")
    parts.append(
        """    println!("{}", registrations.len());
    // `handwritten NAME '{"arg": ...}'` calls one tool.
    let mut args = std::env::args().skip(1);
    if let Some(name) = args.next() {
        let arguments: Value = serde_json::from_str(&args.next().unwrap_or_default()).unwrap_or(Value::Null);
        println!("{:?}", dispatch(&name, arguments).await);
    }
}
"""
    )
    return "".join(parts)


def rmcp(n, served=None):
    """The tools as rmcp's README writes them: one `#[tool_router]` impl of `#[tool]` methods
    taking `Parameters<T>`; each method runs the tool's fn and returns its JSON text."""
    parts = [
        "//! Generated by bench/compile_time/gen.py: the same tools with rmcp's `#[tool]` macros.\n",
        "#![allow(dead_code)]\n\n",
        "use rmcp::handler::server::wrapper::Parameters;\n",
        "use rmcp::schemars::{self, JsonSchema};\n",
        "use rmcp::{tool, tool_router};\n",
        "use serde::{Deserialize, Serialize};\n\n",
        DEFAULT_FNS,
    ]
    for i, shape, fn, out in tools(n):
        parts.append(output_struct(shape, out))
        parts.append("\n")
        parts.append(args_struct(shape, camel(fn) + "Args"))
        parts.append(free_fn(shape, fn, out))
    parts.append("#[derive(Clone)]\nstruct Tools;\n\n")
    parts.append("#[tool_router(server_handler)]\n" if served else "#[tool_router]\n")
    parts.append("impl Tools {\n")
    for i, shape, fn, out in tools(n):
        args = camel(fn) + "Args"
        names = ", ".join(name for name, _, _, _ in shape["params"])
        parts.append(doc_lines(shape["doc"].format(i=i), "    "))
        parts.append("    #[tool]\n")
        parts.append(
            f"    async fn {fn}(&self, Parameters({args} {{ {names} }}): Parameters<{args}>) -> Result<String, String> {{\n"
            f"        serde_json::to_string(&{fn}({names}).await?).map_err(|e| e.to_string())\n"
            f"    }}\n\n"
        )
    parts.append("}\n\n")
    if served == "http":
        parts.append(
            """#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
    let service: StreamableHttpService<Tools, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Tools),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    axum::serve(listener, router).await?;
    Ok(())
}
"""
        )
    elif served == "stdio":
        parts.append(
            """#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::ServiceExt;
    Tools.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
"""
        )
    else:
        parts.append(
            """#[tokio::main(flavor = "current_thread")]
async fn main() {
    let router = Tools::tool_router();
    println!("{}", router.list_all().len());
}
"""
        )
    return "".join(parts)


CARGO_COMMON = """
[workspace]

[profile.release]
# The workspace's release profile is cargo's default; nothing to change.
"""


# The lazytool crates are path dependencies here, which cargo compiles incrementally (256
# codegen units, each with its own copy of the debug information of the types it uses); a user
# depends on them from crates.io, and cargo compiles a registry dependency without
# incremental compilation, as it does rmcp here. Measured as a user gets them.
def as_from_the_registry(deps):
    crates = ["lazytool-runtime"] if "lazytool-runtime =" in deps else []
    if "lazytool-mcp =" in deps:
        crates += ["lazytool-mcp", "lazytool-mcp-core"]
    return "".join(f"\n[profile.dev.package.{crate}]\nincremental = false\n" for crate in crates)


def manifest(name, deps):
    profiles = as_from_the_registry(deps)
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{deps}{CARGO_COMMON}{profiles}"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Only rewrite when changed, so that unchanged sources keep their mtime.
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def main():
    out_dir, workspace, lockfile = sys.argv[1:4]
    runtime = os.path.join(workspace, "lazytool-runtime")
    mcp = os.path.join(workspace, "lazytool-mcp")
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    common = (
        'serde = { version = "1", features = ["derive"] }\n'
        'serde_json = { version = "1", features = ["preserve_order"] }\n'
        'tokio = { version = "1", features = ["macros", "rt"] }\n'
    )
    crates = {
        # Without default features, as rmcp without its defaults: typed tools need no JSON
        # Schema validator (feature `json-schema`), so the binary does not link one.
        "generated": (
            f'lazytool-runtime = {{ path = "{runtime}", default-features = false }}\n' + common,
            generated(n),
        ),
        "handwritten": ('schemars = "1.2"\n' + common, handwritten(n)),
        "rmcp": (
            'rmcp = { version = "~3.11", default-features = false, features = ["server", "macros"] }\n'
            + common,
            rmcp(n),
        ),
        "generated-stdio": (
            f'lazytool-runtime = {{ path = "{runtime}", default-features = false }}\n'
            f'lazytool-mcp = {{ path = "{mcp}", default-features = false }}\n'
            + common.replace('["macros", "rt"]', '["macros", "rt", "io-std"]'),
            generated(n, served="stdio"),
        ),
        "rmcp-stdio": (
            'rmcp = { version = "~3.11", default-features = false, features = ["server", "macros", "transport-io"] }\n'
            + common,
            rmcp(n, served="stdio"),
        ),
        "generated-http": (
            f'lazytool-runtime = {{ path = "{runtime}", default-features = false }}\n'
            f'lazytool-mcp = {{ path = "{mcp}", default-features = false, features = ["server-http"] }}\n'
            + common,
            generated(n, served="http"),
        ),
        "rmcp-http": (
            'rmcp = { version = "~3.11", default-features = false, features = ["server", "macros", "transport-streamable-http-server"] }\n'
            'axum = { version = "0.8.9", default-features = false, features = ["http1", "tokio"] }\n'
            + common.replace('["macros", "rt"]', '["macros", "rt", "net"]'),
            rmcp(n, served="http"),
        ),
    }
    wanted = os.environ.get("CRATES", " ".join(crates)).split()
    for name, (deps, source) in crates.items():
        if name not in wanted:
            continue
        root = os.path.join(out_dir, name)
        write(os.path.join(root, "Cargo.toml"), manifest(f"bench-{name}", deps))
        write(os.path.join(root, "src", "main.rs"), source)
        if not os.path.exists(os.path.join(root, "Cargo.lock")):
            shutil.copy(lockfile, os.path.join(root, "Cargo.lock"))


if __name__ == "__main__":
    main()
