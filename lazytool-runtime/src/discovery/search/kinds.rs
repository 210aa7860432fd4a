//! Arguments a question writes, searched also as their kind: `next Friday` or `2023-04-20`
//! asks for a tool that takes a `date`, `14:00` or `4 pm` for one that takes a `time`, `$40`
//! for one that takes an `amount`, `docs/old.md` for one that takes a `file`. The argument's
//! own words rarely appear in any tool (no tool's text says `Friday`), while its kind is in
//! the parameters of the tools that need it. So does a person the question names (`songs by
//! Adele`, `a movie with Tom Hanks`): the tools that take one call them an `artist`, an
//! `actor`, the `cast`.

use std::sync::LazyLock;

use super::analysis::{Analyzer, fold, with_first_term};

/// The kinds [`word_kind`] and [`written_kinds`] name.
const KINDS: [&str; 4] = ["date", "time", "amount", "file"];

/// The term of each kind and of each of [`PERSON_ROLES`], analysed once rather than for every
/// query that names one.
static TERMS: LazyLock<Vec<(&'static str, String)>> = LazyLock::new(|| {
    let mut analyzer = Analyzer::default();
    KINDS
        .iter()
        .chain(&PERSON_ROLES)
        .filter_map(|&kind| Some((kind, with_first_term(&mut analyzer, kind, str::to_owned)?)))
        .collect()
});

/// The term `kind` (a kind or one of [`PERSON_ROLES`]) is searched as.
pub(super) fn term_of(kind: &str) -> Option<&'static str> {
    TERMS
        .iter()
        .find(|(known, _)| *known == kind)
        .map(|(_, term)| term.as_str())
}

/// The kind of argument a word of prose names, if any: months, weekdays and the days said
/// relative to today are dates.
pub(super) fn word_kind(word: &str) -> Option<&'static str> {
    let folded = fold(word);
    matches!(
        folded.as_str(),
        "january"
            | "february"
            | "march"
            | "april"
            | "may"
            | "june"
            | "july"
            | "august"
            | "september"
            | "october"
            | "november"
            | "december"
            | "jan"
            | "feb"
            | "mar"
            | "apr"
            | "jun"
            | "jul"
            | "aug"
            | "sep"
            | "sept"
            | "oct"
            | "nov"
            | "dec"
            | "monday"
            | "tuesday"
            | "wednesday"
            | "thursday"
            | "friday"
            | "saturday"
            | "sunday"
            | "today"
            | "tomorrow"
            | "yesterday"
            | "tonight"
            | "weekend"
    )
    .then_some("date")
}

/// The kinds of the arguments `query` writes in digits or as file names, one for each: dates
/// (`2023-04-20`, `2023.10.1`, `05/10/2023`), times of day (`14:00`, `4pm`, `4 pm`), sums of
/// money (`$59.99`, `100€`, `10 euros`) and file names (`image.png`, `docs/old.md`). These
/// are no words (the analysis drops numbers and splits file names), so each counts as a word
/// of its own that only its kind matches.
pub(super) fn written_kinds(query: &str) -> impl Iterator<Item = &'static str> + '_ {
    let mut previous = "";
    query.split_whitespace().filter_map(move |token| {
        let money = token.trim_matches(|c: char| !c.is_ascii_alphanumeric() && !is_currency(c));
        let token = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let after_number = is_hour(previous);
        let after_amount =
            !previous.is_empty() && previous.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        previous = token;
        let lower = token.to_ascii_lowercase();
        if is_date(token) {
            Some("date")
        } else if is_clock_time(token) || (after_number && matches!(lower.as_str(), "am" | "pm")) {
            Some("time")
        } else if (money.chars().any(is_currency) && money.bytes().any(|b| b.is_ascii_digit()))
            || (after_amount
                && matches!(lower.as_str(), "dollars" | "euros" | "usd" | "eur" | "gbp"))
        {
            Some("amount")
        } else if is_file_name(token) {
            Some("file")
        } else {
            None
        }
    })
}

fn is_currency(c: char) -> bool {
    matches!(c, '$' | '€' | '£' | '¥')
}

/// `image.png`, `docs/old.md`, `test.py`: a name with a letter, a dot and an extension of two
/// to four letters; not `e.g` or `3.14`.
fn is_file_name(token: &str) -> bool {
    let name = token.rsplit(['/', '\\']).next().unwrap_or(token);
    name.rsplit_once('.').is_some_and(|(stem, extension)| {
        stem.bytes().any(|b| b.is_ascii_alphabetic())
            && (2..=4).contains(&extension.len())
            && extension.bytes().all(|b| b.is_ascii_alphabetic())
    })
}

