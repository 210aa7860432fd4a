//! What a token's claims let its principal use: [`ClaimRule`].

use glob::Pattern;
use rmcp::model::JsonObject;
use serde_json::Value;

use super::error::OidcError;

/// A rule from a token's claims to the names its principal may use (tools, prompts, and
/// resources by URI): when every `when` condition holds, the rule's `allow` globs open names
/// and its `deny` globs close them; a rule with neither opens every name.
///
/// A name is open to a token when a rule that applies to it opens it and none that applies
/// closes it. With rules configured, a token to which none applies may use nothing; with none
/// configured, every valid token may use everything (as `--token`'s principal may).
///
/// A condition on a claim holds when the claim is that whole string (`"boss@corp"` is not
/// `"x boss@corp"`), is an array with an element equal to it (`groups`, `roles`), or is the
/// number or boolean it spells (`"true"`, `"7"`). Only `scope` and `scp`, space-separated
/// lists (RFC 8693 §4.2, RFC 9068 §2.2.3), hold each of their words.
///
/// ```
/// use lazytool_mcp::ClaimRule;
///
/// let admins = ClaimRule::new().when("groups", "admins");
/// let readers = ClaimRule::new().when("scope", "tools:read").allow(["*__get*", "*__list*"])?;
/// let bot = ClaimRule::new().when("sub", "ci-bot").deny(["*__delete*"])?; // closes only
/// # Ok::<(), lazytool_mcp::OidcError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ClaimRule {
    when: Vec<(String, String)>,
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
}

impl ClaimRule {
    /// A rule that applies to every token, opening every name: narrow it with
    /// [`when`](ClaimRule::when), [`allow`](ClaimRule::allow) and [`deny`](ClaimRule::deny).
    ///
    /// ```
    /// let everyone = lazytool_mcp::ClaimRule::new().allow(["*"])?.deny(["*__admin_*"])?;
    /// # Ok::<(), lazytool_mcp::OidcError>(())
    /// ```
    pub fn new() -> Self {
        ClaimRule::default()
    }

    /// Applies only to tokens whose claim `claim` is `value`, or holds it as an array
    /// element or, for `scope` and `scp`, as one of their space-separated words.
    ///
    /// ```
    /// let ops = lazytool_mcp::ClaimRule::new().when("roles", "ops").when("scope", "mcp");
    /// let boss = lazytool_mcp::ClaimRule::new().when("email", "boss@corp"); // not "x boss@corp"
    /// ```
    pub fn when(mut self, claim: impl Into<String>, value: impl Into<String>) -> Self {
        self.when.push((claim.into(), value.into()));
        self
    }

    /// Opens the names matching `globs` (`*`, `?`, `[...]`); a rule with neither `allow` nor
    /// `deny` opens every name.
    ///
    /// ```
    /// let error = lazytool_mcp::ClaimRule::new().allow(["[x"]).unwrap_err();
    /// assert!(error.to_string().contains("`[x` is not a glob"));
    /// ```
    pub fn allow<S: AsRef<str>>(
        mut self,
        globs: impl IntoIterator<Item = S>,
    ) -> Result<Self, OidcError> {
        self.allow.extend(compile(globs)?);
        Ok(self)
    }

    /// Closes the names matching `globs`.
    ///
    /// ```
    /// let rule = lazytool_mcp::ClaimRule::new().when("groups", "interns").deny(["*__delete*"])?;
    /// # Ok::<(), lazytool_mcp::OidcError>(())
    /// ```
    pub fn deny<S: AsRef<str>>(
        mut self,
        globs: impl IntoIterator<Item = S>,
    ) -> Result<Self, OidcError> {
        self.deny.extend(compile(globs)?);
        Ok(self)
    }

    fn applies(&self, claims: &JsonObject) -> bool {
        (self.when.iter())
            .all(|(claim, value)| (claims.get(claim)).is_some_and(|held| holds(claim, held, value)))
    }
}

/// Whether `rules` open `name` to a token with `claims`.
pub(crate) fn allows(rules: &[ClaimRule], claims: &JsonObject, name: &str) -> bool {
    if rules.is_empty() {
        return true;
    }
    let mut opened = false;
    for rule in rules.iter().filter(|rule| rule.applies(claims)) {
        if rule.deny.iter().any(|glob| glob.matches(name)) {
            return false;
        }
        let everything = rule.allow.is_empty() && rule.deny.is_empty();
        opened |= everything || rule.allow.iter().any(|glob| glob.matches(name));
    }
    opened
}

