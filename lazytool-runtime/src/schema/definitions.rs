//! The local definitions of a root schema (`$defs`, `definitions`) and the references into
//! them (`#/$defs/Name`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::subschemas::subschemas;

/// The root keyword a local definition lives under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Section {
    Defs,
    Definitions,
}

impl Section {
    const ALL: [Self; 2] = [Self::Defs, Self::Definitions];

    fn keyword(self) -> &'static str {
        match self {
            Self::Defs => "$defs",
            Self::Definitions => "definitions",
        }
    }
}

/// Identifies a definition: its section and its decoded name.
pub(super) type DefKey = (Section, String);

/// A `$ref` into a root definition section.
pub(super) struct LocalRef {
    pub(super) key: DefKey,
    /// False for pointers into a definition, such as `#/$defs/Name/properties/field`.
    pub(super) whole: bool,
}

impl LocalRef {
    pub(super) fn of(schema: &Value) -> Option<Self> {
        schema.get("$ref")?.as_str().and_then(Self::parse)
    }

    fn parse(reference: &str) -> Option<Self> {
        let (section, rest) = reference.strip_prefix("#/")?.split_once('/')?;
        let section = Section::ALL.into_iter().find(|s| s.keyword() == section)?;
        let (name, whole) = match rest.split_once('/') {
            Some((name, _)) => (name, false),
            None => (rest, true),
        };
        Some(Self {
            key: (section, decode_pointer_segment(name)?),
            whole,
        })
    }
}

/// Decodes a JSON Pointer segment in URI fragment form (percent-encoding, then `~1` and `~0`),
/// as schemars encodes definition names.
fn decode_pointer_segment(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| segment.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        if let Some(byte) = escaped {
            decoded.push(byte);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(decoded).ok()?;
    Some(decoded.replace("~1", "/").replace("~0", "~"))
}

/// Calls `f` with every local reference in `schema` and its subschemas.
pub(super) fn visit_local_refs(schema: &Value, f: &mut impl FnMut(LocalRef)) {
    if let Some(reference) = LocalRef::of(schema) {
        f(reference);
    }
    for child in subschemas(schema) {
        visit_local_refs(child, f);
    }
}

/// The definition sections taken out of a root schema.
pub(super) struct Defs {
    sections: Vec<(Section, Map<String, Value>)>,
}

impl Defs {
    /// Takes every object-valued definition section out of `root`, leaving `null` in its place
    /// so that [`Defs::restore_into`] can put the kept definitions back at the same position.
    pub(super) fn take_from(root: &mut Map<String, Value>) -> Self {
        let sections = Section::ALL
            .into_iter()
            .filter_map(|section| match root.get_mut(section.keyword()) {
                Some(Value::Object(defs)) => Some((section, std::mem::take(defs))),
                _ => None,
            })
            .collect::<Vec<_>>();
        for (section, _) in &sections {
            root.insert(section.keyword().to_owned(), Value::Null);
        }
        Self { sections }
    }

    pub(super) fn get(&self, (section, name): &DefKey) -> Option<&Value> {
        self.sections
            .iter()
            .find(|(s, _)| s == section)
            .and_then(|(_, defs)| defs.get(name))
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = DefKey> + '_ {
        self.sections
            .iter()
            .flat_map(|(section, defs)| defs.keys().map(|name| (*section, name.clone())))
    }

    /// Puts back, in their original order, the definitions of `kept`; drops empty sections.
    pub(super) fn restore_into(
        &self,
        root: &mut Map<String, Value>,
        mut kept: HashMap<DefKey, Value>,
    ) {
        for (section, defs) in &self.sections {
            let restored = defs
                .keys()
                .filter_map(|name| {
                    let body = kept.remove(&(*section, name.clone()))?;
                    Some((name.clone(), body))
                })
                .collect::<Map<_, _>>();
            if restored.is_empty() {
                root.shift_remove(section.keyword());
            } else {
                root.insert(section.keyword().to_owned(), Value::Object(restored));
            }
        }
    }
}
