//! The configuration: the clients' own shapes (Claude's `mcpServers`, VS Code's `servers`
//! with `type`, JSON with comments and trailing commas), `${VAR}`, `${env:VAR}` and
//! `${VAR:-default}`, the `lazytool` section, and one error listing every problem with its
//! JSON path.

use lazytool_gateway::parse;
use lazytool_mcp_client::{InheritEnv, Upstream};
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
        "$.lazytool.mode: expected \"names\", \"search\", \"auto\" or \"code\", found \"everything\"",
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
fn a_missing_comma_is_shown_at_its_file_line_and_column() {
    let text = "{\n  \"mcpServers\": {\n    \"time\": {\"command\": \"uvx\"}\n    \"git\": {\"command\": \"uvx\"}\n  }\n}\n";
    let error = parse(text, env).expect_err("a comma is missing");
    assert_eq!(error.problems, ["$: not valid JSON: expected comma"]);
    assert_eq!(error.places, [Some((3, 31))]);
    assert_eq!(
        error.in_file("conf/mcp.json").to_string(),
        "conf/mcp.json has 1 problem:\n  conf/mcp.json:3:31: $: not valid JSON: expected comma"
    );
}

#[test]
fn problems_are_listed_in_file_order_each_at_its_line_and_column() {
    // The `lazytool` section is read first, but comes last in this file.
    let text = r#"{
  "mcpServers": {
    "time": {"command": 3},
    "web": {"url": "ftp://x"}
  },
  "lazytool": {
    "mode": "everything",
    "servers": {"time": {"pin": "never"}}
  }
}"#;
    let error = parse(text, env).expect_err("invalid");
    assert_eq!(
        error.problems,
        [
            "$.mcpServers.time.command: expected a string, found a number",
            "$.mcpServers.web.url: `ftp://x` is not an http:// or https:// URL",
            "$.lazytool.mode: expected \"names\", \"search\", \"auto\" or \"code\", found \"everything\"",
            "$.lazytool.servers.time.pin: expected \"block\", \"warn\" or \"off\", found \"never\"",
        ]
    );
    assert_eq!(
        error.places,
        [Some((3, 14)), Some((4, 13)), Some((7, 5)), Some((8, 26))]
    );
    let shown = error.in_file("mcp.json").to_string();
    assert!(
        shown.starts_with("mcp.json has 4 problems:\n  mcp.json:3:14: $.mcpServers.time.command: "),
        "{shown}"
    );
}

#[test]
fn a_typo_of_a_key_names_the_closest_known_key() {
    let text = json!({
        "mcpServers": {"time": {"comand": "uvx", "args": ["mcp-server-time"]}, "web": {"uri": "https://x"}, "none": {"args": []}},
        "lazytool": {"idleTimeout": 1000, "servers": {"web": {"denny": ["x"], "colour": "blue"}}},
    })
    .to_string();
    let problems = parse(&text, env).expect_err("refused").problems;
    assert_eq!(
        problems,
        [
            "$.mcpServers.time: needs `command` (a child process) or `url` (streamable HTTP); is `comand` a typo of `command`?",
            "$.mcpServers.web: needs `command` (a child process) or `url` (streamable HTTP); is `uri` a typo of `url`?",
            "$.mcpServers.none: needs `command` (a child process) or `url` (streamable HTTP)",
            "$.lazytool.idleTimeout: unknown key: did you mean `idleTimeoutMs`? (expected one of: mode, listing, servers, startTimeoutMs, callTimeoutMs, maxDescriptionChars, maxDefinitionBytes, idleTimeoutMs, pin, inheritEnv, search, oidc, limits, audit, code, requestState, shared)",
            "$.lazytool.servers.web.denny: unknown key: did you mean `deny`? (expected one of: allow, deny, eager, prefix, inheritEnv, maxDescriptionChars, maxDefinitionBytes, oauth, idleTimeoutMs, pin, limits)",
            "$.lazytool.servers.web.colour: unknown key (expected one of: allow, deny, eager, prefix, inheritEnv, maxDescriptionChars, maxDefinitionBytes, oauth, idleTimeoutMs, pin, limits)",
        ]
    );
}

