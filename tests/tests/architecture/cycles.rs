//! Cycles between files: the strongly connected components of the "names an item of" graph
//! (Tarjan), each shown as its files and one shortest chain through them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;

use crate::module_graph::Link;

/// Files that name each other's items, directly or through others.
#[derive(Debug)]
pub struct Cycle {
    /// Sorted.
    pub files: Vec<PathBuf>,
    /// From the first file back to it: each link's `from` is the previous link's `to`.
    pub chain: Vec<Link>,
}

impl Cycle {
    /// `a.rs -(crate::b::Item)-> b.rs -(super::a::f)-> a.rs`.
    pub fn describe(&self) -> String {
        let mut text = self
            .chain
            .first()
            .map(|link| link.from.display().to_string())
            .unwrap_or_default();
        for link in &self.chain {
            text.push_str(&format!(" -({})-> {}", link.item, link.to.display()));
        }
        let files: Vec<String> = self
            .files
            .iter()
            .map(|file| file.display().to_string())
            .collect();
        format!("{text}\n    (files in this cycle: {})", files.join(", "))
    }
}

pub fn cycles(links: &[Link]) -> Vec<Cycle> {
    let mut next: BTreeMap<&PathBuf, Vec<&Link>> = BTreeMap::new();
    for link in links {
        next.entry(&link.from).or_default().push(link);
        next.entry(&link.to).or_default();
    }
    let mut tarjan = Tarjan {
        next: &next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for file in next.keys() {
        if !tarjan.index.contains_key(file) {
            tarjan.visit(file);
        }
    }
    let mut found: Vec<Cycle> = tarjan
        .components
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut files: Vec<PathBuf> = component.into_iter().cloned().collect();
            files.sort();
            let chain = shortest_chain(&next, &files);
            Cycle { files, chain }
        })
        .collect();
    found.sort_by(|a, b| a.files.cmp(&b.files));
    found
}

struct Tarjan<'a> {
    next: &'a BTreeMap<&'a PathBuf, Vec<&'a Link>>,
    index: BTreeMap<&'a PathBuf, usize>,
    low: BTreeMap<&'a PathBuf, usize>,
    stack: Vec<&'a PathBuf>,
    on_stack: BTreeSet<&'a PathBuf>,
    components: Vec<Vec<&'a PathBuf>>,
}

impl<'a> Tarjan<'a> {
    fn visit(&mut self, file: &'a PathBuf) {
        let index = self.index.len();
        self.index.insert(file, index);
        self.low.insert(file, index);
        self.stack.push(file);
        self.on_stack.insert(file);
        for link in self.next.get(file).into_iter().flatten() {
            let to = &link.to;
            if !self.index.contains_key(to) {
                self.visit(to);
                let low = self.low[file].min(self.low[to]);
                self.low.insert(file, low);
            } else if self.on_stack.contains(to) {
                let low = self.low[file].min(self.index[to]);
                self.low.insert(file, low);
            }
        }
        if self.low[file] == self.index[file] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack.remove(member);
                component.push(member);
                if member == file {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

/// The shortest way from the first of `files` back to it, staying among `files`.
fn shortest_chain(next: &BTreeMap<&PathBuf, Vec<&Link>>, files: &[PathBuf]) -> Vec<Link> {
    let Some(start) = files.first() else {
        return Vec::new();
    };
    let mut came_by: BTreeMap<&PathBuf, &Link> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(file) = queue.pop_front() {
        for link in next.get(file).into_iter().flatten() {
            if files.binary_search(&link.to).is_err() {
                continue;
            }
            if link.to == *start {
                let mut chain = vec![(*link).clone()];
                let mut at = file;
                while at != start {
                    let Some(previous) = came_by.get(at) else {
                        break;
                    };
                    chain.push((*previous).clone());
                    at = &previous.from;
                }
                chain.reverse();
                return chain;
            }
            if link.to != *start && !came_by.contains_key(&link.to) {
                came_by.insert(&link.to, link);
                queue.push_back(&link.to);
            }
        }
    }
    Vec::new()
}
