//! `toolbox install CLIENT`: the entry that makes a desktop MCP client start `toolbox serve`,
//! written into the client's configuration file with absolute paths (a client starts its
//! servers from a directory of its own, so `--workspace .` would be wherever that is), after
//! showing it. Other servers in the file are kept; an entry of the same name is replaced,
//! and said so; a file that is not a JSON object is left as it is, with an error.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::Failure;

/// The clients `install` knows.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Client {
    /// Claude Desktop (`claude_desktop_config.json`).
    ClaudeDesktop,
    /// Cursor (`~/.cursor/mcp.json`; a project's `.cursor/mcp.json` with --config).
    Cursor,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
        }
    }

    /// Where the client reads its MCP servers from, on this system.
    fn config_file(self) -> Result<PathBuf, Failure> {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| Failure::setup("HOME is not set: name the file with --config"))?;
        Ok(match self {
            Client::Cursor => home.join(".cursor/mcp.json"),
            Client::ClaudeDesktop if cfg!(target_os = "macos") => {
                home.join("Library/Application Support/Claude/claude_desktop_config.json")
            }
            // Claude Desktop's Linux builds read it where XDG puts configuration.
            Client::ClaudeDesktop => std::env::var_os("XDG_CONFIG_HOME")
                .map_or_else(|| home.join(".config"), PathBuf::from)
                .join("Claude/claude_desktop_config.json"),
        })
    }
}

/// `toolbox install`'s arguments.
#[derive(clap::Args)]
pub(crate) struct InstallArgs {
    /// The client whose configuration gets the entry.
    client: Client,
    /// The server's name in the client (and in its tools' names there).
    #[arg(long, default_value = "toolbox")]
    name: String,
    /// The configuration file to write instead of the client's own.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Write without asking (without a terminal, nothing is written otherwise).
    #[arg(long, short)]
    yes: bool,
    /// What `toolbox serve` is started with, after `--`: `-- --workspace ~/project --tags fs
    /// --mode accept_edits`. The workspace is the current directory unless given; paths are
    /// made absolute.
    #[arg(last = true, value_name = "SERVE ARGS")]
    serve: Vec<String>,
}

/// Shows the entry, then writes it when told to; the exit code.
pub(crate) fn install(args: &InstallArgs) -> Result<u8, Failure> {
    let file = match &args.config {
        Some(file) => absolute(file)?,
        None => args.client.config_file()?,
    };
    let program = std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .map_err(|error| Failure::setup(format!("cannot tell where toolbox is: {error}")))?;
    let entry = json!({
        "command": program,
        "args": serve_arguments(&args.serve)?,
    });
    let mut config = read_config(&file)?;
    let servers = config
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Failure::setup(format!(
            "{}: `mcpServers` is not an object; fix the file by hand, then run this again",
            file.display()
        )));
    };
    let replaced = servers.insert(args.name.clone(), entry.clone());
    println!(
        "toolbox install: {} starts `toolbox serve` with this entry, in {}:",
        args.client.name(),
        file.display()
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({"mcpServers": {&args.name: entry}}))
            .unwrap_or_default()
    );
    match replaced {
        Some(old) if old == servers[&args.name] => {
            println!("The file already has this entry; nothing to change.");
            return Ok(0);
        }
        Some(_) => println!("It replaces the entry `{}` the file has now.", args.name),
        None => {}
    }
    if !confirmed(args.yes)? {
        println!("Not written. Run again with --yes to write it, or add it to the file yourself.");
        return Ok(0);
    }
    write_config(&file, &Value::Object(config))?;
    println!(
        "Written. Restart {} to start the server; its tools show as `{}`'s.",
        args.client.name(),
        args.name
    );
    Ok(0)
}

/// `serve` and `args`, with the workspace (the current directory unless named) and every
/// path made absolute.
fn serve_arguments(args: &[String]) -> Result<Vec<String>, Failure> {
    const PATHS: [&str; 4] = ["--workspace", "--settings", "--mcp-config", "--token-file"];
    let mut out = vec!["serve".to_owned()];
    let mut workspace = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if PATHS.contains(&flag) => (flag, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        if !PATHS.contains(&flag) {
            out.push(arg.clone());
            continue;
        }
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .cloned()
                .ok_or_else(|| Failure::usage(format!("{flag} needs a path after it")))?,
        };
        workspace |= flag == "--workspace";
        out.push(flag.to_owned());
        out.push(absolute(Path::new(&value))?.display().to_string());
    }
    if !workspace {
        let here = absolute(Path::new("."))?;
        out.splice(1..1, ["--workspace".to_owned(), here.display().to_string()]);
    }
    Ok(out)
}

/// `path` from the current directory, `~/` expanded, resolved when it exists.
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    let path = match (path.strip_prefix("~"), std::env::var_os("HOME")) {
        (Ok(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => path.to_owned(),
    };
    let joined = std::env::current_dir()
        .map_err(|error| Failure::setup(format!("cannot read the current directory: {error}")))?
        .join(path);
    // A path that does not exist yet is written without its `.` and `..`.
    Ok(joined.canonicalize().unwrap_or_else(|_| {
        joined.components().fold(PathBuf::new(), |mut path, part| {
            match part {
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    path.pop();
                }
                other => path.push(other),
            }
            path
        })
    }))
}

/// The configuration as it is: an empty object when the file does not exist yet.
fn read_config(file: &Path) -> Result<Map<String, Value>, Failure> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(error) => return Err(Failure::setup(format!("{}: {error}", file.display()))),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(config)) => Ok(config),
        Ok(_) => Err(Failure::setup(format!(
            "{}: not a JSON object; it is left as it is: fix it by hand, then run this again",
            file.display()
        ))),
        Err(error) => Err(Failure::setup(format!(
            "{}: not JSON ({error}); it is left as it is: fix it by hand, then run this again",
            file.display()
        ))),
    }
}

/// Whether to write: `--yes`, or a yes at the terminal.
fn confirmed(yes: bool) -> Result<bool, Failure> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Ok(false);
    }
    print!("Write it? [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|error| Failure::setup(format!("cannot read the answer: {error}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// Writes `config` whole or not at all: a file beside it, renamed over it. A file that is a
/// link (a dotfiles manager's) is written where it leads, and keeps its permissions.
fn write_config(file: &Path, config: &Value) -> Result<(), Failure> {
    let failed = |error: std::io::Error| Failure::setup(format!("{}: {error}", file.display()));
    let file = &std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned());
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    let mut text = serde_json::to_string_pretty(config).unwrap_or_default();
    text.push('\n');
    crate::replace::replace_file(file, text.as_bytes(), None).map_err(failed)
}