#[test]
fn the_lazytool_section_gives_defaults_that_each_server_may_override() {
    let text = json!({
        "mcpServers": {"plain": {"command": "x"}, "own": {"command": "y"}},
        "lazytool": {"idleTimeoutMs": 60000, "pin": "warn", "inheritEnv": true, "servers": {
            "own": {"idleTimeoutMs": 0, "pin": "off", "inheritEnv": ["AWS_PROFILE"]},
        }},
    })
    .to_string();
    let config = parse(&text, env).expect("valid");
    let [plain, own] = &config.servers[..] else {
        panic!("two servers: {:?}", config.servers)
    };
    let (plain, own) = (format!("{plain:?}"), format!("{own:?}"));
    assert!(plain.contains("pin: Warn, idle_timeout: 60s"), "{plain}");
    assert!(plain.contains("inherit_env: All"), "{plain}");
    assert!(own.contains("pin: Off, idle_timeout: 0ns"), "{own}");
    assert!(
        own.contains(r#"inherit_env: Names(["AWS_PROFILE"])"#),
        "{own}"
    );

    let bad = json!({
        "mcpServers": {"plain": {"command": "x"}},
        "lazytool": {"idleTimeoutMs": -1, "pin": "sometimes", "inheritEnv": "yes"},
    })
    .to_string();
    assert_eq!(
        parse(&bad, env).expect_err("refused").problems,
        [
            "$.lazytool.idleTimeoutMs: expected a whole number of milliseconds (0 keeps the server up), found -1",
            "$.lazytool.pin: expected \"block\", \"warn\" or \"off\", found \"sometimes\"",
            "$.lazytool.inheritEnv: expected true, false or an array of variable names, found a string",
        ]
    );
}

#[test]
fn without_a_lazytool_section_names_mode_lists_full_names() {
    let config = parse(r#"{"mcpServers": {"time": {"command": "uvx"}}}"#, env).expect("valid");
    assert_eq!(config.mode, DiscoveryMode::Names);
    assert_eq!(config.listing, DiscoveryListing::Names);
    let grouped =
        r#"{"mcpServers": {"time": {"command": "uvx"}}, "lazytool": {"listing": "grouped"}}"#;
    assert_eq!(
        parse(grouped, env).expect("valid").listing,
        DiscoveryListing::GroupedNames
    );
}

/// VS Code's `.vscode/mcp.json` as its documentation shows it: comments, trailing commas,
/// `servers`, `type`, `${env:VAR}` and an `inputs` list.
const VS_CODE: &str = r#"{
    // Prompted values: the gateway cannot prompt.
    "inputs": [
        {"type": "promptString", "id": "github-token", "description": "GitHub token", "password": true},
    ],
    "servers": {
        "time": {
            "type": "stdio",
            "command": "uvx",
            "args": ["mcp-server-time", "--local-timezone", "${TZNAME:-UTC}"], /* Claude Code's form */
        },
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"},
        },
    },
}"#;

#[test]
fn a_vs_code_file_parses_as_it_is() {
    let config = parse(VS_CODE, env).expect("valid");
    assert_eq!(
        config.servers[0].upstream(),
        &Upstream::command("uvx", ["mcp-server-time", "--local-timezone", "UTC"])
    );
    assert_eq!(
        config.servers[1].upstream(),
        &Upstream::url("https://api.githubcopilot.com/mcp/")
            .header("Authorization", "Bearer ghp_secret")
    );
    let with_zone = |name: &str| match name {
        "TZNAME" => Some("Europe/Paris".to_owned()),
        other => env(other),
    };
    let config = parse(VS_CODE, with_zone).expect("valid");
    assert_eq!(
        config.servers[0].upstream(),
        &Upstream::command(
            "uvx",
            ["mcp-server-time", "--local-timezone", "Europe/Paris"]
        )
    );
}

#[test]
fn vs_code_prompts_and_variables_are_refused_with_what_to_write() {
    let text = VS_CODE
        .replace("${env:GITHUB_TOKEN}", "${input:github-token}")
        .replace("${TZNAME:-UTC}", "${workspaceFolder}");
    let problems = parse(&text, env).expect_err("refused").problems;
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("$.servers.time.args[2]: `${workspaceFolder}` is a VS Code variable"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("$.servers.github.headers.Authorization: `${input:github-token}` asks VS Code to prompt for a value, which the gateway cannot do: set an environment variable and write `${env:NAME}` instead"),
        "{problems:?}"
    );
}

