//! Every check of a `#[tool]` declaration. Errors are collected, each spanned on the user's
//! token, so one compile reports all of them.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::visit::Visit;
use syn::{ItemFn, Pat, ReceiverKind, Safety, Type};

use crate::ast::{Output, Param, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::errors::Errors;

pub(crate) const DISCOVERY_TOOL_NAME: &str = "__lazy__tool__discovery__";
const CALL_THROUGH_TOOL_NAME: &str = "__lazy__tool__call__";
const MAX_NAME_LEN: usize = 64;

/// Where the `#[tool]` fn is: free, or a method of a `#[tools]` impl.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Place {
    Free,
    Method,
}

pub(crate) fn check(
    item: &ItemFn,
    attr: &ToolAttr,
    tool: &ToolFn,
    place: Place,
    errors: &mut Errors,
) {
    check_signature(item, errors);
    check_receiver(item, tool, place, errors);
    check_blocking(attr, tool, errors);
    check_name(item, attr, errors);
    check_description(attr, tool, errors);
    for param in &tool.params {
        check_param(attr, param, errors);
    }
    check_args_struct(tool, errors);
    check_json_names(attr, tool, errors);
    check_documented_arguments(tool, errors);
    if let Output::Value(ty) | Output::Result { ty, .. } = &tool.output {
        check_type(ty, Role::Output, errors);
    }
}

fn check_signature(item: &ItemFn, errors: &mut Errors) {
    let sig = &item.sig;
    if let Some(constness) = &sig.constness {
        errors.spanned(constness, "a tool cannot be a `const fn`; remove `const`");
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.spanned(
            token,
            "a tool cannot be an `unsafe fn`: the model calls it with arbitrary arguments; make it safe and keep the `unsafe` block inside",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(abi, "a tool cannot have an `extern` ABI; remove it");
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, "a tool cannot be variadic");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            "a tool cannot be generic (no type, const or lifetime parameters): the model needs one concrete schema; use concrete types",
        );
    }
}

fn check_receiver(item: &ItemFn, tool: &ToolFn, place: Place, errors: &mut Errors) {
    let Some(receiver) = &tool.receiver else {
        if place == Place::Method {
            errors.spanned(
                &item.sig.ident,
                "a `#[tool]` in a `#[tools]` impl is a method taking `&self`; an associated fn without `self` can be a free `#[tool]` fn instead",
            );
        }
        return;
    };
    if place == Place::Free {
        errors.spanned(
            receiver,
            "a `#[tool]` method needs its impl block marked `#[tools]` (`#[tools] impl Type { ... }`) and an instance registered with `Registry::builder().tools_of(Arc::new(instance))`; or make it a free fn and pass shared data as a `State<T>` parameter",
        );
        return;
    }
    let problem = match &receiver.kind {
        ReceiverKind::Reference(_, _, None) => None,
        ReceiverKind::Reference(_, _, Some(_)) => Some(
            "a tool method takes `&self`, not `&mut self`: calls run concurrently on one shared instance; keep what changes behind a `Mutex` or an atomic",
        ),
        ReceiverKind::Value => Some(
            "a tool method takes `&self`, not `self`: the registry holds the instance in an `Arc` and lends it to each call; clone what the call needs",
        ),
        _ => Some(
            "a tool method takes `&self`: the registry holds the instance in an `Arc` and lends it to each call",
        ),
    };
    if let Some(problem) = problem {
        errors.spanned(receiver, problem);
    }
}

fn check_blocking(attr: &ToolAttr, tool: &ToolFn, errors: &mut Errors) {
    if let (Some(span), true) = (attr.blocking, tool.is_async) {
        errors.at(
            span,
            "`blocking` runs a synchronous fn on tokio's blocking pool, and this fn is `async`: remove `async`, or remove `blocking` and move the blocking part into `tokio::task::spawn_blocking`",
        );
    }
}

