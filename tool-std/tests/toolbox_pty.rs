//! `toolbox call` at a terminal: the console approver driven through a pseudo-terminal, as a
//! person answers it. stdin and stderr (the question) are the pty; stdout (the result) is a
//! pipe, read apart. Every answer of the prompt: yes once, session, always (kept in the
//! `--settings` file), the suggested pattern, no with guidance, an answer it does not know, and
//! the terminal closing (Ctrl-D). And a tool's own question, a form asked field by field (a
//! misfit asked again with the reason, an optional field skipped, a choice by number, the
//! review), declined from a required field, cancelled by Ctrl-D; and its roots.
#![cfg(unix)]

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

/// How long to wait for the prompt or the exit before failing with the transcript: a bound so
/// a broken approver fails the test instead of hanging it, not a measure of speed.
const PATIENCE: Duration = Duration::from_secs(60);

const WRITE: &str = r#"{"path": "a.txt", "content": "x"}"#;

/// A `toolbox` run whose stdin and stderr are a pseudo-terminal.
struct Terminal {
    child: Option<Child>,
    /// The pty's controlling side, to type on.
    keyboard: File,
    /// What the terminal showed, as a reader thread received it.
    screen: Receiver<Vec<u8>>,
    shown: String,
    /// How much of `shown` an `expect` has consumed.
    read_to: usize,
}

impl Terminal {
    fn start(args: &[&str], dir: &Path) -> Terminal {
        Terminal::start_with_env(args, dir, &[])
    }

    /// [`start`](Self::start) with these environment variables set too.
    fn start_with_env(args: &[&str], dir: &Path, env: &[(&str, &Path)]) -> Terminal {
        let master =
            openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let name = PathBuf::from(name.to_str().unwrap());
        let terminal = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&name)
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .stdin(terminal.try_clone().unwrap())
            .stderr(terminal)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // The child holds the terminal side now; our copies went into `Command` and are closed,
        // so the reader sees the end (EIO) once the child exits.
        let master = File::from(master);
        let keyboard = master.try_clone().unwrap();
        let (sender, screen) = channel();
        std::thread::spawn(move || {
            let mut master = master;
            let mut buffer = [0u8; 4096];
            while let Ok(read) = master.read(&mut buffer) {
                if read == 0 || sender.send(buffer[..read].to_vec()).is_err() {
                    break;
                }
            }
        });
        Terminal {
            child: Some(child),
            keyboard,
            screen,
            shown: String::new(),
            read_to: 0,
        }
    }

    /// Waits until the terminal shows `needle` after what earlier calls consumed; returns what
    /// it showed up to and including it.
    fn expect(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(at) = self.shown[self.read_to..].find(needle) {
                let end = self.read_to + at + needle.len();
                let seen = self.shown[self.read_to..end].to_owned();
                self.read_to = end;
                return seen;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.shown.push_str(&String::from_utf8_lossy(&bytes)),
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "the terminal never showed {needle:?}; it showed:\n{}",
                        self.shown
                    )
                }
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the terminal closed before showing {needle:?}; it showed:\n{}",
                    self.shown
                ),
            }
        }
    }

    /// Types `keys` (a line ends with `\n`, as Enter sends it through the line discipline).
    fn type_keys(&mut self, keys: &str) {
        self.keyboard.write_all(keys.as_bytes()).unwrap();
        self.keyboard.flush().unwrap();
    }

    /// Waits for the exit (within [`PATIENCE`]) and returns its status and stdout.
    fn finish(mut self) -> (ExitStatus, String) {
        let mut child = self.child.take().unwrap();
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("toolbox did not exit; the terminal showed:\n{}", self.shown);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        (status, stdout)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // A failed test leaves no toolbox waiting at a prompt.
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

const PROMPT: &str = "[n]o: ";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    dir
}

fn write_call(dir: &Path, extra: &[&str]) -> Terminal {
    let root = dir.to_str().unwrap();
    let mut args = vec!["call", "write_file", WRITE, "--workspace", root];
    args.extend_from_slice(extra);
    Terminal::start(&args, dir)
}

