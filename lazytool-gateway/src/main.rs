//! `lazytool-gateway --config FILE [--lock PATH] [--http ADDR [--token T | --token-file PATH]]
//! [--check]`, or `lock [--update SERVER...]`, or `login SERVER`; the arguments are in
//! `cli.rs`.

mod log;
mod metrics;

use std::process::ExitCode;

use lazytool_gateway::{Cli, Command};
use lazytool_mcp::{
    Lock, LockState, McpServer, McpSource, Redactor, Relay, TokenStore, shutdown_signal,
};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{CancellationToken, SessionOptions};
use log::RedactedStderr;
use metrics::upstream_metrics;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    // `--help` and `--version` print and exit 0 here; a bad argument exits 2 with usage.
    let cli = Cli::parse_args();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("lazytool-gateway: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(gateway(cli));
    // Reading stdin blocks a thread that only the end of the input frees: on a signal,
    // waiting for it would keep the gateway alive until the client closes its end.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

async fn gateway(cli: Cli) -> ExitCode {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(cli.default_log_filter()));
    let log = RedactedStderr::default();
    tracing_subscriber::fmt()
        .with_writer(log.clone())
        .with_env_filter(filter)
        .init();
    // Held connections and upstream children then meet the gateway's own caps long before
    // the descriptors run out; what it did is logged at debug.
    let _raised = lazytool_mcp::raise_open_files_limit();
    match run(cli, &log).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("lazytool-gateway: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, log: &RedactedStderr) -> Result<ExitCode, Box<dyn std::error::Error>> {
    cli.check_command()?;
    let path = cli.config_file();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let tokens =
        (cli.token_store.clone()).map_or_else(TokenStore::default_location, TokenStore::file);
    let config =
        lazytool_gateway::parse_with_token_store(&text, |name| std::env::var(name).ok(), &tokens)
            .map_err(|error| error.in_file(path))?;
    log.hide(
        (config.servers.iter()).fold(Redactor::default(), |all, server| {
            all.and(&server.upstream().redactor())
        }),
    );
    if let Some(Command::Login { server }) = &cli.command {
        let path = lazytool_gateway::login(&config, server).await?;
        println!("The tokens of `{server}` are stored in {}.", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let lock_path = cli.lock_path();
    if let Some(Command::Lock { update }) = &cli.command {
        let report = lazytool_gateway::lock(&config.servers, &lock_path, update).await?;
        println!("{report}");
        return Ok(ExitCode::SUCCESS);
    }
    // A lock that cannot be read stops everything: serving without it would start every
    // server and trust whatever it says.
    let lock = match (cli.lock.is_some(), lock_path.exists()) {
        (false, false) => None,
        _ => Some(Lock::load(&lock_path)?),
    };
    let mut stale = Vec::new();
    let servers: Vec<McpSource> = match &lock {
        None => config.servers,
        Some(lock) => {
            stale = lock.stale(config.servers.iter().map(|server| server.name()));
            for name in &stale {
                tracing::warn!(target: "lazytool::lock", server = %name, lock = %lock_path.display(), "the lock has an entry for a server that is not configured: ignored");
            }
            (config.servers.into_iter())
                .map(|server| {
                    let approve = cli.approval_command(server.name());
                    let server = server
                        .lock(lock)
                        .approval_command(approve)
                        .start_on_first_use(!cli.check);
                    match server.lock_state() {
                        LockState::Locked => {
                            tracing::info!(target: "lazytool::lock", server = %server.name(), state = %server.lock_state(), "the server is held to the lock");
                        }
                        state => {
                            tracing::warn!(target: "lazytool::lock", server = %server.name(), %state, approve = %cli.approval_command(server.name()), "the server is not held to the lock");
                        }
                    }
                    server
                })
                .collect()
        }
    };
    let options = SessionOptions::new()
        .mode(config.mode)
        .listing(config.listing);
    #[cfg(feature = "code-mode")]
    let options = match config.code {
        Some(code) => options.code_mode(code),
        None => options,
    };
    // What the gateway's clients can answer of the upstreams' requests (sampling,
    // elicitation): upstreams announce it, and pass those requests on to them.
    let relay = Relay::new("lazytool-gateway");
    let servers = (servers.into_iter())
        .map(|server| server.relay(relay.clone()))
        .collect();
    // The HTTP flags' files and the audit file are opened before any server starts: a bad
    // one stops nothing.
    let http = match cli.http.http {
        Some(addr) => {
            let mut prepared = cli.http.serving.prepare()?;
            if let Some(oidc) = config.oidc {
                prepared = prepared.with_oidc(oidc);
            }
            // A wrong issuer stops the gateway before any server starts.
            if let Some(oidc) = prepared.oidc() {
                oidc.discover()
                    .await
                    .map_err(|error| format!("the OpenID Connect issuer: {error}"))?;
                tracing::info!(target: "lazytool::mcp", issuer = oidc.issuer_url(), "accepting the tokens of this OpenID Connect issuer");
            }
            Some((addr, prepared))
        }
        None => None,
    };
    let config_dir = path.parent().unwrap_or(std::path::Path::new("."));
    let audit = match cli.check {
        true => None,
        false => lazytool_gateway::open_audit(
            cli.audit.as_deref(),
            config.audit.as_ref(),
            config_dir,
            http.is_some(),
        )?,
    };
    // One listener for the whole run: one made later, once the servers have started, would
    // leave a moment in which SIGINT or SIGTERM is swallowed and the gateway runs on.
    let stop = CancellationToken::new();
    tokio::spawn({
        let (signal, stop) = (shutdown_signal(), stop.clone());
        async move {
            signal.await;
            stop.cancel();
        }
    });
    // A signal while the servers start drops them: each is killed with its process group.
    let catalog = tokio::select! {
        catalog = lazytool_gateway::start_with_embeddings(servers, config.embeddings) => catalog?,
        () = stop.cancelled() => return Ok(ExitCode::SUCCESS),
    };
    if cli.check {
        let (report, all_listed) = lazytool_gateway::check(&catalog, &options, &stale);
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
        .options(options)
        .prompts(catalog.clone())
        .resources(catalog.clone())
        .withheld_tools({
            let catalog = catalog.clone();
            move |name| catalog.withheld_tool(name)
        })
        .relay(relay);
    let server = match audit.clone() {
        Some(audit) => server.audit(audit),
        None => server,
    };
    let served = match http {
        // Calls in flight are answered before the upstreams are stopped.
        None => server.serve_stdio_until(stop.cancelled_owned()).await,
        Some((addr, prepared)) => {
            let upstreams = upstream_metrics(&catalog);
            let mut http = (prepared.apply(server))
                .register_metrics(move |registry| upstreams.register(registry));
            if let Some(limits) = config.principal_limits {
                http = http.principal_limits(limits);
            }
            http.serve_with_shutdown(addr, stop.cancelled_owned()).await
        }
    };
    catalog.shutdown().await;
    if let Some(audit) = audit {
        audit.flush(std::time::Duration::from_secs(2));
    }
    served?;
    Ok(ExitCode::SUCCESS)
}
