//! The command line, with clap: [`Cli`], and [`HttpServing`], which adds `--http` to
//! lazytool-mcp's serving flags.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand};

/// `lazytool-gateway --config FILE [--lock PATH] [--check] [--http ADDR [--token T |
/// --token-file PATH]]`, or `lazytool-gateway --config FILE lock [--update SERVER...]`, or
/// `lazytool-gateway --config FILE login SERVER`.
///
/// ```
/// use clap::Parser;
/// use lazytool_gateway::Cli;
///
/// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "mcp.json", "--http", "8080", "-v"]).unwrap();
/// assert_eq!(cli.http.http, Some("127.0.0.1:8080".parse().unwrap()));
/// assert_eq!(cli.default_log_filter(), "lazytool=debug,rmcp=off,info");
/// // `--config`, `-q` and `-v` go before or after the subcommand.
/// let cli = Cli::try_parse_args(["lazytool-gateway", "lock", "-q", "--config", "mcp.json"]).unwrap();
/// assert_eq!((cli.config_file(), cli.quiet), (std::path::Path::new("mcp.json"), 1));
/// ```
#[derive(Debug, Parser)]
#[command(
    name = "lazytool-gateway",
    version,
    override_usage = "lazytool-gateway --config <FILE> [OPTIONS] [COMMAND]",
    about = "Lazy discovery in front of any MCP servers: point it at the mcpServers file your MCP client already has.",
    long_about = "Lazy discovery in front of any MCP servers: point it at the mcpServers file your MCP \
client already has (Claude Desktop, Claude Code, Cursor, VS Code's .vscode/mcp.json). Each upstream \
tool is offered as SERVER__TOOL, lazy behind __lazy__tool__discovery__ unless the file's \"lazytool\" \
section makes it eager. Serves MCP on stdio, or streamable HTTP at /mcp with --http.",
    after_help = "Examples:
  lazytool-gateway --config ~/.cursor/mcp.json              # MCP on stdio
  lazytool-gateway --config mcp.json --http 127.0.0.1:8080  # streamable HTTP at /mcp
  lazytool-gateway --config mcp.json --check                # tools and token cost per server
  lazytool-gateway --config mcp.json lock                   # pin every server's tools in lazytool.lock
  lazytool-gateway --config mcp.json lock --update github   # accept github's changed tools
  lazytool-gateway --config mcp.json login linear           # authorize an OAuth server once

With a lock file, servers start on their first call and are held to the definitions pinned.
--config, -q and -v go before or after the command (`lock -q` works as `-q lock`).

Logs go to stderr: RUST_LOG (such as RUST_LOG=lazytool=debug) overrides -q and -v. By default
the log has what happens to the servers, and each tool call only with -v; --check logs only
warnings, its report on stdout."
)]
pub struct Cli {
    /// What to do instead of serving.
    // A subcommand that finds the file another way needs `subcommand_negates_reqs`.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The MCP servers file: {"mcpServers": {...}} or VS Code's {"servers": {...}}, comments
    /// allowed; required.
    // Global, so that it may follow the subcommand; clap refuses a global argument that is
    // required, so `try_parse_args` requires it.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The file of OAuth servers' tokens [default: $XDG_CONFIG_HOME/lazytool/oauth-tokens.json,
    /// else ~/.config/lazytool/oauth-tokens.json].
    #[arg(long, global = true, value_name = "PATH")]
    pub token_store: Option<PathBuf>,
    /// The lock file: written by `lock`; when it exists, servers start on first use and are
    /// held to it [default: lazytool.lock beside FILE].
    #[arg(long, global = true, value_name = "PATH")]
    pub lock: Option<PathBuf>,
    /// Start every server, print its tools, their token cost and how they stand with the
    /// lock, then exit (1 if a server failed or differs from the lock); only warnings are
    /// logged unless -v.
    #[arg(long)]
    pub check: bool,
    /// Log more: debug (-v), everything (-vv).
    #[arg(short, long, global = true, action = ArgAction::Count, conflicts_with = "quiet")]
    pub verbose: u8,
    /// Log less: warnings and errors only (-q), errors only (-qq).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    pub quiet: u8,
    /// Write the audit trail (one JSON line per tool call, login and refusal) to PATH, rotated
    /// by size, or to stdout with `-` (with --http only); overrides the file's
    /// "lazytool.audit.path".
    #[arg(long, value_name = "PATH|-")]
    pub audit: Option<PathBuf>,
    // After -v and -q: the flattened HTTP flags set the heading of every argument after them.
    /// Serving over HTTP.
    #[command(flatten)]
    pub http: HttpServing,
}