fn check_name(item: &ItemFn, attr: &ToolAttr, errors: &mut Errors) {
    let (name, from_fn) = match &attr.name {
        Some(name) => (name.value(), false),
        None => (tool_name_of_fn(&item.sig.ident), true),
    };
    let problem = if name.is_empty() {
        Some("a tool name cannot be empty".to_owned())
    } else if name.len() > MAX_NAME_LEN {
        Some(format!(
            "tool name `{name}` is {} characters long; providers accept at most {MAX_NAME_LEN}",
            name.len()
        ))
    } else if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        Some(format!(
            "tool name `{name}` contains {bad:?}; names must match `^[a-zA-Z0-9_-]{{1,64}}$` (the rule OpenAI, Anthropic and Gemini all accept)"
        ))
    } else if name == DISCOVERY_TOOL_NAME {
        Some(format!(
            "`{DISCOVERY_TOOL_NAME}` is reserved for the discovery tool; choose another name"
        ))
    } else if name == CALL_THROUGH_TOOL_NAME {
        Some(format!(
            "`{CALL_THROUGH_TOOL_NAME}` is reserved for the call-through tool; choose another name"
        ))
    } else {
        None
    };
    if let Some(problem) = problem {
        match &attr.name {
            Some(literal) => errors.spanned(literal, problem),
            None if from_fn => errors.spanned(
                &item.sig.ident,
                format!("{problem}; set a valid one with `#[tool(name = \"...\")]`"),
            ),
            None => {}
        }
    }
}

pub(crate) fn tool_name_of_fn(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}

fn check_description(attr: &ToolAttr, tool: &ToolFn, errors: &mut Errors) {
    match &attr.description {
        Some(description) if description.value().trim().is_empty() => errors.spanned(
            description,
            "the description is empty; say what the tool does, the model reads it to decide when to call the tool",
        ),
        Some(_) => {}
        None if tool.docs.description.is_empty() => errors.spanned(
            &tool.ident,
            format!(
                "tool `{}` has no description; add a `///` doc comment saying what it does, or `#[tool(description = \"...\")]`",
                tool.ident
            ),
        ),
        None => {}
    }
}

fn check_param(attr: &ToolAttr, param: &Param, errors: &mut Errors) {
    if param.ident().is_none() {
        let hint = match &param.pat {
            Pat::Wild(_) => "name the parameter (its name is the argument's JSON name)",
            _ => {
                "bind it to a plain identifier (its name is the argument's JSON name) and destructure inside the function"
            }
        };
        errors.spanned(
            &param.pat,
            format!(
                "a tool parameter must be a plain identifier, not the pattern `{}`; {hint}",
                param.pat.to_token_stream()
            ),
        );
    }
    check_type(&param.ty, Role::Parameter, errors);
    match &param.kind {
        ParamKind::Injected => {
            let marker = param.arg_attr.as_ref().or(param.args_marker.as_ref());
            if let (Some(_), Some(marker)) = (&param.inject_marker, marker) {
                errors.spanned(
                    marker,
                    "a parameter is injected (`#[inject]`) or an argument (`#[arg]`, `#[args]`), not both; remove one",
                );
            }
        }
        ParamKind::Argument { optional } => {
            if let (true, Some((span, _))) = (optional, &param.arg.default) {
                errors.at(
                    *span,
                    "an `Option` parameter is already optional (absent means `None`); remove `default`, or make the type non-optional",
                );
            }
            if let Some(marker) = &param.args_marker {
                if let Some(arg_attr) = &param.arg_attr {
                    errors.spanned(
                        arg_attr,
                        "`#[arg]` cannot be combined with `#[args]`: the struct's own serde and schemars attributes describe its fields",
                    );
                }
                if attr.rename_all.is_some() {
                    errors.spanned(
                        marker,
                        "`rename_all` does not apply to an `#[args]` struct; put `#[serde(rename_all = \"...\")]` on the struct itself",
                    );
                }
                if *optional {
                    errors.spanned(
                        &param.ty,
                        "an `#[args]` struct cannot be an `Option`: it is the whole argument object; make its fields optional instead",
                    );
                }
            }
        }
    }
}

