//! The code `#[tool]` generates: the argument slots (or struct), the schema and call
//! functions, the spanned trait checks, and the `inventory` registration.
//!
//! Every check of a user's type is a call or a path spanned on that type, made in each
//! generated body that names the type, so that rustc reports it there; identical reports
//! are merged into one.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;

use crate::arguments::Arguments;
use crate::ast::{Output, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::spans::{around, respanned};
use crate::valid::tool_name_of_fn;

/// The runtime's root path as generated code names it.
pub(crate) fn runtime_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::lazytool_runtime),
    }
}

/// The generated code of one tool; `self_ty` is the impl's type for a method of a
/// `#[tools]` impl.
pub(crate) fn expand(
    attr: &ToolAttr,
    tool: &ToolFn,
    self_ty: Option<&Type>,
    examples: &Examples,
) -> TokenStream {
    let krate = runtime_path(attr.krate.as_ref());
    // Imported once per tool as `__p`: a short path keeps each expansion small.
    let p = quote!(__p);
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
    let parse = arguments.parse(&name, &p);
    let schema = arguments.schema(tool, &p);
    let validation = arguments.validation(tool, strict, &p);
    let defaults = &arguments.defaults;
    let default_fns = &arguments.default_fns;
    let checks = &arguments.checks;
    let Examples {
        fns: example_fns,
        list: examples,
    } = examples;

    let mut call_args = Vec::new();
    let mut bindings = Vec::new();
    let mut requirements = Vec::new();
    if let Some(self_ty) = self_ty {
        bindings.push(quote! {
            let __self = match #p::instance::<#self_ty>(__states) {
                ::core::option::Option::Some(state) => state,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(#p::missing_state(#name));
                }
            };
        });
        requirements.push(quote!(#p::instance_requirement::<#self_ty>()));
        call_args.push(quote!(&*__self));
    }
    for (index, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Argument { .. } => call_args.push(arguments.value_of(index, param, &p)),
            ParamKind::Injected => {
                let position = requirements.len();
                let binding = format_ident!("__injected_{}", position);
                let ty = &param.ty;
                let inject = around(ty, quote!(<), quote!(as #p::Injected>::inject));
                bindings.push(quote! {
                    let #binding = match #inject(__states, #position, &__context) {
                        ::core::option::Option::Some(value) => value,
                        ::core::option::Option::None => {
                            return ::core::result::Result::Err(#p::missing_state(#name));
                        }
                    };
                });
                requirements.push(around(ty, quote!(<), quote!(as #p::Injected>::STATE)));
                call_args.push(quote!(#binding));
            }
        }
    }

    let output_conversion = match &tool.output {
        Output::Unit => quote!(#p::output_value(__output)),
        Output::Value(ty) => {
            let convert = around(ty, output_function(ty, &p), quote!(>));
            quote!(#convert(__output))
        }
        Output::Result { ty, ok, err } => {
            let ok_type = result_part(ty, ok.as_deref(), quote!(Ok), &p);
            let err_type = result_part(ty, err.as_deref(), quote!(Err), &p);
            let convert = match ok.as_deref() {
                Some(ok) => output_function(ok, &p),
                None => quote!(#p::output_value::<),
            };
            let value = around(&ok_type, convert, quote!(>));
            let error = around(&err_type, quote!(#p::output_error::<), quote!(>));
            quote! {
                match #p::ResultParts::into_result(__output) {
                    ::core::result::Result::Ok(__value) => #value(__value),
                    ::core::result::Result::Err(__error) => #error(__error),
                }
            }
        }
    };
    let output_schema = match attr.output_schema {
        Some(span) => {
            let output_type = match &tool.output {
                Output::Value(ty) => quote!(#ty),
                Output::Result { ty, ok, .. } => result_part(ty, ok.as_deref(), quote!(Ok), &p),
                Output::Unit => respanned(&quote!(()), span),
            };
            let function = around(&output_type, quote!(#p::output_schema::<), quote!(>));
            quote!(::core::option::Option::Some(#function))
        }
        None => quote!(::core::option::Option::None),
    };

    let fn_ident = &tool.ident;
    let function = match self_ty {
        Some(self_ty) => quote!(<#self_ty>::#fn_ident),
        None => quote!(#fn_ident),
    };
    let run = if tool.is_async {
        // Spanned on the fn's name so that a non-`Send` future is reported there.
        quote_spanned!(fn_ident.span()=> #p::assert_send(#function(#(#call_args),*)).await)
    } else if attr.blocking.is_some() {
        quote_spanned! {fn_ident.span()=>
            match #p::blocking(move || #function(#(#call_args),*)).await {
                ::core::result::Result::Ok(output) => output,
                ::core::result::Result::Err(result) => return result,
            }
        }
    } else {
        quote!(#function(#(#call_args),*))
    };
    // Spanned on the fn's name: a future that is not `Send` (it holds an argument, a state or
    // an instance that is not) is reported there.
    let future = quote_spanned! {fn_ident.span()=>
        ::std::boxed::Box::pin(async move {
            let __output = #run;
            #output_conversion
        })
    };
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    let column = quote_spanned!(fn_ident.span()=> ::core::column!());

    // One body, the static's initializer, holds the checks and both functions (closures),
    // so that a failed check is reported once and silences what would follow from it.
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, non_snake_case, unused_variables, clippy::all)]
        const _: () = {
            use #krate::__private as __p;

            #arguments_struct

            #(#default_fns)*

            #(#example_fns)*

            static __CACHE: #p::SpecCache = #p::SpecCache::new();

            static __SPEC: #p::ToolSpec = {
                #(#checks)*
                #p::ToolSpec {
                    name: #name,
                    description: #description,
                    lazy: #lazy,
                    annotations: #annotations,
                    tags: &[#(#tags),*],
                    skill: #skill,
                    input_schema: || #p::input_schema(#schema, #strict, &[#(#defaults),*]),
                    output_schema: #output_schema,
                    examples: #examples,
                    states: &[#(#requirements),*],
                    // The arguments are parsed before the future is built: only the tool's
                    // own work is boxed. (The runtime catches panics here as in the future.)
                    call: |__invocation| {
                        let #p::Invocation {
                            arguments: __arguments,
                            states: __states,
                            context: __context,
                        } = __invocation;
                        #parse
                        #(#bindings)*
                        ::core::result::Result::Ok(#future)
                    },
                    validation: #validation,
                    cache: &__CACHE,
                    module_path: ::core::module_path!(),
                    file: ::core::file!(),
                    line: #line,
                    column: #column,
                }
            };

            #p::inventory::submit!(#p::Registration(&__SPEC));
        };
    }
}

/// The fns of a tool's `example(...)`s and the list of them for its spec (`example.rs`).
pub(crate) struct Examples {
    pub(crate) fns: Vec<TokenStream>,
    pub(crate) list: TokenStream,
}

/// The function that turns a tool's value of type `ty` into its result, up to the `<` of its
/// type argument: `output_owned` for a type written `String` or `Value` (with or without a
/// path, no generic arguments: a `'static` type), which moves a `String` or `serde_json::Value`
/// into the result instead of copying it through serialization; `output_value` otherwise.
fn output_function(ty: &Type, p: &TokenStream) -> TokenStream {
    let owned = match ty {
        Type::Path(path) if path.qself.is_none() => {
            path.path
                .segments
                .iter()
                .all(|segment| segment.arguments.is_none())
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "String" || last.ident == "Value")
        }
        _ => false,
    };
    if owned {
        quote!(#p::output_owned::<)
    } else {
        quote!(#p::output_value::<)
    }
}

/// The `Ok` or `Err` type of a `Result` output: the type argument where the user wrote it,
/// else the projection from the alias, spanned on it.
fn result_part(
    ty: &Type,
    written: Option<&Type>,
    part: TokenStream,
    p: &TokenStream,
) -> TokenStream {
    match written {
        Some(written) => quote!(#written),
        None => around(ty, quote!(<), quote!(as #p::ResultParts>::#part)),
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

/// The fn as the user wrote it, for when expansion fails: compiling it keeps unrelated code
/// that calls it from drowning the real errors.
pub(crate) fn fallback(item: &syn::ItemFn, errors: TokenStream) -> TokenStream {
    quote! {
        #item
        #errors
    }
}
