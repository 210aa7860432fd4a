use super::*;
use syn::parse_quote;

fn docs(item: syn::ItemFn) -> FnDocs {
    split_fn_docs(&item.attrs)
}

fn arguments(docs: &FnDocs) -> Vec<(&str, &str)> {
    docs.arguments
        .iter()
        .map(|a| (a.name.as_str(), a.text.as_str()))
        .collect()
}

#[test]
fn splits_the_arguments_section() {
    let docs = docs(parse_quote! {
        /// Search products by keyword.
        ///
        /// Results are ranked.
        ///
        /// # Arguments
        ///
        /// * `query` - Search keyword or phrase.
        /// * `limit` - Maximum number
        ///   of results.
        ///
        /// # Notes
        ///
        /// Not part of the arguments.
        fn f() {}
    });
    assert_eq!(
        docs.description,
        "Search products by keyword.\n\nResults are ranked.\n\n# Notes\n\nNot part of the arguments."
    );
    assert_eq!(
        arguments(&docs),
        [
            ("query", "Search keyword or phrase."),
            ("limit", "Maximum number of results.")
        ]
    );
}

#[test]
fn rustdoc_sections_and_doctests_stay_out() {
    let docs = docs(parse_quote! {
        /// Archives a repository. See [`unarchive`] to undo it, and
        /// [the guide](crate::guide) or [Registry] for more.
        ///
        /// ```
        /// # use my_crate::archive;
        /// archive("repo").unwrap();
        /// ```
        ///
        /// The answer looks like this:
        ///
        /// ```json
        /// {"archived": true}
        /// ```
        ///
        /// # Errors
        ///
        /// Fails when the repository does not exist.
        ///
        /// ## Retrying
        ///
        /// Still about errors.
        ///
        /// # Examples
        ///
        /// ```rust,no_run
        /// # Not a heading: a hidden doctest line.
        /// archive("other").unwrap();
        /// ```
        ///
        /// # Skill
        ///
        /// Archive only after asking; see [`unarchive`].
        ///
        /// # Panics
        ///
        /// Never.
        ///
        /// # Safety
        ///
        /// Safe.
        ///
        /// # Arguments
        ///
        /// * `repo` - The [`Repository`] name.
        ///
        /// [Registry]: crate::Registry
        fn archive() {}
    });
    assert_eq!(
        docs.description,
        "Archives a repository. See `unarchive` to undo it, and\nthe guide or Registry for more.\n\nThe answer looks like this:\n\n```json\n{\"archived\": true}\n```"
    );
    assert_eq!(docs.skill, "Archive only after asking; see `unarchive`.");
    assert_eq!(arguments(&docs), [("repo", "The `Repository` name.")]);
}

#[test]
fn a_parameter_description_is_prose() {
    let item: syn::ItemFn = parse_quote! {
        /// The [`Repository`] to archive, as in [the docs](https://docs.rs).
        ///
        /// ```
        /// let name = "repo";
        /// ```
        fn f() {}
    };
    assert_eq!(
        param_text(&item.attrs),
        "The `Repository` to archive, as in the docs."
    );
}
