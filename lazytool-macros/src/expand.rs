//! The code `#[tool]` generates: the argument slots (or struct), the schema and call
//! functions, the spanned trait checks, and the `inventory` registration.
//!
//! Every check of a user's type is a call or a path spanned on that type, made in each
//! generated body that names the type, so that rustc reports it there; identical reports
//! are merged into one.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Ident, Type};

use crate::ast::{Output, Param, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::valid::{json_name, tool_name_of_fn};

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

/// What the arguments are deserialized into: the user's `#[args]` struct, one runtime `Slot`
/// per argument parameter ([`Slots`]), or, when a parameter has `#[schemars(...)]`, a struct
/// derived with one field per argument parameter.
///
/// The generated struct is named with its type parameters left to inference
/// (`__Arguments<_, Defaulted<_>>`), which the conversion of each field to its parameter
/// settles: rustc then reports a field type at the parameter that gives it, and leaves it
/// open, with no further error, when the parameter's check fails.
struct Arguments {
    definition: TokenStream,
    /// The type of `__parsed`.
    annotation: TokenStream,
    defaults: Vec<TokenStream>,
    /// One `fn __default_N() -> T` per `#[arg(default)]`: the user's expression is compiled
    /// once, so a mistake in it is reported once.
    default_fns: Vec<TokenStream>,
    /// The spanned check of each argument type.
    checks: Vec<TokenStream>,
    /// The `#[args]` parameter's index, when there is one.
    args_struct: Option<usize>,
    fields: Vec<Option<Ident>>,
    /// How the arguments are read when no struct is derived for them (see [`Slots`]).
    slots: Option<Slots>,
}

/// The arguments read into one runtime `Slot` per parameter, and the schema built from one
/// `ArgumentProperty` per parameter: no struct and no derive per tool, and the code that
/// reads or describes a type shared by every tool with a parameter of that type. Used unless
/// a parameter has `#[schemars(...)]` attributes, which only schemars' derive understands.
struct Slots {
    /// `let mut __slot_N = Slot::<Field>::new("key");` for each argument.
    declarations: Vec<TokenStream>,
    /// The slots, in parameter order.
    idents: Vec<Ident>,
    /// Their keys in the argument object.
    keys: Vec<String>,
    /// The slots of required arguments, taken (or refused) once the object has been read.
    required: Vec<Ident>,
    /// `ArgumentProperty::of::<Field>("key", "description", has_default)` for each argument.
    properties: Vec<TokenStream>,
}

impl Arguments {
    fn new(attr: &ToolAttr, tool: &ToolFn, p: &TokenStream, krate: &TokenStream) -> Arguments {
        let checks = tool
            .params
            .iter()
            .filter(|param| param.is_argument())
            .map(|param| {
                let ty = &param.ty;
                let (first, last) = ends(ty);
                let check = respanned(&quote!(#p::assert_argument::<), first);
                // rustc blames the inferred kind for an injected type: at the type's name.
                let kind = respanned(&quote!(, _), first);
                let end = respanned(&quote!(>();), last);
                quote!(#check #ty #kind #end)
            })
            .collect();
        if let Some(index) = tool
            .params
            .iter()
            .position(|param| param.args_marker.is_some() && param.is_argument())
        {
            return Arguments {
                definition: TokenStream::new(),
                annotation: field_type(&tool.params[index].ty, p),
                defaults: Vec::new(),
                default_fns: Vec::new(),
                checks,
                args_struct: Some(index),
                fields: Vec::new(),
                slots: None,
            };
        }
        let derive = tool.params.iter().any(|param| !param.schemars.is_empty());
        let serde_crate = format!("{}::__private::serde", path_string(krate));
        // serde would bound each type parameter by `Deserialize<'de>`; `DeserializeOwned` is
        // what `assert_argument` checks, so a type failing both is reported once.
        let mut serde_bounds = Vec::new();
        let schemars_crate = format!("{}::__private::schemars", path_string(krate));
        let mut generics = Vec::new();
        let mut fields = Vec::new();
        let mut inferred = Vec::new();
        let mut defaults = Vec::new();
        let mut default_fns = Vec::new();
        let mut field_idents = Vec::new();
        let mut slots = Slots {
            declarations: Vec::new(),
            idents: Vec::new(),
            keys: Vec::new(),
            required: Vec::new(),
            properties: Vec::new(),
        };
        for (index, param) in tool.params.iter().enumerate() {
            let ParamKind::Argument { optional } = param.kind else {
                field_idents.push(None);
                continue;
            };
            if !derive {
                let slot = format_ident!("__slot_{}", index);
                let key = json_name(attr, param).unwrap_or_default();
                let description = describe(tool, param).unwrap_or_default();
                let has_default = optional || param.arg.default.is_some();
                // Each type is left to inference, which the conversion to the parameter
                // settles (see `Arguments`): a parameter whose check fails leaves it open.
                slots.declarations.push(if param.arg.default.is_some() {
                    quote!(let mut #slot: #p::Slot<::core::option::Option<_>> = #p::Slot::new(#key);)
                } else {
                    quote!(let mut #slot = #p::Slot::new(#key);)
                });
                let settle = around(
                    &param.ty,
                    quote!(<),
                    quote!(as #p::ToolArgument<_>>::from_field),
                );
                slots.properties.push(quote! {
                    #p::ArgumentProperty::of(#key, #description, #has_default, #settle)
                });
                if !has_default {
                    slots.required.push(slot.clone());
                }
                slots.idents.push(slot);
                slots.keys.push(key.clone());
                if let Some((span, default)) = &param.arg.default {
                    default_fns.push(default_fn(index, &param.ty, *span, default.as_ref()));
                    defaults.push(default_entry(index, &key, *span, p));
                }
                field_idents.push(None);
                continue;
            }
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
            serde_bounds.push(format!("{generic}: {serde_crate}::de::DeserializeOwned"));
            if let Some((span, default)) = &param.arg.default {
                inferred.push(quote!(#p::Defaulted<_>));
                default_fns.push(default_fn(index, ty, *span, default.as_ref()));
                defaults.push(default_entry(index, &json, *span, p));
            } else {
                inferred.push(quote!(_));
            }
            field_idents.push(Some(field));
        }
        if !derive {
            return Arguments {
                definition: TokenStream::new(),
                annotation: TokenStream::new(),
                defaults,
                default_fns,
                checks,
                args_struct: None,
                fields: field_idents,
                slots: Some(slots),
            };
        }
        let serde_bounds = serde_bounds.join(", ");
        Arguments {
            definition: quote! {
                #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
                #[serde(crate = #serde_crate, bound(deserialize = #serde_bounds))]
                #[schemars(crate = #schemars_crate)]
                struct __Arguments<#(#generics),*> {
                    #(#fields,)*
                }
            },
            annotation: quote!(__Arguments<#(#inferred),*>),
            defaults,
            default_fns,
            checks,
            args_struct: None,
            fields: field_idents,
            slots: None,
        }
    }

    /// The statements that read `__arguments` before the tool's future is built: into the
    /// slots, or into the `#[args]` or derived struct `__parsed`.
    fn parse(&self, name: &str, p: &TokenStream) -> TokenStream {
        match &self.slots {
            Some(Slots {
                declarations,
                idents,
                keys,
                required,
                ..
            }) => quote! {
                #(#declarations)*
                let mut __arguments = __arguments;
                for (__key, __value) in #p::members(#name, &mut __arguments)? {
                    match __key.as_str() {
                        #(#keys => #idents.fill(#name, __value)?,)*
                        _ => {}
                    }
                }
                #(let #required = #required.required(#name)?;)*
            },
            None => {
                let annotation = &self.annotation;
                quote!(let __parsed: #annotation = #p::parse_arguments(#name, __arguments)?;)
            }
        }
    }

    /// The input schema, before the runtime's rewrites: the schema of the `#[args]` struct, or
    /// of the generated struct, whose type a closure that is never called settles.
    fn schema(&self, tool: &ToolFn, p: &TokenStream) -> TokenStream {
        let annotation = &self.annotation;
        if self.args_struct.is_some() {
            return quote!(#p::schema_value::<#annotation>());
        }
        if let Some(slots) = &self.slots {
            let properties = &slots.properties;
            return quote!(#p::arguments_schema(&[#(#properties),*]));
        }
        let values = tool
            .params
            .iter()
            .enumerate()
            .filter(|(_, param)| param.is_argument())
            .map(|(index, param)| self.value_of(index, param, p));
        quote!(#p::schema_of(|__parsed: #annotation| (#(#values,)*)))
    }

    /// The expression that passes parameter `index` to the user's fn.
    fn value_of(&self, index: usize, param: &Param, p: &TokenStream) -> TokenStream {
        let from_field = |value: TokenStream| from_field(&param.ty, value, p);
        if self.args_struct == Some(index) {
            return from_field(quote!(__parsed));
        }
        let read = if self.slots.is_some() {
            let slot = format_ident!("__slot_{}", index);
            match param.kind {
                _ if param.arg.default.is_some() => quote!(#slot.defaulted()),
                ParamKind::Argument { optional: true } => quote!(#slot.or_default()),
                _ => quote!(#slot),
            }
        } else {
            let Some(Some(field)) = self.fields.get(index) else {
                return quote!(::core::unreachable!());
            };
            match param.arg.default {
                Some(_) => quote!(__parsed.#field.0),
                None => quote!(__parsed.#field),
            }
        };
        if param.arg.default.is_none() {
            return from_field(read);
        }
        let default_fn = default_fn_ident(index);
        let value = from_field(quote!(value));
        quote! {
            match #read {
                ::core::option::Option::Some(value) => #value,
                ::core::option::Option::None => #default_fn(),
            }
        }
    }
}

/// `value` converted to a parameter of type `ty`. The whole call is at the parameter's type:
/// rustc checks the argument against the field type at the call's span.
fn from_field(ty: &Type, value: TokenStream, p: &TokenStream) -> TokenStream {
    around(
        ty,
        quote!(<),
        quote!(as #p::ToolArgument<_>>::from_field(#value)),
    )
}

/// What the argument struct holds for a parameter of type `ty`: `ty` itself once its check
/// passes; when it fails, a type rustc cannot resolve, so that nothing else is reported.
fn field_type(ty: &Type, p: &TokenStream) -> TokenStream {
    around(ty, quote!(<), quote!(as #p::ToolArgument<_>>::Field))
}

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
fn around(ty: &dyn ToTokens, before: TokenStream, after: TokenStream) -> TokenStream {
    let (first, last) = ends(ty);
    let before = respanned(&before, first);
    let after = respanned(&after, last);
    quote!(#before #ty #after)
}

/// The spans of the first and last tokens of `ty`.
fn ends(ty: &dyn ToTokens) -> (Span, Span) {
    let tokens = ty.to_token_stream();
    let first = tokens.clone().into_iter().next().map(|token| token.span());
    let last = tokens.into_iter().last().map(|token| token.span());
    let first = first.unwrap_or_else(Span::call_site);
    (first, last.unwrap_or(first))
}

/// `fn __default_N() -> T` for an `#[arg(default)]`: the user's expression is compiled once,
/// so a mistake in it is reported once.
fn default_fn(index: usize, ty: &Type, span: Span, default: Option<&syn::Expr>) -> TokenStream {
    let default_fn = default_fn_ident(index);
    let value = match default {
        Some(expr) => quote!(#expr),
        None => respanned(&quote!(<#ty as ::core::default::Default>::default()), span),
    };
    quote! {
        fn #default_fn() -> #ty {
            let __value: #ty = #value;
            __value
        }
    }
}

/// The entry of an `#[arg(default)]` in the list the input schema's defaults are set from.
fn default_entry(index: usize, key: &str, span: Span, p: &TokenStream) -> TokenStream {
    let default_fn = default_fn_ident(index);
    let to_json = respanned(&quote!(#p::default_json(#default_fn())), span);
    quote! {
        (#key, (|| #to_json) as fn() -> #p::serde_json::Value)
    }
}

fn default_fn_ident(index: usize) -> Ident {
    format_ident!("__default_{}", index)
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