/// What the gateway does instead of serving.
///
/// ```
/// use clap::Parser;
/// use lazytool_gateway::{Cli, Command};
///
/// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "login", "linear", "--token-store", "t.json"]).unwrap();
/// assert!(matches!(cli.command, Some(Command::Login { server }) if server == "linear"));
/// assert_eq!(cli.token_store, Some("t.json".into()));
/// ```
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start every server once, pin what starts it and its tools' definitions in the lock
    /// file, and print what was pinned, with a unified diff of each entry that changed.
    Lock {
        /// Accept the current definitions of these servers only; the rest of the file stays.
        #[arg(long, num_args = 1.., value_name = "SERVER")]
        update: Vec<String>,
    },
    /// Authorize an OAuth server once: print the authorization URL (and open a browser when
    /// there is a display), wait for its redirect to a loopback address, store the tokens.
    Login {
        /// The server's name in the file: a `url` server with `oauth` settings.
        server: String,
    },
}

/// Serving over streamable HTTP: `--http ADDR` and lazytool-mcp's shared serving flags
/// ([`lazytool_mcp::HttpArgs`]: allowed hosts and origins, session and connection caps,
/// timeouts, the token and the principals).
///
/// ```
/// use clap::Parser;
/// use lazytool_gateway::Cli;
///
/// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "--http", "0.0.0.0:80", "--allowed-host", "tools.example"]).unwrap();
/// assert_eq!(cli.http.serving.allowed_hosts, ["tools.example"]);
/// ```
#[derive(Debug, Args)]
pub struct HttpServing {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio; a bare PORT binds 127.0.0.1.
    #[arg(long, value_name = "ADDR|PORT", value_parser = lazytool_mcp::parse_listen_addr)]
    pub http: Option<SocketAddr>,
    /// Serve a read-only status page at /status (servers, tools and token cost, pending
    /// definition changes, recent calls and limits hit), behind the same token as /mcp.
    #[arg(long)]
    pub status_page: bool,
    /// The flags of HTTP serving, shared with lazytool-mcp's `mcp_server`.
    #[command(flatten)]
    pub serving: lazytool_mcp::HttpArgs,
}

impl HttpServing {
    /// A flag given that only HTTP serving reads, when `--http` is not given: an error.
    ///
    /// ```
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "--max-sessions", "9"]).unwrap();
    /// assert_eq!(cli.http.check().unwrap_err(), "--max-sessions needs --http");
    /// ```
    pub fn check(&self) -> Result<(), String> {
        let status = self.status_page.then_some("--status-page");
        match (self.http, self.serving.given().or(status)) {
            (None, Some(flag)) => Err(format!("{flag} needs --http")),
            _ => Ok(()),
        }
    }
}

impl Cli {
    /// The command line of this process: `--help` and `--version` print and exit 0, a bad
    /// command line (`--config` missing included) prints the error with the usage and exits 2.
    pub fn parse_args() -> Self {
        Self::try_parse_args(std::env::args_os()).unwrap_or_else(|error| error.exit())
    }

