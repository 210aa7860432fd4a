//! Which file names an item of which other file: a crate's module tree read with `syn` (`mod
//! x;` as `x.rs`, `x/mod.rs` or its `#[path]`), every `use` and every path that starts with
//! `crate`, `super` or `self` resolved through it to the file that defines the item. A name
//! imported through a re-export resolves to the file that defines it, not to the one
//! re-exporting it; an inline module (`mod tests {}`) belongs to its file. A `pub use` of an
//! item of a module inside the re-exporting one is that module's index, not an arrow (so
//! `registry/mod.rs`'s `pub use builder::RegistryBuilder` is none, even where `mod.rs` then
//! uses the name). Paths into other crates, a macro's arguments that do not parse as
//! expressions, and names only methods reach are not followed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// One arrow: `from` names `item`, defined in `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    pub from: PathBuf,
    pub to: PathBuf,
    pub item: String,
}

/// What a name in a module stands for.
#[derive(Debug, Clone)]
enum Name {
    /// An item defined in the module's file.
    Item,
    Module(usize),
    /// A `use`: the path it imports, resolved from the module that holds it.
    Alias(Vec<String>),
}

#[derive(Debug)]
struct Module {
    file: PathBuf,
    /// `mod name { ... }`.
    inline: bool,
    parent: Option<usize>,
    names: BTreeMap<String, Vec<Name>>,
    globs: Vec<Vec<String>>,
}

/// A path as written in `module` (of file `file`): a `use` or a `crate`/`super`/`self` path.
#[derive(Debug)]
struct Reference {
    module: usize,
    path: Vec<String>,
    /// A `pub use`: when it names an item of a module inside its own, it is the module's
    /// index (`pub use builder::RegistryBuilder;`), not an arrow.
    export: bool,
}

/// A crate read from its root file.
#[derive(Debug)]
pub struct ModuleGraph {
    modules: Vec<Module>,
    references: Vec<Reference>,
    /// Files declared by a `mod` that could not be read or parsed.
    pub problems: Vec<String>,
}

