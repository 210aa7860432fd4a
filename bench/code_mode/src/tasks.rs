//! The tasks: a question, the tools it needs, the calls a model makes turn by turn when every
//! result comes back to it (`plan`), and the script it writes in code mode. Both compute the
//! same answer from the same data (`github.rs`).

use serde_json::{Value, json};

/// The calls of one turn: a tool's name and its arguments.
pub type Calls = Vec<(&'static str, Value)>;

pub struct Task {
    pub name: &'static str,
    pub question: &'static str,
    /// The tools the task calls: what names mode discovers by name.
    pub tools: &'static [&'static str],
    /// The calls of the next turn, from the results of the turns so far (one `Vec` per turn,
    /// in call order); none once the model can answer.
    pub plan: fn(&[Vec<Value>]) -> Calls,
    pub script: &'static str,
}

/// `owner` and `repo`, with `extra`'s members.
fn repo(extra: Value) -> Value {
    let mut args = json!({"owner": "acme", "repo": "platform"});
    if let (Some(args), Value::Object(extra)) = (args.as_object_mut(), extra) {
        args.extend(extra);
    }
    args
}

fn items(value: &Value, key: &str) -> Vec<Value> {
    let list = if key.is_empty() { value } else { &value[key] };
    list.as_array().cloned().unwrap_or_default()
}

fn text<'v>(value: &'v Value, pointer: &str) -> &'v str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn number(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

