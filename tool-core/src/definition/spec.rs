//! What a tool is, as data: [`ToolSpec`] and the classifications derived from the `#[tool]`
//! attribute ([`Effect`], [`ApprovalKind`], [`ResourceArg`]).
//!
//! A spec is plain, immutable data. The `#[tool]` macro builds one in a `static` (no allocation,
//! no work at registration); hand-written tools build one at run time with [`ToolSpec::new`] and
//! its builder methods. Everything the coordinator derives about a tool — whether it may run in
//! plan mode, what it asks approval for, what runs in parallel — is read from here, never from a
//! list of tool names.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::definition::tool::RequiredState;

/// What running a tool does to the world, from the `#[tool]` attribute.
///
/// `read_only` gives [`Effect::ReadOnly`], `destructive` gives [`Effect::Destructive`], and a tool
/// with neither is [`Effect::Mutating`]. A tool with `read_only_if` is `Mutating` in its spec and
/// read-only for the calls its classifier accepts (see [`Prepared::effect`](crate::tool::Prepared::effect)).
///
/// ```
/// use tool_core::spec::{Effect, ToolSpec};
///
/// let delete = ToolSpec::new("delete_file", "Delete a file.").destructive();
/// assert_eq!(delete.effect, Effect::Destructive);
/// assert!(!delete.effect.is_read_only());
/// assert_eq!(delete.effect.to_string(), "destructive");
///
/// // Neither `read_only` nor `destructive`: mutating.
/// assert_eq!(ToolSpec::new("write_file", "Write a file.").effect, Effect::Mutating);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Reads only: safe to run in plan mode, in parallel, and without approval by default.
    ReadOnly,
    /// Changes state (writes a file, runs a command), but can be redone or undone.
    Mutating,
    /// May destroy data (delete, overwrite, force-push).
    Destructive,
}

impl Effect {
    /// `true` for [`Effect::ReadOnly`].
    #[must_use]
    pub const fn is_read_only(self) -> bool {
        matches!(self, Effect::ReadOnly)
    }

    /// The lowercase name used in messages and exports: `read_only`, `mutating`, `destructive`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Effect::ReadOnly => "read_only",
            Effect::Mutating => "mutating",
            Effect::Destructive => "destructive",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a call of the tool gets approved.
///
/// `self_approving` in `#[tool]` (or [`ToolSpec::self_approving`]) gives
/// [`ApprovalKind::SelfApproving`]; every other tool is [`ApprovalKind::Policy`].
///
/// ```
/// use tool_core::spec::{ApprovalKind, ToolSpec};
///
/// let present_plan = ToolSpec::new("present_plan", "Show the plan and wait for the user.")
///     .self_approving();
/// assert_eq!(present_plan.approval, ApprovalKind::SelfApproving);
/// assert_eq!(ToolSpec::new("write_file", "Write a file.").approval, ApprovalKind::Policy);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalKind {
    /// The coordinator's policy decides, and asks the user when it says so.
    #[default]
    Policy,
    /// The tool runs its own approval flow (like a plan-presentation tool): the policy does not
    /// ask for it, unless a user's ask rule names it.
    SelfApproving,
}

/// The kind of resource an argument names.
///
/// `#[tool]` derives it from the argument's type or its `#[arg(..)]` marker:
///
/// ```
/// use tool_core::{tool, Registry, WorkspacePath, spec::ResourceKind};
///
/// /// Count the lines of a file.
/// #[tool(read_only, name = "doc_resourcekind_count_lines")]
/// fn count_lines(path: WorkspacePath) -> Result<usize, std::io::Error> {
///     Ok(std::fs::read_to_string(path)?.lines().count())
/// }
///
/// let spec = Registry::global().get("doc_resourcekind_count_lines").unwrap().spec();
/// assert_eq!(spec.resources[0].name, "path");
/// assert_eq!(spec.resources[0].kind, ResourceKind::Path);
/// assert_eq!(ResourceKind::Path.as_str(), "path");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A file-system path: `#[arg(path)]` or a `WorkspacePath` argument.
    Path,
    /// A URL: `#[arg(url)]` or a `WebUrl` argument.
    Url,
    /// A shell command line: `#[arg(command)]`.
    Command,
}

