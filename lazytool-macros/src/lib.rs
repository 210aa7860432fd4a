//! The `#[tool]` attribute of [lazytool](https://docs.rs/lazytool-runtime).
//!
//! Depend on `lazytool-runtime`, which re-exports the attribute as
//! `lazytool_runtime::tool` and documents it there; the generated code refers to that crate.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod arguments;
mod ast;
mod attr;
mod case;
mod doc;
mod errors;
mod example;
mod expand;
mod markdown;
mod methods;
mod spans;
mod valid;

use proc_macro::TokenStream;
use quote::quote;

use crate::errors::Errors;

/// Declares an LLM tool; documented where users meet it, as `lazytool_runtime::tool`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    match syn::parse::<syn::Item>(input.clone()) {
        Ok(syn::Item::Fn(item)) => tool_fn(args.into(), item).into(),
        Ok(other) => misplaced(
            input,
            &other,
            "`#[tool]` goes on a free `fn` (usually `async fn`) or on a method of a `#[tools]` impl; it cannot be used on this item",
        ),
        Err(error) => with_error(input, &error),
    }
}

/// Marks an impl block whose `#[tool]` methods are tools; documented where users meet it,
/// as `lazytool_runtime::tools`.
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    match syn::parse::<syn::Item>(input.clone()) {
        Ok(syn::Item::Impl(item)) => methods::tools_impl(args.into(), item).into(),
        Ok(other) => misplaced(
            input,
            &other,
            "`#[tools]` goes on an impl block (`#[tools] impl Type { ... }`) whose methods are marked `#[tool]`",
        ),
        Err(error) => with_error(input, &error),
    }
}

/// The item unchanged, with an error at its name.
fn misplaced(input: TokenStream, item: &syn::Item, message: &str) -> TokenStream {
    with_error(input, &syn::Error::new_spanned(item_name(item), message))
}

fn with_error(input: TokenStream, error: &syn::Error) -> TokenStream {
    let error = error.to_compile_error();
    let input = proc_macro2::TokenStream::from(input);
    quote!(#input #error).into()
}

fn tool_fn(args: proc_macro2::TokenStream, mut item: syn::ItemFn) -> proc_macro2::TokenStream {
    let mut errors = Errors::default();
    let attr = attr::parse_tool_attr(args, &mut errors);
    let tool = ast::ToolFn::parse(&mut item, &mut errors);
    valid::check(&item, &attr, &tool, valid::Place::Free, &mut errors);
    example::check(&attr, &tool, &mut errors);
    match errors.into_compile_errors() {
        Some(errors) => expand::fallback(&item, errors),
        None => {
            let examples = example::expand(&attr, &tool);
            let generated = expand::expand(&attr, &tool, None, &examples);
            quote!(#item #generated)
        }
    }
}

/// The name of an item, where the error about a misplaced `#[tool]` belongs.
fn item_name(item: &syn::Item) -> proc_macro2::TokenStream {
    use syn::Item;
    let ident = match item {
        Item::Struct(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Union(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::Const(item) => &item.ident,
        Item::Static(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Mod(item) => &item.ident,
        other => return quote!(#other),
    };
    quote!(#ident)
}

#[cfg(test)]
mod tests;
