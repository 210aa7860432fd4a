use std::sync::LazyLock;

use serde_json::{Value, json};

use super::analysis::{Analysis, WRITTEN, analyze, fold};
use super::family::family_key;
use super::fields::MAX_SCHEMA_DEPTH;
use super::query::MAX_SPLIT_BYTES;
use super::stem::stem;
use super::*;
use crate::testing::{CatalogTool, github_tools};

mod unspaced;

fn github_index(tools: &[CatalogTool]) -> SearchIndex {
    SearchIndex::new(tools.iter().map(|tool| SearchDocument {
        name: &tool.name,
        description: &tool.description,
        input_schema: &tool.input_schema,
        tags: &[],
    }))
}

/// An index of tools given as (name, description), without parameters or tags.
fn small_index(tools: &[(&str, &str)]) -> SearchIndex {
    static NO_PARAMETERS: LazyLock<Value> = LazyLock::new(|| json!({"type": "object"}));
    SearchIndex::new(tools.iter().map(|&(name, description)| SearchDocument {
        name,
        description,
        input_schema: &NO_PARAMETERS,
        tags: &[],
    }))
}

fn terms(text: &str, analysis: Analysis) -> Vec<String> {
    let mut terms = Vec::new();
    analyze(text, analysis, &mut terms);
    terms
}

/// The terms of `text` but the written forms of inflected words.
fn stems(text: &str, analysis: Analysis) -> Vec<String> {
    let mut terms = terms(text, analysis);
    terms.retain(|term| !term.starts_with(WRITTEN));
    terms
}

#[test]
fn splits_identifiers_into_words() {
    assert_eq!(
        stems("listPullRequests", Analysis::Identifier),
        ["list", "pull", "request"]
    );
    assert_eq!(stems("get_issue", Analysis::Identifier), ["get", "issu"]);
    assert_eq!(
        stems("sub-issue.write/v2", Analysis::Identifier),
        ["sub", "issu", "writ"]
    );
    assert_eq!(
        stems("XMLHttpRequest2", Analysis::Identifier),
        ["xml", "http", "request"]
    );
    assert_eq!(stems("get_me", Analysis::Identifier), ["get"]);
}

#[test]
fn keeps_prose_words_whole_and_queries_both_ways() {
    assert_eq!(stems("GitHub's API", Analysis::Prose), ["github", "api"]);
    assert_eq!(stems("GitHub", Analysis::Query), ["github", "git", "hub"]);
    assert_eq!(
        stems("listPullRequests", Analysis::Query),
        ["listpullrequest", "list", "pull", "request"]
    );
}

#[test]
fn folds_case_and_accents() {
    assert_eq!(fold("ÉtÉ Straße Ångström"), "ete strasse angstrom");
    assert_eq!(
        terms("Créer", Analysis::Prose),
        terms("creer", Analysis::Prose)
    );
    assert_eq!(fold("日本"), "日本");
}

#[test]
fn drops_stop_words_numbers_and_single_letters() {
    assert_eq!(
        stems("Show me the open PRs in my repo, #12", Analysis::Query),
        ["show", "open", "pull", "request", "repositori"]
    );
    assert!(stems("I don't know", Analysis::Query).is_empty());
    assert_eq!(
        stems(
            "Hi, can you tell me the weather, please? I need it now.",
            Analysis::Query
        ),
        ["weather"]
    );
}

#[test]
fn keeps_inflected_words_as_written_too() {
    assert_eq!(
        terms("list_gists", Analysis::Identifier),
        ["list", "gist", "=gists"]
    );
    assert_eq!(terms("Gists", Analysis::Query), ["gist", "=gists"]);
    assert_eq!(terms("the PRs", Analysis::Query), ["pull", "request"]);
}

