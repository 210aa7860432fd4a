//! `#[tools]` on an impl block: its `#[tool]` methods become tools that run on an instance
//! registered with `RegistryBuilder::tools_of`. Each method goes through the same parse,
//! checks and expansion as a free fn; its `&self` becomes the instance, injected like a
//! `State<Self>`.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parse;
use syn::spanned::Spanned;
use syn::{Attribute, ImplItem, ItemFn, ItemImpl, Meta, Type};

use crate::ast::{Output, ToolFn};
use crate::errors::Errors;
use crate::valid::Place;
use crate::{attr, example, expand, valid};

pub(crate) fn tools_impl(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    let mut errors = Errors::default();
    let krate = attr::parse_tools_attr(args, &mut errors);
    check_impl(&item, &mut errors);
    let self_ty = (*item.self_ty).clone();
    let mut generated = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let mut markers = method.attrs.iter().filter(|attr| is_tool_attr(attr));
        let Some(marker) = markers.next().cloned() else {
            continue;
        };
        if let Some(second) = markers.next() {
            errors.spanned(second, "duplicate `#[tool]`; give it once");
        }
        method.attrs.retain(|attr| !is_tool_attr(attr));
        let mut attr = attr::parse_tool_attr(attr_arguments(&marker, &mut errors), &mut errors);
        if attr.krate.is_none() {
            attr.krate.clone_from(&krate);
        }
        // The body is not needed to parse and check the signature.
        let mut function = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            modifiers: syn::FnModifiers::default(),
            sig: method.sig.clone(),
            block: Box::new(syn::parse_quote!({})),
        };
        let mut tool = ToolFn::parse(&mut function, &mut errors);
        method.sig = function.sig.clone();
        valid::check(&function, &attr, &tool, Place::Method, &mut errors);
        example::check(&attr, &tool, &mut errors);
        name_self(&mut tool, &self_ty);
        for example in &mut attr.examples {
            for (_, value) in &mut example.values {
                *value = replaced(value, &self_ty);
            }
        }
        let examples = example::expand(&attr, &tool);
        generated.push(expand::expand(&attr, &tool, Some(&self_ty), &examples));
    }
    if generated.is_empty() {
        errors.spanned(
            &item.self_ty,
            "this `#[tools]` impl has no `#[tool]` methods; mark each method the model may call with `#[tool]`",
        );
    }
    if let Some(errors) = errors.into_compile_errors() {
        return quote!(#item #errors);
    }
    let root = expand::runtime_path(krate.as_ref());
    let marker =
        quote_spanned!(self_ty.span()=> impl #root::__private::ToolMethods for #self_ty {});
    quote! {
        #item
        #(#generated)*
        #[doc(hidden)]
        const _: () = { #marker };
    }
}

fn check_impl(item: &ItemImpl, errors: &mut Errors) {
    if let Some((path, _)) = &item.trait_ {
        errors.spanned(
            path,
            "`#[tools]` goes on an inherent impl (`impl Type { ... }`), not on a trait impl: put the tool methods in an impl of the type itself",
        );
    }
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        errors.spanned(
            &item.generics,
            "a `#[tools]` impl cannot be generic: the registry holds one instance of one concrete type, and each tool needs one concrete schema; implement the tools for a concrete type",
        );
    }
    if let Some(unsafety) = &item.unsafety {
        errors.spanned(unsafety, "a `#[tools]` impl cannot be `unsafe`");
    }
}

/// `#[tool]` or a path ending in `tool` (`#[lazytool_runtime::tool]`).
fn is_tool_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

fn attr_arguments(attr: &Attribute, errors: &mut Errors) -> TokenStream {
    match &attr.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(list) => list.tokens.clone(),
        Meta::NameValue(pair) => {
            errors.spanned(pair, "write `#[tool]` or `#[tool(key, ...)]`");
            TokenStream::new()
        }
    }
}

/// Replaces `Self` by the impl's type in everything the generated code names, since it is
/// generated outside the impl.
fn name_self(tool: &mut ToolFn, self_ty: &Type) {
    for param in &mut tool.params {
        param.ty = replaced(&param.ty, self_ty);
        if let Some((_, Some(expr))) = &mut param.arg.default {
            *expr = replaced(expr, self_ty);
        }
    }
    match &mut tool.output {
        Output::Unit => {}
        Output::Value(ty) => **ty = replaced(&**ty, self_ty),
        Output::Result { ty, ok, err } => {
            **ty = replaced(&**ty, self_ty);
            for part in [ok, err].into_iter().flatten() {
                **part = replaced(&**part, self_ty);
            }
        }
    }
}

fn replaced<T: Parse + ToTokens + Clone>(node: &T, self_ty: &Type) -> T {
    syn::parse2(replace_tokens(node.to_token_stream(), self_ty)).unwrap_or_else(|_| node.clone())
}

fn replace_tokens(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            // At the `Self` written, so that errors about the type point there.
            TokenTree::Ident(ident) if ident == "Self" => {
                crate::spans::respanned(&self_ty.to_token_stream(), ident.span())
            }
            TokenTree::Group(group) => {
                let mut replaced = proc_macro2::Group::new(
                    group.delimiter(),
                    replace_tokens(group.stream(), self_ty),
                );
                replaced.set_span(group.span());
                TokenTree::Group(replaced).into_token_stream()
            }
            other => other.into_token_stream(),
        })
        .collect()
}
