//! `${VAR}` in config strings, from the environment.

/// `text` with each `${NAME}` replaced by the variable's value; `$${` stays a literal `${`.
/// An unset variable or an unclosed `${` is an error naming it.
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
            let name = &open[..close];
            let value =
                var(name).ok_or_else(|| format!("the environment variable `{name}` is not set"))?;
            out.push_str(&value);
            rest = &open[close + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::expand;

    fn env(name: &str) -> Option<String> {
        (name == "HOME").then(|| "/home/me".to_owned())
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
    }

    #[test]
    fn unset_and_unclosed_are_errors() {
        assert_eq!(
            expand("${TOKEN}", env).expect_err("an error"),
            "the environment variable `TOKEN` is not set"
        );
        assert!(
            expand("${HOME", env)
                .expect_err("an error")
                .starts_with("unclosed")
        );
    }
}
