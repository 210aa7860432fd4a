//! Resource URIs matched against RFC 6570 URI templates and read for their scheme, to route a
//! `resources/read` to the server that offers the URI.

/// The scheme of a URI (`file` of `file:///a`).
pub(crate) fn scheme_of(uri: &str) -> Option<&str> {
    uri.split_once(':')
        .map(|(scheme, _)| scheme)
        .filter(|scheme| !scheme.is_empty())
}

/// Whether `uri` is one of the URIs of the RFC 6570 `template`: its literal parts in order,
/// each expression (`{id}`, `{+path}`, `{?query}`...) standing for any text in between.
pub(crate) fn matches_template(template: &str, uri: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        literals.push(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    let Some((first, others)) = literals.split_first() else {
        return false;
    };
    let Some(mut remaining) = uri.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = others.split_last() else {
        return remaining.is_empty();
    };
    for literal in middle {
        match remaining.find(literal) {
            Some(at) => remaining = &remaining[at + literal.len()..],
            None => return false,
        }
    }
    remaining.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_uris_only() {
        let text = "demo://resource/dynamic/text/{resourceId}";
        assert!(matches_template(text, "demo://resource/dynamic/text/7"));
        assert!(!matches_template(text, "demo://resource/dynamic/blob/7"));
        assert!(matches_template("file:///{+path}.md", "file:///a/b.md"));
        assert!(!matches_template("file:///{+path}.md", "file:///a/b.txt"));
        assert!(matches_template(
            "db://{table}/rows{?limit}",
            "db://users/rows?limit=3"
        ));
        assert!(matches_template("fixed://here", "fixed://here"));
        assert!(!matches_template("fixed://here", "fixed://here/too"));
        assert!(!matches_template("broken://{id", "broken://1"));
    }

    #[test]
    fn schemes_are_read_up_to_the_colon() {
        assert_eq!(scheme_of("demo://x"), Some("demo"));
        assert_eq!(scheme_of("no-scheme"), None);
    }
}
