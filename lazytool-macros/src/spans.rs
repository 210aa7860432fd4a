//! Tokens placed at the user's tokens, so that what they check is reported there.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};

/// `tokens` at `span`, so that rustc reports what they check at the user's token.
pub(crate) fn respanned(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respanned(&group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// `before ty after`, with `before` at the span of `ty`'s first token and `after` at that of
/// its last: rustc joins them, so what the tokens check is reported at the type as written.
/// (`Spanned::span` cannot join spans on stable: it gives the first token's.)
pub(crate) fn around(ty: &dyn ToTokens, before: TokenStream, after: TokenStream) -> TokenStream {
    let (first, last) = ends(ty);
    let before = respanned(&before, first);
    let after = respanned(&after, last);
    quote!(#before #ty #after)
}

/// The spans of the first and last tokens of `ty`.
pub(crate) fn ends(ty: &dyn ToTokens) -> (Span, Span) {
    let tokens = ty.to_token_stream();
    let first = tokens.clone().into_iter().next().map(|token| token.span());
    let last = tokens.into_iter().last().map(|token| token.span());
    let first = first.unwrap_or_else(Span::call_site);
    (first, last.unwrap_or(first))
}