pub fn all() -> Vec<Task> {
    vec![
        Task {
            name: "stale bugs",
            question: "Which 5 open bugs have gone longest without an update, and what are they about?",
            tools: &["list_issues", "issue_read"],
            plan: |done| match done.len() {
                0 => vec![(
                    "list_issues",
                    repo(json!({"state": "OPEN", "labels": ["bug"]})),
                )],
                1 => {
                    let mut bugs: Vec<Value> = items(&done[0][0], "issues")
                        .into_iter()
                        .filter(|i| {
                            text(i, "/state") == "OPEN"
                                && items(i, "labels").iter().any(|l| text(l, "/name") == "bug")
                        })
                        .collect();
                    bugs.sort_by(|a, b| text(a, "/updatedAt").cmp(text(b, "/updatedAt")));
                    bugs.iter()
                        .take(5)
                        .map(|i| {
                            (
                                "issue_read",
                                repo(
                                    json!({"method": "get", "issue_number": number(i, "/number")}),
                                ),
                            )
                        })
                        .collect()
                }
                _ => Vec::new(),
            },
            script: r#"const { issues } = await tools.list_issues({ owner: "acme", repo: "platform", state: "OPEN", labels: ["bug"] });
const stale = issues.filter((i) => i.state === "OPEN" && i.labels.some((l) => l.name === "bug"))
  .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).slice(0, 5);
const details = await Promise.all(stale.map((i) => tools.issue_read({ method: "get", owner: "acme", repo: "platform", issue_number: i.number })));
return details.map((d) => ({ number: d.number, title: d.title, updated: d.updatedAt, assignee: d.assignees[0]?.login, about: d.body.slice(0, 100) }));"#,
        },
        Task {
            name: "large pull requests",
            question: "Which of the 10 most recently updated open pull requests change more than 12 files?",
            tools: &["list_pull_requests", "pull_request_read"],
            plan: |done| match done.len() {
                0 => vec![("list_pull_requests", repo(json!({"state": "open"})))],
                1 => {
                    let mut pulls = items(&done[0][0], "");
                    pulls.sort_by(|a, b| text(b, "/updatedAt").cmp(text(a, "/updatedAt")));
                    pulls.iter().take(10).map(|p| ("pull_request_read", repo(json!({"method": "get_files", "pullNumber": number(p, "/number")})))).collect()
                }
                _ => Vec::new(),
            },
            script: r#"const pulls = await tools.list_pull_requests({ owner: "acme", repo: "platform", state: "open" });
const recent = pulls.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, 10);
const files = await Promise.all(recent.map((p) => tools.pull_request_read({ method: "get_files", owner: "acme", repo: "platform", pullNumber: p.number })));
return recent.map((p, i) => ({ number: p.number, title: p.title, author: p.user.login, files: files[i].length })).filter((p) => p.files > 12);"#,
        },
        Task {
            name: "top committer",
            question: "Who wrote the most of the last 100 commits, and how big were their 3 latest?",
            tools: &["list_commits", "get_commit"],
            plan: |done| match done.len() {
                0 => vec![("list_commits", repo(json!({"perPage": 100})))],
                1 => {
                    let commits = items(&done[0][0], "");
                    let top = top_author(&commits);
                    let mut theirs: Vec<&Value> = commits
                        .iter()
                        .filter(|c| text(c, "/author/login") == top)
                        .collect();
                    theirs.sort_by(|a, b| {
                        text(b, "/commit/author/date").cmp(text(a, "/commit/author/date"))
                    });
                    theirs
                        .iter()
                        .take(3)
                        .map(|c| {
                            (
                                "get_commit",
                                repo(json!({"sha": text(c, "/sha"), "detail": "stats"})),
                            )
                        })
                        .collect()
                }
                _ => Vec::new(),
            },
            script: r#"const commits = await tools.list_commits({ owner: "acme", repo: "platform", perPage: 100 });
const counts = {};
for (const c of commits) counts[c.author.login] = (counts[c.author.login] ?? 0) + 1;
const top = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
const latest = commits.filter((c) => c.author.login === top)
  .sort((a, b) => b.commit.author.date.localeCompare(a.commit.author.date)).slice(0, 3);
const details = await Promise.all(latest.map((c) => tools.get_commit({ owner: "acme", repo: "platform", sha: c.sha, detail: "stats" })));
return { author: top, commits: counts[top], latest: details.map((d, i) => ({ message: latest[i].commit.message, ...d.stats })) };"#,
        },
        Task {
            name: "release notes",
            question: "What changed in the two latest stable releases, and how often was each downloaded?",
            tools: &["list_releases", "get_release_by_tag"],
            plan: |done| match done.len() {
                0 => vec![("list_releases", repo(json!({})))],
                1 => items(&done[0][0], "")
                    .iter()
                    .filter(|r| r["prerelease"] == false)
                    .take(2)
                    .map(|r| {
                        (
                            "get_release_by_tag",
                            repo(json!({"tag": text(r, "/tag_name")})),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            },
            script: r#"const releases = await tools.list_releases({ owner: "acme", repo: "platform" });
const stable = releases.filter((r) => !r.prerelease).slice(0, 2);
const details = await Promise.all(stable.map((r) => tools.get_release_by_tag({ owner: "acme", repo: "platform", tag: r.tag_name })));
return details.map((d) => ({ tag: d.tag_name, notes: d.body.slice(0, 200), downloads: d.assets.reduce((n, a) => n + a.download_count, 0) }));"#,
        },
        Task {
            name: "critical dependencies",
            question: "Which open Dependabot alerts are critical, and which version fixes each?",
            tools: &["list_dependabot_alerts", "get_dependabot_alert"],
            plan: |done| match done.len() {
                0 => vec![("list_dependabot_alerts", repo(json!({"state": "open"})))],
                1 => items(&done[0][0], "")
                    .iter()
                    .filter(|a| text(a, "/severity") == "critical")
                    .map(|a| {
                        (
                            "get_dependabot_alert",
                            repo(json!({"alertNumber": number(a, "/number")})),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            },
            script: r#"const alerts = await tools.list_dependabot_alerts({ owner: "acme", repo: "platform", state: "open" });
const critical = alerts.filter((a) => a.severity === "critical");
const details = await Promise.all(critical.map((a) => tools.get_dependabot_alert({ owner: "acme", repo: "platform", alertNumber: a.number })));
return critical.map((a, i) => ({ number: a.number, package: a.dependency.package.name, manifest: a.dependency.manifest_path,
  fixed_in: details[i].security_vulnerability.first_patched_version.identifier, cvss: details[i].security_advisory.cvss.score }));"#,
        },
        Task {
            name: "failed runs",
            question: "Which of the last 60 workflow runs failed, and what do their logs end with?",
            tools: &["actions_list", "get_job_logs"],
            plan: |done| {
                match done.len() {
                0 => vec![("actions_list", repo(json!({"method": "list_workflow_runs"})))],
                1 => items(&done[0][0], "workflow_runs").iter().filter(|r| text(r, "/conclusion") == "failure")
                    .map(|r| ("get_job_logs", repo(json!({"run_id": number(r, "/id"), "failed_only": true, "return_content": true, "tail_lines": 30})))).collect(),
                _ => Vec::new(),
            }
            },
            script: r#"const { workflow_runs } = await tools.actions_list({ method: "list_workflow_runs", owner: "acme", repo: "platform" });
const failed = workflow_runs.filter((r) => r.conclusion === "failure");
const logs = await Promise.all(failed.map((r) => tools.get_job_logs({ owner: "acme", repo: "platform", run_id: r.id, failed_only: true, return_content: true, tail_lines: 30 })));
return failed.map((r, i) => ({ run: r.run_number, workflow: r.name, branch: r.head_branch, last: logs[i].logs_content.split("\n").slice(-2) }));"#,
        },
        Task {
            name: "branches without a pull request",
            question: "Which branches have no open pull request?",
            tools: &["list_branches", "list_pull_requests"],
            plan: |done| match done.len() {
                0 => vec![
                    ("list_branches", repo(json!({}))),
                    ("list_pull_requests", repo(json!({"state": "open"}))),
                ],
                _ => Vec::new(),
            },
            script: r#"const [branches, pulls] = await Promise.all([
  tools.list_branches({ owner: "acme", repo: "platform" }),
  tools.list_pull_requests({ owner: "acme", repo: "platform", state: "open" }),
]);
const open = new Set(pulls.map((p) => p.head.ref));
return branches.map((b) => b.name).filter((name) => !open.has(name) && name !== "main");"#,
        },
        Task {
            name: "my busiest issues",
            question: "Of the open issues assigned to me, which 3 have the most comments, and what do their comments say?",
            tools: &["get_me", "search_issues", "issue_read"],
            plan: |done| match done.len() {
                0 => vec![("get_me", json!({}))],
                1 => vec![(
                    "search_issues",
                    json!({"query": format!("is:open assignee:{}", text(&done[0][0], "/login")), "owner": "acme", "repo": "platform"}),
                )],
                2 => {
                    let mut found = items(&done[1][0], "items");
                    found.sort_by_key(|i| std::cmp::Reverse(number(i, "/comments")));
                    found.iter().take(3).map(|i| ("issue_read", repo(json!({"method": "get_comments", "issue_number": number(i, "/number")})))).collect()
                }
                _ => Vec::new(),
            },
            script: r#"const me = await tools.get_me({});
const { items } = await tools.search_issues({ query: `is:open assignee:${me.login}`, owner: "acme", repo: "platform" });
const busiest = items.sort((a, b) => b.comments - a.comments).slice(0, 3);
const comments = await Promise.all(busiest.map((i) => tools.issue_read({ method: "get_comments", owner: "acme", repo: "platform", issue_number: i.number })));
return busiest.map((i, n) => ({ number: i.number, title: i.title, comments: i.comments, latest: comments[n].slice(-2).map((c) => `${c.user.login}: ${c.body.slice(0, 80)}`) }));"#,
        },
        Task {
            name: "code scanning errors",
            question: "Where are the open code scanning alerts of severity error, and what does each rule advise?",
            tools: &["list_code_scanning_alerts", "get_code_scanning_alert"],
            plan: |done| match done.len() {
                0 => vec![("list_code_scanning_alerts", repo(json!({"state": "open"})))],
                1 => items(&done[0][0], "")
                    .iter()
                    .filter(|a| text(a, "/rule/severity") == "error")
                    .map(|a| {
                        (
                            "get_code_scanning_alert",
                            repo(json!({"alertNumber": number(a, "/number")})),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            },
            script: r#"const alerts = await tools.list_code_scanning_alerts({ owner: "acme", repo: "platform", state: "open" });
const errors = alerts.filter((a) => a.rule.severity === "error");
const details = await Promise.all(errors.map((a) => tools.get_code_scanning_alert({ owner: "acme", repo: "platform", alertNumber: a.number })));
return errors.map((a, i) => ({ rule: a.rule.id, at: `${a.most_recent_instance.location.path}:${a.most_recent_instance.location.start_line}`, advice: details[i].rule.help.slice(0, 100) }));"#,
        },
        Task {
            name: "unread mentions",
            question: "Which unread notifications mention me, and what do they say?",
            tools: &["list_notifications", "get_notification_details"],
            plan: |done| match done.len() {
                0 => vec![("list_notifications", json!({"filter": "default"}))],
                1 => items(&done[0][0], "")
                    .iter()
                    .filter(|n| n["unread"] == true && text(n, "/reason") == "mention")
                    .map(|n| {
                        (
                            "get_notification_details",
                            json!({"notificationID": text(n, "/id")}),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            },
            script: r#"const notes = await tools.list_notifications({ filter: "default" });
const mentions = notes.filter((n) => n.unread && n.reason === "mention");
const details = await Promise.all(mentions.map((n) => tools.get_notification_details({ notificationID: n.id })));
return mentions.map((n, i) => ({ title: n.subject.title, type: n.subject.type, says: details[i].body.slice(0, 120) }));"#,
        },
        Task {
            name: "bypassed secrets",
            question: "Which open secret scanning alerts bypassed push protection, and where are the secrets?",
            tools: &["list_secret_scanning_alerts", "get_secret_scanning_alert"],
            plan: |done| match done.len() {
                0 => vec![(
                    "list_secret_scanning_alerts",
                    repo(json!({"state": "open"})),
                )],
                1 => items(&done[0][0], "")
                    .iter()
                    .filter(|a| a["push_protection_bypassed"] == true)
                    .map(|a| {
                        (
                            "get_secret_scanning_alert",
                            repo(json!({"alertNumber": number(a, "/number")})),
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            },
            script: r#"const alerts = await tools.list_secret_scanning_alerts({ owner: "acme", repo: "platform", state: "open" });
const bypassed = alerts.filter((a) => a.push_protection_bypassed);
const details = await Promise.all(bypassed.map((a) => tools.get_secret_scanning_alert({ owner: "acme", repo: "platform", alertNumber: a.number })));
return bypassed.map((a, i) => ({ number: a.number, type: a.secret_type, at: details[i].locations.map((l) => `${l.path}:${l.start_line}`) }));"#,
        },
        Task {
            name: "tags without a release",
            question: "Which tags have no release?",
            tools: &["list_tags", "list_releases"],
            plan: |done| match done.len() {
                0 => vec![
                    ("list_tags", repo(json!({}))),
                    ("list_releases", repo(json!({}))),
                ],
                _ => Vec::new(),
            },
            script: r#"const [tags, releases] = await Promise.all([
  tools.list_tags({ owner: "acme", repo: "platform" }),
  tools.list_releases({ owner: "acme", repo: "platform" }),
]);
const released = new Set(releases.map((r) => r.tag_name));
return tags.map((t) => t.name).filter((name) => !released.has(name));"#,
        },
    ]
}

/// The login with the most commits (ties: the first in name order), as the script finds it.
fn top_author(commits: &[Value]) -> String {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for commit in commits {
        *counts.entry(text(commit, "/author/login")).or_default() += 1;
    }
    let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
        .first()
        .map(|(login, _)| (*login).to_owned())
        .unwrap_or_default()
}