#[test]
fn stems_related_forms_alike() {
    let stem = |word: &str| {
        let mut stemmed = word.to_owned();
        stem(&mut stemmed);
        stemmed
    };
    let alike = [
        ["request", "requests", "requested"],
        ["branch", "branches", "branching"],
        ["repository", "repositories", "repository"],
        ["create", "created", "creation"],
        ["run", "running", "runs"],
        ["modify", "modified", "modifies"],
        ["label", "labelled", "labeled"],
        ["review", "reviewer", "reviewers"],
        ["assign", "assignee", "assignees"],
        ["react", "reaction", "reactions"],
        ["tag", "tagged", "tags"],
        ["direct", "director", "directed"],
        ["edit", "editor", "editors"],
        ["manage", "management", "managed"],
        ["assign", "assignment", "assignments"],
    ];
    for forms in alike {
        let stems = forms.map(stem);
        assert!(
            stems.iter().all(|stem| *stem == stems[0]),
            "{forms:?} → {stems:?}"
        );
    }
    for word in [
        "status", "need", "string", "owner", "user", "action", "pull", "call", "class", "author",
        "vendor", "color", "error", "comment", "element", "moment",
    ] {
        assert_eq!(stem(word), word);
    }
    assert_eq!(stem("issue"), "issu");
}

#[test]
fn empty_stop_word_and_unknown_queries_find_nothing() {
    let tools = github_tools();
    let index = github_index(&tools);
    for query in [
        "",
        "   ",
        "?!, ...",
        "the of and to with",
        "xyzzy frobnicate",
        "42",
    ] {
        assert!(index.search(query, 5).is_empty(), "{query:?}");
    }
}

#[test]
fn a_smaller_limit_gives_the_first_results_of_a_larger_one() {
    let tools = github_tools();
    let index = github_index(&tools);
    for query in [
        "make a new repo for my side project",
        "who changed this file last",
        "get information about the bug label",
    ] {
        let five = index.search(query, 5);
        for limit in 1..5 {
            assert_eq!(
                index.search(query, limit),
                five[..limit],
                "{query}, {limit}"
            );
        }
    }
}

#[test]
fn limit_bounds_the_results() {
    let tools = github_tools();
    let index = github_index(&tools);
    assert!(index.search("pull request", 0).is_empty());
    assert!(index.search("list_issues", 0).is_empty());
    assert_eq!(index.search("pull request", 1).len(), 1);
    assert_eq!(index.search("pull request", 7).len(), 7);
    let many = index.search("pull request", usize::MAX);
    assert!(many.len() > 7 && many.len() < tools.len());
}

#[test]
fn scores_are_positive_and_descending() {
    let tools = github_tools();
    let index = github_index(&tools);
    let scored = index.search_scored("who changed this file last", 20, |_| true);
    assert!(!scored.is_empty());
    assert!(scored.iter().all(|&(_, score)| score > 0.0));
    assert!(scored.windows(2).all(|pair| pair[0].1 >= pair[1].1));
    let unscored: Vec<usize> = scored.iter().map(|&(document, _)| document).collect();
    assert_eq!(index.search("who changed this file last", 20), unscored);
}

#[test]
fn an_exact_tool_name_ranks_first() {
    let tools = github_tools();
    let index = github_index(&tools);
    let first = |query: &str| {
        index
            .search(query, 3)
            .first()
            .map(|&document| tools[document].name.as_str())
    };
    assert_eq!(first("get_me"), Some("get_me"));
    assert_eq!(
        first("please call `list_tags`, then stop"),
        Some("list_tags")
    );
    assert_eq!(
        first("search_code pull request review comments"),
        Some("search_code")
    );
    assert_eq!(first("ListTags"), Some("list_tags"));
    assert_eq!(first("list tags"), Some("list_tags"));
    let both = index.search("create_branch or delete_file", 2);
    let mut names: Vec<&str> = both
        .iter()
        .map(|&document| tools[document].name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["create_branch", "delete_file"]);
}

#[test]
fn results_are_deterministic() {
    let tools = github_tools();
    let first = github_index(&tools).search_scored("update the pull request", 50, |_| true);
    let again = github_index(&tools).search_scored("update the pull request", 50, |_| true);
    assert_eq!(first, again);

    let twins = small_index(&[
        ("alpha", "Sends an email."),
        ("beta", "Sends an email."),
        ("gamma", "Sends an email."),
    ]);
    assert_eq!(twins.search("send email", 3), [0, 1, 2]);
    assert_eq!(twins.search("send email", 2), [0, 1]);
}

