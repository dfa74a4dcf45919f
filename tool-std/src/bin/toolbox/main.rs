//! `toolbox`: the standard tools (and any others linked in) from the command line: list them,
//! export their schemas in a provider's dialect, call one through the coordinator with a
//! workspace, a mode and settings, check what the dialects would lose, and explain what the
//! policy would decide for a call. `--mcp-config FILE` (on `list`, `call`, `serve` and
//! `policy explain`) imports the tools of the MCP servers a `.mcp.json` names; `call --session
//! NAME` keeps what a call leaves for the next one (`sessions`).
//!
//! Exit codes, for scripts: 0 success; 1 the tool ran and failed, or `check` found problems;
//! 2 a usage error (clap's); 3 the set-up failed (a bad workspace, settings file or tool name).

mod approve;
mod arguments;
mod form;
mod imports;
mod install;
mod keeper;
mod progress;
mod replace;
mod serve;
mod sessions;
mod signals;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use tool_core::approval;
use tool_core::context::CancellationToken;
use tool_core::coordinator::CoordinatorBuilder;
use tool_core::policy::Mode;
use tool_core::schema::{self, Dialect, ExportProblem, GeminiForm, OpenAiApi};
use tool_core::settings::{Settings, SettingsLocations, SettingsScope, SettingsSource};
use tool_core::{Coordinator, ToolCall, ToolResult, Toolset, Workspace};
use tool_std::code::{CodeModeConfig, Isolation};

/// Writes one line to stdout. A reader that went away (`toolbox list | head`) ends the
/// program quietly, as a Unix filter does, instead of a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        out_raw(&format!("{}\n", format_args!($($arg)*)))
    };
}

// The standard tools are this crate's own; linking it registers them.
use tool_std as _;

/// Exit code: the tool ran and failed, or `check` found problems.
const FAILED: u8 = 1;
/// Exit code: the command line was wrong (clap's own code for its usage errors).
const USAGE: u8 = 2;
/// Exit code: the set-up failed (workspace, settings, an unknown tool).
const SETUP: u8 = 3;

#[derive(Parser)]
#[command(
    name = "toolbox",
    version,
    about = "List, export, call and check the tools linked into this program.",
    after_help = "Exit codes: 0 success; 1 the tool failed or `check` found problems; 2 usage error; 3 set-up error (workspace, settings, unknown tool)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the tools: name, effect, aliases and the first line of the description.
    List {
        /// Print JSON (name, title, description, effect, idempotent, open_world, aliases, tags).
        #[arg(long)]
        json: bool,
        /// Also list the tools of the MCP servers this `.mcp.json` names.
        #[arg(long, value_name = "FILE")]
        mcp_config: Option<PathBuf>,
    },
    /// Print tool declarations in a provider's dialect (all tools, or one); what the dialect
    /// could not express is reported on stderr.
    Schema {
        /// One tool (name or alias); all tools when left out.
        tool: Option<String>,
        /// The provider's dialect.
        #[arg(long, value_enum, default_value_t = DialectArg::Mcp)]
        dialect: DialectArg,
    },
    /// Call a tool through the coordinator (policy, approvals, hooks) and print its result.
    Call {
        /// The tool (name or alias).
        tool: String,
        /// The arguments: a JSON object, `-` to read it from stdin, or `@FILE` to read it from
        /// a file.
        #[arg(default_value = "{}", value_name = "JSON|-|@FILE")]
        arguments: String,
        #[command(flatten)]
        session: SessionArgs,
        /// Print the structured result as JSON when the tool gives one.
        #[arg(long)]
        json: bool,
        /// Keep what the call leaves (artifacts, grants, files read, the todo list, a mode it
        /// switched to, background jobs, which run on) for the next call with the same name,
        /// under the state directory ($TOOLBOX_STATE_DIR, else $XDG_STATE_HOME/toolbox, else
        /// ~/.local/state/toolbox).
        #[arg(long = "session", value_name = "NAME", value_parser = sessions::valid_name)]
        named_session: Option<String>,
    },
    /// Serve the tools over MCP, on stdin and stdout or (with --http) over streamable HTTP,
    /// through the coordinator (policy, settings, hooks apply; a call that needs approval asks
    /// the client's user by elicitation, or is refused with the reason when the client cannot
    /// ask).
    #[command(after_help = serve::SERVE_HELP)]
    Serve {
        #[command(flatten)]
        session: SessionArgs,
        #[command(flatten)]
        serve: serve::ServeArgs,
    },
    /// Report what each dialect would lose or refuse, tools or parameters without a
    /// description, and whether run_shell's kernel sandbox holds on this machine.
    Check {
        /// List every note (what a dialect says in words instead of keywords), not only how
        /// many each dialect has.
        #[arg(long, short)]
        verbose: bool,
    },
    /// The named sessions `call --session NAME` keeps.
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Policy questions.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Add `toolbox serve` to a desktop MCP client's configuration (Claude Desktop, Cursor),
    /// with absolute paths, after showing the entry.
    Install(install::InstallArgs),
    /// Print a shell completion script (`toolbox completions bash > ~/.local/share/bash-completion/completions/toolbox`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Subcommand)]
