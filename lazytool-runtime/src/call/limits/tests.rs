use super::*;
use serde_json::json;

fn sent(result: &ToolResult) -> usize {
    serde_json::to_string(result.content())
        .unwrap_or_default()
        .len()
}

#[test]
fn large_outputs_are_cut_within_the_limit_with_a_notice() {
    let small = ToolResult::success(json!({"a": 1}));
    assert_eq!(cut_output(small.clone(), 7), small, "at the limit");
    assert_ne!(cut_output(small.clone(), 6), small, "one byte over");
    let large = ToolResult::success(json!("é".repeat(1000)));
    let cut = cut_output(large, 500);
    let text = cut.content().as_str().unwrap_or_default();
    assert!(text.starts_with(&"é".repeat(100)), "{text}");
    assert!(text.contains("bytes. Ask for less"), "{text}");
    assert!(sent(&cut) <= 500, "{}", sent(&cut));
}

#[test]
fn escapes_count_toward_the_output_limit() {
    for limit in [200, 1000, 100_000] {
        for text in [
            "\u{0}".repeat(90_000),
            "\"".repeat(90_000),
            "x".repeat(90_000),
        ] {
            let result = cut_output(
                ToolResult::error(crate::ToolErrorKind::ToolFailed, text),
                limit,
            );
            assert!(sent(&result) <= limit, "{} > {limit}", sent(&result));
            assert!(result.is_error(), "an error stays an error");
        }
    }
    let nuls = cut_output(ToolResult::success(json!("\u{0}".repeat(90_000))), 100_000);
    let text = nuls.text();
    let shown = text.bytes().take_while(|&byte| byte == 0).count();
    assert!(
        text.contains(&format!("showing the first {shown} of 90000 bytes")),
        "{shown}"
    );
    assert!(shown > 16_000, "as many as fit: {shown}");
}

#[test]
fn fitted_texts_take_at_most_their_budget_escaped() {
    assert_eq!(fit("short", 5), "short");
    assert_eq!(fit("\"\"\"\"", 8), "\"\"\"\"");
    let cut = fit("\"\"\"\"", 7);
    assert!(escaped_len(&cut) <= 7 && cut.ends_with('…'), "{cut}");
}

#[test]
fn quotes_are_cut_at_a_character_boundary() {
    assert_eq!(quote("short", 64), "short");
    assert_eq!(quote(&"é".repeat(40), 5), "éé…");
    assert_eq!(quote(&"x".repeat(64), 64).len(), 64, "at the limit: whole");
}
