//! [`NameIndex`]: every name and alias of a list of tools, to the tool's position in the list.
//! The one index behind both the [`Registry`](crate::Registry) and a
//! [`Toolset`](crate::Toolset), so the two agree on what a valid, free name is.

use rustc_hash::FxHashMap;

use crate::definition::spec::{ToolSpec, is_valid_tool_name};

/// Why a tool cannot have a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clash {
    /// The name breaks `^[a-zA-Z0-9_-]{1,64}$`.
    Invalid,
    /// The tool at this position has the name already.
    TakenBy(usize),
}

/// Names and aliases to positions.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameIndex {
    // Names are the tools' own, not attacker-chosen keys: a fast hash is safe here.
    positions: FxHashMap<String, usize>,
}

impl NameIndex {
    /// The index of `specs`, in order: each name goes to the first tool that claims it. Every
    /// name that cannot be indexed is handed to `clash` with the claiming tool's position.
    pub(crate) fn build<'a>(
        specs: impl IntoIterator<Item = &'a ToolSpec>,
        mut clash: impl FnMut(usize, &'a str, Clash),
    ) -> Self {
        let mut index = NameIndex::default();
        for (position, spec) in specs.into_iter().enumerate() {
            for name in spec.names() {
                match index.check(name) {
                    Ok(()) => {
                        index.positions.insert(name.to_owned(), position);
                    }
                    Err(problem) => clash(position, name, problem),
                }
            }
        }
        index
    }

    /// Whether a tool could take `name` here.
    pub(crate) fn check(&self, name: &str) -> Result<(), Clash> {
        if !is_valid_tool_name(name) {
            return Err(Clash::Invalid);
        }
        match self.positions.get(name) {
            Some(&position) => Err(Clash::TakenBy(position)),
            None => Ok(()),
        }
    }

    /// The position of the tool with this name or alias.
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        self.positions.get(name).copied()
    }

    /// Every name and alias, in no particular order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.positions.keys().map(String::as_str)
    }
}
