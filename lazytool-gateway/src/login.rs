//! `login SERVER`: the authorization code flow of one OAuth server, run once by a person:
//! [`login`].

use std::path::PathBuf;
use std::process::{Command, Stdio};

use lazytool_mcp_client::{LOGIN_TIMEOUT, Upstream};
use lazytool_runtime::source::ToolSource;

use crate::config::Config;

/// Authorizes `server` of `config` once, as `lazytool-gateway --config FILE login SERVER`
/// does: prints the authorization URL on stdout (and opens it in a browser when there is a
/// display), waits for the redirect on a loopback address, and stores the tokens. Returns
/// the file they were stored in.
///
/// Fails, before anything is sent, when `server` is not in `config`, is not a `url` server
/// with `oauth` settings, or its tokens would have no file to go to; then with the step of
/// the flow that failed.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let text = r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#;
/// let config = lazytool_gateway::parse(text, |_| None).unwrap();
/// let error = lazytool_gateway::login(&config, "linear").await.unwrap_err();
/// assert_eq!(error, "no server `linear` in the configuration (its servers: time)");
/// let error = lazytool_gateway::login(&config, "time").await.unwrap_err();
/// assert!(error.starts_with("`time` is a child process (`command`)"), "{error}");
/// # }
/// ```
pub async fn login(config: &Config, server: &str) -> Result<PathBuf, String> {
    let Some(source) = (config.servers.iter()).find(|source| source.name() == server) else {
        let names: Vec<&str> = config.servers.iter().map(|source| source.name()).collect();
        return Err(format!(
            "no server `{server}` in the configuration (its servers: {})",
            names.join(", ")
        ));
    };
    let upstream = source.upstream();
    let oauth = match upstream {
        Upstream::Http {
            oauth: Some(oauth), ..
        } => oauth,
        Upstream::Http { oauth: None, .. } => {
            return Err(format!(
                "`{server}` has no OAuth settings: add \"oauth\": {{}} to \
                 \"lazytool\": {{\"servers\": {{\"{server}\": ...}}}} to authorize it with OAuth"
            ));
        }
        _ => {
            return Err(format!(
                "`{server}` is a child process (`command`), not an HTTP server: it has no OAuth login"
            ));
        }
    };
    let Some(path) = oauth.store().path().map(PathBuf::from) else {
        return Err(
            "no file to keep the tokens in: set HOME or XDG_CONFIG_HOME, or give --token-store PATH"
                .to_owned(),
        );
    };
    let name = server.to_owned();
    lazytool_mcp_client::login(server, upstream, move |url| show(&name, url))
        .await
        .map_err(|error| upstream.redactor().apply(&error.to_string()))?;
    Ok(path)
}

/// Prints the authorization URL, and opens it when a browser can be.
fn show(server: &str, url: &str) {
    println!(
        "To authorize `{server}`, open this URL in a browser (waiting {} s for its redirect):\n\n  {url}\n",
        LOGIN_TIMEOUT.as_secs()
    );
    if let Some(opener) = browser_opener() {
        match Command::new(opener)
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            // Reaped on a thread of its own: the login goes on while the browser starts.
            Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
            Err(error) => eprintln!("lazytool-gateway: could not start {opener}: {error}"),
        }
    }
}

/// The program that opens a URL in the user's browser, when there is one to open.
fn browser_opener() -> Option<&'static str> {
    if cfg!(target_os = "macos") {
        return Some("open");
    }
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
    display.then_some("xdg-open")
}