impl ResourceKind {
    /// The lowercase name: `path`, `url`, `command`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Path => "path",
            ResourceKind::Url => "url",
            ResourceKind::Command => "command",
        }
    }
}

/// An argument that names a resource, as declared by the tool.
///
/// Hand-written tools declare theirs on the spec, so the policy's path, URL and command rules
/// apply to them:
///
/// ```
/// use tool_core::spec::{ResourceArg, ResourceKind, ToolSpec};
///
/// let fetch = ToolSpec::new("fetch_page", "Fetch a web page.")
///     .read_only()
///     .resources([ResourceArg::new("url", ResourceKind::Url)]);
/// assert_eq!(fetch.resources[0], ResourceArg::new("url", ResourceKind::Url));
/// assert_eq!(fetch.resources[0].kind.as_str(), "url");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceArg {
    /// The argument's name as the model sends it (after `rename`).
    pub name: Cow<'static, str>,
    /// What the argument names.
    pub kind: ResourceKind,
}

impl ResourceArg {
    /// A resource argument.
    #[must_use]
    pub const fn new(name: &'static str, kind: ResourceKind) -> Self {
        ResourceArg {
            name: Cow::Borrowed(name),
            kind,
        }
    }
}

/// Where a tool was defined. For `#[tool]` functions, filled in from `file!()`, `line!()`,
/// `module_path!()` and the crate name; for hand-written tools, by [`ToolSpec::located`].
/// Error messages about clashing names show it as `file:line`.
///
/// ```
/// use tool_core::spec::{SourceLocation, ToolSpec};
///
/// let spec = ToolSpec::new("lookup_user", "Find a user by email.")
///     .located(SourceLocation::new("my_tools", "my_tools::crm", "src/crm.rs", 42));
/// assert_eq!(spec.location.to_string(), "src/crm.rs:42");
///
/// // Without `located`, nothing is known about the source.
/// let made_at_run_time = ToolSpec::new("lookup_user", "Find a user by email.");
/// assert_eq!(made_at_run_time.location, SourceLocation::runtime());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    /// The crate the tool lives in (`CARGO_CRATE_NAME`).
    pub crate_name: Cow<'static, str>,
    /// The module path of the tool function.
    pub module: Cow<'static, str>,
    /// The source file.
    pub file: Cow<'static, str>,
    /// The line of the `#[tool]` attribute's item.
    pub line: u32,
}

impl SourceLocation {
    /// Where a tool was defined.
    #[must_use]
    pub const fn new(
        crate_name: &'static str,
        module: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        SourceLocation {
            crate_name: Cow::Borrowed(crate_name),
            module: Cow::Borrowed(module),
            file: Cow::Borrowed(file),
            line,
        }
    }