impl ModuleGraph {
    /// Reads the crate whose root is `root` (relative to `read`'s base): `read` gives a
    /// file's text, or `None` when there is no such file.
    pub fn read(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Self {
        let mut graph = ModuleGraph {
            modules: Vec::new(),
            references: Vec::new(),
            problems: Vec::new(),
        };
        let directory = root.parent().unwrap_or(Path::new("")).to_path_buf();
        graph.read_file(root, None, None, &directory, read);
        graph
    }

    /// Reads `file` as a module named `name` in `parent`; its `mod x;` live under `directory`.
    fn read_file(
        &mut self,
        file: &Path,
        parent: Option<usize>,
        name: Option<&str>,
        directory: &Path,
        read: &dyn Fn(&Path) -> Option<String>,
    ) {
        let Some(text) = read(file) else {
            self.problems
                .push(format!("{}: declared but not found", file.display()));
            return;
        };
        let parsed = match syn::parse_file(&text) {
            Ok(parsed) => parsed,
            Err(error) => {
                self.problems
                    .push(format!("{}: does not parse: {error}", file.display()));
                return;
            }
        };
        let module = self.add_module(file, parent, name, false);
        self.read_items(&parsed.items, module, directory, read);
    }

    fn add_module(
        &mut self,
        file: &Path,
        parent: Option<usize>,
        name: Option<&str>,
        inline: bool,
    ) -> usize {
        let index = self.modules.len();
        self.modules.push(Module {
            file: file.to_path_buf(),
            inline,
            parent,
            names: BTreeMap::new(),
            globs: Vec::new(),
        });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent]
                .names
                .entry(name.to_owned())
                .or_default()
                .push(Name::Module(index));
        }
        index
    }

    fn read_items(
        &mut self,
        items: &[syn::Item],
        module: usize,
        directory: &Path,
        read: &dyn Fn(&Path) -> Option<String>,
    ) {
        for item in items {
            let defined = match item {
                syn::Item::Mod(declaration) => {
                    self.read_module(declaration, module, directory, read);
                    continue;
                }
                syn::Item::Use(import) => {
                    let mut imports = Vec::new();
                    flatten_use(&import.tree, &mut Vec::new(), &mut imports);
                    let export = !matches!(import.vis, syn::Visibility::Inherited);
                    for (path, name) in imports {
                        match name {
                            Some(name) => self.modules[module]
                                .names
                                .entry(name)
                                .or_default()
                                .push(Name::Alias(path.clone())),
                            None => self.modules[module].globs.push(path.clone()),
                        }
                        self.references.push(Reference {
                            module,
                            path,
                            export,
                        });
                    }
                    continue;
                }
                syn::Item::Fn(item) => Some(&item.sig.ident),
                syn::Item::Struct(item) => Some(&item.ident),
                syn::Item::Enum(item) => Some(&item.ident),
                syn::Item::Union(item) => Some(&item.ident),
                syn::Item::Trait(item) => Some(&item.ident),
                syn::Item::TraitAlias(item) => Some(&item.ident),
                syn::Item::Type(item) => Some(&item.ident),
                syn::Item::Const(item) => Some(&item.ident),
                syn::Item::Static(item) => Some(&item.ident),
                syn::Item::Macro(item) => item.ident.as_ref(),
                _ => None,
            };
            if let Some(ident) = defined {
                self.modules[module]
                    .names
                    .entry(ident.to_string())
                    .or_default()
                    .push(Name::Item);
            }
            let mut paths = Paths::default();
            paths.visit_item(item);
            for path in paths.found {
                self.references.push(Reference {
                    module,
                    path,
                    export: false,
                });
            }
        }
    }

    /// `mod name;` (a file found as rustc would: `#[path]`, `name.rs` or `name/mod.rs`) or
    /// `mod name { ... }` (the same file).
    fn read_module(
        &mut self,
        declaration: &syn::ItemMod,
        parent: usize,
        directory: &Path,
        read: &dyn Fn(&Path) -> Option<String>,
    ) {
        let name = declaration.ident.to_string();
        if let Some((_, items)) = &declaration.content {
            let file = self.modules[parent].file.clone();
            let module = self.add_module(&file, Some(parent), Some(&name), true);
            self.read_items(items, module, &directory.join(&name), read);
            return;
        }
        let explicit = declaration.attrs.iter().find_map(|attribute| {
            let syn::Meta::NameValue(pair) = &attribute.meta else {
                return None;
            };
            if !pair.path.is_ident("path") {
                return None;
            }
            match &pair.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(path),
                    ..
                }) => Some(path.value()),
                _ => None,
            }
        });
        let (file, children) = match explicit {
            // Relative to the declaring file's folder (to `directory` inside an inline
            // module); the file then declares its modules beside it, as a mod.rs does.
            Some(path) => {
                let declaring = &self.modules[parent];
                let base = if declaring.inline {
                    directory.to_path_buf()
                } else {
                    declaring
                        .file
                        .parent()
                        .unwrap_or(Path::new(""))
                        .to_path_buf()
                };
                let file = base.join(path);
                let children = file.parent().unwrap_or(Path::new("")).to_path_buf();
                (file, children)
            }
            None => {
                let flat = directory.join(format!("{name}.rs"));
                if read(&flat).is_some() {
                    (flat, directory.join(&name))
                } else {
                    (directory.join(&name).join("mod.rs"), directory.join(&name))
                }
            }
        };
        // A file named mod.rs declares its modules beside it, like a crate root.
        let children = if file.file_name().is_some_and(|name| name == "mod.rs") {
            file.parent().unwrap_or(Path::new("")).to_path_buf()
        } else {
            children
        };
        self.read_file(&file, Some(parent), Some(&name), &children, read);
    }

    /// Every arrow between two different files, with the path that makes it.
    /// How many files the crate has.
    pub fn file_count(&self) -> usize {
        let files: std::collections::BTreeSet<&PathBuf> =
            self.modules.iter().map(|module| &module.file).collect();
        files.len()
    }

    pub fn links(&self) -> Vec<Link> {
        let mut links = Vec::new();
        for reference in &self.references {
            let Some(defined_in) = self.resolve(reference.module, &reference.path, 0) else {
                continue;
            };
            if reference.export && self.is_inside(defined_in, reference.module) {
                continue;
            }
            let target = self.modules[defined_in].file.clone();
            let from = &self.modules[reference.module].file;
            if *from != target {
                links.push(Link {
                    from: from.clone(),
                    to: target,
                    item: reference.path.join("::"),
                });
            }
        }
        links.sort();
        links.dedup_by(|a, b| a.from == b.from && a.to == b.to);
        links
    }

    /// The module that defines what `path`, written in `module`, names (a module names
    /// itself).
    fn resolve(&self, module: usize, path: &[String], depth: usize) -> Option<usize> {
        match self.walk(module, path, depth)? {
            Target::Item(module) | Target::Module(module) => Some(module),
        }
    }

    /// Whether `inner` is `outer` or one of its descendants.
    fn is_inside(&self, inner: usize, outer: usize) -> bool {
        let mut at = Some(inner);
        while let Some(module) = at {
            if module == outer {
                return true;
            }
            at = self.modules[module].parent;
        }
        false
    }

    fn walk(&self, module: usize, path: &[String], depth: usize) -> Option<Target> {
        if depth > 32 {
            return None;
        }
        let (first, rest) = path.split_first()?;
        let mut current = match first.as_str() {
            "crate" => 0,
            "self" => module,
            "super" => self.modules[module].parent?,
            _ => return self.walk_names(module, path, depth),
        };
        for (index, segment) in rest.iter().enumerate() {
            match segment.as_str() {
                "super" => current = self.modules[current].parent?,
                "self" => {}
                _ => return self.walk_names(current, &rest[index..], depth),
            }
        }
        Some(Target::Module(current))
    }

    /// Looks `path`'s first name up in `module`'s own names and globs, then walks on.
    fn walk_names(&self, module: usize, path: &[String], depth: usize) -> Option<Target> {
        let (first, rest) = path.split_first()?;
        let target = self.lookup(module, first, !rest.is_empty(), depth)?;
        match target {
            Target::Module(inner) if !rest.is_empty() => self.walk_names(inner, rest, depth + 1),
            // `Type::method`, `Enum::Variant`: the item is the type.
            target => Some(target),
        }
    }

    fn lookup(&self, module: usize, name: &str, more: bool, depth: usize) -> Option<Target> {
        let entry = &self.modules[module];
        let mut found = Vec::new();
        for meaning in entry.names.get(name).into_iter().flatten() {
            let target = match meaning {
                Name::Item => Some(Target::Item(module)),
                Name::Module(inner) => Some(Target::Module(*inner)),
                Name::Alias(path) => self.walk(module, path, depth + 1),
            };
            found.extend(target);
        }
        if found.is_empty() {
            for glob in &entry.globs {
                if let Some(Target::Module(source)) = self.walk(module, glob, depth + 1) {
                    found.extend(self.lookup(source, name, more, depth + 1));
                }
            }
        }
        // A name in two namespaces (`mod x` and `fn x`): a path going on goes through the module.
        let preferred = found
            .iter()
            .position(|target| matches!(target, Target::Module(_)) == more);
        match preferred {
            Some(index) => Some(found.swap_remove(index)),
            None => found.into_iter().next(),
        }
    }
}

