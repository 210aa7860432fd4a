//! The `lazytool.oidc` section: the OpenID Connect issuer whose tokens the HTTP server
//! accepts, and the rules from their claims to what each principal may use, read into
//! lazytool-mcp's [`Oidc`].

use serde_json::{Map, Value};

use lazytool_mcp::{ClaimRule, Oidc};

use super::reader::{Reader, child, kind};

const OIDC_KEYS: &[&str] = &[
    "issuer",
    "audience",
    "principalClaim",
    "requiredScopes",
    "resource",
    "rules",
    "tokenTypes",
];

const RULE_KEYS: &[&str] = &["when", "allow", "deny"];

impl Reader<'_> {
    /// `lazytool.oidc` at `path`.
    pub(super) fn oidc(&mut self, value: &Value, path: &str) -> Option<Oidc> {
        let settings = self.object(value, path)?;
        self.unknown_keys(settings, path, OIDC_KEYS);
        let issuer_path = child(path, "issuer");
        let Some(issuer) = settings.get("issuer") else {
            self.problem(
                path,
                "needs `issuer`: the URL of the OpenID Connect issuer (its `iss`)",
            );
            return None;
        };
        let issuer = self.string(issuer, &issuer_path)?;
        if let Err(error) = Oidc::check_issuer_url(&issuer) {
            self.problem(&issuer_path, error);
        }
        let mut oidc = Oidc::issuer(issuer);
        match settings.get("audience") {
            Some(audience) => {
                let audience_path = child(path, "audience");
                let audiences = match audience {
                    Value::String(_) => self.string(audience, &audience_path).into_iter().collect(),
                    _ => self.strings(audience, &audience_path),
                };
                for audience in audiences {
                    oidc = oidc.audience(audience);
                }
            }
            None => self.problem(
                path,
                "needs `audience`: what the issuer's tokens name in `aud` for this gateway",
            ),
        }
        if let Some(claim) = settings.get("principalClaim")
            && let Some(claim) = self.string(claim, &child(path, "principalClaim"))
        {
            oidc = oidc.principal_claim(claim);
        }
        if let Some(scopes) = settings.get("requiredScopes") {
            oidc = oidc.require_scopes(self.strings(scopes, &child(path, "requiredScopes")));
        }
        if let Some(resource) = settings.get("resource")
            && let Some(resource) = self.string(resource, &child(path, "resource"))
        {
            oidc = oidc.resource(resource);
        }
        if let Some(types) = settings.get("tokenTypes")
            && self.access_tokens_only(types, &child(path, "tokenTypes"))
        {
            oidc = oidc.access_tokens_only();
        }
        let rules_path = child(path, "rules");
        match settings.get("rules") {
            None => {}
            Some(Value::Array(rules)) => {
                for (index, rule) in rules.iter().enumerate() {
                    if let Some(rule) = self.rule(rule, &format!("{rules_path}[{index}]")) {
                        oidc = oidc.rule(rule);
                    }
                }
            }
            Some(other) => self.problem(
                &rules_path,
                format!("expected an array of rules, found {}", kind(other)),
            ),
        }
        Some(oidc)
    }

    /// `tokenTypes`: the `typ`s accepted, `["at+jwt"]` (access tokens only) or
    /// `["at+jwt", "JWT"]` (the default); whether access tokens only.
    fn access_tokens_only(&mut self, value: &Value, path: &str) -> bool {
        let Value::Array(items) = value else {
            self.strings(value, path);
            return false;
        };
        let (mut access, mut plain) = (false, false);
        for (index, item) in items.iter().enumerate() {
            let item_path = format!("{path}[{index}]");
            let Some(typ) = self.string(item, &item_path) else {
                continue;
            };
            let lower = typ.to_ascii_lowercase();
            match lower.strip_prefix("application/").unwrap_or(&lower) {
                "at+jwt" => access = true,
                "jwt" => plain = true,
                _ => self.problem(
                    &item_path,
                    format!("`{typ}` is no type of access token: expected `at+jwt` or `JWT`"),
                ),
            }
        }
        if !access {
            self.problem(
                path,
                "needs `at+jwt`, the type of RFC 9068 access tokens: [\"at+jwt\"] accepts only those, [\"at+jwt\", \"JWT\"] (the default) plain JWTs and tokens with no `typ` too",
            );
        }
        access && !plain
    }

    /// One rule: `{"when": {"CLAIM": "VALUE", ...}, "allow": [...], "deny": [...]}`.
    fn rule(&mut self, value: &Value, path: &str) -> Option<ClaimRule> {
        let settings: &Map<String, Value> = self.object(value, path)?;
        self.unknown_keys(settings, path, RULE_KEYS);
        let mut rule = ClaimRule::new();
        if let Some(when) = settings.get("when") {
            for (claim, wanted) in self.string_map(when, &child(path, "when")) {
                rule = rule.when(claim, wanted);
            }
        }
        for key in ["allow", "deny"] {
            let Some(globs) = settings.get(key) else {
                continue;
            };
            let key_path = child(path, key);
            let globs = self.strings(globs, &key_path);
            let added = match key {
                "allow" => rule.clone().allow(&globs),
                _ => rule.clone().deny(&globs),
            };
            match added {
                Ok(added) => rule = added,
                Err(error) => self.problem(&key_path, error),
            }
        }
        Some(rule)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_oidc_section_is_read_and_each_problem_named() {
        let good = r#"{"mcpServers": {}, "lazytool": {"oidc": {"issuer": "https://id.example", "audience": "lazytool",
            "requiredScopes": ["mcp"], "rules": [{"when": {"groups": "admins"}}, {"when": {"scope": "read"}, "allow": ["time__*"]}]}}}"#;
        let config = crate::parse(good, |_| None).expect("a valid section");
        let oidc = config.oidc.expect("an issuer");
        assert_eq!(oidc.issuer_url(), "https://id.example");
        assert!(!format!("{oidc:?}").contains("access_tokens_only: true"));
        for (types, access_only) in [
            (r#"["at+jwt"]"#, true),
            (r#"["application/AT+JWT"]"#, true),
            (r#"["at+jwt", "JWT"]"#, false),
        ] {
            let text = format!(
                r#"{{"mcpServers": {{}}, "lazytool": {{"oidc": {{"issuer": "http://127.0.0.1:9000", "audience": "a", "tokenTypes": {types}}}}}}}"#
            );
            let oidc = crate::parse(&text, |_| None)
                .expect(types)
                .oidc
                .expect("an issuer");
            let debug = format!("{oidc:?}");
            assert!(
                debug.contains(&format!("access_tokens_only: {access_only}")),
                "{types}: {debug}"
            );
        }
        let bad = r#"{"mcpServers": {}, "lazytool": {"oidc": {"issuer": "https://id.example", "rules": [{"allow": ["[x"], "when": {"groups": 3}}, 5], "audiance": "x"}}}"#;
        let error = crate::parse(bad, |_| None).expect_err("problems");
        let text = error.problems.join("\n");
        for part in [
            "$.lazytool.oidc: needs `audience`",
            "$.lazytool.oidc.rules[0].allow: `[x` is not a glob",
            "$.lazytool.oidc.rules[0].when.groups: expected a string",
            "$.lazytool.oidc.rules[1]: expected an object",
            "$.lazytool.oidc.audiance",
        ] {
            assert!(text.contains(part), "{part}:\n{text}");
        }
        let bad = r#"{"mcpServers": {}, "lazytool": {"oidc": {"issuer": "http://id.example", "audience": "a",
            "tokenTypes": ["JWT", "dpop+jwt", 3]}}}"#;
        let error = crate::parse(bad, |_| None).expect_err("problems");
        let text = error.problems.join("\n");
        for part in [
            "$.lazytool.oidc.issuer: the issuer `http://id.example` is not an https:// URL",
            "$.lazytool.oidc.tokenTypes[1]: `dpop+jwt` is no type of access token",
            "$.lazytool.oidc.tokenTypes[2]: expected a string",
            "$.lazytool.oidc.tokenTypes: needs `at+jwt`",
        ] {
            assert!(text.contains(part), "{part}:\n{text}");
        }
        for types in ["[]", r#""at+jwt""#] {
            let text = format!(
                r#"{{"mcpServers": {{}}, "lazytool": {{"oidc": {{"issuer": "https://id.example", "audience": "a", "tokenTypes": {types}}}}}}}"#
            );
            let error = crate::parse(&text, |_| None).expect_err(types);
            assert!(
                error
                    .problems
                    .join("\n")
                    .contains("$.lazytool.oidc.tokenTypes"),
                "{types}"
            );
        }
    }
}