/// `2023-04-20`, `2023.10.1`, `05/10/2023`, `5-10-23`: three runs of digits joined by one
/// separator, the year first (four digits) or last (two or four).
fn is_date(token: &str) -> bool {
    let Some(separator) = token.chars().find(|c| matches!(c, '-' | '.' | '/')) else {
        return false;
    };
    let parts: Vec<&str> = token.split(separator).collect();
    let [first, second, third] = parts[..] else {
        return false;
    };
    let digits = |part: &str, lengths: &[usize]| {
        lengths.contains(&part.len()) && part.bytes().all(|byte| byte.is_ascii_digit())
    };
    digits(second, &[1, 2])
        && ((digits(first, &[4]) && digits(third, &[1, 2]))
            || (digits(first, &[1, 2]) && digits(third, &[2, 4])))
}

/// `14:00`, `9:30pm`, `4pm`, `11am`.
fn is_clock_time(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    let (clock, suffixed) = match lower.strip_suffix("am").or(lower.strip_suffix("pm")) {
        Some(clock) => (clock, true),
        None => (lower.as_str(), false),
    };
    match clock.split_once(':') {
        Some((hour, minute)) => {
            is_hour(hour) && minute.len() == 2 && minute.bytes().all(|byte| byte.is_ascii_digit())
        }
        None => suffixed && is_hour(clock),
    }
}

/// The roles a person a question names can have in a tool's parameters (see
/// [`names_person`]).
pub(super) const PERSON_ROLES: [&str; 7] = [
    "artist",
    "actor",
    "cast",
    "author",
    "director",
    "performer",
    "singer",
];

/// Whether `query` names a person: a capitalised word right after `by`, `with`, `featuring`
/// or `starring` (`songs by Adele`, `a movie with Tom Hanks`), other than a month or a
/// weekday (`by Friday`).
pub(super) fn names_person(query: &str) -> bool {
    let mut previous = "";
    query.split_whitespace().any(|token| {
        let after = previous;
        previous = token;
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let mut chars = word.chars();
        let capitalised = chars.next().is_some_and(char::is_uppercase)
            && word.chars().count() > 1
            && chars.all(char::is_lowercase);
        capitalised
            && word_kind(word).is_none()
            && ["by", "with", "featuring", "starring"]
                .iter()
                .any(|before| after.eq_ignore_ascii_case(before))
    })
}

/// One or two digits.
fn is_hour(token: &str) -> bool {
    (1..=2).contains(&token.len()) && token.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_role_has_a_term() {
        for kind in KINDS.iter().chain(&PERSON_ROLES) {
            assert!(term_of(kind).is_some(), "{kind}");
        }
        assert_eq!(term_of("date"), Some("dat"));
        assert_eq!(term_of("weather"), None);
    }

    #[test]
    fn names_of_days_and_months_are_dates() {
        for word in ["Friday", "april", "tomorrow", "weekend", "Sept"] {
            assert_eq!(word_kind(word), Some("date"), "{word}");
        }
        for word in ["weather", "day", "marching", "may_be"] {
            assert_eq!(word_kind(word), None, "{word}");
        }
    }

    #[test]
    fn a_capitalised_name_after_by_or_with_is_a_person() {
        assert!(names_person("play some songs by Käärijä"));
        assert!(names_person("a movie with Zoe Margaret Colletti in it"));
        assert!(names_person("a drama featuring Utkarsh Ambudkar"));
        assert!(!names_person("a movie with subtitles"));
        assert!(!names_person("done by Friday"));
        assert!(!names_person("files by ID"));
        assert!(!names_person("By the way, list my repos"));
    }

    #[test]
    fn dates_and_times_written_in_digits_are_found() {
        let kinds = |query| written_kinds(query).collect::<Vec<_>>();
        assert_eq!(kinds("on 2023-04-20, please"), ["date"]);
        assert_eq!(kinds("from 05/10/2023 to 5/12/23"), ["date", "date"]);
        assert_eq!(kinds("today is 2023.10.1"), ["date"]);
        assert_eq!(kinds("at 14:00 or 9:30pm"), ["time", "time"]);
        assert_eq!(kinds("at 4pm, or at 4 pm"), ["time", "time"]);
        assert_eq!(
            kinds("it costs $59.99, or 100€, or 10 euros"),
            ["amount"; 3]
        );
        assert_eq!(kinds("open 'image.png' and docs/old.md"), ["file", "file"]);
        assert!(kinds("I am at 192.168.0.1 with 3.14 and 2 apples, version 1.2.3").is_empty());
        assert!(kinds("e.g. the euros of $ and U.S. law").is_empty());
        assert!(kinds("I am bored").is_empty());
    }
}
