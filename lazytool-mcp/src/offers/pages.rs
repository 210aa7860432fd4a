//! Cursor pagination of the prompt and resource lists: `page`.
//!
//! A cursor is the position of the page's first item, so a list that changes between two
//! requests shifts the pages that follow; `list_changed` tells the client to list again.

use rmcp::model::{Cursor, ErrorData, PaginatedRequestParams};

/// The page of `items` that `request`'s cursor points at, at most `size` long, and the
/// cursor of the next page when there is one. A cursor this server did not give is
/// `-32602`.
pub(crate) fn page<T>(
    items: Vec<T>,
    request: Option<&PaginatedRequestParams>,
    size: usize,
) -> Result<(Vec<T>, Option<Cursor>), ErrorData> {
    let start = match request.and_then(|request| request.cursor.as_deref()) {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= items.len())
            .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor `{cursor}`"), None))?,
    };
    let size = size.max(1);
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cursor: &str) -> PaginatedRequestParams {
        PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned()))
    }

    #[test]
    fn pages_follow_their_cursors_to_the_end() {
        let (first, next) = page(vec![1, 2, 3, 4, 5], None, 2).expect("a page");
        assert_eq!((first, next.as_deref()), (vec![1, 2], Some("2")));
        let (second, next) = page(vec![1, 2, 3, 4, 5], Some(&at("2")), 2).expect("a page");
        assert_eq!((second, next.as_deref()), (vec![3, 4], Some("4")));
        let (last, next) = page(vec![1, 2, 3, 4, 5], Some(&at("4")), 2).expect("a page");
        assert_eq!((last, next), (vec![5], None));
    }

    #[test]
    fn an_empty_list_is_one_empty_page() {
        assert_eq!(
            page(Vec::<u8>::new(), None, 10).expect("a page"),
            (vec![], None)
        );
    }

    #[test]
    fn a_foreign_cursor_is_invalid_params() {
        for cursor in ["abc", "-1", "9"] {
            let error = page(vec![1, 2, 3], Some(&at(cursor)), 2).expect_err("refused");
            assert_eq!(error.code.0, -32602, "{cursor}");
            assert!(error.message.contains(cursor), "{}", error.message);
        }
    }
}