#[test]
fn expands_synonyms_and_abbreviations() {
    let index = small_index(&[
        ("remove_user", "Removes a user from the team."),
        ("add_user", "Adds a user to the team."),
        ("open_pull_request", "Opens a pull request."),
        ("list_repositories", "Lists repositories."),
    ]);
    assert_eq!(index.search("delete a user", 1), [0]);
    assert_eq!(index.search("new PR", 1), [2]);
    assert_eq!(index.search("show my repos", 1), [3]);
}

#[test]
fn splits_unknown_words_into_known_ones() {
    let index = small_index(&[
        ("close_ticket", "Closes a ticket."),
        ("open_ticket", "Opens a ticket, or opens it again."),
    ]);
    assert_eq!(index.search("reopen ticket 4", 1), [1]);
    assert_eq!(index.search("openticket", 1), [1]);
}

#[test]
fn a_misspelt_word_finds_the_tools_spelt_like_it() {
    let index = small_index(&[
        (
            "find_cleaning_service",
            "Finds a professional cleaning service.",
        ),
        ("find_restaurant", "Finds a restaurant nearby."),
        ("get_commit", "Gets a commit by its SHA."),
    ]);
    assert_eq!(index.search("profressional in Bangkok", 2), [0]);
    assert_eq!(index.search("a resturant in Rio", 1), [1]);
    assert!(
        index.search("abc123", 3).is_empty(),
        "a word with digits is an argument, not a typo"
    );
    let scored = index.search_scored("profressional cleaning", 1, |_| true);
    let exact = index.search_scored("professional cleaning", 1, |_| true);
    assert!(
        scored[0].1 < exact[0].1,
        "a word spelt alike counts less than the word itself: {scored:?} {exact:?}"
    );
}

#[test]
fn a_word_the_catalog_lacks_finds_tools_by_its_related_nouns() {
    let index = small_index(&[
        ("book_ride", "Books a cab to a destination."),
        ("find_movies", "Finds movies playing nearby."),
        ("get_forecast", "Gets the weather forecast for a city."),
    ]);
    assert_eq!(index.search("a taxi to the airport", 3), [0]);
    assert_eq!(index.search("a film with Tom Hanks", 3), [1]);
    let related = index.search_scored("taxi", 1, |_| true);
    let own = index.search_scored("cab", 1, |_| true);
    assert!(
        related[0].1 < own[0].1,
        "a related noun counts less than the word itself: {related:?} {own:?}"
    );
}

#[test]
fn a_word_the_catalog_uses_is_not_searched_by_its_related_nouns() {
    let index = small_index(&[
        ("find_movies", "Finds movies playing nearby."),
        ("apply_film", "Applies a protective film to a screen."),
    ]);
    assert_eq!(index.search("film", 2), [1]);
}

#[test]
fn a_date_or_time_a_question_writes_favours_tools_that_take_one() {
    let index = small_index(&[
        ("current_weather", "Gets the weather now in a city."),
        ("weather_on_day", "Gets the weather in a city on a date."),
        (
            "restaurant_opening_hours",
            "Tells when a restaurant opens, for any restaurant.",
        ),
        (
            "restaurant_booking",
            "Books a table for a party of guests at a given time.",
        ),
    ]);
    assert_eq!(index.search("weather in Paris", 1), [0]);
    assert_eq!(index.search("weather in Paris next Friday", 1), [1]);
    assert_eq!(index.search("weather in Paris on 2023-04-20", 1), [1]);
    assert_eq!(index.search("a restaurant in Rome", 1), [2]);
    assert_eq!(index.search("a restaurant in Rome at 8 pm", 1), [3]);
    assert_eq!(index.search("a restaurant in Rome at 20:30", 1), [3]);
}

