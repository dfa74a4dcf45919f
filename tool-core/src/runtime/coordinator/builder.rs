//! [`CoordinatorBuilder`]: what a coordinator is built from, and the one place where
//! settings, policy, grants, hooks and middleware are put together, once, at `build()`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use super::{BatchOptions, Coordinator, Inner, LiveToolset};
use crate::definition::context::{CancellationToken, ProgressSink, SharedContext};
use crate::runtime::approval::{Approver, GrantsFile};
use crate::runtime::budget::Budget;
use crate::runtime::events::{CallEvent, EventSink};
use crate::runtime::hooks::{HookModel, Hooks, McpToolHook, ModelHook};
use crate::runtime::middleware::{Artifacts, CallSpans, Middleware, OutputLimit, Timeout};
use crate::runtime::policy::{
    Mode, PatternSet, PolicyBuilder, PolicyContext, RulePattern, UserRules,
};
use crate::runtime::settings::{Settings, additional_directory};
use crate::{Toolset, Workspace};

/// Why a coordinator could not be built.
///
/// Settings are outside input (a settings file refuses a malformed rule as it is loaded; settings
/// made in code arrive here with it), so their mistakes arrive here, to show the user:
///
/// ```
/// use tool_core::{Coordinator, Toolset, coordinator::BuildError, settings::Settings};
///
/// let mut settings = Settings::default();
/// settings.permissions.allow.push("run_shell(git status".to_owned());
/// let error = Coordinator::builder()
///     .toolset(Toolset::empty())
///     .settings(settings)
///     .build()
///     .unwrap_err();
/// assert!(matches!(error, BuildError::Rule(_)));
/// assert!(error.to_string().contains("`run_shell(git status`: the specifier is not closed"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A permission rule (from settings or the builder) is not valid.
    #[error(transparent)]
    Rule(#[from] crate::runtime::policy::RuleSyntaxError),
    /// The grants file could not be read.
    #[error(transparent)]
    Grants(#[from] crate::runtime::approval::GrantsError),
    /// A workspace directory from the settings cannot be used.
    #[error(transparent)]
    Workspace(#[from] crate::definition::workspace::WorkspaceError),
    /// The settings are wrong: an `additionalDirectories` entry names no directory.
    #[error(transparent)]
    Settings(#[from] crate::runtime::settings::SettingsError),
    /// The registry is invalid (two tools claim a name).
    #[error(transparent)]
    Registry(#[from] crate::definition::registry::RegistryError),
    /// The settings name an `mcp_tool` hook whose tool the toolset does not hold.
    #[error(
        "{origin}: `{location}` is an \"mcp_tool\" hook calling `{tool}`, which is not in the toolset; import the server's tools (tool_core::mcp::client) into the toolset, or remove the hook"
    )]
    HookTool {
        /// The settings file, or `settings`.
        origin: String,
        /// The hook's JSON location.
        location: String,
        /// The tool's name in the toolset, `mcp__<server>__<tool>`.
        tool: String,
    },
    /// The toolset holds a tool written as a method of a type, and the builder was given no
    /// value of that type (`.state(value)`, or `.shared_state(Arc)`) to call it on.
    #[error(
        "the tool `{tool}` is a method of `{type_name}`, and the coordinator has no `{type_name}` to call it on; give it one with `.state(value)` (or `.shared_state(arc)`), or leave the tool out of the toolset"
    )]
    MissingState {
        /// The tool's name.
        tool: String,
        /// The type it is a method of.
        type_name: &'static str,
    },
    /// The settings name a `prompt` or `agent` hook, and the program gave no model to answer it.
    #[error(
        "{origin}: `{location}` is a \"{kind}\" hook, which a model answers, and this program gives none (CoordinatorBuilder::hook_model); remove the hook or give the builder a model"
    )]
    HookModel {
        /// The settings file, or `settings`.
        origin: String,
        /// The hook's JSON location.
        location: String,
        /// `prompt` or `agent`.
        kind: &'static str,
    },
}

