//! What an expansion costs: every tool's generated tokens are parsed by rustc and fed to
//! serde's and schemars' derives on each build (BENCHMARKS.md, "Compile time").

use proc_macro2::{TokenStream, TokenTree};
use syn::parse_quote;

fn tokens(stream: TokenStream) -> usize {
    stream
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => 1 + tokens(group.stream()),
            _ => 1,
        })
        .sum()
}

/// Three of the compile-time benchmark's shapes (`bench/compile_time/gen.py`).
fn shapes() -> Vec<syn::ItemFn> {
    vec![
        parse_quote! {
            /// Search the issues of project 1 by keyword.
            ///
            /// Returns the matching issues, most recent first.
            async fn search_issues_1(
                /// Search keywords, for example `is:open label:bug`.
                query: String,
                /// Maximum number of results to return.
                limit: Option<u32>,
                /// Page number, starting at 1.
                #[arg(default = 1)] page: u32,
            ) -> Result<SearchIssues1Output, String> {
                Ok(SearchIssues1Output { total: limit.unwrap_or(10) * page, items: vec![query] })
            }
        },
        parse_quote! {
            /// List the files under a path of storage bucket 4.
            async fn list_files_4(
                /// The folder to list, relative to the bucket root.
                path: String,
                /// Only files carrying all of these tags.
                tags: Vec<String>,
                /// Results per page (at most 100).
                #[arg(default = 30)] per_page: u32,
                /// Only files changed after this ISO 8601 timestamp.
                since: Option<String>,
                /// Whether to descend into sub-folders.
                recursive: Option<bool>,
            ) -> Result<ListFiles4Output, String> {
                Ok(ListFiles4Output {
                    files: tags,
                    per_page,
                    truncated: since.is_some() || recursive.unwrap_or(false),
                    path,
                })
            }
        },
        parse_quote! {
            /// Get one record of table 2 by its id.
            async fn get_record_2(
                /// The record's id.
                id: u32,
                /// A note to attach to the audit log.
                note: Option<String>,
            ) -> Result<GetRecord2Output, String> {
                Ok(GetRecord2Output { id, note })
            }
        },
    ]
}

/// 2,661 tokens (12,130 bytes) before injected types were checked by type and methods became
/// tools (commit 3029617, the same test), 2,790 (12,281 bytes) after.
#[test]
fn expansions_stay_small() {
    let (mut total_tokens, mut total_bytes) = (0, 0);
    for item in shapes() {
        let expansion = crate::tool_fn(TokenStream::new(), item);
        total_bytes += expansion.to_string().len();
        total_tokens += tokens(expansion);
    }
    eprintln!("expansion of three tools: {total_tokens} tokens, {total_bytes} bytes");
    assert!(total_tokens <= 3_000, "{total_tokens} tokens");
}
