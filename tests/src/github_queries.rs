//! Requests for the tools of the GitHub MCP server's catalog, phrased as users phrase them,
//! each with the tool it is after: the ranking of search discovery must find that tool in
//! the top three (`tests/search_quality.rs`). `bench/search` reads this file too, so it is
//! plain data without imports.

/// Requests phrased as users phrase them, with the tool each one is after; the engine
/// was developed against these.
///
/// ```
/// use lazytool_tests::github_queries::TUNING;
/// assert!(TUNING.contains(&("show my gists", "list_gists")));
/// ```
pub const TUNING: &[(&str, &str)] = &[
    // Issues
    ("leave a comment on bug 12", "add_issue_comment"),
    (
        "open a new issue about the broken login page",
        "create_issue",
    ),
    ("close issue 42 as not planned", "update_issue_state"),
    ("rename issue 7 to something clearer", "update_issue_title"),
    ("assign alice to issue 88", "update_issue_assignees"),
    (
        "tag issue 5 with the bug and urgent labels",
        "update_issue_labels",
    ),
    (
        "move issue 30 into the v2.0 milestone",
        "update_issue_milestone",
    ),
    (
        "is issue 14 a duplicate of something else",
        "find_duplicate",
    ),
    (
        "what is blocking issue 99 from being worked on",
        "issue_dependency_read",
    ),
    (
        "mark issue 4 as blocked by issue 2",
        "issue_dependency_write",
    ),
    ("nest issue 3 under issue 1 as a sub-issue", "add_sub_issue"),
    (
        "which issue types can I use in this org",
        "list_issue_types",
    ),
    (
        "search issues about memory leaks in the parser",
        "search_issues",
    ),
    ("show all open issues labelled bug", "list_issues"),
    ("give me the details of issue 221", "issue_read"),
    ("let copilot fix issue 17 for me", "assign_copilot_to_issue"),
    ("react with a thumbs up to issue 8", "add_issue_reaction"),
    (
        "change the issue type of 19 to feature",
        "update_issue_type",
    ),
    ("rewrite the body text of issue 12", "update_issue_body"),
    // Pull requests
    ("show me the open PRs in my repo", "list_pull_requests"),
    ("squash and merge PR 45", "merge_pull_request"),
    ("what files changed in pull request 12", "pull_request_read"),
    ("open a PR from feature-x into main", "create_pull_request"),
    (
        "ask bob and carol to review my PR",
        "request_pull_request_reviewers",
    ),
    (
        "have copilot review this pull request",
        "request_copilot_review",
    ),
    ("approve pull request 31", "create_pull_request_review"),
    ("convert PR 9 to a draft", "update_pull_request_draft_state"),
    (
        "bring my PR branch up to date with main",
        "update_pull_request_branch",
    ),
    (
        "find pull requests authored by octocat",
        "search_pull_requests",
    ),
    (
        "mark that review conversation as resolved",
        "resolve_review_thread",
    ),
    ("change the description of PR 4", "update_pull_request_body"),
    (
        "reply to the reviewer's comment on my PR",
        "add_reply_to_pull_request_comment",
    ),
    (
        "send off my pending review now",
        "submit_pending_pull_request_review",
    ),
    (
        "discard my pending review on PR 3",
        "delete_pending_pull_request_review",
    ),
    (
        "close pull request 77 without merging",
        "update_pull_request_state",
    ),
    // Repositories, files and git
    ("make a new repo for my side project", "create_repository"),
    ("fork facebook/react into my account", "fork_repository"),
    ("star the tokio repository", "star_repository"),
    ("which repos have I starred", "list_starred_repositories"),
    (
        "look for popular rust web framework repositories",
        "search_repositories",
    ),
    (
        "who are the collaborators on this repo",
        "list_repository_collaborators",
    ),
    (
        "permanently delete the old test repository",
        "delete_repository",
    ),
    (
        "show the folder structure of the project",
        "get_repository_tree",
    ),
    ("read the README file", "get_file_contents"),
    (
        "edit config.yaml and commit it to main",
        "create_or_update_file",
    ),
    ("remove docs/old.md from the repo", "delete_file"),
    ("upload several files in one commit", "push_files"),
    ("what changed in commit abc123", "get_commit"),
    ("show recent commits on the develop branch", "list_commits"),
    (
        "search commit messages for 'fix memory leak'",
        "search_commits",
    ),
    ("what branches exist in this repo", "list_branches"),
    ("make a new branch called release", "create_branch"),
    ("who changed this file last", "get_file_blame"),
    ("what's the newest release", "get_latest_release"),
    ("what git tags does the project have", "list_tags"),
    ("get the release notes for v1.2.0", "get_release_by_tag"),
    (
        "search the code for the function parse_config",
        "search_code",
    ),
    // Actions
    (
        "why did the CI build fail, show me the job logs",
        "get_job_logs",
    ),
    ("rerun the failed workflow", "actions_run_trigger"),
    ("list the recent workflow runs", "actions_list"),
    // Notifications
    ("what needs my attention today", "list_notifications"),
    (
        "mark everything in my inbox as read",
        "mark_all_notifications_read",
    ),
    (
        "mute notifications from this repository",
        "manage_repository_notification_subscription",
    ),
    (
        "I'm done with this notification, clear it",
        "dismiss_notification",
    ),
    // Security
    (
        "show me the security vulnerabilities found by code scanning",
        "list_code_scanning_alerts",
    ),
    (
        "did we leak any secrets or tokens",
        "list_secret_scanning_alerts",
    ),
    (
        "which vulnerable dependencies did dependabot flag",
        "list_dependabot_alerts",
    ),
    (
        "look up advisory GHSA-xxxx-yyyy",
        "get_global_security_advisory",
    ),
    // Gists
    ("save this snippet as a gist", "create_gist"),
    ("show my gists", "list_gists"),
    ("edit my gist", "update_gist"),
    // Discussions
    (
        "show the discussions in the community repo",
        "list_discussions",
    ),
    (
        "read the replies on discussion 15",
        "get_discussion_comments",
    ),
    (
        "what discussion categories exist",
        "list_discussion_categories",
    ),
    ("post an answer in discussion 8", "discussion_comment_write"),
    // Projects
    ("add issue 5 to our project board", "projects_write"),
    ("show the items on project board 3", "projects_list"),
    // Users, organizations, teams and labels
    ("who am I logged in as", "get_me"),
    ("find a developer named Linus Torvalds", "search_users"),
    ("who is on the platform team", "get_team_members"),
    ("find companies based in Berlin", "search_orgs"),
    ("create a label called needs-triage", "label_write"),
    ("what labels does this repo have", "list_label"),
];