/// Configures a [`Coordinator`].
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, Workspace};
/// use tool_core::{budget::{Budget, BudgetConfig}, policy::Policy};
///
/// /// Write a note for later.
/// #[tool(name = "doc_coordinatorbuilder_note")]
/// fn note(text: String) -> String {
///     format!("noted: {text}")
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let budget = Arc::new(Budget::new(BudgetConfig::default()));
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_coordinatorbuilder_note"])?)
///     .workspace(Workspace::new(dir.path())?)
///     // `note` changes state, so the policy would ask; allow it instead.
///     .policy(Policy::builder().allow("doc_coordinatorbuilder_note"))
///     .default_timeout(Duration::from_secs(30))
///     .budget(Arc::clone(&budget))
///     .session_id("session-1")
///     .build()?;
///
/// let result = coordinator.call_blocking(ToolCall::new("doc_coordinatorbuilder_note", r#"{"text": "hi"}"#));
/// assert_eq!(result.text(), "noted: hi");
/// assert_eq!(coordinator.session_id(), "session-1");
/// assert_eq!(budget.status(coordinator.mode())[0].used, 1); // the call was charged
/// # Ok(())
/// # }
/// ```
#[must_use = "a builder does nothing until `.build()`"]
#[derive(Default)]
pub struct CoordinatorBuilder {
    toolset: Option<Toolset>,
    shared: SharedContext,
    policy: Option<PolicyBuilder>,
    settings: Vec<Settings>,
    mode: Option<Mode>,
    allow_list: Option<Vec<String>>,
    approver: Option<Arc<dyn Approver>>,
    grants_file: Option<GrantsFile>,
    hooks: Option<Hooks>,
    hook_model: Option<Arc<dyn HookModel>>,
    middleware: Vec<Arc<dyn Middleware>>,
    default_timeout: Option<Duration>,
    output_limit: Option<(usize, Artifacts)>,
    tracing: bool,
    budget: Option<Arc<Budget>>,
    events: Option<Arc<dyn EventSink>>,
    batch: BatchOptions,
    session_id: Option<String>,
}

impl CoordinatorBuilder {
    /// The tools offered (default: every linked tool, [`Toolset::all`]).
    pub fn toolset(mut self, toolset: Toolset) -> Self {
        self.toolset = Some(toolset);
        self
    }