#[test]
fn a_person_a_question_names_favours_tools_that_take_one() {
    let index = small_index(&[
        (
            "movie_showtimes",
            "Finds when a movie plays: any movie, any theater.",
        ),
        ("movie_search", "Finds films by genre, director or cast."),
    ]);
    assert_eq!(index.search("a movie tonight", 1), [0]);
    assert_eq!(index.search("a movie with Tom Hanks", 1), [1]);
}

#[test]
fn indexes_tags_and_nested_parameters() {
    let schema = json!({
        "type": "object",
        "properties": {
            "target": {
                "anyOf": [
                    {"type": "string", "description": "A webhook URL."},
                    {"type": "array", "items": {
                        "type": "object",
                        "properties": {"channelId": {"type": "string", "enum": ["slack_general"]}}
                    }}
                ]
            }
        }
    });
    let mut deep = json!({"type": "string", "description": "A hidden thermometer."});
    for _ in 0..=MAX_SCHEMA_DEPTH {
        deep = json!({"type": "object", "properties": {"next": deep}});
    }
    let empty = json!({});
    let documents = [
        SearchDocument {
            name: "notify",
            description: "Sends a message.",
            input_schema: &schema,
            tags: &[],
        },
        SearchDocument {
            name: "measure",
            description: "Reads a sensor.",
            input_schema: &deep,
            tags: &["Weather"],
        },
        SearchDocument {
            name: "other",
            description: "Does something else.",
            input_schema: &empty,
            tags: &[],
        },
    ];
    let index = SearchIndex::new(documents);
    assert_eq!(index.search("webhook", 3), [0]);
    assert_eq!(index.search("slack channel", 3), [0]);
    assert_eq!(index.search("weather", 3), [1]);
    assert!(index.search("thermometer", 3).is_empty());
}

#[test]
fn only_terms_up_to_the_split_limit_are_split() {
    // `re` + a known term is split (`reopen` → open) while the whole is at most
    // MAX_SPLIT_BYTES; longer terms are looked up whole, so a query costs linear work.
    let known = |len: usize| "k".repeat(len - 4) + "open";
    let index = small_index(&[("reopenable", &format!("{} {}", known(61), known(62)))]);
    for (len, split) in [(61, true), (62, true), (63, false)] {
        let word = format!("re{}", known(len));
        assert_eq!(word.len() <= MAX_SPLIT_BYTES, split, "{}", word.len());
        let parts = index.known_parts(&word);
        assert_eq!(parts[1].is_some(), split, "{} bytes: {parts:?}", word.len());
    }
}

#[test]
fn a_plain_word_that_names_a_tool_does_not_force_it_first() {
    let index = small_index(&[
        ("help", "Shows what the assistant can do."),
        ("get_weather", "Current weather and temperature in a city."),
    ]);
    assert_eq!(
        index.search("can you help me with the weather in Paris", 1),
        [1]
    );
    assert_eq!(index.search("help", 1), [0]);
    assert_eq!(index.search("help: call get_weather", 1), [1]);
    assert_eq!(index.search("help via getWeather", 1), [1]);
}

#[test]
fn names_differing_by_a_version_are_one_family() {
    assert_eq!(family_key("get_weather_v2"), "getweather");
    assert_eq!(family_key("get-weather-V10"), "getweather");
    assert_eq!(family_key("getWeather3"), "getweather");
    assert_eq!(family_key("badge1"), "badge");
    assert_eq!(family_key("Music_3_PlayMedia"), "music3playmedia");
    assert_eq!(family_key("preview"), "preview");
    assert_eq!(family_key("v2"), "v");
    assert_eq!(family_key("42"), "42");
}

