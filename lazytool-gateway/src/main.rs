//! `lazytool-gateway --config FILE [--http ADDR] [--token T] [--check]`.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use lazytool_mcp::McpServer;
use lazytool_runtime::SessionOptions;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

const USAGE: &str =
    "usage: lazytool-gateway --config FILE [--http ADDR|PORT [--token SECRET]] [--check]";

struct Args {
    config: String,
    http: Option<SocketAddr>,
    token: Option<String>,
    check: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut config, mut http, mut token, mut check) = (None, None, None, false);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value; {USAGE}"));
        match arg.as_str() {
            "--config" => config = Some(value()?),
            "--http" => http = Some(value()?),
            "--token" => token = Some(value()?),
            "--check" => check = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown argument `{arg}`; {USAGE}")),
        }
    }
    let config = config.ok_or(format!("--config is required; {USAGE}"))?;
    if token.is_some() && http.is_none() {
        return Err(format!("--token needs --http; {USAGE}"));
    }
    // A bare port binds the loopback interface only.
    let http = http
        .map(|addr| match addr.parse::<u16>() {
            Ok(port) => Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port))),
            Err(_) => addr
                .parse()
                .map_err(|_| format!("`{addr}` is not an address like 127.0.0.1:8080; {USAGE}")),
        })
        .transpose()?;
    Ok(Args {
        config,
        http,
        token,
        check,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let filter = Targets::new()
        .with_target("lazytool", LevelFilter::INFO)
        .with_default(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();
    match run().await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("lazytool-gateway: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args = parse_args(std::env::args().skip(1))?;
    let text = std::fs::read_to_string(&args.config)
        .map_err(|error| format!("cannot read {}: {error}", args.config))?;
    let config = lazytool_gateway::parse(&text, |name| std::env::var(name).ok())?;
    let options = SessionOptions::new()
        .mode(config.mode)
        .listing(config.listing);
    let catalog = lazytool_gateway::start(config.servers).await?;
    if args.check {
        let (report, all_listed) = lazytool_gateway::check(&catalog, &options);
        println!("{report}");
        catalog.shutdown().await;
        return Ok(if all_listed {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let server = McpServer::live(catalog.live())
        .server_info("lazytool-gateway", env!("CARGO_PKG_VERSION"))
        .options(options);
    let served = match args.http {
        None => tokio::select! {
            served = server.serve_stdio() => served,
            () = stopped() => Ok(()),
        },
        Some(addr) => {
            let mut http = server.http();
            if let Some(token) = &args.token {
                http = http.bearer_token(token);
            }
            tokio::select! {
                served = http.serve(addr) => served,
                () = stopped() => Ok(()),
            }
        }
    };
    catalog.shutdown().await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM, so that the upstreams are stopped before the gateway exits.
async fn stopped() {
    #[cfg(unix)]
    let terminated = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => drop(signal.recv().await),
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminated = std::future::pending::<()>();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}