#[test]
fn a_server_given_twice_is_a_problem_naming_both_lines() {
    let text = "{\n  \"mcpServers\": {\n    \"time\": {\"command\": \"a\"},\n    \"git\": {\"command\": \"b\"},\n    \"time\": {\"command\": \"c\"}\n  }\n}";
    let problems = parse(text, env).expect_err("refused").problems;
    assert_eq!(
        problems,
        [
            "$.mcpServers.time: given twice, on lines 3 and 5: keep one (a JSON reader would silently take the last)"
        ]
    );
}

#[test]
fn types_must_agree_with_the_entry_and_files_name_their_servers_once() {
    let text = json!({
        "servers": {
            "a": {"type": "http", "command": "x"},
            "b": {"type": "stdio", "url": "http://localhost:1/mcp"},
            "c": {"type": "websocket", "url": "ws://x"},
            "d": {"command": "x", "envFile": "${HOME}/.env"},
        },
    })
    .to_string();
    let problems = parse(&text, env).expect_err("refused").problems;
    let expected = [
        "$.servers.a.type: is \"http\", which needs a `url`, but the entry has a `command`",
        "$.servers.b.type: is \"stdio\", which needs a `command`, but the entry has a `url`",
        "$.servers.c.type: expected \"stdio\" (a child process) or \"http\" (streamable HTTP), found \"websocket\"",
        "$.servers.c.url: `ws://x` is not an http:// or https:// URL",
        "$.servers.d.envFile: `envFile` is not supported",
    ];
    assert_eq!(problems.len(), expected.len(), "{problems:?}");
    for (problem, expected) in problems.iter().zip(expected) {
        assert!(
            problem.starts_with(expected),
            "{problem:?} is not {expected:?}"
        );
    }

    let both = r#"{"mcpServers": {}, "servers": {}}"#;
    assert_eq!(
        parse(both, env).expect_err("refused").problems,
        ["$: has both `mcpServers` and `servers`: give the servers in one of them"]
    );
    let neither = r#"{"lazytool": {}}"#;
    assert!(
        parse(neither, env).expect_err("refused").problems[0]
            .starts_with("$: no `mcpServers` object (nor VS Code's `servers`)")
    );
}

#[test]
fn oauth_settings_reach_the_http_upstream_with_one_token_store() {
    use lazytool_mcp_client::{Grant, OAuth, TokenStore};

    let text = json!({
        "mcpServers": {
            "linear": {"url": "https://mcp.linear.app/mcp"},
            "ci": {"url": "https://mcp.example.com/mcp"},
            "plain": {"url": "https://docs.example.com/mcp"},
        },
        "lazytool": {"servers": {
            "linear": {"oauth": {}},
            "ci": {"oauth": {"clientId": "lazytool-ci", "clientSecret": "${CI_SECRET}", "scopes": ["issues:read", "issues:write"], "grant": "client_credentials"}},
        }},
    })
    .to_string();
    let var = |name: &str| (name == "CI_SECRET").then(|| "s3cret-from-env".to_owned());
    let tokens = TokenStore::file("/tmp/lazytool-test/tokens.json");
    let config = lazytool_gateway::parse_with_token_store(&text, var, &tokens).expect("valid");
    assert_eq!(
        config.servers[0].upstream(),
        &Upstream::url("https://mcp.linear.app/mcp")
            .oauth(OAuth::new().token_store(tokens.clone()))
    );
    let ci = OAuth::new()
        .client_id("lazytool-ci")
        .client_secret("s3cret-from-env")
        .scopes(["issues:read", "issues:write"])
        .grant(Grant::ClientCredentials)
        .token_store(tokens);
    assert_eq!(
        config.servers[1].upstream(),
        &Upstream::url("https://mcp.example.com/mcp").oauth(ci)
    );
    assert_eq!(
        config.servers[2].upstream(),
        &Upstream::url("https://docs.example.com/mcp"),
        "no `oauth`, no OAuth"
    );
    let shown = format!("{:?}", config.servers[1]);
    assert!(
        !shown.contains("s3cret-from-env"),
        "a secret in Debug: {shown}"
    );
    let redacted = config.servers[1]
        .upstream()
        .redactor()
        .apply("refused: client_secret=s3cret-from-env");
    assert!(!redacted.contains("s3cret-from-env"), "{redacted}");

    let default = parse(&text, var).expect("valid");
    assert_eq!(
        default.servers[0].upstream(),
        &Upstream::url("https://mcp.linear.app/mcp")
            .oauth(OAuth::new().token_store(TokenStore::default_location())),
        "without --token-store, the default store"
    );
    assert_eq!(default.servers.len(), 3);
}