enum SessionCommand {
    /// List the sessions: workspace, when last used, and what each keeps.
    List,
    /// Remove a session and everything it keeps, stopping its background jobs.
    Remove {
        /// The session's name.
        #[arg(value_parser = sessions::valid_name)]
        name: String,
    },
    /// Keep a session's background jobs (started by a call of the session, not by hand).
    #[command(hide = true)]
    Keep {
        #[arg(value_parser = sessions::valid_name)]
        name: String,
        #[command(flatten)]
        session: SessionArgs,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Show the settings files a session reads (those found and those absent), and which file
    /// each permission rule came from.
    Sources {
        #[command(flatten)]
        session: SessionArgs,
    },
    /// Show every rule the policy considers for a call, and which one decides.
    Explain {
        /// The tool (name or alias).
        tool: String,
        /// The arguments: a JSON object, `-` to read it from stdin, or `@FILE` to read it from
        /// a file.
        #[arg(default_value = "{}", value_name = "JSON|-|@FILE")]
        arguments: String,
        #[command(flatten)]
        session: SessionArgs,
    },
}

/// The session a call runs in.
#[derive(clap::Args)]
struct SessionArgs {
    /// The workspace root (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// The permission mode [default: the settings' `permissions.defaultMode`, else default].
    #[arg(long, value_parser = mode_parser())]
    mode: Option<Mode>,
    /// A settings file in Claude Code's format (permissions, hooks, default mode), above the
    /// discovered ones (below managed settings).
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// Import the tools of the MCP servers this `.mcp.json` (Claude Code's format) names, as
    /// `mcp__<server>__<tool>`; the settings' `toolkit.trustedMcpServers` are trusted.
    #[arg(long, value_name = "FILE")]
    mcp_config: Option<PathBuf>,
    /// Read only `--settings` and `--mcp-config`: not Claude Code's settings files (managed,
    /// `~/.claude/settings.json`, the workspace's `.claude/settings.json` and
    /// `.claude/settings.local.json`) nor the workspace's `.mcp.json`.
    #[arg(long)]
    no_discover: bool,
}

/// A session's workspace and settings, read once for both the imports and the coordinator.
struct Resolved {
    workspace: Workspace,
    settings: Option<Settings>,
}

impl SessionArgs {
    /// The workspace and the settings this session runs with.
    fn resolve(&self) -> Result<Resolved, Failure> {
        let workspace = workspace(self.workspace.as_deref())?;
        let settings = self.settings(&workspace)?;
        Ok(Resolved {
            workspace,
            settings,
        })
    }

    /// Where the servers to import are named, for this session.
    fn servers<'a>(&'a self, resolved: &'a Resolved) -> imports::Servers<'a> {
        imports::Servers {
            config: self.mcp_config.as_deref(),
            discover: !self.no_discover,
            settings: resolved.settings.as_ref(),
            workspace: &resolved.workspace,
        }
    }