/// A settings file outside the workspace, allowing nothing yet.
fn settings_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        r#"{"permissions": {"allow": ["read_file"], "deny": []}, "env": {"KEEP": "me"}}"#,
    )
    .unwrap();
    (dir, path)
}

/// The same call without a terminal (stdin not a tty): it runs only if something already
/// allows it.
fn write_without_terminal(dir: &Path, settings: &Path, file: &str) -> std::process::Output {
    let arguments = format!(r#"{{"path": "{file}", "content": "y"}}"#);
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "write_file", &arguments, "--workspace"])
        .arg(dir)
        .arg("--settings")
        .arg(settings)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_prompt_names_the_call_and_its_answers() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    let question = terminal.expect(PROMPT);
    assert!(question.contains("write_file"), "{question}");
    assert!(question.contains("a.txt"), "{question}");
    assert!(
        question.contains("Allow? [y]es once, [s]ession, [a]lways"),
        "{question}"
    );
    terminal.type_keys("n\n\n");
    let (status, _) = terminal.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn yes_once_writes_the_file() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    terminal.type_keys("y\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "x"
    );
}

#[test]
fn no_with_guidance_leaves_the_file_unwritten_and_tells_the_model() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    terminal.type_keys("n\n");
    terminal.expect("What should the model do instead?");
    terminal.type_keys("append to notes.md instead\n");
    let (status, stdout) = terminal.finish();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(!dir.path().join("a.txt").exists());
    assert!(stdout.contains("rejected"), "{stdout}");
    assert!(stdout.contains("append to notes.md instead"), "{stdout}");
}

#[test]
fn no_without_guidance_is_a_plain_rejection() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    terminal.type_keys("no\n");
    terminal.expect("What should the model do instead?");
    terminal.type_keys("\n");
    let (status, stdout) = terminal.finish();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(!dir.path().join("a.txt").exists());
    assert!(stdout.contains("do not assume it succeeded"), "{stdout}");
    assert!(!stdout.contains("The user said"), "{stdout}");
}

#[test]
fn always_writes_and_keeps_the_tool_allowed_in_the_settings_file() {
    let dir = workspace();
    let (_settings_dir, settings) = settings_file();
    let settings_arg = settings.to_str().unwrap();
    // Before: without a terminal, nothing allows the call, so it is refused.
    let before = write_without_terminal(dir.path(), &settings, "before.txt");
    assert_eq!(before.status.code(), Some(1));
    assert!(!dir.path().join("before.txt").exists());

    let mut terminal = write_call(dir.path(), &["--settings", settings_arg]);
    terminal.expect(PROMPT);
    terminal.type_keys("a\n");
    terminal.expect("Allowed `write_file` in");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "x"
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        kept["permissions"]["allow"],
        serde_json::json!(["read_file", "write_file"])
    );
    assert_eq!(kept["env"]["KEEP"], "me", "the other settings are kept");

    // A later run with the same settings, and no terminal to ask at, is allowed.
    let later = write_without_terminal(dir.path(), &settings, "later.txt");
    assert!(
        later.status.success(),
        "{}",
        String::from_utf8_lossy(&later.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("later.txt")).unwrap(),
        "y"
    );
}

#[test]
fn always_without_a_settings_file_says_it_holds_for_this_run_only() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    terminal.type_keys("always\n");
    let note = terminal.expect("--settings to keep it");
    assert!(note.contains("for this run only"), "{note}");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert!(dir.path().join("a.txt").exists());
}