#[test]
fn one_family_does_not_fill_every_slot() {
    let index = small_index(&[
        ("get_weather", "Current weather in a city."),
        (
            "get_weather_v2",
            "Current weather in a city, in metric units.",
        ),
        ("get_weather_v3", "Current weather in a city, as text."),
        ("forecast", "Current weather in a city, and its forecast."),
    ]);
    let scored = index.search_scored("current weather in a city", 4, |_| true);
    let ranked: Vec<usize> = scored.iter().map(|&(document, _)| document).collect();
    // Undecayed, the three versions would come first: forecast matches no word of the name.
    assert_eq!(ranked[0], 0);
    assert!(ranked[..3].contains(&3), "{scored:?}");
    assert_eq!(ranked.len(), 4);
    assert!(scored.windows(2).all(|pair| pair[0].1 >= pair[1].1));
}

#[test]
fn filtered_out_documents_leave_room_for_others() {
    let index = small_index(&[
        ("get_weather", "Current weather in a city."),
        ("city_forecast", "Weather forecast for a city."),
        ("send_email", "Sends an email."),
    ]);
    assert_eq!(
        index.search_among("weather", 1, |document| document != 0),
        [1]
    );
    assert!(index.search_among("weather", 5, |_| false).is_empty());
    assert!(index.search_among("get_weather", 5, |document| document != 0) == [1]);
}

#[test]
fn every_candidate_is_ranked_when_families_are_large() {
    // More members of one family than the first sorted slice, so ranking goes past it.
    let names: Vec<String> = (0..100).map(|i| format!("tool_v{i}")).collect();
    let mut tools: Vec<(&str, &str)> = names
        .iter()
        .map(|name| (name.as_str(), "Reads the weather."))
        .collect();
    tools.push((
        "forecast",
        "Reads the weather forecast, weather by weather.",
    ));
    let index = small_index(&tools);
    let all = index.search("weather", usize::MAX);
    assert_eq!(all.len(), 101);
    let mut sorted = all.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 101);
    assert_eq!(index.search("weather", 3)[..2], all[..2]);
    assert!(all[..3].contains(&100), "{all:?}");
}

#[test]
fn common_words_rank_what_rarer_words_found_and_fill_the_rest() {
    // `get` is in more than MIN_COMMON_POSTINGS tools (a common term), `weather` in two.
    let names: Vec<String> = (0..MIN_COMMON_POSTINGS + 100)
        .map(|i| format!("get_item_{i}"))
        .collect();
    let mut tools: Vec<(&str, &str)> = names
        .iter()
        .map(|name| (name.as_str(), "Gets one item of the inventory."))
        .collect();
    tools.push(("weather_alerts", "Weather alerts for a region."));
    tools.push(("get_weather", "Gets the weather in a city."));
    let index = small_index(&tools);
    let (alerts, weather) = (tools.len() - 2, tools.len() - 1);
    // Enough found by `weather`: `get` ranks them.
    assert_eq!(index.search("get the weather", 2), [weather, alerts]);
    // Too few: the tools only `get` matches fill the rest.
    let found = index.search("get the weather", 5);
    assert_eq!(found[..2], [weather, alerts]);
    assert_eq!(found.len(), 5);
    assert!(found[2..].iter().all(|&found| found < alerts), "{found:?}");
    // Also when the session does not allow the tools `weather` found.
    let found = index.search_among("get the weather", 2, |document| document < alerts);
    assert_eq!(found.len(), 2);
}

#[test]
fn a_large_family_ranks_as_deep_as_asked_whatever_the_limit() {
    // Twelve alike tools of one family rank above the others, each half the one before.
    let names: Vec<String> = (1..=12).map(|i| format!("get_weather_{i}")).collect();
    let mut tools: Vec<(&str, &str)> = names
        .iter()
        .map(|name| (name.as_str(), "Gets the weather in a city."))
        .collect();
    tools.push(("weather_alerts", "Weather alerts for a region."));
    tools.push(("weather_map", "A map of the weather."));
    let index = small_index(&tools);
    let query = "get the weather in a city";
    let deep = index.search_scored(query, 40, |_| true);
    assert_eq!(deep.len(), tools.len());
    for limit in 1..=tools.len() {
        assert_eq!(
            index.search_scored(query, limit, |_| true),
            deep[..limit],
            "{limit}"
        );
    }
}