    /// The command line `args` (the program's name first), `--config` required.
    ///
    /// ```
    /// use lazytool_gateway::Cli;
    ///
    /// let error = Cli::try_parse_args(["lazytool-gateway", "lock"]).unwrap_err();
    /// assert!(error.to_string().contains("--config <FILE>"), "{error}");
    /// assert!(Cli::try_parse_args(["lazytool-gateway", "lock", "--config", "mcp.json"]).is_ok());
    /// ```
    pub fn try_parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let cli = Self::try_parse_from(args)?;
        match cli.config {
            Some(_) => Ok(cli),
            None => Err(Self::command().error(
                ErrorKind::MissingRequiredArgument,
                "the following required arguments were not provided:\n  --config <FILE>",
            )),
        }
    }

    /// The configuration file: `--config FILE` (empty when it is missing, which
    /// [`Cli::try_parse_args`] refuses).
    ///
    /// ```
    /// use std::path::Path;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "mcp.json"]).unwrap();
    /// assert_eq!(cli.config_file(), Path::new("mcp.json"));
    /// ```
    pub fn config_file(&self) -> &Path {
        self.config.as_deref().unwrap_or(Path::new(""))
    }

    /// A serving flag given with a subcommand, which does not serve, or an HTTP serving flag
    /// without `--http`: an error.
    ///
    /// ```
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "--check", "login", "linear"]).unwrap();
    /// assert_eq!(cli.check_command().unwrap_err(), "`login` does not serve: --check, --http and their flags do not apply");
    /// ```
    pub fn check_command(&self) -> Result<(), String> {
        let serving = self.check || self.http.http.is_some() || self.http.check().is_err();
        match &self.command {
            Some(Command::Login { .. }) if serving => Err(
                "`login` does not serve: --check, --http and their flags do not apply".to_owned(),
            ),
            Some(Command::Lock { .. }) if serving => Err(
                "`lock` does not serve: --check, --http and their flags do not apply".to_owned(),
            ),
            Some(_) => Ok(()),
            None => self.http.check(),
        }
    }

    /// The lock file: `--lock PATH`, else `lazytool.lock` beside the configuration file.
    ///
    /// ```
    /// use std::path::Path;
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "conf/mcp.json"]).unwrap();
    /// assert_eq!(cli.lock_path(), Path::new("conf/lazytool.lock"));
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "mcp.json", "--lock", "/etc/l.lock"]).unwrap();
    /// assert_eq!(cli.lock_path(), Path::new("/etc/l.lock"));
    /// ```
    pub fn lock_path(&self) -> PathBuf {
        match &self.lock {
            Some(path) => path.clone(),
            None => (self.config_file().parent()).map_or_else(
                || PathBuf::from("lazytool.lock"),
                |dir| dir.join("lazytool.lock"),
            ),
        }
    }

    /// The command that accepts a server's changed definitions, as the user would type it.
    ///
    /// ```
    /// use clap::Parser;
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "mcp.json"]).unwrap();
    /// assert_eq!(cli.approval_command("time"), "lazytool-gateway --config mcp.json lock --update time");
    /// ```
    pub fn approval_command(&self, server: &str) -> String {
        let lock = match &self.lock {
            Some(path) => format!(" --lock {}", path.display()),
            None => String::new(),
        };
        format!(
            "lazytool-gateway --config {}{lock} lock --update {server}",
            self.config_file().display()
        )
    }

    /// The log filter when `RUST_LOG` is not set: lazytool's events at info (each tool call's
    /// span and discovery only at debug) and everything else at warn (rmcp's off); warnings
    /// only with `--check`, whose report is the output; moved by `-v` and `-q`.
    ///
    /// ```
    /// use lazytool_gateway::Cli;
    ///
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "-qq"]).unwrap();
    /// assert_eq!(cli.default_log_filter(), "rmcp=off,error");
    /// let cli = Cli::try_parse_args(["lazytool-gateway", "--config", "f", "--check"]).unwrap();
    /// assert_eq!(cli.default_log_filter(), "rmcp=off,warn");
    /// ```
    pub fn default_log_filter(&self) -> &'static str {
        // rmcp's own lines are off below -vv: they print upstream URLs whole (secrets in
        // their query included) and Rust type names, and lazytool reports every upstream
        // failure itself, secrets hidden. The execute_tool spans stay at info in the runtime
        // (OpenTelemetry exporters want them), and are held back here: one line per call.
        match (self.verbose, self.quiet) {
            (0, 0) if self.check => "rmcp=off,warn",
            (0, 0) => "lazytool=info,lazytool::call=warn,lazytool::discovery=warn,rmcp=off,warn",
            (0, 1) => "rmcp=off,warn",
            (0, _) => "rmcp=off,error",
            (1, _) => "lazytool=debug,rmcp=off,info",
            _ => "trace",
        }
    }
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
            Cli::try_parse_args(["lazytool-gateway", "--config", "f"].iter().chain(args))
        };
        for refused in [
            &["--http", "1", "--token", "a", "--token-file", "p"][..],
            &["-q", "-v"],
            &["--http", "host"],
        ] {
            assert!(parse(refused).is_err(), "{refused:?}");
        }
        for needs_http in [
            &["--token-file", "p"][..],
            &["--token", "t"],
            &["--drain-timeout", "5s"],
        ] {
            let cli = parse(needs_http).expect("parses");
            assert!(cli.http.check().is_err(), "{needs_http:?}");
        }
        assert!(
            Cli::try_parse_args(["lazytool-gateway"]).is_err(),
            "--config is required"
        );
        let cli = parse(&["--http", "0.0.0.0:9000", "--token", "t"]).expect("valid");
        assert_eq!(cli.http.http, Some(SocketAddr::from(([0, 0, 0, 0], 9000))));
        assert_eq!(cli.http.serving.token.as_deref(), Some("t"));
        assert_eq!(cli.http.check(), Ok(()));
        let login = parse(&["login", "linear"]).expect("valid");
        assert_eq!(login.check_command(), Ok(()));
        for refused in [
            &["--http", "1", "login", "x"][..],
            &["--token", "t", "login", "x"],
        ] {
            let cli = parse(refused).expect("parses");
            assert!(cli.check_command().is_err(), "{refused:?}");
        }
        assert!(parse(&["login"]).is_err(), "login needs a server");
        let lock = parse(&["lock", "--update", "a", "b"]).expect("valid");
        assert!(matches!(&lock.command, Some(Command::Lock { update }) if update == &["a", "b"]));
        assert!(
            parse(&["lock", "--update"]).is_err(),
            "--update needs a server"
        );
        assert!(
            parse(&["--check", "lock"])
                .expect("parses")
                .check_command()
                .is_err()
        );
        assert!(
            matches!(parse(&["lock"]).expect("valid").command, Some(Command::Lock { update }) if update.is_empty())
        );
        let stdio = parse(&[]).expect("valid");
        assert_eq!(stdio.http.check(), Ok(()));
        assert_eq!(
            stdio.default_log_filter(),
            "lazytool=info,lazytool::call=warn,lazytool::discovery=warn,rmcp=off,warn"
        );
    }

    #[test]
    fn config_quiet_and_verbose_go_before_or_after_the_subcommand() {
        let parse = |args: &[&str]| Cli::try_parse_args(["lazytool-gateway"].iter().chain(args));
        for args in [
            &["--config", "m.json", "-q", "lock"][..],
            &["--config", "m.json", "lock", "-q"],
            &["lock", "-q", "--config", "m.json"],
            &["-q", "lock", "--update", "time", "--config", "m.json"],
        ] {
            let cli = parse(args).unwrap_or_else(|error| panic!("{args:?}: {error}"));
            assert_eq!(cli.quiet, 1, "{args:?}");
            assert_eq!(cli.config_file(), Path::new("m.json"), "{args:?}");
            assert!(
                matches!(cli.command, Some(Command::Lock { .. })),
                "{args:?}"
            );
        }
        let login = parse(&["login", "linear", "-v", "--config", "m.json"]).expect("valid");
        assert_eq!(login.verbose, 1);
        assert_eq!(login.lock_path(), Path::new("lazytool.lock"));
        for refused in [
            &["lock", "-q"][..],
            &["login", "x"],
            &["lock", "-q", "-v", "--config", "m"],
        ] {
            assert!(parse(refused).is_err(), "{refused:?}");
        }
        let missing = parse(&["lock"]).expect_err("--config is required");
        assert_eq!(missing.kind(), ErrorKind::MissingRequiredArgument);
        assert_eq!(missing.exit_code(), 2);
    }

    #[test]
    fn the_check_logs_warnings_only_and_serving_no_line_per_call() {
        let parse = |args: &[&str]| {
            Cli::try_parse_args(["lazytool-gateway", "--config", "f"].iter().chain(args))
                .expect("valid")
        };
        assert_eq!(parse(&["--check"]).default_log_filter(), "rmcp=off,warn");
        assert_eq!(
            parse(&["--check", "-qq"]).default_log_filter(),
            "rmcp=off,error"
        );
        assert_eq!(
            parse(&["--check", "-v"]).default_log_filter(),
            "lazytool=debug,rmcp=off,info"
        );
        let serving = parse(&[]).default_log_filter();
        for per_call in ["lazytool::call=warn", "lazytool::discovery=warn"] {
            assert!(serving.contains(per_call), "{serving}");
        }
    }
}
