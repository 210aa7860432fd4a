//! The signature of a `#[tool]` fn, parsed: its parameters sorted into arguments and injected
//! values, its output, its docs. Parsing also strips the macro's own parameter attributes
//! from the fn, which must compile without them.

use syn::{Attribute, FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::attr::{ArgAttr, parse_arg_attr};
use crate::doc::{self, FnDocs};
use crate::errors::Errors;

pub(crate) struct ToolFn {
    pub(crate) ident: Ident,
    pub(crate) is_async: bool,
    /// The `&self` of a method in a `#[tools]` impl (its type is the impl's), or of a fn that
    /// takes `self` in any form, which `valid` rejects.
    pub(crate) receiver: Option<syn::Receiver>,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Output,
    pub(crate) docs: FnDocs,
}

pub(crate) struct Param {
    pub(crate) pat: Pat,
    pub(crate) ty: Type,
    pub(crate) kind: ParamKind,
    pub(crate) arg: ArgAttr,
    /// The `#[arg(...)]` attribute, kept for error spans.
    pub(crate) arg_attr: Option<Attribute>,
    /// The `#[args]` marker.
    pub(crate) args_marker: Option<Attribute>,
    /// The `#[inject]` marker.
    pub(crate) inject_marker: Option<Attribute>,
    pub(crate) doc: String,
    /// `#[schemars(...)]` attributes, moved to the generated argument field.
    pub(crate) schemars: Vec<Attribute>,
}

/// What a parameter is. The macro sees names, not types: a parameter is injected when its
/// type is written `State<...>` or `ToolContext` (any path before it) or when it is marked
/// `#[inject]`, and an argument otherwise or when marked `#[arg]`/`#[args]`. The generated
/// code then checks the type, so that a wrong guess is one error on the parameter.
pub(crate) enum ParamKind {
    /// A property of the argument object; `optional` for `Option<T>`.
    Argument { optional: bool },
    /// `State<T>` or `ToolContext`, injected by the runtime.
    Injected,
}

pub(crate) enum Output {
    /// No return type.
    Unit,
    /// A plain value.
    Value(Box<Type>),
    /// `Result<T, E>` or an alias whose last segment is `Result` (`anyhow::Result<T>`);
    /// `ok` and `err` are its type arguments where the user wrote them, so that checks can
    /// point at them.
    Result {
        ty: Box<Type>,
        ok: Option<Box<Type>>,
        err: Option<Box<Type>>,
    },
}

impl Param {
    pub(crate) fn ident(&self) -> Option<&Ident> {
        match &self.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(&pat.ident),
            _ => None,
        }
    }

    pub(crate) fn is_argument(&self) -> bool {
        matches!(self.kind, ParamKind::Argument { .. })
    }
}

impl ToolFn {
    pub(crate) fn parse(item: &mut ItemFn, errors: &mut Errors) -> ToolFn {
        let mut params = Vec::new();
        let mut receiver = None;
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Typed(typed) => {
                    params.push(parse_param(&mut typed.attrs, &typed.pat, &typed.ty, errors));
                }
                FnArg::Receiver(this) => receiver = Some(this.clone()),
            }
        }
        let output = match &item.sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) => match last_segment_args(ty, "Result") {
                Some(args) => {
                    let mut args = args.into_iter().map(Box::new);
                    Output::Result {
                        ty: ty.clone(),
                        ok: args.next(),
                        err: args.next(),
                    }
                }
                None => Output::Value(ty.clone()),
            },
        };
        ToolFn {
            ident: item.sig.ident.clone(),
            is_async: item.sig.asyncness.is_some(),
            receiver,
            params,
            output,
            docs: doc::split_fn_docs(&item.attrs),
        }
    }

    pub(crate) fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|param| param.is_argument())
    }

    /// The `#[args]` parameter, if there is exactly one.
    pub(crate) fn args_struct(&self) -> Option<&Param> {
        let mut marked = self.params.iter().filter(|p| p.args_marker.is_some());
        let first = marked.next();
        if marked.next().is_some() { None } else { first }
    }
}

fn parse_param(attrs: &mut Vec<Attribute>, pat: &Pat, ty: &Type, errors: &mut Errors) -> Param {
    let mut arg = ArgAttr::default();
    let mut arg_attr = None;
    let mut args_marker = None;
    let mut inject_marker = None;
    let mut schemars = Vec::new();
    let doc = doc::param_text(attrs);
    attrs.retain(|attr| {
        if doc::is_doc(attr) {
            false
        } else if attr.path().is_ident("arg") {
            parse_arg_attr(attr, &mut arg, errors);
            arg_attr = Some(attr.clone());
            false
        } else if attr.path().is_ident("args") {
            if attr.meta.require_path_only().is_err() {
                errors.spanned(&attr.meta, "`#[args]` takes no arguments");
            }
            args_marker = Some(attr.clone());
            false
        } else if attr.path().is_ident("inject") {
            if attr.meta.require_path_only().is_err() {
                errors.spanned(&attr.meta, "`#[inject]` takes no arguments");
            }
            inject_marker = Some(attr.clone());
            false
        } else if attr.path().is_ident("schemars") {
            schemars.push(attr.clone());
            false
        } else {
            true
        }
    });
    let marked_argument = arg_attr.is_some() || args_marker.is_some();
    let named_injected = last_segment_args(ty, "State").is_some_and(|args| args.len() == 1)
        || is_last_segment(ty, "ToolContext");
    let kind = if inject_marker.is_some() || (named_injected && !marked_argument) {
        ParamKind::Injected
    } else {
        ParamKind::Argument {
            optional: last_segment_args(ty, "Option").is_some_and(|args| args.len() == 1),
        }
    };
    Param {
        pat: pat.clone(),
        ty: ty.clone(),
        kind,
        arg,
        arg_attr,
        args_marker,
        inject_marker,
        doc,
        schemars,
    }
}

/// `T` of a type written `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    only_argument(ty, "Option")
}

/// `T` of a type written `Vec<T>`.
pub(crate) fn vec_item(ty: &Type) -> Option<&Type> {
    only_argument(ty, "Vec")
}

fn only_argument<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let segment = last_segment(ty)?;
    match &segment.arguments {
        PathArguments::AngleBracketed(args) if segment.ident == name && args.args.len() == 1 => {
            match args.args.first() {
                Some(GenericArgument::Type(inner)) => Some(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}

fn is_last_segment(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == name)
}

/// The type arguments of `ty` if its last path segment is `name` (`Option<T>` -> `[T]`).
fn last_segment_args(ty: &Type, name: &str) -> Option<Vec<Type>> {
    let segment = last_segment(ty)?;
    if segment.ident != name {
        return None;
    }
    Some(match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}