    /// The session's settings: discovered where Claude Code finds them, with `--settings` on
    /// top (below managed settings); only `--settings` with `--no-discover`.
    fn settings(&self, workspace: &Workspace) -> Result<Option<Settings>, Failure> {
        let settings = if self.no_discover {
            self.settings.as_ref().map(Settings::load)
        } else {
            Some(Settings::discover_in(
                &SettingsLocations::of_this_machine(),
                workspace.root(),
                self.settings.as_slice(),
            ))
        };
        settings
            .transpose()
            .map_err(|error| Failure::setup(error.to_string()))
    }
}

/// The modes as clap's possible values (so `--help` lists them and shell completions offer
/// them), each with the spellings Claude Code's settings use as aliases.
fn mode_parser() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new([
        PossibleValue::new("default").help("rules decide; read-only calls run, others ask"),
        PossibleValue::new("accept_edits")
            .alias("acceptEdits")
            .help("file edits in the workspace run without asking (Claude Code: acceptEdits)"),
        PossibleValue::new("plan").help("only read-only tools run; everything else is refused"),
        PossibleValue::new("bypass")
            .alias("bypassPermissions")
            .help("everything runs that deny and safety rules do not stop (Claude Code: bypassPermissions)"),
        PossibleValue::new("dont_ask")
            .alias("dontAsk")
            .help("never ask: what no rule allows is refused (Claude Code: dontAsk)"),
    ])
    .try_map(|text| text.parse::<Mode>().map_err(|error| error.to_string()))
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    /// MCP: JSON Schema 2020-12.
    Mcp,
    /// OpenAI chat completions.
    Openai,
    /// OpenAI chat completions, strict.
    OpenaiStrict,
    /// OpenAI responses.
    OpenaiResponses,
    /// OpenAI responses, strict.
    OpenaiResponsesStrict,
    /// Anthropic.
    Anthropic,
    /// Anthropic, strict.
    AnthropicStrict,
    /// Gemini, `parametersJsonSchema`.
    Gemini,
    /// Gemini, the OpenAPI subset in `parameters`.
    GeminiOpenapi,
}

impl From<DialectArg> for Dialect {
    fn from(dialect: DialectArg) -> Self {
        let openai = |strict, api| Dialect::OpenAi { strict, api };
        match dialect {
            DialectArg::Mcp => Dialect::Mcp,
            DialectArg::Openai => openai(false, OpenAiApi::ChatCompletions),
            DialectArg::OpenaiStrict => openai(true, OpenAiApi::ChatCompletions),
            DialectArg::OpenaiResponses => openai(false, OpenAiApi::Responses),
            DialectArg::OpenaiResponsesStrict => openai(true, OpenAiApi::Responses),
            DialectArg::Anthropic => Dialect::Anthropic { strict: false },
            DialectArg::AnthropicStrict => Dialect::Anthropic { strict: true },
            DialectArg::Gemini => Dialect::Gemini {
                form: GeminiForm::JsonSchema,
            },
            DialectArg::GeminiOpenapi => Dialect::Gemini {
                form: GeminiForm::OpenApi,
            },
        }
    }
}

/// A failure to report on stderr, with the exit code it ends with.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn setup(message: impl Into<String>) -> Self {
        Failure {
            code: SETUP,
            message: message.into(),
        }
    }

    fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: USAGE,
            message: message.into(),
        }
    }
}

/// The process's live bytes counted, so that `execute`'s in-process runs are bounded in total
/// (`CodeModeConfig::max_memory`), not only per allocation.
#[global_allocator]
static ALLOCATOR: tool_std::code::CountingAllocator = tool_std::code::CountingAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("toolbox: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn run(command: Command) -> Result<u8, Failure> {
    let toolset = Toolset::all();
    match command {
        Command::List { json, mcp_config } => {
            let runtime = runtime()?;
            let workspace = workspace(None)?;
            let servers = imports::Servers {
                config: mcp_config.as_deref(),
                discover: false,
                settings: None,
                workspace: &workspace,
            };
            let (toolset, _) = imports::add(&runtime, toolset, &servers, false)?;
            list(&toolset, json);
            Ok(0)
        }
        Command::Schema { tool, dialect } => schema(&toolset, tool.as_deref(), dialect.into()),
        Command::Call {
            tool,
            arguments,
            session,
            json,
            named_session,
        } => call(
            toolset,
            &tool,
            &arguments::read(&arguments)?,
            &session,
            named_session.as_deref(),
            json,
        ),
        Command::Session {
            command: SessionCommand::List,
        } => {
            out_raw(&sessions::list()?);
            Ok(0)
        }
        Command::Session {
            command: SessionCommand::Remove { name },
        } => {
            out_raw(&sessions::remove(&name)?);
            Ok(0)
        }
        Command::Session {
            command: SessionCommand::Keep { name, session },
        } => keeper::keep(&name, &session),
        Command::Check { verbose } => Ok(check(&toolset, verbose)),
        Command::Serve { session, serve } => serve::serve(toolset, &session, &serve),
        Command::Install(args) => install::install(&args),
        Command::Policy {
            command: PolicyCommand::Sources { session },
        } => {
            sources(&session)?;
            Ok(0)
        }
        Command::Policy {
            command:
                PolicyCommand::Explain {
                    tool,
                    arguments,
                    session,
                },
        } => {
            let arguments = arguments::read(&arguments)?;
            let runtime = runtime()?;
            let resolved = session.resolve()?;
            let toolset = with_imports(&runtime, toolset, &session, &resolved)?;
            let coordinator = coordinator(
                toolset,
                &session,
                resolved,
                false,
                CancellationToken::new(),
                |builder| builder,
            )?;
            let explained = coordinator
                .explain(&ToolCall::new(tool, arguments))
                .map_err(|error| Failure::setup(error.to_string()))?;
            out_raw(&format!("{explained}"));
            Ok(0)
        }
        Command::Completions { shell } => {
            // Into a buffer, then out like every other output: clap_complete panics when its
            // writer fails (a reader that goes away, a full disk).
            let mut script = Vec::new();
            let mut command = with_tool_names(Cli::command(), &toolset);
            clap_complete::generate(shell, &mut command, "toolbox", &mut script);
            out_raw(&String::from_utf8_lossy(&script));
            Ok(0)
        }
    }
}

