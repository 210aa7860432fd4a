//! What `#[tool]` reads a tool's arguments into and describes them with: the user's `#[args]`
//! struct, one runtime `Slot` per parameter, or a derived struct; the defaults of
//! `#[arg(default)]` parameters; and the spanned check of each argument type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Type};

use crate::ast::{Param, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::spans::{around, ends, respanned};
use crate::valid::{json_name, tool_name_of_fn};

/// What the arguments are deserialized into: the user's `#[args]` struct, one runtime `Slot`
/// per argument parameter ([`Slots`]), or, when a parameter has `#[schemars(...)]`, a struct
/// derived with one field per argument parameter.
///
/// The generated struct is named with its type parameters left to inference
/// (`__Arguments<_, Defaulted<_>>`), which the conversion of each field to its parameter
/// settles: rustc then reports a field type at the parameter that gives it, and leaves it
/// open, with no further error, when the parameter's check fails.
pub(crate) struct Arguments {
    pub(crate) definition: TokenStream,
    /// The type of `__parsed`.
    annotation: TokenStream,
    pub(crate) defaults: Vec<TokenStream>,
    /// One `fn __default_N() -> T` per `#[arg(default)]`: the user's expression is compiled
    /// once, so a mistake in it is reported once.
    pub(crate) default_fns: Vec<TokenStream>,
    /// The spanned check of each argument type.
    pub(crate) checks: Vec<TokenStream>,
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
    pub(crate) fn new(
        attr: &ToolAttr,
        tool: &ToolFn,
        p: &TokenStream,
        krate: &TokenStream,
    ) -> Arguments {
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
        if tool.params.iter().all(|param| param.schemars.is_empty()) {
            return Arguments::slots(attr, tool, p, checks);
        }
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

    /// The arguments read into slots, described by properties (see [`Slots`]).
    fn slots(attr: &ToolAttr, tool: &ToolFn, p: &TokenStream, checks: Vec<TokenStream>) -> Self {
        let mut slots = Slots {
            declarations: Vec::new(),
            idents: Vec::new(),
            keys: Vec::new(),
            required: Vec::new(),
            properties: Vec::new(),
        };
        let (mut defaults, mut default_fns) = (Vec::new(), Vec::new());
        for (index, param) in tool.params.iter().enumerate() {
            let ParamKind::Argument { optional } = param.kind else {
                continue;
            };
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
        }
        Arguments {
            definition: TokenStream::new(),
            annotation: TokenStream::new(),
            defaults,
            default_fns,
            checks,
            args_struct: None,
            fields: Vec::new(),
            slots: Some(slots),
        }
    }

    /// The statements that read `__arguments` before the tool's future is built: into the
    /// slots, or into the `#[args]` or derived struct `__parsed`.
    pub(crate) fn parse(&self, name: &str, p: &TokenStream) -> TokenStream {
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
    pub(crate) fn schema(&self, tool: &ToolFn, p: &TokenStream) -> TokenStream {
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

    /// The function choosing how the arguments are checked: the typed check when every
    /// argument is read into a slot and each one's type is a plain one (chosen by the
    /// runtime's `Probe` on the type, at compile time), else the JSON Schema validator (an
    /// `#[args]` struct, a strict tool, whose schema closes it to other keys).
    pub(crate) fn validation(&self, tool: &ToolFn, strict: bool, p: &TokenStream) -> TokenStream {
        if strict || self.slots.is_none() {
            return quote!(|| #p::ArgumentValidation::JSON_SCHEMA);
        }
        let probes = tool
            .params
            .iter()
            .filter(|param| param.is_argument())
            .map(|param| {
                let ty = &param.ty;
                quote!((&#p::Probe::<#ty>::new()).validation())
            });
        quote!(|| {
            use #p::{SchemaValidation as _, TypedValidation as _};
            #p::validation_of(&[#(#probes),*])
        })
    }

    /// The expression that passes parameter `index` to the user's fn.
    pub(crate) fn value_of(&self, index: usize, param: &Param, p: &TokenStream) -> TokenStream {
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
