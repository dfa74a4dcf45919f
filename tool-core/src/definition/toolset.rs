//! [`Toolset`]: the tools one coordinator offers — a selection from the registry (all, by
//! names, tags, crate, effect or a predicate) plus tools added at run time — and why one could
//! not be made ([`ToolsetError`]).

use std::fmt;
use std::sync::Arc;

use crate::definition::names::{Clash, NameIndex};
use crate::definition::registry::Registry;
use crate::definition::schema::dialect::{Dialect, Export, ExportCache, export_toolset};
use crate::definition::spec::{Effect, SourceLocation, ToolSpec};
use crate::definition::suggest::{DidYouMean, closest};
use crate::definition::tool::ToolHandle;

/// A set of tools, sorted by name, answering to their names and aliases.
///
/// ```
/// use tool_core::{tool, Toolset, spec::Effect};
///
/// /// Say hello.
/// #[tool(read_only, name = "doc_toolset_hello", tags("greeting"))]
/// fn hello() -> &'static str { "hello" }
///
/// let greetings = Toolset::tagged("greeting");
/// assert!(greetings.get("doc_toolset_hello").is_some());
/// assert!(Toolset::with_effect(Effect::ReadOnly).get("doc_toolset_hello").is_some());
///
/// let error = Toolset::named(["doc_toolset_helo"]).unwrap_err();
/// assert!(error.to_string().contains("did you mean `doc_toolset_hello`?"));
/// ```
#[derive(Clone, Default)]
pub struct Toolset {
    tools: Vec<ToolHandle>,
    index: NameIndex,
    /// Each tool's export in each dialect, made on first use.
    exports: ExportCache,
    /// The tools taken out with [`Toolset::withhold`]: their names and aliases, and why.
    withheld: Vec<(Vec<String>, Arc<str>)>,
    /// The tools put in by name ([`Toolset::named`], [`Toolset::add`]) rather than chosen by
    /// a selection ([`Toolset::all`], [`Toolset::tagged`], ...): a coordinator that cannot run
    /// one of these is an error, while a selected one is left out.
    by_name: Vec<String>,
}

impl Toolset {
    /// No tools.
    #[must_use]
    pub fn empty() -> Self {
        Toolset::default()
    }

    /// Every linked tool.
    ///
    /// # Panics
    /// When the registry is invalid (see [`Registry::global`]).
    #[must_use]
    pub fn all() -> Self {
        Toolset::matching(|_| true)
    }