/// `command` with the tools' names as the values its `call` and `schema` offer for completion.
/// Only the completion script sees them: an imported tool's name (`mcp__server__tool`) is
/// still taken when typed.
fn with_tool_names(command: clap::Command, toolset: &Toolset) -> clap::Command {
    let names: Vec<&'static str> = toolset
        .iter()
        .filter_map(|tool| match &tool.spec().name {
            std::borrow::Cow::Borrowed(name) => Some(*name),
            std::borrow::Cow::Owned(_) => None,
        })
        .collect();
    let offered = |arg: clap::Arg| {
        arg.value_parser(clap::builder::PossibleValuesParser::new(
            names.iter().copied(),
        ))
    };
    // `tool` keeps its place among the positional arguments only if they are numbered first.
    let mut command = command;
    command.build();
    command
        .mut_subcommand("call", |call| call.mut_arg("tool", offered))
        .mut_subcommand("schema", |schema| schema.mut_arg("tool", offered))
}

fn list(toolset: &Toolset, json: bool) {
    if json {
        let tools: Vec<Value> = toolset
            .iter()
            .map(|tool| {
                let spec = tool.spec();
                json!({
                    "name": spec.name,
                    "title": spec.title,
                    "description": spec.description,
                    "effect": spec.effect.to_string(),
                    "idempotent": spec.idempotent,
                    "open_world": spec.open_world,
                    "aliases": spec.aliases,
                    "tags": spec.tags,
                })
            })
            .collect();
        out!("{}", pretty(&Value::Array(tools)));
        return;
    }
    let width = |column: fn(&tool_core::spec::ToolSpec) -> String| {
        toolset
            .iter()
            .map(|tool| column(tool.spec()).len())
            .max()
            .unwrap_or(0)
    };
    let name = |spec: &tool_core::spec::ToolSpec| spec.name.to_string();
    let aliases = |spec: &tool_core::spec::ToolSpec| spec.aliases.join(",");
    let (name_width, alias_width) = (width(name), width(aliases));
    for tool in toolset.iter() {
        let spec = tool.spec();
        // Said up front, so nobody tries a tool that cannot run here.
        let needs = serve::needs_an_application(&spec.name).unwrap_or_default();
        out!(
            "{:name_width$}  {:<10} {:alias_width$}  {needs}{}",
            name(spec),
            spec.effect.to_string(),
            aliases(spec),
            summary(&spec.description)
        );
    }
}