#[test]
fn session_writes_the_file_and_keeps_nothing_for_later_runs() {
    let dir = workspace();
    let (_settings_dir, settings) = settings_file();
    let original = std::fs::read_to_string(&settings).unwrap();
    let mut terminal = write_call(dir.path(), &["--settings", settings.to_str().unwrap()]);
    terminal.expect(PROMPT);
    terminal.type_keys("s\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert!(dir.path().join("a.txt").exists());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    let later = write_without_terminal(dir.path(), &settings, "later.txt");
    assert_eq!(later.status.code(), Some(1));
    assert!(!dir.path().join("later.txt").exists());
}

#[test]
fn the_pattern_answer_grants_the_suggested_rule_and_writes_the_file() {
    let dir = workspace();
    let (_settings_dir, settings) = settings_file();
    let original = std::fs::read_to_string(&settings).unwrap();
    let mut terminal = write_call(dir.path(), &["--settings", settings.to_str().unwrap()]);
    let question = terminal.expect(PROMPT);
    let rule = question
        .split("[p]attern ")
        .nth(1)
        .and_then(|rest| rest.split(", [n]o").next())
        .unwrap_or_else(|| panic!("the prompt offers a pattern: {question}"));
    assert!(
        rule.starts_with("write_file(") && rule.contains("a.txt"),
        "{rule}"
    );
    terminal.type_keys("p\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert!(dir.path().join("a.txt").exists());
    // A pattern answer holds for the session, not in the settings file.
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
}

#[test]
fn an_unknown_answer_is_asked_again_with_the_answers_there_are() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    terminal.type_keys("maybe\n");
    let hint = terminal.expect("then enter.");
    assert!(hint.contains("`maybe` is not one of the answers"), "{hint}");
    assert!(hint.contains("y, s, a, p, or n"), "{hint}");
    // The question again, then an answer it knows.
    terminal.expect(PROMPT);
    terminal.type_keys("y\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert!(dir.path().join("a.txt").exists());
}

#[test]
fn ctrl_d_at_the_prompt_rejects_the_call_instead_of_hanging() {
    let dir = workspace();
    let mut terminal = write_call(dir.path(), &[]);
    terminal.expect(PROMPT);
    // Ctrl-D at the start of a line: the line discipline ends the input (read returns 0).
    terminal.type_keys("\u{4}");
    let (status, stdout) = terminal.finish();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(!dir.path().join("a.txt").exists());
    assert!(stdout.contains("the terminal closed"), "{stdout}");
}

// A tool's own question (a form), asked field by field. The tool is reached the way any tool
// outside tool-std's set is: imported from an MCP server (`--mcp-config`), here a fixture
// served in this process over streamable HTTP, so the question crosses the import too.

mod asking {
    use serde_json::{Value, json};
    use tool_core::approval::{Answer, Question};
    use tool_core::coordinator::Session;
    use tool_core::mcp::{HttpOptions, HttpServer};
    use tool_core::{Coordinator, ToolError, Toolset, tool};

    /// Ask a name, an age and a color.
    #[tool(read_only, name = "pty_profile")]
    async fn profile(#[ctx] session: Session) -> Result<String, ToolError> {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "color": {"type": "string", "enum": ["red", "blue"]}
        }, "required": ["name"]});
        Ok(
            match session
                .elicit(Question::new("Who are you?", schema)?)
                .await?
            {
                Answer::Accept(content) => format!(
                    "name={} age={} color={}",
                    content["name"],
                    content.get("age").unwrap_or(&Value::Null),
                    content["color"]
                ),
                Answer::Decline => "declined".to_owned(),
                _ => "cancelled".to_owned(),
            },
        )
    }

    /// List the roots.
    #[tool(read_only, name = "pty_roots")]
    async fn roots(#[ctx] session: Session) -> Result<String, ToolError> {
        let roots: Vec<String> = session.roots().await?.into_iter().map(|r| r.uri).collect();
        Ok(format!("roots: {}", roots.join(" ")))
    }

    /// Serves the fixture tools until the returned runtime is dropped; their URL.
    pub fn serve() -> (tokio::runtime::Runtime, String) {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let coordinator = Coordinator::builder()
            .toolset(Toolset::named(["pty_profile", "pty_roots"]).unwrap())
            .build()
            .unwrap();
        let server = runtime
            .block_on(HttpServer::bind(coordinator, HttpOptions::loopback(0)))
            .unwrap();
        let url = server.url();
        runtime.spawn(server.run());
        (runtime, url)
    }
}

