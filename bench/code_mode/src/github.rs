//! What the GitHub MCP server's tools answer, made up but shaped and sized like the real
//! thing: lists of 30-100 items with the fields GitHub's REST and GraphQL APIs return, and
//! details of one item. Deterministic: the same call gives the same answer.

use serde_json::{Value, json};

const WORDS: [&str; 24] = [
    "parser",
    "cache",
    "login",
    "timeout",
    "retry",
    "config",
    "release",
    "docs",
    "worker",
    "scheduler",
    "upload",
    "token",
    "search",
    "index",
    "render",
    "webhook",
    "billing",
    "export",
    "import",
    "session",
    "metrics",
    "queue",
    "storage",
    "sync",
];
const PEOPLE: [&str; 9] = [
    "octocat",
    "mona",
    "hubot",
    "dependabot[bot]",
    "ada-l",
    "grace-h",
    "linus-t",
    "margaret-h",
    "ken-t",
];
const LABELS: [&str; 6] = [
    "bug",
    "enhancement",
    "documentation",
    "good first issue",
    "p1",
    "needs-triage",
];

/// A number from `seed`: the same seed, the same number (splitmix64).
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn pick<T: Copy>(items: &[T], seed: u64) -> T {
    items[(mix(seed) % items.len() as u64) as usize]
}

fn words(seed: u64, count: u64) -> String {
    let words: Vec<&str> = (0..count).map(|n| pick(&WORDS, seed * 31 + n)).collect();
    words.join(" ")
}

/// A paragraph of `sentences` sentences, as issue bodies and descriptions are.
fn prose(seed: u64, sentences: u64) -> String {
    let lines: Vec<String> = (0..sentences)
        .map(|n| {
            format!(
                "The {} fails when the {} is {}.",
                words(seed + n, 2),
                words(seed + n + 7, 1),
                words(seed + n + 13, 2)
            )
        })
        .collect();
    lines.join(" ")
}

fn date(seed: u64) -> String {
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:00Z",
        1 + mix(seed) % 11,
        1 + mix(seed + 1) % 28,
        mix(seed + 2) % 24,
        mix(seed + 3) % 60
    )
}

fn sha(seed: u64) -> String {
    format!(
        "{:016x}{:016x}{:08x}",
        mix(seed),
        mix(seed + 1),
        mix(seed + 2) as u32
    )
}

fn user(seed: u64) -> Value {
    let login = pick(&PEOPLE, seed);
    json!({"login": login, "id": mix(seed) % 9_000_000, "type": if login.ends_with("[bot]") { "Bot" } else { "User" }})
}

fn issue(number: u64, detailed: bool) -> Value {
    let labels: Vec<Value> = (0..1 + mix(number) % 3)
        .map(|n| json!({"name": pick(&LABELS, number * 5 + n)}))
        .collect();
    let mut issue = json!({
        "number": number,
        "title": format!("{} {}", words(number, 3), pick(&["broken", "is slow", "needs docs", "crashes", "regression"], number)),
        "state": if number.is_multiple_of(5) { "CLOSED" } else { "OPEN" },
        "author": user(number),
        "labels": labels,
        "comments": mix(number + 3) % 25,
        "createdAt": date(number),
        "updatedAt": date(number + 100),
        "url": format!("https://github.com/acme/platform/issues/{number}"),
        "body": prose(number, if detailed { 8 } else { 2 }),
    });
    if detailed {
        issue["assignees"] = json!([user(number + 1)]);
        issue["reactions"] = json!({"+1": mix(number) % 12, "heart": mix(number + 1) % 4});
        issue["milestone"] = json!({"title": format!("v{}.{}", 2 + number % 2, number % 9)});
    }
    issue
}

fn pull(number: u64) -> Value {
    json!({
        "number": number,
        "title": format!("Fix {} {}", words(number, 2), pick(&["handling", "tests", "docs", "timeouts"], number)),
        "state": "open",
        "draft": number.is_multiple_of(7),
        "user": user(number + 2),
        "head": {"ref": format!("fix/{}-{number}", words(number, 1)), "sha": sha(number)},
        "base": {"ref": "main"},
        "createdAt": date(number + 5),
        "updatedAt": date(number + 50),
        "html_url": format!("https://github.com/acme/platform/pull/{number}"),
        "body": prose(number + 3, 2),
    })
}