fn check_args_struct(tool: &ToolFn, errors: &mut Errors) {
    let marked: Vec<&Param> = tool
        .params
        .iter()
        .filter(|p| p.args_marker.is_some() && p.is_argument())
        .collect();
    let Some(first) = marked.first() else { return };
    for extra in &marked[1..] {
        if let Some(marker) = &extra.args_marker {
            errors.spanned(
                marker,
                "only one parameter can be `#[args]`: it is the whole argument object",
            );
        }
    }
    for other in tool.arguments().filter(|p| p.args_marker.is_none()) {
        errors.spanned(
            &other.pat,
            format!(
                "`{}` cannot be a separate argument next to the `#[args]` parameter `{}`; move it into that struct, or drop `#[args]` and list every argument as a parameter",
                other.pat.to_token_stream(),
                first.pat.to_token_stream()
            ),
        );
    }
}

/// The JSON property name of each argument parameter, after `rename` and `rename_all`.
pub(crate) fn json_name(attr: &ToolAttr, param: &Param) -> Option<String> {
    if let Some(rename) = &param.arg.rename {
        return Some(rename.value());
    }
    let ident = tool_name_of_fn(param.ident()?);
    Some(match attr.rename_all {
        Some(rule) => rule.apply(&ident),
        None => ident,
    })
}

fn check_json_names(attr: &ToolAttr, tool: &ToolFn, errors: &mut Errors) {
    if tool.args_struct().is_some() {
        return;
    }
    let mut seen: BTreeMap<String, &Param> = BTreeMap::new();
    for param in tool.arguments() {
        let Some(name) = json_name(attr, param) else {
            continue;
        };
        if let Some(rename) = &param.arg.rename
            && name.is_empty()
        {
            errors.spanned(rename, "a property name cannot be empty");
            continue;
        }
        if let Some(first) = seen.get(&name) {
            let target: &dyn ToTokens = match &param.arg.rename {
                Some(rename) => rename,
                None => &param.pat,
            };
            errors.spanned(
                target,
                format!(
                    "two parameters have the JSON name `{name}` (`{}` and `{}`); give one a different `#[arg(rename = \"...\")]`",
                    first.pat.to_token_stream(),
                    param.pat.to_token_stream()
                ),
            );
        } else {
            seen.insert(name, param);
        }
    }
}

fn check_documented_arguments(tool: &ToolFn, errors: &mut Errors) {
    for documented in &tool.docs.arguments {
        let exists = tool.arguments().any(|param| {
            param
                .ident()
                .is_some_and(|ident| tool_name_of_fn(ident) == documented.name)
        });
        if !exists {
            errors.at(
                documented.span,
                format!(
                    "the `# Arguments` list documents `{}`, which is not an argument of this tool; fix the name or remove the entry",
                    documented.name
                ),
            );
        }
    }
}

#[derive(Clone, Copy)]
enum Role {
    Parameter,
    Output,
}

/// References, `impl Trait` and named lifetimes in a type.
fn check_type(ty: &Type, role: Role, errors: &mut Errors) {
    struct Finder<'e> {
        errors: &'e mut Errors,
        role: Role,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            match self.role {
                Role::Parameter => {
                    let owned = owned_alternative(&reference.elem);
                    self.errors.spanned(
                        reference,
                        format!(
                            "a tool parameter cannot be a reference: arguments are deserialized into owned values; use {owned}"
                        ),
                    );
                }
                // `&'static str` and the like are fine to return.
                Role::Output => syn::visit::visit_type_reference(self, reference),
            }
        }
        fn visit_type_impl_trait(&mut self, impl_trait: &'ast syn::TypeImplTrait) {
            let message = match self.role {
                Role::Parameter => {
                    "a tool parameter cannot use `impl Trait`: the schema needs a concrete type"
                }
                Role::Output => {
                    "a tool cannot return `impl Trait`: name the concrete type, so its serialization can be checked"
                }
            };
            self.errors.spanned(impl_trait, message);
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            if lifetime.ident != "static" {
                self.errors.spanned(
                    lifetime,
                    format!("a tool's types cannot borrow (`{lifetime}`): use owned types"),
                );
            }
        }
    }
    Finder { errors, role }.visit_type(ty);
}

fn owned_alternative(elem: &Type) -> String {
    match elem {
        Type::Path(path) if path.path.is_ident("str") => "`String`".to_owned(),
        Type::Slice(slice) => format!("`Vec<{}>`", slice.elem.to_token_stream()),
        other => format!("`{}` (owned)", other.to_token_stream()),
    }
}
