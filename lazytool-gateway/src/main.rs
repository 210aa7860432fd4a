//! `lazytool-gateway --config FILE [--http ADDR [--token T | --token-file PATH]] [--check]`.

mod log;

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use lazytool_mcp::{McpServer, Redactor};
use lazytool_runtime::SessionOptions;
use log::RedactedStderr;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

const USAGE: &str = "usage: lazytool-gateway --config FILE [--http ADDR|PORT [--token SECRET | --token-file PATH]] [--check]
  the token may also come from the environment variable LAZYTOOL_TOKEN";
/// The environment variable that holds the bearer token when no flag gives one.
const TOKEN_VAR: &str = "LAZYTOOL_TOKEN";

struct Args {
    config: String,
    http: Option<SocketAddr>,
    token: Option<String>,
    check: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut config, mut http, mut token, mut check) = (None, None, None, false);
    let mut token_file = None;
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value; {USAGE}"));
        match arg.as_str() {
            "--config" => config = Some(value()?),
            "--http" => http = Some(value()?),
            "--token" => token = Some(value()?),
            "--token-file" => token_file = Some(value()?),
            "--check" => check = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown argument `{arg}`; {USAGE}")),
        }
    }
    let config = config.ok_or(format!("--config is required; {USAGE}"))?;
    if (token.is_some() || token_file.is_some()) && http.is_none() {
        return Err(format!("--token and --token-file need --http; {USAGE}"));
    }
    let token = match (token, token_file) {
        (Some(_), Some(_)) => {
            return Err(format!("give --token or --token-file, not both; {USAGE}"));
        }
        (Some(token), None) => Some(token),
        (None, Some(path)) => Some(read_token(&path)?),
        (None, None) => std::env::var(TOKEN_VAR)
            .ok()
            .filter(|token| !token.is_empty()),
    };
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

/// The token in `path`: its first line, which must not be empty.
fn read_token(path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the token file {path}: {error}"))?;
    let token = text.lines().next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(format!("the token file {path} is empty"));
    }
    Ok(token.to_owned())
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("lazytool-gateway: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(gateway());
    // Reading stdin blocks a thread that only the end of the input frees: on a signal,
    // waiting for it would keep the gateway alive until the client closes its end.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

async fn gateway() -> ExitCode {
    let log = RedactedStderr::default();
    let filter = Targets::new()
        .with_target("lazytool", LevelFilter::INFO)
        .with_default(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(log.clone()))
        .with(filter)
        .init();
    match run(&log).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("lazytool-gateway: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(log: &RedactedStderr) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let args = parse_args(std::env::args().skip(1))?;
    let text = std::fs::read_to_string(&args.config)
        .map_err(|error| format!("cannot read {}: {error}", args.config))?;
    let config = lazytool_gateway::parse(&text, |name| std::env::var(name).ok())?;
    log.hide(
        (config.servers.iter()).fold(Redactor::default(), |all, server| {
            all.and(&server.upstream().redactor())
        }),
    );
    let options = SessionOptions::new()
        .mode(config.mode)
        .listing(config.listing);
    // A signal while the servers start drops them: each is killed with its process group.
    let catalog = tokio::select! {
        catalog = lazytool_gateway::start(config.servers) => catalog?,
        () = stopped() => return Ok(ExitCode::SUCCESS),
    };
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
