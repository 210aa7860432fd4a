//! Variables in config strings, in the forms the clients' files use: `${VAR}` (Claude,
//! Cursor), `${VAR:-default}` (Claude Code), `${env:VAR}` (VS Code).

/// VS Code's own variables: an `mcp.json` may hold them, but only VS Code knows their values.
const VS_CODE_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "file",
    "fileDirname",
    "cwd",
    "pathSeparator",
];

/// `text` with each variable replaced by its value from `var`; `$${` stays a literal `${`.
/// `${VAR:-default}` takes `default` when `VAR` is unset or empty. An unset variable, an
/// unclosed `${`, and VS Code's `${input:...}` prompts and predefined variables (which only
/// VS Code can fill in) are errors that say what to write instead.
///
/// ```text
/// ${HOME}/notes        /home/me/notes
/// ${env:HOME}/notes    /home/me/notes
/// ${TZNAME:-UTC}       UTC, when TZNAME is unset or empty
/// ```
pub(crate) fn expand(text: &str, var: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(literal) = after.strip_prefix("${") {
            out.push_str("${");
            rest = literal;
        } else if let Some(open) = after.strip_prefix('{') {
            let close = open
                .find('}')
                .ok_or_else(|| format!("unclosed `${{` in `{text}`"))?;
            out.push_str(&variable(&open[..close], &var)?);
            rest = &open[close + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of what stands between `${` and `}`.
fn variable(inside: &str, var: &impl Fn(&str) -> Option<String>) -> Result<String, String> {
    if let Some((name, default)) = inside.split_once(":-") {
        return Ok(var(name)
            .filter(|value| !value.is_empty())
            .unwrap_or_else(|| default.to_owned()));
    }
    if let Some(name) = inside.strip_prefix("env:") {
        return var(name).ok_or_else(|| format!("the environment variable `{name}` is not set"));
    }
    if let Some(input) = inside.strip_prefix("input:") {
        return Err(format!(
            "`${{input:{input}}}` asks VS Code to prompt for a value, which the gateway cannot do: set an environment variable and write `${{env:NAME}}` instead"
        ));
    }
    if let Some((scheme, _)) = inside.split_once(':') {
        return Err(format!(
            "`${{{inside}}}`: `{scheme}:` variables are not supported (only `${{VAR}}`, `${{env:VAR}}` and `${{VAR:-default}}`)"
        ));
    }
    var(inside).ok_or_else(|| match VS_CODE_VARIABLES.contains(&inside) {
        true => format!(
            "`${{{inside}}}` is a VS Code variable that only VS Code can fill in: write the value itself"
        ),
        false => format!("the environment variable `{inside}` is not set"),
    })
}

#[cfg(test)]
mod tests {
    use super::expand;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/me".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_and_the_rest_stays() {
        assert_eq!(
            expand("${HOME}/data", env).expect("expands"),
            "/home/me/data"
        );
        assert_eq!(
            expand("cost $5, $${HOME}", env).expect("expands"),
            "cost $5, ${HOME}"
        );
        assert_eq!(expand("${env:HOME}/x", env).expect("expands"), "/home/me/x");
    }

    #[test]
    fn defaults_fill_unset_and_empty_variables() {
        assert_eq!(expand("${TZNAME:-UTC}", env).expect("expands"), "UTC");
        assert_eq!(expand("${EMPTY:-x}", env).expect("expands"), "x");
        assert_eq!(expand("${HOME:-/tmp}", env).expect("expands"), "/home/me");
        assert_eq!(expand("${TZNAME:-}", env).expect("expands"), "");
    }

    #[test]
    fn unset_unclosed_and_vs_code_only_forms_are_errors() {
        assert_eq!(
            expand("${TOKEN}", env).expect_err("an error"),
            "the environment variable `TOKEN` is not set"
        );
        assert_eq!(
            expand("${env:TOKEN}", env).expect_err("an error"),
            "the environment variable `TOKEN` is not set"
        );
        assert!(
            expand("${HOME", env)
                .expect_err("an error")
                .starts_with("unclosed")
        );
        assert!(
            expand("Bearer ${input:github_token}", env)
                .expect_err("an error")
                .starts_with("`${input:github_token}` asks VS Code to prompt for a value")
        );
        assert!(
            expand("${workspaceFolder}/src", env)
                .expect_err("an error")
                .contains("a VS Code variable")
        );
        assert!(
            expand("${command:pick}", env)
                .expect_err("an error")
                .contains("`command:` variables are not supported")
        );
    }
}