/// The first sentence of a description (its first paragraph's lines joined), cut to about a
/// line's width.
fn summary(description: &str) -> String {
    let paragraph: Vec<&str> = description
        .lines()
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .collect();
    let paragraph = paragraph.join(" ");
    let sentence = match paragraph.find(". ") {
        Some(end) => &paragraph[..=end],
        None => paragraph.as_str(),
    };
    const WIDTH: usize = 100;
    if sentence.chars().count() <= WIDTH {
        sentence.to_owned()
    } else {
        let cut: String = sentence.chars().take(WIDTH - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

fn schema(toolset: &Toolset, tool: Option<&str>, dialect: Dialect) -> Result<u8, Failure> {
    let Some(name) = tool else {
        let export = toolset.export(dialect);
        for problem in &export.problems {
            eprintln!("note: {problem}");
        }
        out!("{}", pretty(&Value::Array(export.tools)));
        return Ok(0);
    };
    let handle = toolset
        .get(name)
        .ok_or_else(|| unknown_tool(toolset, name))?;
    match schema::export_tool(&**handle, dialect) {
        Ok(exported) => {
            for problem in &exported.problems {
                eprintln!("note: {problem}");
            }
            out!("{}", pretty(&exported.definition));
            Ok(0)
        }
        Err(error) => Err(Failure {
            code: FAILED,
            message: error.to_string(),
        }),
    }
}

fn unknown_tool(toolset: &Toolset, name: &str) -> Failure {
    let suggestions = toolset.suggest(name);
    let hint = match suggestions.as_slice() {
        [] => "; `toolbox list` shows the tools there are".to_owned(),
        [one] => format!("; did you mean `{one}`?"),
        many => format!("; did you mean one of {}?", many.join(", ")),
    };
    Failure::setup(format!("no tool named `{name}`{hint}"))
}

fn check(toolset: &Toolset, verbose: bool) -> u8 {
    let problems = schema::check(toolset);
    let is_serious = |problem: &ExportProblem| {
        matches!(
            problem,
            ExportProblem::Refused { .. } | ExportProblem::MissingDescription { .. }
        )
    };
    let (serious, notes): (Vec<&ExportProblem>, Vec<&ExportProblem>) =
        problems.iter().partition(|problem| is_serious(problem));
    out!(
        "{} tools; {} errors (a tool a dialect refuses, or a missing description); {} notes (what a dialect says in words instead of keywords, or limits of one request)",
        toolset.len(),
        serious.len(),
        notes.len()
    );
    for problem in &serious {
        out!("error: {problem}");
    }
    if verbose {
        for problem in &notes {
            out!("note: {problem}");
        }
    } else if !notes.is_empty() {
        // How many per dialect, in the order the dialects first come up; each with --verbose.
        let mut counts: Vec<(String, usize)> = Vec::new();
        for problem in &notes {
            let dialect = problem
                .dialect()
                .map_or_else(|| "every dialect".to_owned(), |dialect| dialect.to_string());
            match counts.iter_mut().find(|(name, _)| *name == dialect) {
                Some((_, count)) => *count += 1,
                None => counts.push((dialect, 1)),
            }
        }
        let counts: Vec<String> = counts
            .iter()
            .map(|(dialect, count)| format!("{dialect} {count}"))
            .collect();
        out!(
            "notes by dialect: {}; `toolbox check --verbose` lists each",
            counts.join(", ")
        );
    }
    out!("{}", sandbox_line());
    #[cfg(target_os = "linux")]
    if tool_std::shell::sandbox::status().holds_files() {
        out!(
            "run_shell sandbox file system: {}",
            tool_std::shell::sandbox::engine()
        );
        out!(
            "run_shell sandbox also: a seccomp filter (no device made; MPTCP, TCP Fast Open and io_uring refused with the network restricted, every IP socket with it off); not held: a listen on an unbound socket under Network::Ports"
        );
    }
    let (code_mode, code_mode_works) = code_mode_line();
    out!("{code_mode}");
    if serious.is_empty() && code_mode_works {
        0
    } else {
        FAILED
    }
}

fn call(
    toolset: Toolset,
    tool: &str,
    arguments: &str,
    session: &SessionArgs,
    named_session: Option<&str>,
    json: bool,
) -> Result<u8, Failure> {
    let runtime = runtime()?;
    let resolved = session.resolve()?;
    let toolset = with_imports(&runtime, toolset, session, &resolved)?;
    if toolset.get(tool).is_none() {
        return Err(unknown_tool(&toolset, tool));
    }
    let mut named = named_session
        .map(|name| sessions::NamedSession::open(name, resolved.workspace.root()))
        .transpose()?;
    // A session's background jobs are kept by a process of their own, which outlives this one.
    let toolset = match &named {
        Some(named) => {
            let link = keeper::Link::new(named.name(), named.dir()).for_call(
                resolved.workspace.root(),
                session,
                resolved.settings.as_ref(),
            );
            keeper::kept(toolset, &std::sync::Arc::new(link))
        }
        None => toolset,
    };
    // SIGINT, SIGTERM and SIGHUP cancel the call (and stop what it started) through this.
    let calls = CancellationToken::new();
    let coordinator = coordinator(
        toolset,
        session,
        resolved,
        std::io::stdin().is_terminal(),
        calls.clone(),
        |builder| match &named {
            Some(named) => named.attach(builder),
            None => builder,
        },
    )?;
    if let Some(named) = &mut named {
        named.restore(&coordinator, session.mode.is_some())?;
    }
    let result = runtime.block_on(async {
        let running = coordinator.call(ToolCall::new(tool, arguments));
        signals::until_stopped(progress::while_running(tool, running), &calls).await
    });
    // What the call left is kept whether it succeeded, failed or was stopped.
    let saved = named.map(|named| named.save(&coordinator));
    let result = match result {
        Ok(result) => result,
        Err(stop) => {
            drop(coordinator);
            let code = signals::shut_down(stop, runtime);
            saved.transpose()?;
            return Ok(code);
        }
    };
    match (json, result.structured()) {
        (true, Some(value)) => out!("{}", pretty(value)),
        _ => {
            // One line break at the end, whether or not the tool's text has its own.
            let text = result.text();
            out!("{}", text.strip_suffix('\n').unwrap_or(&text));
        }
    }
    if let Some(remedy) = refusal_remedy(&result, tool) {
        eprintln!("{remedy}");
    }
    if let Some(job) = background_job(&result) {
        match named_session {
            Some(name) => eprintln!(
                "toolbox: {job} runs on in session `{name}`: `toolbox call --session {name} shell_output '{{\"id\": \"{job}\"}}'` reads its output, `kill_shell` stops it, `toolbox session remove {name}` stops every job of the session"
            ),
            None => eprintln!(
                "toolbox: {job} is stopped as this command ends: a background job outlives `toolbox call` only in a session (`--session NAME`)"
            ),
        }
    }
    if let Some(Err(failure)) = saved {
        // The reply is out; only what the session keeps for the next call is lost.
        eprintln!("toolbox: the call ran, but {}", failure.message);
        return Ok(failure.code);
    }
    if let Some(ended) = command_failure(&result) {
        eprintln!("toolbox: {ended}");
        return Ok(FAILED);
    }
    Ok(if result.is_error() { FAILED } else { 0 })
}

/// How a command a tool ran ended, when not with status 0: a structured result with a non-zero
/// `exit_code`, a `signal` or `timed_out` (run_shell's, and any tool's that reports a process
/// the same way). The call succeeded, so its status alone would be 0; a script running
/// `toolbox call run_shell` must see the command's failure as its own.
fn command_failure(result: &ToolResult) -> Option<String> {
    let value = result.structured()?;
    if value.get("timed_out") == Some(&Value::Bool(true)) {
        return Some("the command timed out and was stopped".to_owned());
    }
    if let Some(signal) = value.get("signal").and_then(Value::as_str) {
        return Some(format!("the command was killed by {signal}"));
    }
    match value.get("exit_code").and_then(Value::as_i64) {
        Some(0) | None => None,
        Some(code) => Some(format!("the command exited with code {code}")),
    }
}

/// The background job a call started (run_shell's `job_id`, in a reply without a `status`,
/// which `shell_output`'s and `kill_shell`'s have).
fn background_job(result: &ToolResult) -> Option<&str> {
    let reply = result.structured()?;
    match reply.get("status") {
        None => reply.get("job_id")?.as_str(),
        Some(_) => None,
    }
}

/// What the person at the terminal can do about a call refused because nobody could be asked
/// to approve it (the refusal itself is written for a model: "do not retry it").
fn refusal_remedy(result: &ToolResult, tool: &str) -> Option<String> {
    result.error().is_some_and(approval::went_unasked).then(|| {
        format!(
            "toolbox: `{tool}` needs approval, and without a terminal nobody can be asked. To let it run: call it from a terminal and answer the prompt; or pass --mode accept_edits (file edits in the workspace); or allow it in a settings file, e.g. {{\"permissions\": {{\"allow\": [\"{tool}\"]}}}} in .claude/settings.json or a file given with --settings"
        )
    })
}

/// `toolset` with the tools of the session's MCP servers (see `imports`).
fn with_imports(
    runtime: &tokio::runtime::Runtime,
    toolset: Toolset,
    session: &SessionArgs,
    resolved: &Resolved,
) -> Result<Toolset, Failure> {
    imports::add(runtime, toolset, &session.servers(resolved), false).map(|(toolset, _)| toolset)
}

/// The async runtime a call or a server runs on.
fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    start_runtime(tokio::runtime::Builder::new_multi_thread())
}

/// The runtime `builder` makes, with I/O and timers.
fn start_runtime(mut builder: tokio::runtime::Builder) -> Result<tokio::runtime::Runtime, Failure> {
    builder
        .enable_all()
        .build()
        .map_err(|error| Failure::setup(format!("cannot start the async runtime: {error}")))
}

/// `toolbox policy sources`: every settings file the session would read, found or not, in
/// precedence order, and each permission rule with the file it came from.
fn sources(session: &SessionArgs) -> Result<(), Failure> {
    let workspace = workspace(session.workspace.as_deref())?;
    let mut text = String::from("Settings files, lowest precedence first:\n");
    let files: Vec<SettingsSource> = if session.no_discover {
        session
            .settings
            .iter()
            .map(|path| SettingsSource {
                scope: SettingsScope::CommandLine,
                path: path.clone(),
            })
            .collect()
    } else {
        SettingsLocations::of_this_machine().sources(workspace.root(), session.settings.as_slice())
    };
    for file in &files {
        let state = if file.path.exists() { "" } else { " (absent)" };
        text.push_str(&format!(
            "  {:<12}  {}{state}\n",
            file.scope.to_string(),
            file.path.display()
        ));
    }
    let settings = session.settings(&workspace)?.unwrap_or_default();
    if settings.rule_sources.is_empty() {
        text.push_str("No permission rules.\n");
    } else {
        text.push_str("Permission rules, in the order they apply:\n");
        for rule in &settings.rule_sources {
            text.push_str(&format!("  {rule}\n"));
        }
    }
    let mcp_json = workspace.root().join(".mcp.json");
    if !session.no_discover && mcp_json.exists() {
        text.push_str(&format!("MCP servers: {}\n", mcp_json.display()));
    }
    out_raw(&text);
    Ok(())
}

/// The workspace at `root`, the current directory by default.
fn workspace(root: Option<&std::path::Path>) -> Result<Workspace, Failure> {
    let root = match root {
        Some(root) => root.to_owned(),
        None => std::env::current_dir().map_err(|error| {
            Failure::setup(format!("cannot read the current directory: {error}"))
        })?,
    };
    Workspace::new(&root).map_err(|error| {
        Failure::setup(format!(
            "cannot use `{}` as the workspace: {error}",
            root.display()
        ))
    })
}

/// The coordinator of a session: `toolset` in its `resolved` workspace and settings, its mode, with
/// the console approver when `interactive`; cancelling `calls` cancels every call it runs;
/// `attach` gives it a named session's state (before the output limit, which keeps what it
/// cuts in the artifact store given there).
fn coordinator(
    toolset: Toolset,
    session: &SessionArgs,
    resolved: Resolved,
    interactive: bool,
    calls: CancellationToken,
    attach: impl FnOnce(CoordinatorBuilder) -> CoordinatorBuilder,
) -> Result<Coordinator, Failure> {
    let Resolved {
        workspace,
        settings,
    } = resolved;
    let roots = workspace.roots().to_vec();
    let builder = attach(Coordinator::builder().toolset(toolset).workspace(workspace));
    let mut builder = builder
        .output_limit(30_000)
        .cancellation(calls)
        .state(CodeModeConfig::default());
    builder = sandbox_from(settings.as_ref(), &roots, builder)?;
    if let Some(settings) = settings {
        // What loaded but may not do what it seems, and what is understood but not run here:
        // said once, on stderr, so a mistake in the file is not silently without effect.
        for warning in settings.warnings() {
            eprintln!("toolbox: warning: {warning}");
        }
        for ignored in &settings.ignored {
            eprintln!("toolbox: note: {ignored}");
        }
        builder = builder.settings(settings);
    }
    // After the settings, so the flag, when given, wins over the settings' default mode.
    if let Some(mode) = session.mode {
        builder = builder.mode(mode);
    }
    if interactive {
        builder = builder.approver(approve::Console::new(session.settings.clone(), roots));
    }
    builder
        .build()
        .map_err(|error| Failure::setup(error.to_string()))
}

/// The coordinator of a session's background jobs (`keeper`): as a call's, without an
/// approver or hooks (the calls it runs were authorized, and their hooks run, where they were
/// made), cutting long output into `artifacts`.
fn keeper_coordinator(
    toolset: Toolset,
    session: &SessionArgs,
    mut resolved: Resolved,
    calls: CancellationToken,
    artifacts: &tool_core::middleware::Artifacts,
    first_job: tool_std::shell::FirstJobNumber,
) -> Result<Coordinator, Failure> {
    if let Some(settings) = &mut resolved.settings {
        settings.hooks = Default::default();
    }
    coordinator(toolset, session, resolved, false, calls, |builder| {
        builder.state(artifacts.clone()).state(first_job)
    })
}

fn out_raw(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("toolbox: cannot write the output: {error}");
        std::process::exit(i32::from(FAILED));
    }
}

/// run_shell's sandbox as the settings configure it (`sandbox.enabled`, the `Read(..)` deny
/// rules it enforces in the kernel), and `sandbox.autoAllowBashIfSandboxed` as a policy rule.
/// The named sessions are hidden from commands whatever the settings: they hold the sessions'
/// grants (what may run unasked) and what earlier calls read.
#[cfg(unix)]
fn sandbox_from(
    settings: Option<&Settings>,
    roots: &[PathBuf],
    builder: CoordinatorBuilder,
) -> Result<CoordinatorBuilder, Failure> {
    use tool_std::shell::sandbox::{AutoAllowSandboxedShell, SandboxConfig};
    let mut config = settings.map_or_else(SandboxConfig::default, SandboxConfig::from_settings);
    if let Ok(sessions) = sessions::sessions_dir() {
        if let Some(root) = roots.iter().find(|root| root.starts_with(&sessions)) {
            return Err(Failure::setup(format!(
                "the workspace `{}` is inside toolbox's sessions folder `{}`, which commands may not read: use a workspace elsewhere",
                root.display(),
                sessions.display()
            )));
        }
        // Made now if it is not there yet: a path that does not exist cannot be denied, and
        // a process a command left running would see the sessions made after it.
        let _ = sessions::create_private_dir(&sessions);
        config.deny_read.push(sessions);
    }
    // What the next call would load, present or not: a command must not write itself a
    // policy (`.claude/settings.local.json` with the sandbox off) or an MCP server the
    // settings already approved (`.mcp.json`). A missing file is held by holding its folder
    // read-only (bubblewrap); a missing `.claude` right beneath the root cannot be held.
    for root in roots {
        let claude = root.join(".claude");
        for path in [
            claude.join("settings.json"),
            claude.join("settings.local.json"),
            root.join(".mcp.json"),
        ] {
            if !config.deny_write.contains(&path) {
                config.deny_write.push(path);
            }
        }
    }
    let rule =
        settings.and_then(|settings| AutoAllowSandboxedShell::from_settings(settings, &config));
    let builder = match rule {
        Some(rule) => builder.policy(tool_core::policy::PolicyBuilder::default().rule(rule)),
        None => builder,
    };
    Ok(builder.state(config))
}

#[cfg(not(unix))]
fn sandbox_from(
    _settings: Option<&Settings>,
    _roots: &[PathBuf],
    builder: CoordinatorBuilder,
) -> Result<CoordinatorBuilder, Failure> {
    Ok(builder)
}

fn code_mode_line() -> (String, bool) {
    match Isolation::detect() {
        Isolation::Worker { program, .. } if !program.is_file() => (
            format!(
                "execute: {} names `{}`, which is not a file; install monty's worker (pip install pydantic-monty-runtime==0.0.23) and name its bin/monty",
                Isolation::ENV,
                program.display()
            ),
            false,
        ),
        Isolation::Worker { program, .. } => (
            format!(
                "execute: crash-isolated, in worker processes of `{}`",
                program.display()
            ),
            true,
        ),
        _ => (
            format!(
                "execute: in-process (a panic in the interpreter is caught, an abort is not; {}); put monty's worker binary (pip install pydantic-monty-runtime==0.0.23) on the PATH or name it in {} to isolate crashes",
                if tool_std::code::counts_memory() {
                    "a run's total memory bounded by CodeModeConfig::max_memory"
                } else {
                    "only each large allocation bounded: no counting allocator"
                },
                Isolation::ENV
            ),
            true,
        ),
    }
}

/// What `check` says about run_shell's sandbox on this machine.
fn sandbox_line() -> String {
    #[cfg(unix)]
    {
        format!("run_shell sandbox: {}", tool_std::shell::sandbox::status())
    }
    #[cfg(not(unix))]
    {
        "run_shell: not built on this platform".to_owned()
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