#[test]
fn bad_oauth_settings_are_problems_with_their_paths() {
    let text = json!({
        "mcpServers": {
            "local": {"command": "x"},
            "remote": {"url": "https://mcp.example.com/mcp"},
            "odd": {"url": "https://odd.example.com/mcp"},
        },
        "lazytool": {"servers": {
            "local": {"oauth": {}},
            "remote": {"oauth": {"clientId": 7, "scopes": "read", "grant": "implicit", "secret": "x", "clientSecret": "${MISSING}"}},
            "odd": {"oauth": true},
        }},
    })
    .to_string();
    let problems = parse(&text, env).expect_err("refused").problems;
    assert_eq!(
        problems,
        [
            "$.lazytool.servers.local.oauth: only a `url` server (streamable HTTP) can use OAuth",
            "$.lazytool.servers.remote.oauth.clientId: expected a string, found a number",
            "$.lazytool.servers.remote.oauth.scopes: expected an array of strings, found a string",
            "$.lazytool.servers.remote.oauth.grant: expected \"authorization_code\" or \"client_credentials\", found \"implicit\"",
            "$.lazytool.servers.remote.oauth.secret: unknown key (expected one of: clientId, clientSecret, scopes, grant)",
            "$.lazytool.servers.remote.oauth.clientSecret: the environment variable `MISSING` is not set",
            "$.lazytool.servers.odd.oauth: expected an object, found a boolean",
        ],
        "{problems:#?}"
    );
}

#[test]
fn the_definition_bound_is_a_positive_number_of_bytes() {
    let text = json!({
        "mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}},
        "lazytool": {"maxDefinitionBytes": 0, "servers": {"b": {"maxDefinitionBytes": "64k"}}},
    })
    .to_string();
    let error = parse(&text, env).expect_err("invalid");
    assert_eq!(
        error.problems,
        [
            "$.lazytool.maxDefinitionBytes: expected a positive whole number of bytes, found 0",
            "$.lazytool.servers.b.maxDefinitionBytes: expected a positive whole number of bytes, found \"64k\"",
        ]
    );
    let text = text.replace(":0,", ":1000000,").replace("\"64k\"", "16384");
    assert_eq!(parse(&text, env).expect("valid").servers.len(), 2);
}

