//! `#[tool(example(param = value, ...))]` (parsed by `attr.rs`): an example call written as
//! the tool's arguments, checked against the parameters. Each becomes a fn that builds the
//! values at their declared types (so rustc checks them at the user's tokens) and serializes
//! them; the runtime validates the JSON against the schema when the registry is built.

use proc_macro2::{Delimiter, Group, Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::{Expr, Ident, Type};

use crate::ast::{Param, ParamKind, ToolFn};
use crate::attr::{Example, ToolAttr, suggestion};
use crate::errors::Errors;
use crate::expand::Examples;
use crate::spans::respanned;
use crate::valid::{json_name, tool_name_of_fn};

fn same(a: &Ident, b: &Ident) -> bool {
    tool_name_of_fn(a) == tool_name_of_fn(b)
}

/// Every key is given once and names an argument, and every required argument has a value.
/// (With an `#[args]` struct, rustc checks the keys against its fields.)
pub(crate) fn check(attr: &ToolAttr, tool: &ToolFn, errors: &mut Errors) {
    let fields = tool.args_struct().is_some();
    let names: Vec<String> = tool
        .arguments()
        .filter_map(Param::ident)
        .map(tool_name_of_fn)
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for example in &attr.examples {
        for (position, (key, _)) in example.values.iter().enumerate() {
            if example.values[..position]
                .iter()
                .any(|(earlier, _)| same(earlier, key))
            {
                errors.spanned(key, format!("`{key}` is given twice in this example"));
            } else if !fields {
                check_key(tool, key, &names, errors);
            }
        }
        if !fields {
            check_required(tool, example, errors);
        }
    }
}

fn check_key(tool: &ToolFn, key: &Ident, names: &[&str], errors: &mut Errors) {
    let param = tool
        .params
        .iter()
        .find(|param| param.ident().is_some_and(|ident| same(ident, key)));
    match param.map(|param| &param.kind) {
        Some(ParamKind::Argument { .. }) => {}
        Some(ParamKind::Injected) => errors.spanned(
            key,
            format!(
                "`{key}` is injected by lazytool, not an argument; leave it out of the example"
            ),
        ),
        None => errors.spanned(
            key,
            format!(
                "unknown parameter `{key}` in this example; the arguments of `{}` are: {}{}",
                tool.ident,
                listed(names),
                suggestion(&tool_name_of_fn(key), names),
            ),
        ),
    }
}

fn check_required(tool: &ToolFn, example: &Example, errors: &mut Errors) {
    for param in tool.arguments() {
        let Some(ident) = param.ident() else { continue };
        let required = matches!(param.kind, ParamKind::Argument { optional: false })
            && param.arg.default.is_none();
        if required && !example.values.iter().any(|(key, _)| same(key, ident)) {
            errors.at(
                example.key,
                format!(
                    "this example leaves out `{ident}`, which is required; add `{ident} = ...`"
                ),
            );
        }
    }
}

fn listed(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `fn __example_N() -> Result<Value, String>` per example, and the list of them for the
/// tool's spec.
pub(crate) fn expand(attr: &ToolAttr, tool: &ToolFn) -> Examples {
    // The runtime's `__private`, as `expand.rs` imports it.
    let p = &quote!(__p);
    let mut fns = Vec::new();
    let mut idents = Vec::new();
    for (index, example) in attr.examples.iter().enumerate() {
        let ident = format_ident!("__example_{}", index);
        let body = match tool.args_struct() {
            Some(args) => args_body(example, &args.ty, p),
            None => arguments_body(attr, tool, example, p),
        };
        fns.push(quote! {
            fn #ident() -> ::core::result::Result<#p::serde_json::Value, ::std::string::String> {
                #body
            }
        });
        idents.push(ident);
    }
    let list = quote! {
        &[#(#idents as fn() -> ::core::result::Result<#p::serde_json::Value, ::std::string::String>),*]
    };
    Examples { fns, list }
}

/// The example as an object of the parameters' JSON names; each value is bound at its
/// parameter's type (an `Option`'s inner type), so a mistyped one is rustc's error there.
fn arguments_body(
    attr: &ToolAttr,
    tool: &ToolFn,
    example: &Example,
    p: &TokenStream,
) -> TokenStream {
    let entries = tool.arguments().filter_map(|param| {
        let ident = param.ident()?;
        let (_, value) = example.values.iter().find(|(key, _)| same(key, ident))?;
        let json = json_name(attr, param)?;
        let ty = match param.kind {
            ParamKind::Argument { optional: true } => {
                crate::ast::option_inner(&param.ty).unwrap_or(&param.ty)
            }
            _ => &param.ty,
        };
        let span = first_span(value.to_token_stream());
        let serialize = call(
            quote!(#p::example_value),
            respanned(&quote!(__value), span),
            span,
        );
        let value = written(value, Some(ty), p);
        Some(quote! {
            (#json, {
                let __value: #ty = #value;
                #serialize
            })
        })
    });
    quote!(#p::example_object(::std::vec![#(#entries),*]))
}

/// The example as the `#[args]` struct: a struct literal of the given fields over a base the
/// runtime fills (`example_args`, which also finds the fields left out), serialized.
fn args_body(example: &Example, ty: &Type, p: &TokenStream) -> TokenStream {
    let fields = example.values.iter().map(|(key, value)| {
        let value = written(value, None, p);
        quote!(#key: #value)
    });
    let build = call(
        quote!(#p::example_args),
        quote!(|__base: __ExampleArguments| __ExampleArguments { #(#fields,)* ..__base }),
        first_span(ty.to_token_stream()),
    );
    quote! {
        type __ExampleArguments = #ty;
        #build
    }
}

/// A value as the example wrote it, at type `ty` where it is known, with two conveniences: a
/// string literal becomes the expected type through `From<&'static str>` (a `String`), a
/// list literal `[a, b]` a collection of it (a `Vec`: each item bound at the `Vec`'s item
/// type when it is written so).
fn written(value: &Expr, ty: Option<&Type>, p: &TokenStream) -> TokenStream {
    match value {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => call(quote!(#p::example_text), quote!(#text), text.span()),
        Expr::Array(array) => match ty.and_then(crate::ast::vec_item) {
            Some(item) => {
                let items = array.elems.iter().map(|value| {
                    let value = written(value, Some(item), p);
                    quote!({ let __item: #item = #value; __item })
                });
                quote!(::std::vec![#(#items),*])
            }
            None => {
                let items = array.elems.iter().map(|item| written(item, None, p));
                let span = array.bracket_token.span.join();
                call(quote!(#p::example_list), quote!([#(#items),*]), span)
            }
        },
        other => quote!(#other),
    }
}

/// `function(arguments)` with the path and the parentheses at `span`, where rustc then
/// reports an unmet bound of `function`.
fn call(function: TokenStream, arguments: TokenStream, span: Span) -> TokenStream {
    let function = respanned(&function, span);
    let mut group = Group::new(Delimiter::Parenthesis, arguments);
    group.set_span(span);
    quote!(#function #group)
}

fn first_span(tokens: TokenStream) -> Span {
    tokens
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}