    /// The location of a tool made at run time, with nothing known about its source.
    #[must_use]
    pub const fn runtime() -> Self {
        SourceLocation::new("", "", "<runtime>", 0)
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The hints the Model Context Protocol carries in a tool's `annotations`, derived from the spec
/// in this one place (see [`ToolSpec::annotations`]).
///
/// ```
/// use tool_core::spec::ToolSpec;
///
/// let read_file = ToolSpec::new("read_file", "Read a file.").read_only().title("Read file");
/// let annotations = read_file.annotations();
/// // A read-only tool is idempotent and never destructive.
/// assert!(annotations.read_only_hint && annotations.idempotent_hint);
/// assert!(!annotations.destructive_hint);
/// assert_eq!(
///     serde_json::to_value(&annotations).unwrap(),
///     serde_json::json!({
///         "title": "Read file",
///         "readOnlyHint": true,
///         "destructiveHint": false,
///         "idempotentHint": true,
///         "openWorldHint": true,
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(clippy::struct_field_names)]
pub struct ToolAnnotations {
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    pub read_only_hint: bool,
    /// The tool may perform destructive updates, not only additive ones (meaningful only when
    /// not read-only).
    pub destructive_hint: bool,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent_hint: bool,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: bool,
}

/// Everything known about a tool, apart from its schemas.
///
/// Built by `#[tool]` for annotated functions; hand-written tools use [`ToolSpec::new`]:
///
/// ```
/// use tool_core::{spec::{Effect, ToolSpec}};
///
/// let spec = ToolSpec::new("lookup_user", "Find a user by email.")
///     .read_only()
///     .tags(["crm"]);
/// assert_eq!(spec.effect, Effect::ReadOnly);
/// assert!(spec.idempotent);
/// ```
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name the model calls the tool by; matches `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: Cow<'static, str>,
    /// A human-readable title.
    pub title: Option<Cow<'static, str>>,
    /// What the tool does, for the model.
    pub description: Cow<'static, str>,
    /// What running the tool does to the world.
    pub effect: Effect,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches outside the workspace (network, external services).
    pub open_world: bool,
    /// Other names the tool answers to (`Read`, `Bash`), so existing permission rules apply.
    pub aliases: Cow<'static, [Cow<'static, str>]>,
    /// Free-form labels used to select toolsets.
    pub tags: Cow<'static, [Cow<'static, str>]>,
    /// The arguments that name resources (paths, URLs, commands).
    pub resources: Cow<'static, [ResourceArg]>,
    /// How calls get approved.
    pub approval: ApprovalKind,
    /// The longest a call may run, from `timeout_ms`.
    pub timeout: Option<Duration>,
    /// The tool has a per-call classifier (`read_only_if`).
    pub classified_per_call: bool,
    /// Where the tool was defined.
    pub location: SourceLocation,
    /// The state a tool written as a method runs on, read by [`Tool::required_state`]'s
    /// default: `#[tools]` fills it in the spec's `static`, which spares each method a function.
    ///
    /// [`Tool::required_state`]: crate::Tool::required_state
    #[serde(skip)]
    pub(crate) required_state: &'static [RequiredState],
}