    /// The linked tools with these names or aliases.
    ///
    /// # Errors
    /// When a name matches no linked tool; the error suggests the closest names.
    pub fn named<I, S>(names: I) -> Result<Self, ToolsetError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let registry = Registry::global();
        let mut set = Toolset::empty();
        for name in names {
            let name = name.as_ref();
            let tool = registry.get(name).ok_or_else(|| ToolsetError::Unknown {
                name: name.to_owned(),
                suggestions: closest(
                    name,
                    registry.iter().map(|tool| tool.spec().name.as_ref()),
                    3,
                )
                .into_iter()
                .map(str::to_owned)
                .collect(),
            })?;
            if !set.contains(&tool.spec().name) {
                set.insert(ToolHandle::Static(tool))?;
                set.by_name.push(tool.spec().name.to_string());
            }
        }
        Ok(set)
    }

    /// The linked tools carrying the tag.
    #[must_use]
    pub fn tagged(tag: &str) -> Self {
        Toolset::matching(|spec| spec.has_tag(tag))
    }

    /// The linked tools defined in the crate (by its name as in `CARGO_CRATE_NAME`: `my_tools`).
    #[must_use]
    pub fn from_crate(crate_name: &str) -> Self {
        Toolset::matching(|spec| spec.location.crate_name == crate_name)
    }

    /// The linked tools of this effect class.
    #[must_use]
    pub fn with_effect(effect: Effect) -> Self {
        Toolset::matching(|spec| spec.effect == effect)
    }

    /// The linked tools whose spec satisfies the predicate.
    #[must_use]
    pub fn matching(predicate: impl Fn(&ToolSpec) -> bool) -> Self {
        let tools: Vec<ToolHandle> = Registry::global()
            .iter()
            .filter(|tool| predicate(tool.spec()))
            .map(ToolHandle::Static)
            .collect();
        // The registry already checked names and uniqueness, and is sorted.
        let mut set = Toolset {
            tools,
            index: NameIndex::default(),
            exports: ExportCache::default(),
            withheld: Vec::new(),
            by_name: Vec::new(),
        };
        set.reindex();
        set
    }

    /// Adds a tool made at run time (or any tool), checking its name.
    ///
    /// # Errors
    /// When its name or an alias is invalid or already taken in this set.
    pub fn add(&mut self, tool: impl Into<ToolHandle>) -> Result<(), ToolsetError> {
        let tool = tool.into();
        let name = tool.spec().name.to_string();
        self.insert(tool)?;
        self.by_name.push(name);
        Ok(())
    }

    /// Adds a tool, by value, for chaining.
    ///
    /// # Errors
    /// As for [`Toolset::add`].
    pub fn with(mut self, tool: impl Into<ToolHandle>) -> Result<Self, ToolsetError> {
        self.add(tool)?;
        Ok(self)
    }

    /// Adds every tool of another set.
    ///
    /// # Errors
    /// As for [`Toolset::add`]; a tool already in this set (the same name from the same place)
    /// is skipped, not an error.
    pub fn union(mut self, other: Toolset) -> Result<Self, ToolsetError> {
        self.by_name.extend(other.by_name);
        for tool in other.tools {
            if let Some(existing) = self.get(&tool.spec().name)
                && existing.spec().location == tool.spec().location
            {
                continue;
            }
            self.insert(tool)?;
        }
        Ok(self)
    }

    /// Whether the tool with this (canonical) name was put in by name ([`Toolset::named`],
    /// [`Toolset::add`], [`Toolset::with`]) rather than by a selection.
    pub(crate) fn holds_by_name(&self, name: &str) -> bool {
        self.by_name.iter().any(|held| held == name)
    }

    /// Removes the tool with this name or alias, returning it.
    pub fn remove(&mut self, name: &str) -> Option<ToolHandle> {
        let position = self.index.get(name)?;
        let removed = self.tools.remove(position);
        self.reindex();
        Some(removed)
    }

    /// Removes the tool with this name or alias, as [`Toolset::remove`] does, and keeps
    /// `reason`: a call of it by any of its names is then told why it is not here
    /// ([`ToolError::Unavailable`](crate::ToolError::Unavailable)), not that no such tool
    /// exists, and offered the names of others. Adding a tool of that name again ends it.
    ///
    /// ```
    /// use tool_core::{tool, Toolset};
    ///
    /// /// Write a note.
    /// #[tool(name = "doc_withhold_write", aliases("DocWrite"))]
    /// fn write(text: String) -> String { text }
    ///
    /// let mut toolset = Toolset::named(["doc_withhold_write"]).unwrap();
    /// toolset.withhold("doc_withhold_write", "this server serves only read-only tools");
    /// assert!(!toolset.contains("doc_withhold_write"));
    /// assert_eq!(toolset.withheld("DocWrite"), Some("this server serves only read-only tools"));
    /// ```
    pub fn withhold(&mut self, name: &str, reason: impl Into<String>) -> Option<ToolHandle> {
        let removed = self.remove(name)?;
        let names = removed.spec().names().map(str::to_owned).collect();
        self.withheld.push((names, Arc::from(reason.into())));
        Some(removed)
    }

    /// Why the tool with this name or alias was withheld ([`Toolset::withhold`]), if it was
    /// and has not been added again.
    #[must_use]
    pub fn withheld(&self, name: &str) -> Option<&str> {
        self.withheld
            .iter()
            .find(|(names, _)| names.iter().any(|withheld| withheld == name))
            .map(|(_, reason)| &**reason)
    }

    /// The tool with this name or alias.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&ToolHandle> {
        self.index.get(name).map(|position| &self.tools[position])
    }

    /// `true` if a tool answers to this name or alias.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.index.get(name).is_some()
    }

    /// The tools, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ToolHandle> {
        self.tools.iter()
    }

    /// How many tools there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// `true` if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The names closest to `name`, best first, for "did you mean" messages.
    #[must_use]
    pub fn suggest(&self, name: &str) -> Vec<String> {
        closest(name, self.index.names(), 3)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn insert(&mut self, tool: ToolHandle) -> Result<(), ToolsetError> {
        let spec = tool.spec();
        // A tool answering to a withheld name is back: that name is no longer explained away.
        self.withheld
            .retain(|(names, _)| !names.iter().any(|name| spec.answers_to(name)));
        for name in spec.names() {
            match self.index.check(name) {
                Ok(()) => {}
                Err(Clash::Invalid) => {
                    return Err(ToolsetError::InvalidName {
                        name: name.to_string(),
                    });
                }
                Err(Clash::TakenBy(position)) => {
                    return Err(ToolsetError::Duplicate {
                        name: name.to_string(),
                        existing: Box::new(self.tools[position].spec().location.clone()),
                        added: Box::new(spec.location.clone()),
                    });
                }
            }
        }
        let position = self
            .tools
            .partition_point(|existing| existing.spec().name < spec.name);
        self.tools.insert(position, tool);
        self.reindex();
        Ok(())
    }

    fn reindex(&mut self) {
        // Every name was checked as its tool came in (or by the registry): nothing clashes.
        self.index = NameIndex::build(self.tools.iter().map(|tool| tool.spec()), |_, _, _| {});
        // The tools changed: exports made for the old list no longer apply.
        self.exports = ExportCache::default();
    }

    /// The tools declared in a provider's [`Dialect`], with what the dialect could not express
    /// and the names to map calls back (see [`Export`]). Each tool's declaration is made once
    /// per dialect and kept until the set changes. A tool the dialect cannot declare is left
    /// out and reported ([`ExportProblem::Refused`](crate::schema::ExportProblem::Refused)).
    ///
    /// ```
    /// use tool_core::schema::{Dialect, ExportProblem, OpenAiApi};
    /// use tool_core::{tool, Toolset};
    /// use std::collections::HashMap;
    ///
    /// /// Set environment variables.
    /// ///
    /// /// # Arguments
    /// /// * `vars` - Names and values.
    /// #[tool(name = "doc_toolset_setenv")]
    /// fn setenv(vars: HashMap<String, String>) -> usize { vars.len() }
    ///
    /// let toolset = Toolset::named(["doc_toolset_setenv"]).unwrap();
    /// let strict = Dialect::OpenAi { strict: true, api: OpenAiApi::Responses };
    /// // An open map cannot be strict: left out, with the reason.
    /// let export = toolset.export(strict);
    /// assert!(export.tools.is_empty());
    /// assert!(matches!(&export.problems[0], ExportProblem::Refused { reason, .. } if reason.contains("open map")));
    /// // Asked for, it goes non-strict (said explicitly: the responses API defaults to strict).
    /// let export = toolset.export_with_non_strict_fallback(strict);
    /// assert_eq!(export.tools[0]["strict"], false);
    /// ```
    #[must_use]
    pub fn export(&self, dialect: Dialect) -> Export {
        export_toolset(&self.tools, &self.exports, dialect, false)
    }

    /// As [`Toolset::export`], but a tool that cannot be strict in a strict dialect is
    /// declared without strict mode rather than left out, and reported as
    /// [`ExportProblem::NonStrict`](crate::schema::ExportProblem::NonStrict).
    #[must_use]
    pub fn export_with_non_strict_fallback(&self, dialect: Dialect) -> Export {
        export_toolset(&self.tools, &self.exports, dialect, true)
    }
}

impl fmt::Debug for Toolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|tool| &tool.spec().name))
            .finish()
    }
}

/// Why a toolset could not be made.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsetError {
    /// A selected name matches no linked tool.
    #[error("no linked tool is named `{name}`{}", DidYouMean(suggestions))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The closest linked names.
        suggestions: Vec<String>,
    },
    /// Two tools of the set claim a name.
    #[error(
        "the tool name `{name}` is taken: by the tool at {existing}, and again by the tool at {added}"
    )]
    Duplicate {
        /// The contested name.
        name: String,
        /// Where the tool already in the set is defined.
        existing: Box<SourceLocation>,
        /// Where the added tool is defined.
        added: Box<SourceLocation>,
    },
    /// A tool's name or alias breaks `^[a-zA-Z0-9_-]{1,64}$`.
    #[error("the tool name `{name}` is invalid: names must match ^[a-zA-Z0-9_-]{{1,64}}$")]
    InvalidName {
        /// The name.
        name: String,
    },
}
