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
        let mut oidc = Oidc::issuer(self.string(issuer, &issuer_path)?);
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
    }
}