#[derive(Debug)]
enum Target {
    /// An item defined in this module.
    Item(usize),
    Module(usize),
}

/// The imports of a `use` tree: each full path, with the name it binds (`None` for a glob).
fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten_use(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let ident = name.ident.to_string();
            if ident == "self" {
                let bound = prefix.last().cloned();
                out.push((prefix.clone(), bound));
            } else {
                let mut path = prefix.clone();
                path.push(ident.clone());
                out.push((path, Some(ident)));
            }
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            let ident = rename.ident.to_string();
            if ident != "self" {
                path.push(ident);
            }
            let bound = rename.rename.to_string();
            out.push((path, (bound != "_").then_some(bound)));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                flatten_use(tree, prefix, out);
            }
        }
    }
}

/// The paths starting with `crate`, `super` or `self` in an item, and the `use`s in its
/// bodies; inline modules are read as modules of their own, visibilities (`pub(crate)`) are
/// not names, and a macro's arguments count when they parse as expressions.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_use(&mut self, import: &'ast syn::ItemUse) {
        let mut imports = Vec::new();
        flatten_use(&import.tree, &mut Vec::new(), &mut imports);
        self.found.extend(imports.into_iter().map(|(path, _)| path));
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        let anchored = segments
            .first()
            .is_some_and(|first| matches!(first.as_str(), "crate" | "super" | "self"));
        if path.leading_colon.is_none() && anchored && segments.len() > 1 {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
        // A `macro_rules!` body is a pattern, not code of this module.
        if item.ident.is_none() {
            self.visit_macro(&item.mac);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let arguments = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        if let Ok(arguments) = arguments {
            let mut inner = Paths::default();
            for argument in &arguments {
                inner.visit_expr(argument);
            }
            self.found.extend(inner.found);
        }
    }
}
