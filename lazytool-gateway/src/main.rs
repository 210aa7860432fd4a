//! `lazytool-gateway --config FILE [--lock PATH] [--http ADDR [--token T | --token-file PATH]]
//! [--check]`, or `lock [--update SERVER...]`, or `login SERVER`; the arguments are in
//! `cli.rs`.

mod log;
mod metrics;
mod reload;
mod served;
mod status;

use std::process::ExitCode;

use lazytool_gateway::{Cli, Command};
use lazytool_mcp::{AuditLog, CallTally, McpServer, Relay, shutdown_signal};
use lazytool_mcp_client::Redactor;
use lazytool_runtime::{CancellationToken, SessionOptions};
use log::RedactedStderr;
use metrics::upstream_metrics;
use reload::{Hangups, Reloader};
use status::StatusPage;

/// The calls the status page counts: those of the last 15 minutes.
const STATUS_WINDOW: std::time::Duration = std::time::Duration::from_secs(15 * 60);
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
    // Listened to before anything starts: a SIGHUP's default would end the gateway.
    let hangups = Hangups::listen();
    let (mut config, mut fingerprints) = served::read_config(&cli)?;
    log.hide(
        &(config.servers.iter()).fold(Redactor::default(), |all, server| {
            all.and(&server.upstream().redactor())
        }),
    );
    if let Some(Command::Login { server }) = &cli.command {
        let path = lazytool_gateway::login(&config, server).await?;
        println!("The tokens of `{server}` are stored in {}.", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(Command::Lock { update }) = &cli.command {
        let report = lazytool_gateway::lock(&config.servers, &cli.lock_path(), update).await?;
        println!("{report}");
        return Ok(ExitCode::SUCCESS);
    }
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
    let configured = std::mem::take(&mut config.servers);
    let shared = config.shared.take();
    let (servers, stale) =
        served::held(&cli, configured, &mut fingerprints, &relay, shared.as_ref())?;
    // The HTTP flags' files and the audit file are opened before any server starts: a bad
    // one stops nothing.
    let http = match cli.http.http {
        Some(addr) => {
            // A wrong issuer stops the gateway before any server starts.
            let prepared = served::prepare(&cli, config.oidc.take())?;
            served::discover(&prepared).await?;
            if let Some(oidc) = prepared.oidc() {
                tracing::info!(target: "lazytool::mcp", issuer = oidc.issuer_url(), "accepting the tokens of this OpenID Connect issuer");
            }
            Some((addr, prepared))
        }
        None => None,
    };
    let path = cli.config_file();
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
    // The status page counts the calls the audit trail records: without a trail, they are
    // only counted.
    let tally = (cli.http.status_page).then(|| CallTally::new(STATUS_WINDOW));
    let audit = match (audit, &tally) {
        (Some(audit), Some(tally)) => Some(audit.with_tally(tally.clone())),
        (None, Some(tally)) => Some(AuditLog::tally_only(tally.clone())),
        (audit, None) => audit,
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
        .relay(relay.clone());
    let mut server = match audit.clone() {
        Some(audit) => server.audit(audit),
        None => server,
    };
    if let Some(settings) = &config.request_state {
        if let Some(key) = &settings.key {
            server = server.request_state_key(key.clone().into_bytes())?;
        }
        if let Some(ttl) = settings.ttl {
            server = server.request_state_ttl(ttl);
        }
    }
    let mut reloader = Reloader {
        principals: Reloader::principals_text(&cli),
        cli: &cli,
        catalog: catalog.clone(),
        relay,
        log,
        audit: audit.clone(),
        access: None,
        serving: fingerprints,
        shared: shared.clone(),
    };
    let served = match http {
        // Calls in flight are answered before the upstreams are stopped.
        None => {
            let serving = server.serve_stdio_until(stop.cancelled_owned());
            tokio::select! {
                served = serving => served,
                () = reloader.run(hangups) => Ok(()),
            }
        }
        Some((addr, prepared)) => {
            let upstreams = upstream_metrics(&catalog);
            let issuer = prepared.oidc().map(|oidc| oidc.issuer_url().to_owned());
            served::check_shared(shared.as_ref()).await;
            let limits = config.principal_limits;
            let mut http = served::access(prepared, server, limits, shared.as_ref())
                .register_metrics(move |registry| upstreams.register(registry));
            if let Some(tally) = tally {
                let page = StatusPage {
                    catalog: catalog.clone(),
                    tally,
                    approve: cli.approval_command(""),
                };
                http = http.page(status::STATUS_PATH, move || page.render());
            }
            let (http, access) = http.reloadable_access();
            reloader.access = Some((access, issuer));
            let serving = http.serve_with_shutdown(addr, stop.cancelled_owned());
            tokio::select! {
                served = serving => served,
                () = reloader.run(hangups) => Ok(()),
            }
        }
    };
    catalog.shutdown().await;
    if let Some(audit) = audit {
        audit.flush(std::time::Duration::from_secs(2));
    }
    served?;
    Ok(ExitCode::SUCCESS)
}
