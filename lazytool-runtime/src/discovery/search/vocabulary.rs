//! The words search treats specially: stop words, abbreviations, synonyms (as written here;
//! analysed into terms by [`SYNONYMS`](super::analysis::SYNONYMS)).

/// Whether `word` is too common to tell tools apart: function words, and the words of
/// conversation that questions wrap a request in (`hi`, `can you tell me`, `I need`,
/// `please provide`), which say nothing of the tool asked for. The contraction stubs (`don`,
/// `isn`, `ll`…) are what is left of `don't`, `isn't` and `we'll` once split on the
/// apostrophe. Words are matched as written, before stemming (`provides` in a description
/// is kept).
#[rustfmt::skip]
pub(super) fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "able" | "about" | "all" | "also" | "am" | "an" | "and" | "any" | "are" | "aren" |
        "as" | "assist" | "at" | "be" | "been" | "but" | "by" | "can" | "could" | "couldn" |
        "currently" | "did" | "didn" | "do" | "does" | "doesn" | "don" | "for" | "from" |
        "give" | "had" | "hadn" | "has" | "hasn" | "have" | "haven" | "he" | "hello" |
        "help" | "her" | "here" | "hey" | "hi" | "his" | "how" | "id" | "if" | "im" | "in" |
        "into" | "is" | "isn" | "it" | "its" | "just" | "kindly" | "know" | "let" | "like" |
        "ll" | "me" | "more" | "my" | "need" | "no" | "not" | "now" | "of" | "ok" | "okay" |
        "on" | "or" | "our" | "please" | "possible" | "provide" | "re" | "she" | "should" |
        "shouldn" | "so" | "some" | "sure" | "tell" | "than" | "thank" | "thanks" | "that" |
        "the" | "their" | "them" | "then" | "there" | "these" | "they" | "this" | "those" |
        "to" | "us" | "ve" | "very" | "want" | "was" | "wasn" | "we" | "were" | "weren" |
        "what" | "when" | "where" | "which" | "who" | "why" | "will" | "with" | "won" |
        "wonder" | "wondering" | "would" | "wouldn" | "yes" | "you" | "your"
    )
}

/// Abbreviations spelled out in documents and queries alike, keyed by their stem.
pub(super) const ABBREVIATIONS: &[(&str, &[&str])] = &[
    ("pr", &["pull", "request"]),
    ("repo", &["repository"]),
    ("org", &["organization"]),
    ("organisation", &["organization"]),
];

/// Words a user may write for one another: each word of a query also searches the other
/// words of its groups, as if written, at [`SYNONYM_WEIGHT`](super::weights::SYNONYM_WEIGHT).
pub(super) const SYNONYM_GROUPS: &[&[&str]] = &[
    &[
        "show", "list", "get", "fetch", "read", "view", "display", "retrieve",
    ],
    &["find", "search", "look", "lookup", "locate"],
    &["make", "create", "new", "open"],
    &["delete", "remove", "discard"],
    &["change", "update", "edit", "modify", "rename"],
    &["comment", "reply"],
    &["request", "ask"],
    &["issue", "bug", "ticket"],
    &["folder", "directory"],
];