fn commit(n: u64) -> Value {
    let author = pick(&PEOPLE, n * 3);
    json!({
        "sha": sha(n),
        "commit": {
            "message": format!("{} {}", pick(&["Fix", "Add", "Refactor", "Bump", "Document"], n), words(n, 3)),
            "author": {"name": author, "email": format!("{author}@example.com"), "date": date(n + 9)},
        },
        "author": {"login": author},
        "html_url": format!("https://github.com/acme/platform/commit/{}", sha(n)),
    })
}

fn numbered(count: u64, make: impl Fn(u64) -> Value) -> Vec<Value> {
    (1..=count).map(make).collect()
}

fn number_of(arguments: &Value, key: &str) -> u64 {
    arguments[key]
        .as_u64()
        .or_else(|| arguments[key].as_f64().map(|n| n as u64))
        .unwrap_or(1)
}

/// The answer of the tool `name` to `arguments`.
pub fn answer(name: &str, arguments: &Value) -> Value {
    match name {
        "get_me" => {
            json!({"login": "octocat", "name": "The Octocat", "company": "@acme", "public_repos": 8, "followers": 4012})
        }
        "list_issues" => {
            let issues = numbered(70, |n| issue(1000 + n * 3, false));
            json!({"issues": issues, "pageInfo": {"hasNextPage": false, "endCursor": "Y3Vyc29yOjcw"}, "totalCount": 70})
        }
        "search_issues" => {
            json!({"total_count": 40, "items": numbered(40, |n| issue(2000 + n * 7, false))})
        }
        "issue_read" => match arguments["method"].as_str() {
            Some("get_comments") => Value::Array(numbered(
                8,
                |n| json!({"id": n, "user": user(n), "body": prose(n + 40, 2), "created_at": date(n + 40)}),
            )),
            _ => issue(number_of(arguments, "issue_number"), true),
        },
        "list_pull_requests" => Value::Array(numbered(50, |n| pull(500 + n))),
        "pull_request_read" => {
            let number = number_of(arguments, "pullNumber");
            match arguments["method"].as_str() {
                Some("get_files") => Value::Array(numbered(3 + mix(number) % 20, |n| {
                    json!({
                        "filename": format!("src/{}/{}.rs", words(number + n, 1), words(number * 2 + n, 1)),
                        "status": pick(&["modified", "added", "removed"], number + n),
                        "additions": mix(number + n) % 200, "deletions": mix(number + n + 1) % 80,
                    })
                })),
                _ => pull(number),
            }
        }
        "list_commits" => Value::Array(numbered(100, commit)),
        "get_commit" => {
            let seed = arguments["sha"]
                .as_str()
                .map_or(0, |sha| sha.bytes().map(u64::from).sum());
            json!({"sha": arguments["sha"], "stats": {"additions": mix(seed) % 300, "deletions": mix(seed + 1) % 100},
                "files": numbered(2 + mix(seed) % 6, |n| json!({"filename": format!("src/{}.rs", words(seed + n, 1)), "changes": mix(seed + n) % 90}))})
        }
        "list_releases" => Value::Array(numbered(30, |n| {
            json!({
                "tag_name": format!("v3.{}.0", 30 - n), "name": format!("Release 3.{}", 30 - n), "draft": false,
                "prerelease": n.is_multiple_of(6), "published_at": date(n + 70), "author": user(n), "body": prose(n + 70, 3),
            })
        })),
        "get_release_by_tag" => json!({"tag_name": arguments["tag"], "body": prose(77, 10),
            "assets": numbered(6, |n| json!({"name": format!("platform-{n}.tar.gz"), "download_count": mix(n) % 5000}))}),
        "list_dependabot_alerts" => Value::Array(numbered(45, |n| {
            json!({
                "number": n, "state": "open", "severity": pick(&["low", "medium", "high", "critical"], n * 11),
                "dependency": {"package": {"ecosystem": pick(&["npm", "cargo", "pip"], n), "name": words(n, 1)}, "manifest_path": pick(&["package-lock.json", "Cargo.lock", "requirements.txt"], n)},
                "security_advisory": {"ghsa_id": format!("GHSA-{:04x}-{:04x}", mix(n) % 65536, mix(n + 1) % 65536), "summary": prose(n + 90, 1)},
                "created_at": date(n + 90),
            })
        })),
        "get_dependabot_alert" => {
            let n = number_of(arguments, "alertNumber");
            json!({"number": n, "security_advisory": {"description": prose(n + 91, 9), "cvss": {"score": 5.0 + (mix(n) % 50) as f64 / 10.0}},
                "security_vulnerability": {"first_patched_version": {"identifier": format!("{}.{}.{}", 1 + n % 4, n % 10, n % 3)}}})
        }
        "actions_list" => json!({"total_count": 60, "workflow_runs": numbered(60, |n| json!({
            "id": 90_000 + n, "name": pick(&["CI", "Release", "Nightly", "Lint"], n), "head_branch": format!("fix/{}", words(n, 1)),
            "head_sha": sha(n + 300), "status": "completed", "conclusion": if n % 9 == 4 { "failure" } else { "success" },
            "event": "push", "run_number": 4000 + n, "created_at": date(n + 300),
        }))}),
        "get_job_logs" => {
            json!({"logs_url": "https://api.github.com/repos/acme/platform/actions/jobs/1/logs",
            "logs_content": (0..30).map(|n| format!("2026-05-01T10:{n:02}:00Z step {n}: {}", words(n + 500, 4))).collect::<Vec<_>>().join("\n")})
        }
        // The first 50 are the open pull requests' heads.
        "list_branches" => Value::Array(numbered(
            70,
            |n| json!({"name": format!("fix/{}-{}", words(500 + n, 1), 500 + n), "commit": {"sha": sha(n + 700)}, "protected": false}),
        )),
        "list_code_scanning_alerts" => Value::Array(numbered(40, |n| {
            json!({
                "number": n, "state": "open", "rule": {"id": format!("rust/{}", words(n, 1)), "severity": pick(&["error", "warning", "note"], n * 3), "description": prose(n + 800, 1)},
                "tool": {"name": "CodeQL"}, "most_recent_instance": {"location": {"path": format!("src/{}.rs", words(n, 1)), "start_line": mix(n) % 400}},
            })
        })),
        "get_code_scanning_alert" => {
            let n = number_of(arguments, "alertNumber");
            json!({"number": n, "rule": {"help": prose(n + 850, 8)}, "most_recent_instance": {"message": {"text": prose(n + 860, 2)}}})
        }
        "list_notifications" => Value::Array(numbered(50, |n| {
            json!({
                "id": format!("{}", 7_000_000 + n), "reason": pick(&["mention", "review_requested", "subscribed", "assign"], n), "unread": !n.is_multiple_of(3),
                "subject": {"title": words(n + 900, 4), "type": pick(&["Issue", "PullRequest", "Release"], n), "url": format!("https://api.github.com/repos/acme/platform/issues/{}", 1000 + n)},
                "repository": {"full_name": "acme/platform"}, "updated_at": date(n + 900),
            })
        })),
        "get_notification_details" => {
            json!({"id": arguments["notificationID"], "subject": {"title": words(950, 4), "latest_comment_url": "https://api.github.com/repos/acme/platform/issues/comments/1"}, "reason": "mention", "body": prose(951, 4)})
        }
        "list_secret_scanning_alerts" => Value::Array(numbered(30, |n| {
            json!({
                "number": n, "state": "open", "secret_type": pick(&["github_personal_access_token", "aws_access_key_id", "slack_api_token"], n),
                "created_at": date(n + 1000), "push_protection_bypassed": n.is_multiple_of(8),
            })
        })),
        "get_secret_scanning_alert" => {
            let n = number_of(arguments, "alertNumber");
            json!({"number": n, "locations": numbered(3, |m| json!({"path": format!("config/{}.yml", words(n + m, 1)), "start_line": mix(n + m) % 90}))})
        }
        "list_tags" => Value::Array(numbered(
            60,
            |n| json!({"name": format!("v3.{}.{}", n / 3, n % 3), "commit": {"sha": sha(n + 1200)}}),
        )),
        _ => json!({"ok": true}),
    }
}
