//! The configuration: the standard `mcpServers` shapes, `${VAR}`, the `lazytool` section, and
//! one error listing every problem with its JSON path.

use lazytool_gateway::parse;
use lazytool_mcp::{InheritEnv, Upstream};
use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
use serde_json::json;

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/me".to_owned()),
        "GITHUB_TOKEN" => Some("ghp_secret".to_owned()),
        _ => None,
    }
}

#[test]
fn a_claude_desktop_file_parses_as_it_is() {
    let text = json!({
        "mcpServers": {
            "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"]},
            "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}},
            "old": {"command": "old-server", "disabled": true},
        },
        "lazytool": {"mode": "search", "listing": "names", "servers": {"github": {"allow": ["get_*", "list_*"], "eager": ["get_me"], "prefix": "gh"}}},
    })
    .to_string();
    let config = parse(&text, env).expect("valid");
    assert_eq!(config.mode, DiscoveryMode::Search);
    assert_eq!(config.listing, DiscoveryListing::Names);
    let described: Vec<String> = config
        .servers
        .iter()
        .map(|server| format!("{server:?}"))
        .collect();
    assert_eq!(described.len(), 2, "the disabled server is left out");
    assert!(described[0].contains("/home/me/notes"), "{}", described[0]);
    assert!(described[1].contains("prefix: \"gh\""), "{}", described[1]);
    assert!(
        !described[1].contains("ghp_secret"),
        "a secret in Debug: {}",
        described[1]
    );
    assert_eq!(
        config.servers[1].upstream(),
        &Upstream::url("https://api.githubcopilot.com/mcp/")
            .header("Authorization", "Bearer ghp_secret")
    );
}

#[test]
fn names_that_could_meet_after_the_prefix_are_refused() {
    let text = json!({
        "mcpServers": {"a__b": {"command": "x"}, "a": {"command": "y"}},
        "lazytool": {"servers": {"a": {"prefix": "p__q"}}},
    })
    .to_string();
    let problems = parse(&text, env).expect_err("refused").problems;
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("$.mcpServers.a__b: a server name may not hold `__`"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("$.lazytool.servers.a.prefix: a prefix may not hold `__`"),
        "{problems:?}"
    );
}

#[test]
fn children_inherit_the_base_environment_unless_told_otherwise() {
    let text = json!({
        "mcpServers": {"plain": {"command": "x"}, "all": {"command": "y"}, "some": {"command": "z"}, "bad": {"command": "w"}},
        "lazytool": {"maxDescriptionChars": 500, "servers": {
            "all": {"inheritEnv": true},
            "some": {"inheritEnv": ["AWS_PROFILE"], "maxDescriptionChars": 100},
            "bad": {"inheritEnv": "yes"},
        }},
    })
    .to_string();
    let problems = parse(&text, env).expect_err("one bad value").problems;
    assert_eq!(
        problems,
        [
            "$.lazytool.servers.bad.inheritEnv: expected true, false or an array of variable names, found a string"
        ]
    );
    let text = text.replace(r#""inheritEnv":"yes""#, r#""inheritEnv":false"#);
    let config = parse(&text, env).expect("valid");
    let inherit: Vec<InheritEnv> = (config.servers.iter())
        .map(|server| match server.upstream() {
            Upstream::Command { inherit_env, .. } => inherit_env.clone(),
            other => panic!("not a command: {other:?}"),
        })
        .collect();
    assert_eq!(
        inherit,
        [
            InheritEnv::Base,
            InheritEnv::All,
            InheritEnv::Names(vec!["AWS_PROFILE".to_owned()]),
            InheritEnv::Base
        ]
    );
}

#[test]
fn every_problem_is_listed_with_its_path() {
    let text = json!({
        "mcpServers": {
            "no kind": {"args": ["x"]},
            "both": {"command": "a", "url": "http://b"},
            "typed": {"command": 3, "args": "x", "env": {"A": 1}},
            "remote": {"url": "ftp://x", "type": "sse"},
            "secret": {"command": "s", "env": {"TOKEN": "${MISSING}"}},
        },
        "lazytool": {
            "mode": "everything",
            "listing": ["names"],
            "callTimeoutMs": -1,
            "colour": "blue",
            "servers": {"ghost": {}, "both": {"allow": ["[x"], "eager": "x", "other": 1}},
        },
    })
    .to_string();
    let error = parse(&text, env).expect_err("invalid");
    let expected = [
        "$.lazytool.colour: unknown key",
        "$.lazytool.mode: expected \"names\", \"search\" or \"auto\", found \"everything\"",
        "$.lazytool.listing: expected \"grouped\", \"names\", \"firstSentence\" or \"fullDescription\", found [\"names\"]",
        "$.lazytool.callTimeoutMs: expected a positive whole number of milliseconds, found -1",
        "$.lazytool.servers.ghost: no server of this name in `mcpServers`",
        "$.mcpServers[\"no kind\"]: a server name may hold only letters",
        "$.mcpServers[\"no kind\"]: needs `command` (a child process) or `url` (streamable HTTP)",
        "$.mcpServers.both: has both `command` and `url`",
        "$.lazytool.servers.both.other: unknown key",
        "$.lazytool.servers.both.allow: invalid pattern `[x`",
        "$.lazytool.servers.both.eager: expected an array of strings, found a string",
        "$.mcpServers.typed.command: expected a string, found a number",
        "$.mcpServers.remote.type: the deprecated SSE transport is not supported",
        "$.mcpServers.remote.url: `ftp://x` is not an http:// or https:// URL",
        "$.mcpServers.secret.env.TOKEN: the environment variable `MISSING` is not set",
    ];
    for problem in expected {
        assert!(
            error
                .problems
                .iter()
                .any(|found| found.starts_with(problem)),
            "missing {problem:?} in {error}"
        );
    }
    assert!(error.to_string().starts_with(&format!(
        "the configuration has {} problems:",
        error.problems.len()
    )));
}

#[test]
fn text_that_is_not_json_is_one_problem() {
    let error = parse("{\"mcpServers\": ", env).expect_err("invalid");
    assert_eq!(error.problems.len(), 1);
    assert!(
        error.problems[0].starts_with("$: not valid JSON"),
        "{error}"
    );
}

#[test]
fn without_a_lazytool_section_names_mode_lists_grouped_names() {
    let config = parse(r#"{"mcpServers": {"time": {"command": "uvx"}}}"#, env).expect("valid");
    assert_eq!(config.mode, DiscoveryMode::Names);
    assert_eq!(config.listing, DiscoveryListing::GroupedNames);
}