    /// A state value, reached by tools through a `State<T>` parameter. One value per type; a
    /// second value of the same type replaces the first.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.shared.state.insert(Arc::new(value));
        self
    }

    /// A state value already behind an `Arc`, shared with the caller.
    pub fn shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.shared.state.insert(value);
        self
    }

    /// The workspace tools work in: path arguments are resolved against it, and none may leave
    /// it.
    pub fn workspace(mut self, workspace: Workspace) -> Self {
        self.shared.workspace = Some(workspace);
        self
    }

    /// A token that cancels every running call when cancelled.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.shared.cancellation = token;
        self
    }

    /// Where tools' progress reports go.
    pub fn on_progress(mut self, sink: impl ProgressSink) -> Self {
        self.shared.progress = Some(Arc::new(sink));
        self
    }

    /// The policy's user rules, custom rules and protected paths (default: the built-in layers
    /// only, as [`Policy::default`](crate::policy::Policy::default)). It is built with the coordinator, after the rules of the
    /// [`settings`](Self::settings) are added to it.
    pub fn policy(mut self, policy: PolicyBuilder) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Claude Code style settings: permission rules, default mode, extra workspace
    /// directories and hooks, and our extension's conditional rules (`toolkit.conditions`).
    /// Several calls merge, later ones adding to earlier ones.
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings.push(settings);
        self
    }

    /// The permission mode the session starts in (default: the settings' `defaultMode`, else
    /// [`Mode::Default`]). Change it later with [`Coordinator::set_mode`].
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// A template's allow-list: these tools (names or permission rules) run without asking.
    pub fn allow_list<I, S>(mut self, rules: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_list = Some(rules.into_iter().map(Into::into).collect());
        self
    }

    /// Who answers when the policy asks. Without one, a call that needs approval is denied
    /// with a message saying so.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Where "always" approvals are kept; its grants are loaded at `build()`. Tools see where
    /// it is as `State<GrantsFile>` (run_shell's sandbox keeps commands from reading it).
    pub fn grants_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        let path = path.into();
        self.shared
            .state
            .insert(Arc::new(GrantsFile::new(path.clone())));
        self.grants_file = Some(GrantsFile::new(path));
        self
    }

    /// The model that answers the settings' `prompt` and `agent` hooks. Without one, settings
    /// naming such a hook fail to build ([`BuildError::HookModel`]).
    pub fn hook_model(mut self, model: Arc<dyn HookModel>) -> Self {
        self.hook_model = Some(model);
        self
    }

    /// In-process and command hooks (added to the hooks of the settings).
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// A middleware around every invocation; the first added is the outermost.
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// The longest any call may run when its tool declares no `timeout_ms`.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// Cuts long outputs to `max_chars` (at least 200), keeping head and tail; the whole
    /// output goes to the coordinator's [`Artifacts`] store, which tools reach as
    /// `State<Artifacts>` (every coordinator has one; give your own with
    /// [`state`](Self::state) before this call to choose its size). The note left in the cut
    /// text tells the model to page through it with `read_artifact` when the toolset has that
    /// tool.
    pub fn output_limit(mut self, max_chars: usize) -> Self {
        let artifacts = match self.shared.state.get::<Artifacts>() {
            Some(existing) => Artifacts::clone(&**existing),
            None => Artifacts::default(),
        };
        self.shared.state.insert(Arc::new(artifacts.clone()));
        self.output_limit = Some((max_chars, artifacts));
        self
    }

    /// A tracing span per call, named by the OpenTelemetry GenAI conventions.
    pub fn tracing(mut self) -> Self {
        self.tracing = true;
        self
    }

    /// The session's budgets; shared, so the caller can read its status. Each call that the
    /// policy does not deny is charged once, before any hook or approval.
    pub fn budget(mut self, budget: Arc<Budget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Who watches calls: a closure or a Tokio channel sender receiving [`CallEvent`]s.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// How [`Coordinator::call_batch`] schedules.
    pub fn batch(mut self, options: BatchOptions) -> Self {
        self.batch = options;
        self
    }

    /// The session id hooks receive (default: made from the time and the process id).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Builds the coordinator. Settings and grants files are outside input, so a mistake in
    /// them is an error to show the user, never a panic.
    ///
    /// # Errors
    /// An invalid permission rule in the settings, an unreadable grants file, an
    /// `additionalDirectories` entry that names no directory (relative entries of settings read
    /// from text resolve against the workspace's first root), or an invalid registry (when no
    /// toolset was given).
    pub fn build(mut self) -> Result<Coordinator, BuildError> {
        let mut toolset = match self.toolset.take() {
            Some(toolset) => toolset,
            None => {
                crate::Registry::try_global().map_err(Clone::clone)?;
                Toolset::all()
            }
        };
        // Every coordinator has an artifact store, so a tool that spills its whole output
        // (run_shell) and the tools that page through it (read_artifact) always find one.
        if self.shared.state.get::<Artifacts>().is_none() {
            self.shared.state.insert(Arc::new(Artifacts::default()));
        }
        // A tool written as a method runs on its value: without it the tool could only fail,
        // so a toolset that names it is an error now, and a selection (every linked tool, the
        // default; a tag; a crate) leaves it out, saying why if it is called.
        let unmet: Vec<(String, &'static str)> = toolset
            .iter()
            .flat_map(|tool| {
                let name = tool.spec().name.to_string();
                let state = &self.shared.state;
                tool.required_state()
                    .iter()
                    .filter(|required| !state.meets(required))
                    .map(move |required| (name.clone(), required.type_name()))
            })
            .collect();
        for (tool, type_name) in unmet {
            if toolset.holds_by_name(&tool) {
                return Err(BuildError::MissingState { tool, type_name });
            }
            toolset.withhold(
                &tool,
                format!(
                    "`{tool}` is a method of `{type_name}`, and this coordinator was built without one (CoordinatorBuilder::state)"
                ),
            );
        }
        let mut policy = self.policy.take().unwrap_or_default();
        let mut mode = Mode::Default;
        let mut hooks = Hooks::default();
        for settings in &self.settings {
            policy = policy.permissions(UserRules {
                allow: settings.permissions.allow.clone(),
                ask: settings.permissions.ask.clone(),
                deny: settings.permissions.deny.clone(),
            });
            for condition in &settings.conditions {
                policy = policy.rule(condition.clone());
            }
            for warning in &settings.warnings {
                tracing::warn!(%warning, "a settings entry may allow more than it reads");
            }
            if let Some(default_mode) = settings.permissions.default_mode {
                mode = default_mode;
            }
            hooks.extend(&settings.hooks);
            for spec in &settings.mcp_tool_hooks {
                let name = format!("mcp__{}__{}", spec.server, spec.tool);
                let Some(tool) = toolset.get(&name) else {
                    return Err(BuildError::HookTool {
                        origin: spec.origin.clone(),
                        location: spec.location.clone(),
                        tool: name,
                    });
                };
                hooks.register_shared(
                    spec.event,
                    spec.matcher.clone(),
                    Arc::new(McpToolHook::new(
                        tool.clone(),
                        spec.input.clone(),
                        spec.timeout,
                    )),
                );
            }
            for spec in &settings.model_hooks {
                let Some(model) = &self.hook_model else {
                    return Err(BuildError::HookModel {
                        origin: spec.origin.clone(),
                        location: spec.location.clone(),
                        kind: spec.kind.as_str(),
                    });
                };
                hooks.register_shared(
                    spec.event,
                    spec.matcher.clone(),
                    Arc::new(ModelHook::new(
                        spec.kind,
                        spec.prompt.clone(),
                        spec.model.clone(),
                        spec.timeout,
                        Arc::clone(model),
                    )),
                );
            }
        }
        // The settings' extra directories become roots of the workspace (without a workspace
        // there is nothing to widen).
        // Entries of settings read from text are as written: relative ones belong to the
        // project, the workspace's first root.
        if let Some(mut workspace) = self.shared.workspace.take() {
            let base = workspace.root().to_owned();
            for settings in &self.settings {
                for (index, entry) in settings
                    .permissions
                    .additional_directories
                    .iter()
                    .enumerate()
                {
                    let location = format!("permissions.additionalDirectories[{index}]");
                    let dir = additional_directory(&settings.origin(), &location, entry, &base)?;
                    workspace = workspace.with_root(dir)?;
                }
            }
            self.shared.workspace = Some(workspace);
        }
        if let Some(extra) = self.hooks.take() {
            hooks.extend(&extra);
        }
        // A tool that could write the grants file or the settings could grant itself anything.
        let granting = self.grants_file.iter().map(GrantsFile::path).chain(
            self.settings
                .iter()
                .flat_map(|s| s.files.iter().map(PathBuf::as_path)),
        );
        for file in granting {
            policy = policy.protect(absolute_pattern(file));
        }
        let policy = policy.build()?;
        // The policy's path deny rules hold at the I/O too: a tool that walks reaches files
        // no argument named (see `tool_core::workspace::AccessRules`).
        if let Some(workspace) = self.shared.workspace.take() {
            let workspace = match workspace.access_rules().cloned() {
                // A program's own rules stay; the policy's join them.
                Some(own) => workspace.with_access_rules(crate::runtime::policy::BothRules(
                    own,
                    Arc::new(policy.access_rules()),
                )),
                None => workspace.with_access_rules(policy.access_rules()),
            };
            self.shared.workspace = Some(workspace);
        }
        let mode = self.mode.unwrap_or(mode);
        let mut session = PolicyContext {
            mode,
            ..PolicyContext::default()
        };
        if let Some(allow_list) = &self.allow_list {
            session.allow_list = Some(PatternSet::parse(allow_list)?);
        }
        if let Some(grants_file) = &self.grants_file {
            for rule in grants_file.load()? {
                session.grants = session.grants.with(RulePattern::parse(&rule)?);
            }
        }
        let any_timeout = self.default_timeout.is_some()
            || toolset.iter().any(|tool| tool.spec().timeout.is_some());
        // Outermost first: the spans see everything, the user's middleware sees the timeout's
        // error, and the output limit cuts what the tool returned.
        let mut chain: Vec<Arc<dyn Middleware>> = Vec::new();
        if self.tracing {
            chain.push(Arc::new(CallSpans));
        }
        chain.append(&mut self.middleware);
        if any_timeout {
            chain.push(Arc::new(Timeout::new(self.default_timeout)));
        }
        if let Some((max_chars, artifacts)) = self.output_limit.take() {
            let readable = toolset.get("read_artifact").is_some();
            chain.push(Arc::new(OutputLimit::new(max_chars, artifacts, readable)));
        }
        if let (Some(events), None) = (&self.events, &self.shared.progress) {
            let events = Arc::clone(events);
            self.shared.progress = Some(Arc::new(move |update| {
                events.send(CallEvent::Progress(update));
            }));
        }
        Ok(Coordinator::owning(Inner {
            toolset: Arc::new(LiveToolset::new(toolset)),
            shared: Arc::new(self.shared),
            policy,
            initial_session: Arc::new(session.clone()),
            session: RwLock::new(Arc::new(session)),
            approver: self.approver,
            grants_file: self.grants_file,
            hooks,
            chain: chain.into(),
            budget: self.budget,
            events: self.events,
            batch: self.batch,
            session_id: self.session_id.unwrap_or_else(new_session_id),
            default_timeout: self.default_timeout,
            runtime: OnceLock::new(),
        }))
    }
}

/// A protected-path pattern naming exactly `path`, absolute and with its directory's symlinks
/// followed (as the boundary resolves the paths it is compared with).
fn absolute_pattern(path: &std::path::Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    // The longest existing ancestor, canonical, then the part that does not exist yet.
    let resolved = absolute
        .ancestors()
        .find_map(|ancestor| {
            let canonical = ancestor.canonicalize().ok()?;
            let rest = absolute.strip_prefix(ancestor).ok()?;
            Some(canonical.join(rest))
        })
        .unwrap_or(absolute);
    // `//` anchors the pattern at the file-system root.
    format!("/{}", globset::escape(&resolved.to_string_lossy()))
}

pub(super) fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    format!("session-{}-{nanos:x}", std::process::id())
}
