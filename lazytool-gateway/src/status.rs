//! `--status-page`: the read-only page at `/status`, rendered on the server at each request
//! with no external asset: [`StatusPage`].

use std::collections::BTreeMap;
use std::fmt::Write;

use html_escape::{encode_double_quoted_attribute as attribute, encode_text as text};
use lazytool_mcp::{CallCounts, CallTally};
use lazytool_mcp_client::{ChangedDefinition, McpCatalog};
use similar::TextDiff;

/// Where the page is served.
pub(crate) const STATUS_PATH: &str = "/status";

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}\
th{background:#f3f3f3}.failed{color:#a00}.running{color:#070}pre{background:#f6f6f6;padding:.5em}";

/// What the page shows: the catalog's servers and the calls the audit trail counted.
pub(crate) struct StatusPage {
    pub(crate) catalog: McpCatalog,
    pub(crate) tally: CallTally,
    /// The approval command without its server name (`... lock --update `).
    pub(crate) approve: String,
}

impl StatusPage {
    pub(crate) fn render(&self) -> String {
        let mut page = String::new();
        let minutes = self.tally.window().as_secs() / 60;
        let _ = write!(
            page,
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>lazytool-gateway status</title><style>{STYLE}</style></head><body>\
             <h1>lazytool-gateway {}</h1>",
            env!("CARGO_PKG_VERSION")
        );
        self.servers(&mut page, minutes);
        self.pending(&mut page);
        calls(
            &mut page,
            "principals",
            "principal",
            &self.tally.by_principal(),
            minutes,
        );
        self.limits(&mut page);
        page.push_str("</body></html>");
        page
    }

    fn servers(&self, page: &mut String, minutes: u64) {
        let registry = self.catalog.registry();
        let states: BTreeMap<String, String> = (self.catalog.server_states().into_iter())
            .map(|(name, state)| (name, state.to_string()))
            .collect();
        let calls = self.tally.by_server();
        let _ = write!(
            page,
            "<h2>Servers</h2><table id=\"servers\"><tr><th>server</th><th>state</th><th>tools</th><th>tokens</th>\
             <th>calls ({minutes} min)</th><th>errors</th></tr>"
        );
        let reports = self.catalog.reports();
        for report in &reports {
            let state = match &report.tools {
                Err(error) => format!("failed: {error}"),
                Ok(_) => states.get(&report.name).cloned().unwrap_or_default(),
            };
            let class = state.split([':', ' ']).next().unwrap_or_default();
            let names = report.tools.as_deref().unwrap_or_default();
            let cost: usize = (names.iter())
                .filter_map(|name| registry.get(name))
                .map(|tool| lazytool_gateway::definition_tokens(&tool.definition()))
                .sum();
            let counts = calls.get(&report.name).copied().unwrap_or_default();
            let _ = write!(
                page,
                "<tr data-server=\"{key}\"><td>{name}</td><td class=\"state {class}\">{state}</td><td>{}</td><td>{cost}</td><td>{}</td><td>{}</td></tr>",
                names.len(),
                counts.calls,
                counts.errors,
                key = attribute(&report.name),
                name = text(&report.name),
                class = attribute(class),
                state = text(&state),
            );
        }
        page.push_str("</table>");
        for report in &reports {
            let names = report.tools.as_deref().unwrap_or_default();
            let _ = write!(
                page,
                "<details data-server=\"{key}\"><summary>{name}: {} tools</summary><table class=\"tools\"><tr><th>tool</th><th>tokens</th></tr>",
                names.len(),
                key = attribute(&report.name),
                name = text(&report.name),
            );
            for name in names {
                let cost = (registry.get(name)).map_or(0, |tool| {
                    lazytool_gateway::definition_tokens(&tool.definition())
                });
                let _ = write!(
                    page,
                    "<tr data-tool=\"{}\"><td>{}</td><td>{cost}</td></tr>",
                    attribute(name),
                    text(name)
                );
            }
            page.push_str("</table></details>");
        }
    }

    fn pending(&self, page: &mut String) {
        page.push_str("<h2>Pending definition changes</h2>");
        let pending: Vec<_> = (self.catalog.reports().into_iter())
            .filter(|report| !report.pinning.is_empty())
            .collect();
        if pending.is_empty() {
            page.push_str(
                "<p id=\"no-pending\">None: every server matches its lock, or has none.</p>",
            );
        }
        let changed: BTreeMap<String, _> = self.catalog.changed_definitions().into_iter().collect();
        for report in pending {
            let _ = write!(
                page,
                "<div class=\"pending\" data-server=\"{}\"><ul>",
                attribute(&report.name)
            );
            for note in &report.pinning {
                let _ = write!(
                    page,
                    "<li><b>{}</b>: {}</li>",
                    text(&note.tool),
                    text(&note.note)
                );
            }
            page.push_str("</ul>");
            for change in changed.get(&report.name).into_iter().flatten() {
                let _ = write!(
                    page,
                    "<pre class=\"diff\" data-tool=\"{}\">{}</pre>",
                    attribute(&change.tool),
                    text(&diff(change))
                );
            }
            let _ = write!(
                page,
                "<p>Approve with:</p><pre class=\"approve\">{}{}</pre></div>",
                text(&self.approve),
                text(&report.name)
            );
        }
    }

    fn limits(&self, page: &mut String) {
        page.push_str("<h2>Limits hit</h2><table id=\"limits\"><tr><th>who</th><th>rate</th><th>in flight</th></tr>");
        for (server, hit) in self.catalog.limits_hit() {
            let _ = write!(
                page,
                "<tr data-server=\"{}\"><td>server {}</td><td>{}</td><td>{}</td></tr>",
                attribute(&server),
                text(&server),
                hit.rate,
                hit.in_flight
            );
        }
        for (principal, counts) in self.tally.by_principal() {
            if counts.rate_limited + counts.in_flight_limited > 0 {
                let _ = write!(
                    page,
                    "<tr data-principal=\"{}\"><td>principal {}</td><td>{}</td><td>{}</td></tr>",
                    attribute(&principal),
                    text(&principal),
                    counts.rate_limited,
                    counts.in_flight_limited
                );
            }
        }
        page.push_str("</table>");
    }
}

/// The unified diff of a tool's approved definition and its definition now, as pretty JSON.
fn diff(change: &ChangedDefinition) -> String {
    let pretty = |definition: &Option<serde_json::Value>| {
        (definition.as_ref())
            .and_then(|definition| serde_json::to_string_pretty(definition).ok())
            .map_or_else(String::new, |text| text + "\n")
    };
    let (approved, now) = (pretty(&change.approved), pretty(&change.now));
    TextDiff::from_lines(&approved, &now)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{} (approved)", change.tool),
            &format!("{} (now)", change.tool),
        )
        .to_string()
}

/// A table of calls by `who` over the last `minutes`.
fn calls(
    page: &mut String,
    id: &str,
    who: &str,
    counts: &BTreeMap<String, CallCounts>,
    minutes: u64,
) {
    let _ = write!(
        page,
        "<h2>Calls by {who}, last {minutes} minutes</h2><table id=\"{id}\"><tr><th>{who}</th><th>calls</th><th>errors</th>\
         <th>rate limited</th><th>in-flight limited</th><th>refused by the lock</th></tr>"
    );
    for (name, counts) in counts {
        let _ = write!(
            page,
            "<tr data-{who}=\"{key}\"><td>{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            counts.calls,
            counts.errors,
            counts.rate_limited,
            counts.in_flight_limited,
            counts.pin_refused,
            key = attribute(name),
            name = text(name),
        );
    }
    page.push_str("</table>");
}