impl ToolSpec {
    /// A mutating, open-world tool with the given name and description. The name is checked when
    /// the tool is added to a [`Toolset`](crate::Toolset).
    #[must_use]
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            title: None,
            description: description.into(),
            effect: Effect::Mutating,
            idempotent: false,
            open_world: true,
            aliases: Cow::Borrowed(&[]),
            tags: Cow::Borrowed(&[]),
            resources: Cow::Borrowed(&[]),
            approval: ApprovalKind::Policy,
            timeout: None,
            classified_per_call: false,
            location: SourceLocation::runtime(),
            required_state: &[],
        }
    }

    /// Marks the tool read-only, which implies idempotent and not destructive.
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.effect = Effect::ReadOnly;
        self.idempotent = true;
        self
    }

    /// Marks the tool destructive.
    #[must_use]
    pub fn destructive(mut self) -> Self {
        self.effect = Effect::Destructive;
        self
    }

    /// Marks the tool idempotent.
    #[must_use]
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Marks the tool closed-world: it touches nothing outside the workspace.
    #[must_use]
    pub fn closed_world(mut self) -> Self {
        self.open_world = false;
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the aliases.
    #[must_use]
    pub fn aliases<I, S>(mut self, aliases: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.aliases = aliases
            .into_iter()
            .map(Into::into)
            .collect::<Vec<_>>()
            .into();
        self
    }

    /// Sets the tags.
    #[must_use]
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.tags = tags.into_iter().map(Into::into).collect::<Vec<_>>().into();
        self
    }

    /// Declares the resource arguments.
    #[must_use]
    pub fn resources(mut self, resources: impl IntoIterator<Item = ResourceArg>) -> Self {
        self.resources = resources.into_iter().collect::<Vec<_>>().into();
        self
    }

    /// Marks the tool self-approving: it is never asked for.
    #[must_use]
    pub fn self_approving(mut self) -> Self {
        self.approval = ApprovalKind::SelfApproving;
        self
    }

    /// Sets the timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the source location.
    #[must_use]
    pub fn located(mut self, location: SourceLocation) -> Self {
        self.location = location;
        self
    }

    /// Every name the tool answers to: its name, then its aliases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_ref()).chain(self.aliases.iter().map(AsRef::as_ref))
    }

    /// `true` if the tool answers to `name`, by its name or an alias.
    #[must_use]
    pub fn answers_to(&self, name: &str) -> bool {
        self.names().any(|candidate| candidate == name)
    }

    /// `true` if the tool carries the tag.
    #[must_use]
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// The MCP annotations, derived from the effect class: a read-only tool is never destructive
    /// and always idempotent. Any other tool is destructive to MCP: `destructiveHint: false`
    /// promises "only additive updates", which [`Effect::Mutating`] (a change that can be
    /// redone or undone: a file written, a command run) does not, and clients may approve
    /// such a tool without asking. It is also the protocol's default.
    ///
    /// ```
    /// use tool_core::spec::ToolSpec;
    ///
    /// let write = ToolSpec::new("write_file", "Write a file.").closed_world();
    /// let annotations = write.annotations();
    /// assert!(!annotations.read_only_hint && annotations.destructive_hint);
    /// assert!(!annotations.open_world_hint);
    /// ```
    #[must_use]
    pub fn annotations(&self) -> ToolAnnotations {
        let read_only = self.effect.is_read_only();
        ToolAnnotations {
            title: self.title.as_ref().map(ToString::to_string),
            read_only_hint: read_only,
            destructive_hint: !read_only,
            idempotent_hint: read_only || self.idempotent,
            open_world_hint: self.open_world,
        }
    }
}

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the intersection of every provider's rule.
///
/// ```
/// assert!(tool_core::spec::is_valid_tool_name("read_file"));
/// assert!(!tool_core::spec::is_valid_tool_name("read file"));
/// ```
#[must_use]
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The parts of a spec (all `Copy`, so a `const fn` can take them apart), for generated code: the macro builds a `static` spec through
/// [`ToolSpec::from_parts`] so that `ToolSpec` can stay `#[non_exhaustive]`.
#[doc(hidden)]
pub struct SpecParts {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub effect: Effect,
    pub idempotent: bool,
    pub open_world: bool,
    pub aliases: &'static [Cow<'static, str>],
    pub tags: &'static [Cow<'static, str>],
    pub resources: &'static [ResourceArg],
    pub approval: ApprovalKind,
    pub timeout_ms: Option<u64>,
    pub classified_per_call: bool,
    pub crate_name: &'static str,
    pub module: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub required_state: &'static [RequiredState],
}

impl ToolSpec {
    #[doc(hidden)]
    #[must_use]
    pub const fn from_parts(parts: SpecParts) -> Self {
        let SpecParts {
            name,
            title,
            description,
            effect,
            idempotent,
            open_world,
            aliases,
            tags,
            resources,
            approval,
            timeout_ms,
            classified_per_call,
            crate_name,
            module,
            file,
            line,
            required_state,
        } = parts;
        ToolSpec {
            name: Cow::Borrowed(name),
            title: match title {
                Some(title) => Some(Cow::Borrowed(title)),
                None => None,
            },
            description: Cow::Borrowed(description),
            effect,
            idempotent,
            open_world,
            aliases: Cow::Borrowed(aliases),
            tags: Cow::Borrowed(tags),
            resources: Cow::Borrowed(resources),
            approval,
            timeout: match timeout_ms {
                Some(ms) => Some(Duration::from_millis(ms)),
                None => None,
            },
            classified_per_call,
            location: SourceLocation::new(crate_name, module, file, line),
            required_state,
        }
    }
}
