//! The `--principals` file: [`Principals`], bearer tokens (or their SHA-256) mapped to named
//! principals, each with allow and deny globs over tool, prompt and resource names.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use glob::Pattern;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::mcp_http::McpHttp;
use crate::server::McpServer;
use crate::{ISSUER_PRINCIPAL_PREFIX, Principal};

/// Principals read from a file: who each bearer token is, and which tools each may use.
///
/// JSON (or TOML when the file name ends in `.toml`):
///
/// ```json
/// {"principals": {
///   "alice": {"tokenSha256": ["<the SHA-256 of her token, 64 hex digits>"], "allow": ["get*"]},
///   "ci": {"tokens": ["a-secret"], "deny": ["*delete*", "purge*"]}
/// }}
/// ```
///
/// A tool (or prompt, or resource by its URI) is open to a principal when its name matches
/// one of the principal's `allow` globs (everything without `allow`) and none of its `deny`
/// globs; one that is not open is answered as one that does not exist. Principals the file does not name (the one of
/// `--token`, say) are not restricted by it. Prefer `tokenSha256`: the file then holds no
/// secret (`printf %s "$TOKEN" | sha256sum`).
///
/// ```
/// use lazytool_mcp::Principals;
///
/// let principals = Principals::from_json(r#"{"principals": {"ci": {"tokens": ["s3cret"], "deny": ["purge*"]}}}"#)?;
/// assert_eq!(principals.names(), ["ci"]);
/// assert!(Principals::from_json(r#"{"principals": {"ci": {"tokens": []}}}"#).is_err());
/// # Ok::<(), lazytool_mcp::PrincipalsError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Principals {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    principal: Principal,
    digests: Vec<[u8; 32]>,
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
}

/// Why a principals file cannot be used; its message names the principal and the field.
///
/// ```
/// let error = lazytool_mcp::Principals::from_json("{}").unwrap_err();
/// assert!(error.to_string().contains("principals"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrincipalsError(String);

impl std::fmt::Display for PrincipalsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PrincipalsError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    principals: BTreeMap<String, Declared>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Declared {
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    token_sha256: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

impl Principals {
    /// Reads `path` (TOML when its name ends in `.toml`, JSON otherwise), warning when
    /// others than its owner may read it.
    ///
    /// ```no_run
    /// let principals = lazytool_mcp::Principals::from_file("principals.json".as_ref())?;
    /// # Ok::<(), lazytool_mcp::PrincipalsError>(())
    /// ```
    pub fn from_file(path: &Path) -> Result<Self, PrincipalsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| PrincipalsError(format!("cannot read {}: {error}", path.display())))?;
        warn_if_readable_by_others(path);
        let parsed = if path
            .extension()
            .is_some_and(|extension| extension == "toml")
        {
            Principals::from_toml(&text)
        } else {
            Principals::from_json(&text)
        };
        parsed.map_err(|error| PrincipalsError(format!("{}: {error}", path.display())))
    }

    /// Reads principals from JSON.
    ///
    /// ```
    /// let principals = lazytool_mcp::Principals::from_json(r#"{"principals": {"a": {"tokens": ["x"]}}}"#)?;
    /// # Ok::<(), lazytool_mcp::PrincipalsError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Self, PrincipalsError> {
        let file: File = serde_json::from_str(text)
            .map_err(|error| PrincipalsError(format!("not a principals file: {error}")))?;
        Principals::build(file)
    }

    /// Reads principals from TOML.
    ///
    /// ```
    /// let text = "[principals.ci]\ntokens = [\"x\"]\ndeny = [\"purge*\"]\n";
    /// let principals = lazytool_mcp::Principals::from_toml(text)?;
    /// assert_eq!(principals.names(), ["ci"]);
    /// # Ok::<(), lazytool_mcp::PrincipalsError>(())
    /// ```
    pub fn from_toml(text: &str) -> Result<Self, PrincipalsError> {
        let file: File = toml::from_str(text)
            .map_err(|error| PrincipalsError(format!("not a principals file: {error}")))?;
        Principals::build(file)
    }

    /// The principals' names, in name order.
    ///
    /// ```
    /// let principals = lazytool_mcp::Principals::from_json(r#"{"principals": {"b": {"tokens": ["y"]}, "a": {"tokens": ["x"]}}}"#)?;
    /// assert_eq!(principals.names(), ["a", "b"]);
    /// # Ok::<(), lazytool_mcp::PrincipalsError>(())
    /// ```
    pub fn names(&self) -> Vec<&str> {
        self.entries
            .iter()
            .map(|entry| entry.principal.name())
            .collect()
    }

    fn build(file: File) -> Result<Self, PrincipalsError> {
        let mut problems = Vec::new();
        let mut owners: HashMap<[u8; 32], String> = HashMap::new();
        let mut entries = Vec::new();
        for (name, declared) in file.principals {
            let mut digests: Vec<[u8; 32]> = declared
                .tokens
                .iter()
                .map(|token| Sha256::digest(token.as_bytes()).into())
                .collect();
            for (index, hex) in declared.token_sha256.iter().enumerate() {
                match parse_digest(hex) {
                    Some(digest) => digests.push(digest),
                    None => problems.push(format!(
                        "principals.{name}.tokenSha256[{index}]: not a SHA-256 digest (64 hexadecimal digits)"
                    )),
                }
            }
            if name.starts_with(ISSUER_PRINCIPAL_PREFIX) {
                problems.push(format!(
                    "principals.{name}: names starting with `{ISSUER_PRINCIPAL_PREFIX}` are an OpenID Connect issuer's principals; give this one another name"
                ));
            }
            if digests.is_empty() {
                problems.push(format!(
                    "principals.{name}: no token; give `tokens` or `tokenSha256`"
                ));
            }
            for digest in &digests {
                if let Some(other) = owners.insert(*digest, name.clone()) {
                    problems.push(format!(
                        "principals.{name}: a token of `{other}` too; each token names one principal"
                    ));
                }
            }
            let mut patterns = |field: &str, globs: &[String]| -> Vec<Pattern> {
                let mut compiled = Vec::new();
                for (index, glob) in globs.iter().enumerate() {
                    match Pattern::new(glob) {
                        Ok(pattern) => compiled.push(pattern),
                        Err(error) => problems.push(format!(
                            "principals.{name}.{field}[{index}]: `{glob}` is not a glob ({error})"
                        )),
                    }
                }
                compiled
            };
            let allow = patterns("allow", &declared.allow);
            let deny = patterns("deny", &declared.deny);
            entries.push(Entry {
                principal: Principal::new(name.as_str()),
                digests,
                allow,
                deny,
            });
        }
        if entries.is_empty() && problems.is_empty() {
            problems.push("`principals` names no principal".to_owned());
        }
        if problems.is_empty() {
            Ok(Principals { entries })
        } else {
            Err(PrincipalsError(problems.join("; ")))
        }
    }

    /// Whether `principal` may use the tool, prompt or resource named `tool`.
    fn allows(&self, principal: &Principal, tool: &str) -> bool {
        let Some(entry) = self
            .entries
            .iter()
            .find(|entry| &entry.principal == principal)
        else {
            return true;
        };
        (entry.allow.is_empty() || entry.allow.iter().any(|glob| glob.matches(tool)))
            && !entry.deny.iter().any(|glob| glob.matches(tool))
    }

    /// The server restricted to what each principal may use (added to its other
    /// restrictions).
    pub(crate) fn restrict(&self, server: McpServer) -> McpServer {
        let principals = Arc::new(self.clone());
        let offers = Arc::clone(&principals);
        server
            .allow_for(move |principal, tool| principals.allows(principal, tool.name()))
            .allow_offers_for(move |principal, name| offers.allows(principal, name))
    }

    /// The HTTP server accepting each principal's tokens.
    pub(crate) fn accept(&self, mut http: McpHttp) -> McpHttp {
        for entry in &self.entries {
            for digest in &entry.digests {
                http = http.bearer_token_digest_for(*digest, entry.principal.clone());
            }
        }
        http
    }
}