/// More requests, written after [`TUNING`] to check that the engine generalises (it
/// scored 86% on them before the last, general changes).
///
/// ```
/// use lazytool_tests::github_queries::LATER;
/// assert!(LATER.contains(&("reopen issue 50", "update_issue_state")));
/// ```
pub const LATER: &[(&str, &str)] = &[
    ("I want to see the diff for PR 88", "pull_request_read"),
    (
        "kick off the deploy workflow on main",
        "actions_run_trigger",
    ),
    (
        "cancel the running workflow run 1234",
        "actions_run_trigger",
    ),
    ("get details of workflow run 555", "actions_get"),
    (
        "I don't like this repo anymore, remove my star",
        "unstar_repository",
    ),
    ("show the commit history of src/main.rs", "list_commits"),
    (
        "reorder the sub-issues of issue 10",
        "reprioritize_sub_issue",
    ),
    ("detach sub-issue 4 from its parent", "remove_sub_issue"),
    ("what is the parent of issue 33", "issue_read"),
    ("show the comments on issue 61", "issue_read"),
    (
        "set the priority field on issue 12 to high",
        "set_issue_fields",
    ),
    ("what custom fields do our issues have", "list_issue_fields"),
    (
        "list security advisories for the acme organization",
        "list_org_repository_security_advisories",
    ),
    ("look at dependabot alert number 7", "get_dependabot_alert"),
    (
        "show code scanning alert 19 in detail",
        "get_code_scanning_alert",
    ),
    (
        "what happened to secret scanning alert 2",
        "get_secret_scanning_alert",
    ),
    ("fetch the contents of src/lib.rs", "get_file_contents"),
    ("tell me about release v2.1.0", "get_release_by_tag"),
    ("what versions have been released so far", "list_releases"),
    ("which teams do I belong to", "get_teams"),
    ("members of the backend team in acme", "get_team_members"),
    ("find organizations working on kubernetes", "search_orgs"),
    ("ping copilot to look over my PR", "request_copilot_review"),
    (
        "make PR 14 ready for review",
        "update_pull_request_draft_state",
    ),
    ("retitle pull request 8", "update_pull_request_title"),
    ("reopen issue 50", "update_issue_state"),
    (
        "unsubscribe from this notification thread",
        "manage_notification_subscription",
    ),
    (
        "tell me more about notification 9981",
        "get_notification_details",
    ),
    (
        "look up the CVE advisory affecting lodash",
        "list_global_security_advisories",
    ),
    ("what's in gist 4f3a", "get_gist"),
    (
        "create a discussion comment replying to the top answer",
        "discussion_comment_write",
    ),
    ("show me discussion 12", "get_discussion"),
    ("add a status update to project 2", "projects_write"),
    ("list the fields of project 7", "projects_list"),
    ("get item 55 of project board 3", "projects_get"),
    ("find issues similar to issue 31", "find_duplicate"),
    (
        "reopen that resolved review conversation",
        "unresolve_review_thread",
    ),
    (
        "comment on line 42 of the diff in my pending review",
        "add_comment_to_pending_review",
    ),
    ("delete the needs-info label", "label_write"),
    ("get information about the bug label", "get_label"),
    (
        "search for python repositories about machine learning",
        "search_repositories",
    ),
    (
        "find where the function handleRequest is defined",
        "search_code",
    ),
    (
        "make a copy of the repo under my account",
        "fork_repository",
    ),
];