/// Whether the claim `claim`, `held`, holds `value`.
fn holds(claim: &str, held: &Value, value: &str) -> bool {
    match held {
        Value::String(words) if matches!(claim, "scope" | "scp") => words
            .split(' ')
            .any(|word| !word.is_empty() && word == value),
        Value::Array(items) => items.iter().any(|item| is(item, value)),
        _ => is(held, value),
    }
}

/// Whether the string, number or boolean `held` is `value`.
fn is(held: &Value, value: &str) -> bool {
    match held {
        Value::String(text) => text == value,
        Value::Bool(flag) => flag.to_string() == value,
        Value::Number(number) => number.to_string() == value,
        _ => false,
    }
}

fn compile<S: AsRef<str>>(globs: impl IntoIterator<Item = S>) -> Result<Vec<Pattern>, OidcError> {
    (globs.into_iter())
        .map(|glob| {
            let glob = glob.as_ref();
            Pattern::new(glob)
                .map_err(|error| OidcError(format!("`{glob}` is not a glob ({error})")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn rules_open_and_close_names_by_claims() -> Result<(), OidcError> {
        let rules = [
            ClaimRule::new().when("groups", "admins"),
            ClaimRule::new()
                .when("scope", "tools:read")
                .allow(["*__get*"])?,
            ClaimRule::new().when("sub", "bot").deny(["*__getSecret"])?,
        ];
        let admin = claims(serde_json::json!({"sub": "a", "groups": ["staff", "admins"]}));
        let reader = claims(serde_json::json!({"sub": "r", "scope": "openid tools:read"}));
        let bot = claims(serde_json::json!({"sub": "bot", "scope": "tools:read"}));
        let nobody = claims(serde_json::json!({"sub": "n", "groups": "admins-not"}));
        assert!(allows(&rules, &admin, "shop__purge"));
        assert!(allows(&rules, &reader, "shop__getItems"));
        assert!(!allows(&rules, &reader, "shop__purge"));
        assert!(allows(&rules, &bot, "shop__getItems"));
        assert!(!allows(&rules, &bot, "shop__getSecret"));
        // A rule that only denies opens nothing.
        let bot_only = claims(serde_json::json!({"sub": "bot"}));
        assert!(!allows(&rules, &bot_only, "shop__getItems"));
        assert!(!allows(&rules, &nobody, "shop__getItems"));
        assert!(allows(&[], &nobody, "shop__purge"));
        Ok(())
    }

    #[test]
    fn when_matches_whole_values_and_splits_only_scopes() {
        let applies = |claim: &str, value: &str, held: Value| {
            ClaimRule::new()
                .when(claim, value)
                .applies(&JsonObject::from_iter([(claim.to_owned(), held)]))
        };
        assert!(applies("email", "boss@corp", "boss@corp".into()));
        for padded in [
            "x boss@corp",
            "boss@corp x",
            " boss@corp",
            "boss@corp ",
            "boss@corp\tx",
        ] {
            assert!(!applies("email", "boss@corp", padded.into()), "{padded:?}");
        }
        assert!(!applies("sub", "bot", "a bot".into()));
        assert!(!applies("groups", "admins", "staff admins".into()));
        assert!(applies(
            "groups",
            "admins",
            serde_json::json!(["staff", "admins"])
        ));
        assert!(!applies(
            "groups",
            "admins",
            serde_json::json!(["staff admins"])
        ));
        assert!(applies("roles", "7", serde_json::json!([7, "x"])));
        for scopes in ["openid mcp", "mcp", "mcp  openid"] {
            assert!(applies("scope", "mcp", scopes.into()), "{scopes}");
            assert!(applies("scp", "mcp", scopes.into()), "{scopes}");
        }
        assert!(!applies("scope", "", "openid  mcp".into()));
        assert!(!applies("scope", "openid mcp", "openid mcp".into()));
        assert!(applies("scp", "mcp", serde_json::json!(["openid", "mcp"])));
        assert!(!applies("scp", "mcp", serde_json::json!(["openid mcp"])));
        assert!(applies("email_verified", "true", true.into()));
        assert!(applies("level", "3", 3.into()));
        assert!(!applies("level", "3", serde_json::json!({"value": 3})));
        assert!(!applies("missing", "x", Value::Null));
    }
}
