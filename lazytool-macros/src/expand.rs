//! The code `#[tool]` generates: the argument struct, the schema and call functions, the
//! spanned trait checks, and the `inventory` registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Type};

use crate::ast::{Output, Param, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::valid::{json_name, tool_name_of_fn};

pub(crate) fn expand(attr: &ToolAttr, tool: &ToolFn) -> TokenStream {
    let krate = match &attr.krate {
        Some(path) => quote!(#path),
        None => quote!(::lazytool_runtime),
    };
    let p = quote!(#krate::__private);
    let name = match &attr.name {
        Some(name) => name.value(),
        None => tool_name_of_fn(&tool.ident),
    };
    let description = match &attr.description {
        Some(description) => description.value(),
        None => tool.docs.description.clone(),
    };
    let lazy = attr.lazy;
    let strict = attr.strict;
    let annotations = annotations(attr, &p);
    let tags = &attr.tags;
    let skill = match (&attr.skill, tool.docs.skill.as_str()) {
        (Some(skill), _) => quote!(::core::option::Option::Some(#skill)),
        (None, "") => quote!(::core::option::Option::None),
        (None, skill) => quote!(::core::option::Option::Some(#skill)),
    };

    let arguments = Arguments::new(attr, tool, &p, &krate);
    let arguments_struct = &arguments.definition;
    let arguments_type = &arguments.concrete;
    let defaults = &arguments.defaults;

    let mut call_args = Vec::new();
    let mut state_bindings = Vec::new();
    let mut state_requirements = Vec::new();
    let mut checks = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Argument { .. } => {
                let ty = &param.ty;
                checks.push(quote_spanned!(ty.span()=> #p::assert_argument::<#ty>();));
                call_args.push(arguments.value_of(index, param));
            }
            ParamKind::State(inner) => {
                let position = state_requirements.len();
                let binding = format_ident!("__state_{}", position);
                state_bindings.push(quote! {
                    let #binding = match __states.get::<#inner>(#position) {
                        ::core::option::Option::Some(state) => state,
                        ::core::option::Option::None => {
                            return ::core::result::Result::Err(#p::missing_state(#name));
                        }
                    };
                });
                state_requirements
                    .push(quote_spanned!(inner.span()=> #p::StateRequirement::of::<#inner>()));
                call_args.push(quote!(#binding));
            }
            ParamKind::Context => {
                call_args.push(quote!(::core::clone::Clone::clone(&__context)));
            }
        }
    }

    let (output_conversion, output_type) = match &tool.output {
        Output::Unit => (quote!(#p::output_value(__output)), quote!(())),
        Output::Value(ty) => {
            checks.push(quote_spanned!(ty.span()=> #p::assert_output::<#ty>();));
            (quote!(#p::output_value(__output)), quote!(#ty))
        }
        Output::Result { ty, ok, err } => {
            let ok_type = match ok {
                Some(ok) => quote!(#ok),
                None => quote!(<#ty as #p::ResultParts>::Ok),
            };
            let ok_span = ok.as_ref().map_or(ty.span(), Spanned::span);
            checks.push(quote_spanned!(ok_span=> #p::assert_output::<#ok_type>();));
            let err_type = match err {
                Some(err) => quote!(#err),
                None => quote!(<#ty as #p::ResultParts>::Err),
            };
            let err_span = err.as_ref().map_or(ty.span(), Spanned::span);
            checks.push(quote_spanned!(err_span=> #p::assert_error::<#err_type>();));
            (quote!(#p::output_result(__output)), ok_type)
        }
    };
    let output_schema = match attr.output_schema {
        Some(span) => {
            let span = match &tool.output {
                Output::Value(ty) => ty.span(),
                Output::Result { ok: Some(ok), .. } => ok.span(),
                _ => span,
            };
            checks.push(quote_spanned!(span=> #p::assert_output_schema::<#output_type>();));
            quote!(::core::option::Option::Some(#p::output_schema::<#output_type>))
        }
        None => quote!(::core::option::Option::None),
    };

    let fn_ident = &tool.ident;
    let invoke = if tool.is_async {
        // Spanned on the fn's name so that a non-`Send` future is reported there.
        quote_spanned!(fn_ident.span()=> #p::assert_send(#fn_ident(#(#call_args),*)).await)
    } else {
        quote!(#fn_ident(#(#call_args),*))
    };
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    let column = quote_spanned!(fn_ident.span()=> ::core::column!());

    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, non_snake_case, unused_variables, clippy::all)]
        const _: () = {
            #arguments_struct

            fn __input_schema() -> #p::serde_json::Value {
                #p::input_schema(#p::schema_value::<#arguments_type>(), #strict, &[#(#defaults),*])
            }

            // The arguments are parsed before the future is built: only the tool's own work
            // is boxed. (The runtime catches panics here as it does in the future.)
            fn __call(
                __invocation: #p::Invocation<'_>,
            ) -> ::core::result::Result<#p::CallFuture, #p::ToolResult> {
                let #p::Invocation {
                    arguments: __arguments,
                    states: __states,
                    context: __context,
                } = __invocation;
                let __parsed: #arguments_type = #p::parse_arguments(#name, __arguments)?;
                #(#state_bindings)*
                ::core::result::Result::Ok(::std::boxed::Box::pin(async move {
                    let __output = #invoke;
                    #output_conversion
                }))
            }

            const _: () = {
                #(#checks)*
            };

            static __CACHE: #p::SpecCache = #p::SpecCache::new();

            static __SPEC: #p::ToolSpec = #p::ToolSpec {
                name: #name,
                description: #description,
                lazy: #lazy,
                annotations: #annotations,
                tags: &[#(#tags),*],
                skill: #skill,
                input_schema: __input_schema,
                output_schema: #output_schema,
                states: &[#(#state_requirements),*],
                call: __call,
                cache: &__CACHE,
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: #line,
                column: #column,
            };

            #p::inventory::submit!(#p::Registration(&__SPEC));
        };
    }
}

fn annotations(attr: &ToolAttr, p: &TokenStream) -> TokenStream {
    let title = match &attr.title {
        Some(title) => quote!(::core::option::Option::Some(::std::borrow::Cow::Borrowed(#title))),
        None => quote!(::core::option::Option::None),
    };
    let [read_only, destructive, idempotent, open_world] = attr.hints.map(|hint| match hint {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    });
    quote! {
        #p::ToolAnnotations {
            title: #title,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
        }
    }
}

/// The type the arguments are deserialized into: the user's `#[args]` struct, or a struct
/// generated with one field per argument parameter.
struct Arguments {
    definition: TokenStream,
    concrete: TokenStream,
    defaults: Vec<TokenStream>,
    /// The `#[args]` parameter's index, when there is one.
    args_struct: Option<usize>,
    fields: Vec<Option<Ident>>,
}

impl Arguments {
    fn new(attr: &ToolAttr, tool: &ToolFn, p: &TokenStream, krate: &TokenStream) -> Arguments {
        if let Some(index) = tool
            .params
            .iter()
            .position(|param| param.args_marker.is_some())
        {
            let ty = &tool.params[index].ty;
            return Arguments {
                definition: TokenStream::new(),
                concrete: quote!(#ty),
                defaults: Vec::new(),
                args_struct: Some(index),
                fields: Vec::new(),
            };
        }
        let serde_crate = format!("{}::__private::serde", path_string(krate));
        let schemars_crate = format!("{}::__private::schemars", path_string(krate));
        let mut generics = Vec::new();
        let mut fields = Vec::new();
        let mut concrete = Vec::new();
        let mut defaults = Vec::new();
        let mut field_idents = Vec::new();
        for (index, param) in tool.params.iter().enumerate() {
            let ParamKind::Argument { optional } = param.kind else {
                field_idents.push(None);
                continue;
            };
            let field = format_ident!("__arg_{}", index);
            let generic = format_ident!("__T{}", index);
            let json = json_name(attr, param).unwrap_or_default();
            let description = describe(tool, param);
            let description = description
                .map(|text| quote!(#[schemars(description = #text)]))
                .unwrap_or_default();
            let schemars_attrs = &param.schemars;
            let ty = &param.ty;
            // A defaulted field's type parameter is bounded by `Default` on the struct itself:
            // the derives copy the struct's bounds, and schemars calls `default()` without
            // adding the bound.
            let (default_attr, bound) = if optional || param.arg.default.is_some() {
                (
                    quote!(#[serde(default)]),
                    quote!(: ::core::default::Default),
                )
            } else {
                (TokenStream::new(), TokenStream::new())
            };
            fields.push(quote! {
                #[serde(rename = #json)]
                #default_attr
                #description
                #(#schemars_attrs)*
                #field: #generic
            });
            generics.push(quote!(#generic #bound));
            if let Some((_, default)) = &param.arg.default {
                concrete.push(quote!(#p::Defaulted<#ty>));
                let value = default_expr(ty, default.as_ref());
                defaults.push(quote! {
                    (#json, (|| #p::default_json::<#ty>(#value)) as fn() -> #p::serde_json::Value)
                });
            } else {
                concrete.push(quote!(#ty));
            }
            field_idents.push(Some(field));
        }
        Arguments {
            definition: quote! {
                #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
                #[serde(crate = #serde_crate)]
                #[schemars(crate = #schemars_crate)]
                struct __Arguments<#(#generics),*> {
                    #(#fields,)*
                }
            },
            concrete: quote!(__Arguments<#(#concrete),*>),
            defaults,
            args_struct: None,
            fields: field_idents,
        }
    }

    /// The expression that passes parameter `index` to the user's fn.
    fn value_of(&self, index: usize, param: &Param) -> TokenStream {
        if self.args_struct == Some(index) {
            return quote!(__parsed);
        }
        let Some(Some(field)) = self.fields.get(index) else {
            return quote!(::core::unreachable!());
        };
        match &param.arg.default {
            Some((_, default)) => {
                let value = default_expr(&param.ty, default.as_ref());
                quote!(__parsed.#field.0.unwrap_or_else(|| #value))
            }
            None => quote!(__parsed.#field),
        }
    }
}

fn default_expr(ty: &Type, default: Option<&Expr>) -> TokenStream {
    match default {
        Some(expr) => quote_spanned!(expr.span()=> #expr),
        None => quote_spanned!(ty.span()=> <#ty as ::core::default::Default>::default()),
    }
}

/// A parameter's description: `#[arg(description)]`, else its `///` docs, else its entry
/// in the fn's `# Arguments` list.
fn describe(tool: &ToolFn, param: &Param) -> Option<String> {
    if let Some(description) = &param.arg.description {
        return Some(description.value());
    }
    if !param.doc.is_empty() {
        return Some(param.doc.clone());
    }
    let ident = tool_name_of_fn(param.ident()?);
    tool.docs
        .arguments
        .iter()
        .find(|documented| documented.name == ident)
        .map(|documented| documented.text.clone())
}

fn path_string(path: &TokenStream) -> String {
    path.to_string().replace(' ', "")
}

/// The fn as the user wrote it, for when expansion fails: compiling it keeps unrelated code
/// that calls it from drowning the real errors.
pub(crate) fn fallback(item: &syn::ItemFn, errors: TokenStream) -> TokenStream {
    quote! {
        #item
        #errors
    }
}