fn parse_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut digest = [0u8; 32];
    for (index, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * index..2 * index + 2], 16).ok()?;
    }
    Some(digest)
}

/// Warns when a secret-holding file may be read by its group or others.
pub(crate) fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(metadata) = std::fs::metadata(path)
            && metadata.permissions().mode() & 0o077 != 0
        {
            tracing::warn!(
                target: "lazytool::mcp",
                path = %path.display(),
                "others than its owner may read this file of secrets: chmod 600 it"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_restrict_the_named_principals_only() {
        let principals = Principals::from_json(
            r#"{"principals": {
                "reader": {"tokens": ["r"], "allow": ["get*"], "deny": ["getSecrets"]},
                "ops": {"tokenSha256": ["6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"]}
            }}"#,
        )
        .expect("a valid file");
        let reader = Principal::new("reader");
        assert!(principals.allows(&reader, "getProducts"));
        assert!(!principals.allows(&reader, "getSecrets"));
        assert!(!principals.allows(&reader, "purgeOrders"));
        assert!(principals.allows(&Principal::new("ops"), "purgeOrders"));
        assert!(principals.allows(&Principal::new("default"), "purgeOrders"));
        // SHA-256 of "1".
        assert_eq!(
            principals.entries[0].digests[0],
            <[u8; 32]>::from(Sha256::digest(b"1"))
        );
    }

    #[test]
    fn every_problem_is_named() {
        let error = Principals::from_json(
            r#"{"principals": {
                "a": {"tokens": ["same"], "allow": ["[x"]},
                "b": {"tokens": ["same"], "tokenSha256": ["beef"]},
                "c": {},
                "oidc:alice": {"tokens": ["alice"]}
            }}"#,
        )
        .expect_err("invalid");
        let text = error.to_string();
        for part in [
            "principals.a.allow[0]: `[x` is not a glob",
            "principals.b.tokenSha256[0]: not a SHA-256 digest",
            "principals.b: a token of `a` too",
            "principals.c: no token",
            "principals.oidc:alice: names starting with `oidc:`",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        let unknown = Principals::from_json(r#"{"principals": {"a": {"token": "x"}}}"#);
        assert!(
            unknown
                .expect_err("unknown field")
                .to_string()
                .contains("unknown field `token`")
        );
    }
}
