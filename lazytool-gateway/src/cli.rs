//! The command line, with clap: [`Cli`], and the HTTP serving flags in their own
//! [`HttpArgs`] (to be replaced by lazytool-mcp's shared flags in one place).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use clap::{ArgAction, Args, Parser};

/// The environment variable that holds the bearer token when no flag gives one.
pub const TOKEN_VAR: &str = "LAZYTOOL_TOKEN";

/// `lazytool-gateway --config FILE [--check] [--http ADDR [--token T | --token-file PATH]]`.
///
/// ```
/// use clap::Parser;
/// use lazytool_gateway::Cli;
///
/// let cli = Cli::try_parse_from(["lazytool-gateway", "--config", "mcp.json", "--http", "8080", "-v"]).unwrap();
/// assert_eq!(cli.http.http, Some("127.0.0.1:8080".parse().unwrap()));
/// assert_eq!(cli.default_log_filter(), "lazytool=debug,rmcp=off,info");
/// ```
#[derive(Debug, Parser)]
#[command(
    name = "lazytool-gateway",
    version,
    about = "Lazy discovery in front of any MCP servers: point it at the mcpServers file your MCP client already has.",
    long_about = "Lazy discovery in front of any MCP servers: point it at the mcpServers file your MCP \
client already has (Claude Desktop, Claude Code, Cursor, VS Code's .vscode/mcp.json). Each upstream \
tool is offered as SERVER__TOOL, lazy behind __lazy__tool__discovery__ unless the file's \"lazytool\" \
section makes it eager. Serves MCP on stdio, or streamable HTTP at /mcp with --http.",
    after_help = "Examples:
  lazytool-gateway --config ~/.cursor/mcp.json              # MCP on stdio
  lazytool-gateway --config mcp.json --http 127.0.0.1:8080  # streamable HTTP at /mcp
  lazytool-gateway --config mcp.json --check                # tools and token cost per server

Logs go to stderr: RUST_LOG (such as RUST_LOG=lazytool=debug) overrides -q and -v."
)]
pub struct Cli {
    /// The MCP servers file: {"mcpServers": {...}} or VS Code's {"servers": {...}}, comments allowed.
    // The subcommands to come (`lock`, `login`) go in a `#[command(subcommand)]` field here,
    // with `subcommand_negates_reqs` where they find the file another way.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Start every server, print its tools and their token cost, then exit (1 if a server failed).
    #[arg(long)]
    pub check: bool,
    /// Serving over HTTP.
    #[command(flatten)]
    pub http: HttpArgs,
    /// Log more: debug (-v), everything (-vv).
    #[arg(short, long, action = ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Log less: warnings and errors only (-q), errors only (-qq).
    #[arg(short, long, action = ArgAction::Count)]
    pub quiet: u8,
}

/// The flags of serving over streamable HTTP.
///
/// ```
/// use clap::Parser;
/// use lazytool_gateway::Cli;
///
/// let error = Cli::try_parse_from(["lazytool-gateway", "--config", "f", "--token", "t"]).unwrap_err();
/// assert!(error.to_string().contains("--http"));
/// ```
#[derive(Debug, Args)]
pub struct HttpArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio; a bare PORT binds 127.0.0.1.
    #[arg(long, value_name = "ADDR|PORT", value_parser = parse_addr)]
    pub http: Option<SocketAddr>,
    /// Require `Authorization: Bearer SECRET` (visible in the process list: prefer --token-file or LAZYTOOL_TOKEN).
    #[arg(
        long,
        value_name = "SECRET",
        requires = "http",
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// Read the bearer token from the first line of PATH.
    #[arg(long, value_name = "PATH", requires = "http")]
    pub token_file: Option<PathBuf>,
}

impl HttpArgs {
    /// The bearer token: `--token`, else the first line of `--token-file`, else
    /// `LAZYTOOL_TOKEN` (through `var`) when serving HTTP.
    ///
    /// ```
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_from(["lazytool-gateway", "--config", "f", "--http", "8080"]).unwrap();
    /// let from_env = |name: &str| (name == "LAZYTOOL_TOKEN").then(|| "s3cret".to_owned());
    /// assert_eq!(cli.http.token(from_env).unwrap().as_deref(), Some("s3cret"));
    /// ```
    pub fn token(&self, var: impl Fn(&str) -> Option<String>) -> Result<Option<String>, String> {
        if let Some(token) = &self.token {
            return Ok(Some(token.clone()));
        }
        if let Some(path) = &self.token_file {
            return read_token(path).map(Some);
        }
        Ok(self
            .http
            .and_then(|_| var(TOKEN_VAR))
            .filter(|token| !token.is_empty()))
    }
}

impl Cli {
    /// The log filter when `RUST_LOG` is not set: lazytool's events at info and everything
    /// else at warn (rmcp's off), moved by `-v` and `-q`.
    ///
    /// ```
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_from(["lazytool-gateway", "--config", "f", "-qq"]).unwrap();
    /// assert_eq!(cli.default_log_filter(), "rmcp=off,error");
    /// ```
    pub fn default_log_filter(&self) -> &'static str {
        // rmcp's own lines are off below -vv: they print upstream URLs whole (secrets in
        // their query included) and Rust type names, and lazytool reports every upstream
        // failure itself, secrets hidden.
        match (self.verbose, self.quiet) {
            (0, 0) => "lazytool=info,rmcp=off,warn",
            (0, 1) => "rmcp=off,warn",
            (0, _) => "rmcp=off,error",
            (1, _) => "lazytool=debug,rmcp=off,info",
            _ => "trace",
        }
    }
}

/// `ADDR` as a socket address; a bare port on the loopback interface only.
fn parse_addr(addr: &str) -> Result<SocketAddr, String> {
    match addr.parse::<u16>() {
        Ok(port) => Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port))),
        Err(_) => addr
            .parse()
            .map_err(|_| format!("`{addr}` is not an address like 127.0.0.1:8080 or a port")),
    }
}

/// The token in `path`: its first line, which must not be empty.
fn read_token(path: &Path) -> Result<String, String> {
    let path_shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the token file {path_shown}: {error}"))?;
    let token = text.lines().next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(format!("the token file {path_shown} is empty"));
    }
    Ok(token.to_owned())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn flags_that_need_http_or_exclude_each_other_are_refused() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["lazytool-gateway", "--config", "f"].iter().chain(args))
        };
        for refused in [
            &["--token-file", "p"][..],
            &["--http", "1", "--token", "a", "--token-file", "p"],
            &["-q", "-v"],
            &["--http", "host"],
        ] {
            assert!(parse(refused).is_err(), "{refused:?}");
        }
        assert!(
            Cli::try_parse_from(["lazytool-gateway"]).is_err(),
            "--config is required"
        );
        let cli = parse(&["--http", "0.0.0.0:9000", "--token", "t"]).expect("valid");
        assert_eq!(cli.http.http, Some(SocketAddr::from(([0, 0, 0, 0], 9000))));
        assert_eq!(cli.http.token(|_| None), Ok(Some("t".to_owned())));
        // Without --http, LAZYTOOL_TOKEN is not read: stdio has no token.
        let stdio = parse(&[]).expect("valid");
        assert_eq!(stdio.http.token(|_| Some("x".to_owned())), Ok(None));
        assert_eq!(stdio.default_log_filter(), "lazytool=info,rmcp=off,warn");
    }
}