#[test]
fn search_by_meaning_is_configured_under_lazytool_search_embeddings() {
    let text = json!({
        "mcpServers": {"time": {"command": "uvx"}},
        "lazytool": {"mode": "search", "search": {"embeddings": {
            "url": "http://127.0.0.1:11434", "model": "all-minilm", "apiKeyEnv": "GITHUB_TOKEN",
            "timeoutMs": 5000, "queryTimeoutMs": 500, "batchSize": 16, "cacheDir": "/var/cache/vectors",
        }}},
    })
    .to_string();
    let config = parse(&text, env).expect("valid");
    let embeddings = config.embeddings.as_ref().expect("embeddings");
    assert_eq!(embeddings.embedder_id(), "all-minilm");
    assert_eq!(
        embeddings.query_timeout(),
        std::time::Duration::from_millis(500)
    );
    assert_eq!(
        embeddings.cache_dir(),
        Some(std::path::Path::new("/var/cache/vectors"))
    );
    // The key is read, and never shown.
    assert!(!format!("{config:?}").contains("ghp_secret"));

    // Without `cacheDir`, vectors are kept under the user's cache directory.
    let text = json!({"mcpServers": {}, "lazytool": {"search": {"embeddings": {"url": "http://127.0.0.1:8080/v1", "model": "m"}}}});
    let config = parse(&text.to_string(), env).expect("valid");
    let embeddings = config.embeddings.as_ref().expect("embeddings");
    assert_eq!(
        embeddings.cache_dir(),
        Some(std::path::Path::new("/home/me/.cache/lazytool/vectors"))
    );
    assert!(
        parse(r#"{"mcpServers": {}}"#, env)
            .expect("valid")
            .embeddings
            .is_none()
    );
}

#[test]
fn a_bad_embeddings_section_is_refused_with_its_path() {
    let problems = |embeddings: serde_json::Value| {
        let text = json!({"mcpServers": {}, "lazytool": {"search": {"embeddings": embeddings, "rerank": true}}});
        parse(&text.to_string(), env).expect_err("refused").problems
    };
    let search = "$.lazytool.search.rerank: unknown key (expected one of: embeddings)";
    assert_eq!(
        problems(json!({"url": "http://127.0.0.1:1"}))[..],
        // In file order: `embeddings` comes before `rerank`.
        ["$.lazytool.search.embeddings: `url` needs `model`, the name the endpoint knows the model by".to_owned(), search.to_owned()]
    );
    assert_eq!(
        problems(json!({"url": "ftp://x", "model": "m", "apiKeyEnv": "NOPE"}))[0],
        "$.lazytool.search.embeddings.url: embeddings URL \"ftp://x\": not http:// or https://"
    );
    assert_eq!(
        problems(json!({"url": "http://x", "model": "m", "apiKeyEnv": "NOPE"}))[0],
        "$.lazytool.search.embeddings.apiKeyEnv: the environment variable NOPE is not set"
    );
    assert_eq!(
        problems(json!({"url": "http://x", "modelDir": "/models/mini"}))[0],
        "$.lazytool.search.embeddings: `url` and `modelDir`: one or the other"
    );
    assert_eq!(
        problems(json!({"url": "http://x", "model": "m", "batchSize": 0}))[0],
        "$.lazytool.search.embeddings.batchSize: expected a positive whole number of texts, found 0"
    );
    assert!(
        problems(json!({}))[0].starts_with("$.lazytool.search.embeddings: needs `url` and `model`")
    );
}

#[test]
fn limits_per_server_and_per_principal_and_the_audit_trail_are_read() {
    let text = json!({
        "mcpServers": {"git": {"command": "uvx"}, "web": {"url": "https://w.example/mcp"}},
        "lazytool": {
            "servers": {"git": {"limits": {"perSecond": 2.5, "maxInFlight": 4}}},
            "limits": {
                "perPrincipal": {"perSecond": 10, "burst": 20},
                "principals": {"ci": {"maxInFlight": 1}},
                "maxTrackedPrincipals": 500,
            },
            "audit": {"path": "-", "keep": 0, "arguments": true},
        },
    })
    .to_string();
    let config = parse(&text, env).expect("valid");
    let git = config.servers[0].quota();
    assert_eq!(git.to_string(), "2.5 calls/s, burst 3; 4 in flight");
    assert!(config.servers[1].quota().is_unlimited());
    let limits = config.principal_limits.expect("limits");
    assert_eq!(limits.quota_of("alice").to_string(), "10 calls/s, burst 20");
    assert_eq!(limits.quota_of("ci").to_string(), "1 in flight");
    assert_eq!(limits.tracked_capacity(), 500);
    let audit = config.audit.expect("audit");
    assert_eq!(
        (audit.path.as_deref(), audit.rotation.keep, audit.arguments),
        (Some(std::path::Path::new("-")), 0, true)
    );
    assert_eq!(
        audit.rotation.max_bytes,
        lazytool_mcp::Rotation::default().max_bytes
    );
}

#[test]
fn a_bad_limit_or_audit_setting_names_what_was_wrong_and_the_bound() {
    let text = json!({
        "mcpServers": {"git": {"command": "uvx"}},
        "lazytool": {
            "servers": {"git": {"limits": {"perSecond": 0, "maxInFlight": 0, "rate": 1}}},
            "limits": {"perPrincipal": {"burst": 5}, "principals": {"ci": {"perSecond": "fast"}}},
            "audit": {"maxBytes": 0, "keep": -1, "arguments": "yes"},
        },
    })
    .to_string();
    let error = parse(&text, env).expect_err("invalid");
    let expected = [
        "$.lazytool.servers.git.limits.perSecond: a rate must be more than 0 and at most 1000000 calls a second, found 0",
        "$.lazytool.servers.git.limits.maxInFlight: expected a positive whole number of calls, found 0",
        "$.lazytool.servers.git.limits.rate: unknown key (expected one of: perSecond, burst, maxInFlight)",
        "$.lazytool.limits.perPrincipal.burst: a burst needs `perSecond`",
        "$.lazytool.limits.principals.ci.perSecond: expected a number of calls a second, found \"fast\"",
        "$.lazytool.audit.maxBytes: expected a positive whole number of bytes, found 0",
        "$.lazytool.audit.keep: expected how many rotated files to keep, 0 to 1000, found -1",
        "$.lazytool.audit.arguments: expected true or false, found \"yes\"",
    ];
    assert_eq!(error.problems, expected);
}

#[cfg(feature = "code-mode")]
#[test]
fn code_mode_takes_its_discovery_and_limits_from_the_code_section() {
    use std::time::Duration;

    let text = json!({
        "mcpServers": {},
        "lazytool": {"mode": "code", "code": {"discovery": "search", "directCalls": true, "maxToolCalls": 20, "maxConcurrentCalls": 2, "maxMemoryBytes": 16_777_216, "wallTimeMs": 5000}},
    })
    .to_string();
    let config = parse(&text, env).expect("valid");
    assert_eq!(config.mode, DiscoveryMode::Search);
    let code = config.code.expect("code mode");
    assert!(code.direct_calls);
    assert_eq!((code.max_tool_calls, code.max_concurrent_calls), (20, 2));
    assert_eq!(code.max_memory_bytes, 16 << 20);
    assert_eq!(code.wall_time, Some(Duration::from_secs(5)));
    assert_eq!(code.runner, lazytool_runtime::ScriptRunner::Worker);

    let workers = json!({
        "mcpServers": {},
        "lazytool": {"mode": "code", "code": {"runner": "worker", "maxScripts": 4, "maxQueuedScripts": 2, "queueWaitMs": 1500, "idleWorkers": 1, "recycleAfterScripts": 10, "recycleAboveBytes": 33_554_432}},
    })
    .to_string();
    let code = parse(&workers, env)
        .expect("valid")
        .code
        .expect("code mode");
    assert_eq!(code.max_scripts, 4);
    assert_eq!(
        (code.max_queued_scripts, code.max_queue_wait),
        (2, Duration::from_millis(1500))
    );
    assert_eq!(code.max_idle_workers, 1);
    assert_eq!(
        (code.recycle_after_scripts, code.recycle_above_bytes),
        (10, 32 << 20)
    );
    let in_process =
        r#"{"mcpServers": {}, "lazytool": {"mode": "code", "code": {"runner": "inProcess"}}}"#;
    let code = parse(in_process, env)
        .expect("valid")
        .code
        .expect("code mode");
    assert_eq!(code.runner, lazytool_runtime::ScriptRunner::InProcess);
    let bad_runner = r#"{"mcpServers": {}, "lazytool": {"mode": "code", "code": {"runner": "thread", "maxScripts": 0}}}"#;
    assert_eq!(
        parse(bad_runner, env).expect_err("invalid").problems,
        [
            "$.lazytool.code.runner: expected \"worker\" or \"inProcess\", found \"thread\"",
            "$.lazytool.code.maxScripts: expected a positive whole number of scripts, found 0",
        ]
    );

    let plain = parse(r#"{"mcpServers": {}, "lazytool": {"mode": "code"}}"#, env).expect("valid");
    assert_eq!(
        plain.mode,
        DiscoveryMode::Names,
        "names, as the gateway's default"
    );
    assert_eq!(plain.code, Some(lazytool_runtime::CodeMode::new()));
    assert_eq!(
        parse(r#"{"mcpServers": {}}"#, env).expect("valid").code,
        None
    );

    let bad = json!({
        "mcpServers": {},
        "lazytool": {"mode": "code", "code": {"discovery": "eager", "directCalls": "yes", "maxToolCalls": 0, "wallTime": 5}},
    })
    .to_string();
    let error = parse(&bad, env).expect_err("invalid");
    assert_eq!(
        error.problems,
        [
            "$.lazytool.code.discovery: expected \"names\", \"search\" or \"auto\", found \"eager\"",
            "$.lazytool.code.directCalls: expected true or false, found \"yes\"",
            "$.lazytool.code.maxToolCalls: expected a positive whole number of calls, found 0",
            "$.lazytool.code.wallTime: unknown key: did you mean `wallTimeMs`? (expected one of: discovery, directCalls, maxToolCalls, maxConcurrentCalls, maxMemoryBytes, wallTimeMs, runner, maxScripts, maxQueuedScripts, queueWaitMs, idleWorkers, recycleAfterScripts, recycleAboveBytes)",
        ]
    );
    let elsewhere = parse(
        r#"{"mcpServers": {}, "lazytool": {"mode": "search", "code": {}}}"#,
        env,
    );
    assert_eq!(
        elsewhere.expect_err("invalid").problems,
        ["$.lazytool.code: applies only with `\"mode\": \"code\"`"]
    );
}

#[test]
fn the_request_state_key_and_ttl_are_read_and_a_short_key_is_refused() {
    let text = r#"{"mcpServers": {}, "lazytool": {"requestState": {"key": "0123456789abcdef0123456789abcdef", "ttlMs": 60000}}}"#;
    let settings = parse(text, env)
        .expect("valid")
        .request_state
        .expect("the section");
    assert_eq!(
        settings.key.as_deref(),
        Some("0123456789abcdef0123456789abcdef")
    );
    assert_eq!(settings.ttl, Some(std::time::Duration::from_secs(60)));
    let none = parse(r#"{"mcpServers": {}}"#, env).expect("valid");
    assert_eq!(none.request_state, None);

    let bad = r#"{"mcpServers": {}, "lazytool": {"requestState": {"key": "short", "ttlMs": 0, "rotate": true}}}"#;
    let problems = parse(bad, env).expect_err("invalid").problems;
    assert!(
        problems
            .iter()
            .any(|problem| problem.starts_with("$.lazytool.requestState.key: the key has 5 bytes")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|problem| problem.starts_with("$.lazytool.requestState.ttlMs:")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|problem| problem.contains("rotate")),
        "{problems:?}"
    );
}

#[test]
fn the_shared_store_is_read_with_its_password_from_the_environment() {
    let text = r#"{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}, "lazytool": {
        "callTimeoutMs": 60000,
        "shared": {"redis": "redis://:${REDIS_PASSWORD}@10.0.0.5:6379", "onFailure": "refuse", "keyPrefix": "team-a:"}
    }}"#;
    let var = |name: &str| (name == "REDIS_PASSWORD").then(|| "p%40ss".to_owned());
    let store = parse(text, var)
        .expect("valid")
        .shared
        .expect("the section");
    assert_eq!(store.url(), "redis://:***@10.0.0.5:6379");
    assert_eq!(store.failure_policy(), lazytool_mcp::FailurePolicy::Refuse);
    assert_eq!(store.prefix(), "team-a:");
    assert_eq!(store.leased_call(), std::time::Duration::from_secs(60));
    // Not even the debug form shows the password.
    assert!(!format!("{store:?}").contains("p%40ss"));

    let defaults =
        r#"{"mcpServers": {}, "lazytool": {"shared": {"redis": "rediss://cache.internal:6380"}}}"#;
    let store = parse(defaults, env)
        .expect("valid")
        .shared
        .expect("the section");
    assert_eq!(store.failure_policy(), lazytool_mcp::FailurePolicy::Local);
    assert_eq!(store.prefix(), lazytool_mcp::DEFAULT_KEY_PREFIX);
    assert!(
        parse(r#"{"mcpServers": {}}"#, env)
            .expect("valid")
            .shared
            .is_none()
    );
}

#[test]
fn every_problem_of_the_shared_section_is_said_with_its_path() {
    let unset = r#"{"mcpServers": {}, "lazytool": {"shared": {"redis": "redis://:${REDIS_PASSWORD}@cache:6379"}}}"#;
    assert_eq!(
        parse(unset, env).expect_err("invalid").problems,
        ["$.lazytool.shared.redis: the environment variable `REDIS_PASSWORD` is not set"]
    );
    let wrong = r#"{"mcpServers": {}, "lazytool": {"shared": {"redis": "http://:pw@cache:6379", "onFailure": "wait", "keyPrefix": "", "ttl": 1}}}"#;
    let problems = parse(wrong, env).expect_err("invalid").problems;
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(
        problems.iter().all(|problem| !problem.contains(":pw@")),
        "{problems:?}"
    );
    for expected in [
        "$.lazytool.shared.redis: `http://:***@cache:6379` is not a Redis URL",
        "$.lazytool.shared.onFailure: ",
        "$.lazytool.shared.keyPrefix: an empty prefix",
        "$.lazytool.shared.ttl: unknown key",
    ] {
        assert!(
            problems.iter().any(|problem| problem.starts_with(expected)),
            "{expected}: {problems:?}"
        );
    }
    let missing = r#"{"mcpServers": {}, "lazytool": {"shared": {}}}"#;
    let problems = parse(missing, env).expect_err("invalid").problems;
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("$.lazytool.shared: needs `redis`"),
        "{problems:?}"
    );
}
