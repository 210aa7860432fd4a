//! What one audit line holds: [`AuditLine`], built from a [`CallRecord`] or an event.

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};

use crate::limit::LimitExceeded;

/// One line of the audit trail: a JSON object whose `time` (RFC 3339, UTC, milliseconds) and
/// `event` (`call`, `login`, `refusal`, `pin`, `reload`) come first. Its fields are all the trail
/// says: never a token, a header, a URL or an upstream's environment.
#[derive(Debug)]
pub(crate) struct AuditLine(pub(crate) Map<String, Value>);

/// A tool call as the serving side saw it.
#[derive(Debug, Default)]
pub(crate) struct CallRecord {
    pub(crate) principal: String,
    pub(crate) session: Option<String>,
    pub(crate) client: Option<String>,
    pub(crate) server: Option<String>,
    pub(crate) tool: String,
    /// `ok`, `error` or `refused`.
    pub(crate) outcome: &'static str,
    pub(crate) error_kind: Option<&'static str>,
    pub(crate) limit: Option<LimitExceeded>,
    pub(crate) duration: Duration,
    pub(crate) argument_bytes: usize,
    pub(crate) result_bytes: usize,
    pub(crate) arguments_sha256: String,
    /// Only when the log is told to keep argument values.
    pub(crate) arguments: Option<Value>,
}

impl AuditLine {
    fn event(event: &'static str) -> Map<String, Value> {
        let mut line = Map::new();
        let time = humantime::format_rfc3339_millis(SystemTime::now());
        line.insert("time".to_owned(), json!(time.to_string()));
        line.insert("event".to_owned(), json!(event));
        line
    }

    /// A tool call: every field present, `null` when unknown.
    pub(crate) fn call(record: CallRecord) -> Self {
        let mut line = Self::event("call");
        let fields = [
            ("principal", json!(record.principal)),
            ("session", json!(record.session)),
            ("client", json!(record.client)),
            ("server", json!(record.server)),
            ("tool", json!(record.tool)),
            ("outcome", json!(record.outcome)),
            ("errorKind", json!(record.error_kind)),
            ("durationMs", json!(millis(record.duration))),
            ("argumentBytes", json!(record.argument_bytes)),
            ("resultBytes", json!(record.result_bytes)),
            ("argumentsSha256", json!(record.arguments_sha256)),
        ];
        line.extend(fields.map(|(key, value)| (key.to_owned(), value)));
        if let Some(limit) = &record.limit {
            line.insert("limit".to_owned(), limit_of(limit));
        }
        if let Some(arguments) = record.arguments {
            line.insert("arguments".to_owned(), arguments);
        }
        AuditLine(line)
    }

    /// A client's `initialize`.
    pub(crate) fn login(
        principal: &str,
        session: Option<String>,
        client: &str,
        client_version: &str,
        protocol: &str,
    ) -> Self {
        let mut line = Self::event("login");
        line.insert("principal".to_owned(), json!(principal));
        line.insert("session".to_owned(), json!(session));
        line.insert("client".to_owned(), json!(client));
        line.insert("clientVersion".to_owned(), json!(client_version));
        line.insert("protocolVersion".to_owned(), json!(protocol));
        AuditLine(line)
    }

    /// A request refused before it had a principal: `reason` is `unauthorized`, `origin` or
    /// `host`.
    #[cfg_attr(not(feature = "server-http"), allow(dead_code))] // only HTTP refuses before MCP
    pub(crate) fn refusal(reason: &'static str, method: &str, path: &str) -> Self {
        let mut line = Self::event("refusal");
        line.insert("reason".to_owned(), json!(reason));
        line.insert("method".to_owned(), json!(method));
        line.insert("path".to_owned(), json!(path));
        AuditLine(line)
    }

    /// A call refused because its tool's definition changed against the lock.
    pub(crate) fn pin(principal: &str, session: Option<&str>, server: &str, tool: &str) -> Self {
        let mut line = Self::event("pin");
        line.insert("principal".to_owned(), json!(principal));
        line.insert("session".to_owned(), json!(session));
        line.insert("server".to_owned(), json!(server));
        line.insert("tool".to_owned(), json!(tool));
        line.insert("outcome".to_owned(), json!("refused"));
        AuditLine(line)
    }

    /// A configuration reloaded (`outcome` `ok`) or refused (`refused`, with the count of
    /// its problems): each change's kind and the names it concerns.
    pub(crate) fn reload(outcome: &'static str, changes: &[(&str, Vec<String>)]) -> Self {
        let mut line = Self::event("reload");
        line.insert("outcome".to_owned(), json!(outcome));
        for (kind, names) in changes {
            line.insert((*kind).to_owned(), json!(names));
        }
        AuditLine(line)
    }

    pub(crate) fn to_json_line(&self) -> String {
        let mut text = Value::Object(self.0.clone()).to_string();
        text.push('\n');
        text
    }
}

fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

fn limit_of(limit: &LimitExceeded) -> Value {
    json!({
        "scope": limit.scope().as_str(),
        "name": limit.name(),
        "limit": limit.kind().as_str(),
        "retryAfterSeconds": limit.retry_after_seconds(),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::limit::{LimitKind, LimitScope, Rate};

    #[test]
    fn a_call_line_has_every_field_in_order_and_nothing_else() {
        let record = CallRecord {
            principal: "alice".to_owned(),
            session: Some("s-1".to_owned()),
            client: Some("claude-code".to_owned()),
            server: Some("everything".to_owned()),
            tool: "everything__echo".to_owned(),
            outcome: "refused",
            error_kind: Some("rate_limit"),
            limit: Some(LimitExceeded::new(
                LimitScope::Principal,
                "alice",
                LimitKind::Rate(Rate::new(1.0, 1).expect("as set up")),
                Duration::from_millis(400),
            )),
            duration: Duration::from_micros(1500),
            argument_bytes: 17,
            result_bytes: 0,
            arguments_sha256: "sha256:00".to_owned(),
            arguments: None,
        };
        let text = AuditLine::call(record).to_json_line();
        assert!(text.ends_with("}\n") && !text[..text.len() - 1].contains('\n'));
        let line: Value = serde_json::from_str(&text).expect("as set up");
        let keys: Vec<&str> = line
            .as_object()
            .expect("as set up")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "time",
                "event",
                "principal",
                "session",
                "client",
                "server",
                "tool",
                "outcome",
                "errorKind",
                "durationMs",
                "argumentBytes",
                "resultBytes",
                "argumentsSha256",
                "limit",
            ]
        );
        assert_eq!(line["durationMs"], 1.5);
        assert_eq!(
            line["limit"],
            json!({"scope": "principal", "name": "alice", "limit": "rate", "retryAfterSeconds": 1})
        );
        let time = line["time"].as_str().expect("as set up");
        assert!(humantime::parse_rfc3339(time).is_ok(), "{time}");
        assert!(time.ends_with('Z'));
    }
}
