//! An MCP server serving the shop tools with lazy discovery: on stdio by default, or over
//! streamable HTTP.
//!
//! ```sh
//! cargo run --example mcp_server                                   # stdio
//! cargo run --example mcp_server -- --http 127.0.0.1:8080          # http://127.0.0.1:8080/mcp
//! cargo run --example mcp_server -- --http 8080 --token SECRET     # requires Authorization: Bearer SECRET
//! ```
//!
//! Logs go to stderr (on stdio, stdout is the protocol). See the README for registering it in
//! MCP clients.

use std::net::{Ipv4Addr, SocketAddr};

use lazytool_mcp::{MCP_PATH, McpServer};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

const USAGE: &str = "usage: mcp_server [--http ADDR|PORT [--token SECRET]]";

/// Where to serve, from the command line.
enum Transport {
    Stdio,
    Http {
        addr: SocketAddr,
        token: Option<String>,
    },
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Transport, String> {
    let (mut http, mut token) = (None, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value; {USAGE}"));
        match arg.as_str() {
            "--http" => http = Some(value()?),
            "--token" => token = Some(value()?),
            _ => return Err(format!("unknown argument `{arg}`; {USAGE}")),
        }
    }
    let Some(addr) = http else {
        return match token {
            Some(_) => Err(format!("--token needs --http; {USAGE}")),
            None => Ok(Transport::Stdio),
        };
    };
    // A bare port binds the loopback interface only.
    let addr = match addr.parse::<u16>() {
        Ok(port) => SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        Err(_) => addr
            .parse()
            .map_err(|_| format!("`{addr}` is not an address like 127.0.0.1:8080; {USAGE}"))?,
    };
    Ok(Transport::Http { addr, token })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let filter = Targets::new()
        .with_target("lazytool", LevelFilter::INFO)
        .with_default(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();

    let transport = parse(std::env::args().skip(1))?;
    let registry = lazytool_examples_core::registry()?;
    let tools = registry.len();
    let server = McpServer::new(registry).server_info("lazytool-shop", env!("CARGO_PKG_VERSION"));
    match transport {
        Transport::Stdio => {
            eprintln!("mcp_server: serving {tools} shop tools on stdio");
            server.serve_stdio().await?;
        }
        Transport::Http { addr, token } => {
            let mut http = server.http();
            if let Some(token) = token {
                http = http.bearer_token(token);
            }
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
            eprintln!("mcp_server: serving {tools} shop tools at {url}");
            http.serve_on(listener).await?;
        }
    }
    Ok(())
}