/// `toolbox call mcp__fx__TOOL` at a terminal, the fixture imported from `url`, the approval
/// of the imported call already given (`y`).
fn asking_call(dir: &Path, url: &str, tool: &str) -> Terminal {
    let config = dir.join(".mcp.json");
    std::fs::write(
        &config,
        format!(r#"{{"mcpServers": {{"fx": {{"type": "http", "url": "{url}"}}}}}}"#),
    )
    .unwrap();
    let name = format!("mcp__fx__{tool}");
    let root = dir.to_str().unwrap();
    let mut terminal = Terminal::start(
        &[
            "call",
            &name,
            "{}",
            "--workspace",
            root,
            "--mcp-config",
            config.to_str().unwrap(),
        ],
        dir,
    );
    terminal.expect(PROMPT);
    terminal.type_keys("y\n");
    terminal
}

#[test]
fn a_tools_form_is_asked_field_by_field_and_a_misfit_asked_again() {
    let (_server, url) = asking::serve();
    let dir = workspace();
    let mut terminal = asking_call(dir.path(), &url, "pty_profile");
    let header = terminal.expect("name (text at least 2 characters): ");
    assert!(
        header.contains("`mcp__fx__pty_profile` asks: Who are you?"),
        "{header}"
    );
    terminal.type_keys("A\n");
    let again = terminal.expect("name (text at least 2 characters): ");
    assert!(
        again.contains("1 characters is not text at least 2 characters; try again."),
        "{again}"
    );
    terminal.type_keys("Ada\n");
    terminal.expect("age (whole number 0-150, optional): ");
    terminal.type_keys("200\n");
    terminal.expect("200 is outside whole number 0-150; try again.");
    terminal.expect("age (whole number 0-150, optional): ");
    // Enter skips the optional field.
    terminal.type_keys("\n");
    let choices = terminal.expect("color (a number or a value, optional): ");
    assert!(
        choices.contains("1) red") && choices.contains("2) blue"),
        "{choices}"
    );
    terminal.type_keys("2\n");
    let review = terminal.expect("[c]ancel: ");
    assert!(
        review.contains(r#"Send {"name":"Ada","color":"blue"}?"#),
        "{review}"
    );
    terminal.type_keys("y\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert_eq!(stdout.trim(), r#"name="Ada" age=null color="blue""#);
}

#[test]
fn enter_on_a_required_field_lets_the_user_decline_the_question() {
    let (_server, url) = asking::serve();
    let dir = workspace();
    let mut terminal = asking_call(dir.path(), &url, "pty_profile");
    terminal.expect("name (text at least 2 characters): ");
    terminal.type_keys("\n");
    terminal.expect("`name` is required: [a]nswer it, [d]ecline the question, [c]ancel it: ");
    terminal.type_keys("d\n");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert_eq!(stdout.trim(), "declined");
}

#[test]
fn ctrl_d_in_a_form_cancels_the_question() {
    let (_server, url) = asking::serve();
    let dir = workspace();
    let mut terminal = asking_call(dir.path(), &url, "pty_profile");
    terminal.expect("name (text at least 2 characters): ");
    terminal.type_keys("\u{4}");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert_eq!(stdout.trim(), "cancelled");
}

#[test]
fn a_tool_asking_for_the_roots_gets_the_workspace() {
    let (_server, url) = asking::serve();
    let dir = workspace();
    let terminal = asking_call(dir.path(), &url, "pty_roots");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    let root = url::Url::from_directory_path(dir.path().canonicalize().unwrap()).unwrap();
    assert_eq!(stdout.trim(), format!("roots: {root}"));
}

#[test]
fn an_escape_sequence_in_a_call_is_shown_escaped_at_the_approval_prompt() {
    let dir = workspace();
    let root = dir.path().to_str().unwrap();
    // Shown raw, `\e[2K\r` would erase the line so far: the user would read `: harmless`.
    let arguments = r#"{"command": "touch gone \u001b[2K\r: harmless"}"#;
    let mut terminal = Terminal::start(
        &["call", "run_shell", arguments, "--workspace", root],
        dir.path(),
    );
    let question = terminal.expect(PROMPT);
    assert!(!question.contains('\u{1b}'), "{question:?}");
    assert!(
        question.contains(r"touch gone \u{1b}[2K\u{d}: harmless"),
        "{question}"
    );
    terminal.type_keys("n\n\n");
    let (status, _) = terminal.finish();
    assert_eq!(status.code(), Some(1));
    assert!(!dir.path().join("gone").exists());
}

#[test]
fn serve_at_a_terminal_says_it_waits_for_a_client_and_how_to_try_a_tool() {
    let dir = workspace();
    let mut terminal = Terminal::start(&["serve", "--workspace", "."], dir.path());
    terminal.expect("waiting for an MCP client on stdin");
    terminal.expect("toolbox call read_file");
    // Ctrl-D at the start of a line: the end of stdin, before any message.
    terminal.type_keys("\x04");
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
    assert!(stdout.is_empty(), "{stdout}");
}

/// `write_file` of `file` in the named `session` (kept under `state`), without a terminal: it
/// runs only if something already allows it.
fn write_in_session(
    dir: &Path,
    state: &Path,
    file: &str,
    session: &str,
    extra: &[&str],
) -> std::process::Output {
    let arguments = format!(r#"{{"path": "{file}", "content": "y"}}"#);
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "write_file", &arguments, "--session", session])
        .args(extra)
        .arg("--workspace")
        .arg(dir)
        .env("TOOLBOX_STATE_DIR", state)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `toolbox ARGS` at a terminal with sessions under `state`: answers its prompt with `keys`
/// and expects success.
fn answer_in_session(args: &[&str], dir: &Path, state: &Path, keys: &str) {
    let mut terminal = Terminal::start_with_env(args, dir, &[("TOOLBOX_STATE_DIR", state)]);
    terminal.expect(PROMPT);
    terminal.type_keys(keys);
    let (status, stdout) = terminal.finish();
    assert!(status.success(), "{status}: {stdout}");
}

#[test]
fn a_session_answer_holds_for_the_next_call_of_the_same_named_session_only() {
    let dir = workspace();
    let state = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let args = [
        "call",
        "write_file",
        WRITE,
        "--workspace",
        root,
        "--session",
        "work",
    ];
    answer_in_session(&args, dir.path(), state.path(), "s\n");

    let write =
        |file: &str, session: &str| write_in_session(dir.path(), state.path(), file, session, &[]);
    // Without a terminal nobody could be asked: only the kept grant lets it run.
    let same = write("later.txt", "work");
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(dir.path().join("later.txt").exists());
    let other = write("other.txt", "play");
    assert_eq!(other.status.code(), Some(1));
    assert!(!dir.path().join("other.txt").exists());
}

#[test]
fn a_mode_a_call_switched_to_holds_for_the_next_call_of_the_session() {
    let dir = workspace();
    let state = tempfile::tempdir().unwrap();
    // Plan mode by default, write_file allowed once out of it.
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"permissions": {"defaultMode": "plan", "allow": ["write_file"]}}"#,
    )
    .unwrap();
    let settings = settings.to_str().unwrap();
    let root = dir.path().to_str().unwrap();
    let plan = r#"{"plan": "1. Write a.txt"}"#;
    let args = [
        "call",
        "present_plan",
        plan,
        "--workspace",
        root,
        "--settings",
        settings,
        "--session",
        "planned",
    ];
    answer_in_session(&args, dir.path(), state.path(), "y\n");

    let write = |file: &str, session: &str| {
        write_in_session(
            dir.path(),
            state.path(),
            file,
            session,
            &["--settings", settings],
        )
    };
    // The accepted plan ended plan mode in that session; a new session starts in plan mode.
    let same = write("a.txt", "planned");
    assert!(
        same.status.success(),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let fresh = write("b.txt", "fresh");
    assert_eq!(fresh.status.code(), Some(1));
    assert!(!dir.path().join("b.txt").exists());
}
