//! The `toolbox` command as a script or a person uses it: its output, its errors and its exit
//! codes (0 success, 1 the tool failed or `check` found problems, 2 usage, 3 set-up).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

fn toolbox(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("toolbox runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
    dir
}

#[test]
fn list_names_every_tool_with_its_effect_and_aliases() {
    let dir = project();
    let output = toolbox(&["list"], dir.path());
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let edit = text
        .lines()
        .find(|line| line.starts_with("edit_file "))
        .expect("edit_file is listed");
    assert!(edit.contains("mutating") && edit.contains("Edit"), "{edit}");
    for tool in [
        "read_file",
        "grep",
        "run_shell",
        "fetch_url",
        "execute",
        "todo_write",
    ] {
        assert!(
            text.lines().any(|line| line.starts_with(tool)),
            "{tool} missing"
        );
    }
}

#[test]
fn list_marks_the_tools_that_need_what_only_an_application_gives() {
    let dir = project();
    let text = stdout(&toolbox(&["list"], dir.path()));
    for (tool, needs) in [
        ("subtask ", "[needs a model"),
        ("web_search ", "[needs a search engine"),
    ] {
        let line = text.lines().find(|line| line.starts_with(tool)).unwrap();
        assert!(line.contains(needs), "{line}");
    }
    let read = text
        .lines()
        .find(|line| line.starts_with("read_file "))
        .unwrap();
    assert!(!read.contains("[needs"), "{read}");
}

#[test]
fn list_json_is_machine_readable() {
    let dir = project();
    let output = toolbox(&["list", "--json"], dir.path());
    let tools: Value = serde_json::from_slice(&output.stdout).unwrap();
    let read = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "read_file")
        .unwrap();
    assert_eq!(read["effect"], "read_only");
    assert_eq!(read["aliases"][0], "Read");
}

#[test]
fn schema_declares_one_tool_in_each_providers_shape() {
    let dir = project();
    let declaration = |dialect: &str| -> Value {
        let output = toolbox(&["schema", "Read", "--dialect", dialect], dir.path());
        assert!(output.status.success(), "{dialect}: {}", stderr(&output));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert_eq!(declaration("mcp")["inputSchema"]["type"], "object");
    assert_eq!(declaration("openai")["function"]["name"], "read_file");
    assert_eq!(
        declaration("openai-strict")["function"]["parameters"]["additionalProperties"],
        false
    );
    let responses = declaration("openai-responses");
    assert_eq!(
        (responses["name"].as_str(), &responses["strict"]),
        (Some("read_file"), &Value::Bool(false))
    );
    assert_eq!(declaration("anthropic")["input_schema"]["type"], "object");
    assert_eq!(
        declaration("gemini")["parametersJsonSchema"]["type"],
        "object"
    );
    assert_eq!(
        declaration("gemini-openapi")["parameters"]["type"],
        "OBJECT"
    );
}

#[test]
fn schema_of_every_tool_is_a_list() {
    let dir = project();
    let output = toolbox(&["schema", "--dialect", "anthropic-strict"], dir.path());
    assert!(output.status.success());
    let tools: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(tools.as_array().unwrap().len() > 20);
    assert!(
        stderr(&output).contains("strict tools"),
        "the request limit is noted on stderr: {}",
        stderr(&output)
    );
}

#[test]
fn an_unknown_tool_is_a_set_up_error_naming_the_closest() {
    let dir = project();
    let output = toolbox(&["schema", "read_fil"], dir.path());
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("did you mean `read_file`"),
        "{}",
        stderr(&output)
    );
    let output = toolbox(&["call", "read_fil", "{}"], dir.path());
    assert_eq!(output.status.code(), Some(3));
}

#[test]
fn a_call_runs_in_the_workspace_and_prints_the_result() {
    let dir = project();
    let output = toolbox(&["call", "grep", r#"{"pattern": "milk"}"#], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("notes.md"), "{}", stdout(&output));
}

/// Found by an exploratory run: a tool text ending in a line break was printed with a
/// second one after it.
#[test]
fn a_call_prints_its_text_with_one_line_break_at_the_end() {
    let dir = project();
    let output = toolbox(
        &["call", "read_file", r#"{"path": "notes.md"}"#],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{text:?}");
}

#[test]
fn a_call_that_fails_exits_1_with_what_the_model_would_read() {
    let dir = project();
    let output = toolbox(
        &["call", "read_file", r#"{"path": "missing.md"}"#],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("missing.md"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn arguments_that_are_not_json_are_a_usage_error_naming_where() {
    let dir = project();
    let output = toolbox(&["call", "read_file", r#"{"path": "notes.md""#], dir.path());
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let error = stderr(&output);
    assert!(
        error.contains("not valid JSON") && error.contains("line 1 column 19"),
        "{error}"
    );
    let output = toolbox(&["call", "read_file", r#"["notes.md"]"#], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("are an array, not a JSON object"),
        "{}",
        stderr(&output)
    );
    let output = toolbox(
        &["policy", "explain", "read_file", r#"{"path": "#],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not valid JSON"));
}

#[test]
fn arguments_are_read_from_a_file_with_an_at_sign() {
    let dir = project();
    std::fs::write(dir.path().join("args.json"), r#"{"path": "notes.md"}"#).unwrap();
    let output = toolbox(&["call", "read_file", "@args.json"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("buy milk"), "{}", stdout(&output));
    let output = toolbox(&["call", "read_file", "@missing.json"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read the arguments from `missing.json`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn arguments_are_read_from_stdin_with_a_dash() {
    use std::io::Write as _;
    let dir = project();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "write_file", "-", "--mode", "accept_edits"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Larger than a command line's argument may be (128 KiB on Linux).
    // `\n` escaped in the JSON: a line break in the written file.
    let content = "line of a large file\\n".repeat(20_000);
    let arguments = format!(r#"{{"path": "big.txt", "content": "{content}"}}"#);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(arguments.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = std::fs::read_to_string(dir.path().join("big.txt")).unwrap();
    assert_eq!(written.len(), 21 * 20_000);
}

#[test]
fn blank_arguments_are_no_arguments() {
    let dir = project();
    let output = toolbox(&["call", "list_dir", ""], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("notes.md"));
}

#[test]
fn without_a_terminal_a_call_needing_approval_is_refused_and_nothing_is_written() {
    let dir = project();
    let output = toolbox(
        &[
            "call",
            "write_file",
            r#"{"path": "new.md", "content": "hi"}"#,
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("approval"), "{}", stdout(&output));
    assert!(!dir.path().join("new.md").exists());
}

#[test]
fn a_settings_file_in_claude_codes_format_applies() {
    let dir = project();
    let settings = dir.path().join("settings.json");
    std::fs::write(&settings, r#"{"permissions": {"allow": ["Write"]}}"#).unwrap();
    let output = toolbox(
        &[
            "call",
            "write_file",
            r#"{"path": "new.md", "content": "hi"}"#,
            "--settings",
            settings.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.md")).unwrap(),
        "hi"
    );
}

#[test]
fn call_refused_without_a_terminal_names_the_remedy_and_the_remedy_works() {
    let dir = project();
    let call = [
        "call",
        "write_file",
        r#"{"path": "new.md", "content": "hi"}"#,
    ];
    let refused = toolbox(&call, dir.path());
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    let said = stderr(&refused);
    assert!(
        said.contains("`write_file` needs approval")
            && said.contains("--mode accept_edits")
            && said.contains(r#"{"permissions": {"allow": ["write_file"]}}"#),
        "{said}"
    );
    assert!(!dir.path().join("new.md").exists());

    // Each remedy it names lets the call run.
    let settings = dir.path().join("allow.json");
    std::fs::write(&settings, r#"{"permissions": {"allow": ["write_file"]}}"#).unwrap();
    let with_rule = [&call[..], &["--settings", settings.to_str().unwrap()]].concat();
    let allowed = toolbox(&with_rule, dir.path());
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    std::fs::remove_file(dir.path().join("new.md")).unwrap();
    let with_mode = [&call[..], &["--mode", "accept_edits"]].concat();
    let allowed = toolbox(&with_mode, dir.path());
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(stderr(&allowed).is_empty(), "{}", stderr(&allowed));
}

#[test]
fn call_run_shell_fails_with_the_command_and_says_its_code() {
    let dir = project();
    let run = |command: &str| {
        let arguments = serde_json::json!({ "command": command }).to_string();
        toolbox(
            &["call", "run_shell", &arguments, "--mode", "bypass"],
            dir.path(),
        )
    };
    let failed = run("echo out; exit 3");
    assert_eq!(failed.status.code(), Some(1), "{}", stdout(&failed));
    assert!(stdout(&failed).contains("out"), "{}", stdout(&failed));
    assert!(
        stderr(&failed).contains("the command exited with code 3"),
        "{}",
        stderr(&failed)
    );
    let passed = run("echo out");
    assert_eq!(passed.status.code(), Some(0), "{}", stderr(&passed));
    assert!(stderr(&passed).is_empty(), "{}", stderr(&passed));
}

#[test]
fn a_bad_settings_file_is_a_set_up_error_naming_it() {
    let dir = project();
    let settings = dir.path().join("settings.json");
    std::fs::write(&settings, r#"{"permissions": {"allow": ["Write(("]}}"#).unwrap();
    let output = toolbox(
        &[
            "call",
            "think",
            r#"{"thought": "x"}"#,
            "--settings",
            settings.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(3));
    assert!(!stderr(&output).is_empty());
}

#[test]
fn the_mode_flag_applies_to_the_call() {
    let dir = project();
    let output = toolbox(
        &[
            "call",
            "run_shell",
            r#"{"command": "rm notes.md"}"#,
            "--mode",
            "plan",
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("plan mode"), "{}", stdout(&output));
    assert!(dir.path().join("notes.md").exists());
    let output = toolbox(&["call", "think", "{}", "--mode", "sideways"], dir.path());
    assert_eq!(output.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&output).contains("accept_edits"),
        "{}",
        stderr(&output)
    );
}

/// Found by an exploratory run: `--mode` defaulted to `default` and was applied after the
/// settings, so their `permissions.defaultMode` never took effect.
#[test]
fn the_settings_default_mode_applies_unless_the_flag_is_given() {
    let dir = project();
    std::fs::write(
        dir.path().join("plan.json"),
        r#"{"permissions": {"defaultMode": "plan"}}"#,
    )
    .unwrap();
    let explain = |extra: &[&str]| {
        let mut args = vec![
            "policy",
            "explain",
            "write_file",
            r#"{"path": "a.txt", "content": "x"}"#,
            "--settings",
            "plan.json",
        ];
        args.extend_from_slice(extra);
        let output = toolbox(&args, dir.path());
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    };
    let text = explain(&[]);
    assert!(text.starts_with("`write_file`: deny"), "{text}");
    assert!(text.contains("plan mode"), "{text}");
    let text = explain(&["--mode", "bypass"]);
    assert!(text.starts_with("`write_file`: allow"), "{text}");
}

/// Found by an exploratory run: what a settings file holds that is ignored or may not do what
/// it seems (a misspelt key, an event not run here, a `*` mid-rule) was never said.
#[test]
fn what_the_settings_ignore_or_may_misread_is_said_on_stderr() {
    let dir = project();
    std::fs::write(
        dir.path().join("odd.json"),
        r#"{"permissions": {"allwo": ["Bash(ls)"], "allow": ["Bash(git * main)"]},
            "hooks": {"PreTooluse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    let output = toolbox(
        &[
            "policy",
            "explain",
            "think",
            r#"{"thought": "x"}"#,
            "--settings",
            "odd.json",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("`permissions.allwo` ignored"), "{said}");
    assert!(said.contains("did you mean `allow`?"), "{said}");
    assert!(said.contains("`hooks.PreTooluse` ignored"), "{said}");
    assert!(
        said.contains("warning: odd.json: `permissions.allow[0]`"),
        "{said}"
    );
    assert!(
        !stdout(&output).contains("ignored"),
        "stdout stays the answer"
    );
}

#[test]
fn policy_explain_shows_every_rule_and_the_one_that_decided() {
    let dir = project();
    let output = toolbox(
        &[
            "policy",
            "explain",
            "Bash",
            r#"{"command": "git status"}"#,
            "--mode",
            "plan",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("`run_shell`: allow"), "{text}");
    assert!(text.contains("=>"), "{text}");
}

#[test]
fn check_passes_for_the_standard_tools_and_counts_its_notes() {
    let dir = project();
    let output = toolbox(&["check"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("0 errors"), "{}", stdout(&output));
    let sandbox = stdout(&output)
        .lines()
        .find(|line| line.starts_with("run_shell sandbox: "))
        .map(str::to_owned);
    assert_eq!(
        sandbox,
        Some(format!(
            "run_shell sandbox: {}",
            tool_std::shell::sandbox::status()
        ))
    );
    if tool_std::shell::sandbox::status().holds_files() {
        let engine = format!(
            "run_shell sandbox file system: {}",
            tool_std::shell::sandbox::engine()
        );
        assert!(
            stdout(&output).lines().any(|line| line == engine),
            "{}",
            stdout(&output)
        );
    }
}

#[test]
fn check_is_a_summary_by_default_and_lists_every_note_when_verbose() {
    let dir = project();
    let short = stdout(&toolbox(&["check"], dir.path()));
    assert!(short.lines().count() < 12, "{short}");
    assert!(
        !short.lines().any(|line| line.starts_with("note:")),
        "{short}"
    );
    let by_dialect = short
        .lines()
        .find(|line| line.starts_with("notes by dialect: "))
        .unwrap_or_else(|| panic!("{short}"));
    assert!(by_dialect.contains("--verbose"), "{by_dialect}");

    let long = stdout(&toolbox(&["check", "--verbose"], dir.path()));
    let counted: usize = long
        .lines()
        .next()
        .and_then(|summary| summary.split("; ").nth(2))
        .and_then(|notes| notes.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no count of notes in the first line: {long}"));
    assert!(counted > 0, "{long}");
    assert_eq!(
        long.lines()
            .filter(|line| line.starts_with("note: "))
            .count(),
        counted,
        "{long}"
    );
}

#[test]
fn the_sandbox_auto_allow_setting_lets_a_sandboxed_command_run_without_asking() {
    if !matches!(
        tool_std::shell::sandbox::status(),
        tool_std::shell::sandbox::Sandbox::Enforced { .. }
    ) {
        eprintln!("skipped: no Landlock sandbox on this kernel");
        return;
    }
    let dir = project();
    let settings = dir.path().join("settings.json");
    let call = [
        "call",
        "run_shell",
        r#"{"command": "touch made-here"}"#,
        "--settings",
    ];
    std::fs::write(
        &settings,
        r#"{"sandbox": {"autoAllowBashIfSandboxed": false}}"#,
    )
    .unwrap();
    let mut args = call.to_vec();
    args.push(settings.to_str().unwrap());
    let output = toolbox(&args, dir.path());
    assert_eq!(
        output.status.code(),
        Some(1),
        "asked, nobody to ask: {}",
        stdout(&output)
    );
    std::fs::write(
        &settings,
        r#"{"sandbox": {"autoAllowBashIfSandboxed": true}}"#,
    )
    .unwrap();
    let output = toolbox(&args, dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(dir.path().join("made-here").exists());
}

#[test]
fn completions_are_printed_for_a_shell() {
    let dir = project();
    let output = toolbox(&["completions", "bash"], dir.path());
    assert!(output.status.success());
    assert!(stdout(&output).contains("toolbox"));
    // Found by an exploratory run: `--mode` completed file names; it offers the modes.
    assert!(
        stdout(&output).contains("default accept_edits plan bypass dont_ask"),
        "{}",
        stdout(&output)
    );
    // `call` and `schema` complete the tools' names.
    assert!(
        stdout(&output).contains("apply_patch edit_file execute fetch_url glob grep"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_tool_outside_the_completions_is_still_taken() {
    // The names offered for completion do not limit what `call` takes (an alias, say).
    let dir = project();
    let output = toolbox(&["call", "Read", r#"{"path": "notes.md"}"#], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("buy milk"));
}

#[test]
fn output_to_a_pipe_has_no_terminal_codes() {
    let dir = project();
    for args in [&["--help"][..], &["list"], &["check"]] {
        let output = toolbox(args, dir.path());
        assert!(!output.stdout.contains(&0x1b), "{args:?}");
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_listing_quietly() {
    let dir = project();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["schema"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader closes at once, as `| head -0` would
    let output = child.wait_with_output().unwrap();
    assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
}

/// Found by an exploratory run: `completions` panicked when its reader went away.
#[test]
fn a_reader_that_goes_away_ends_the_completions_quietly() {
    let dir = project();
    for shell in ["bash", "zsh", "fish"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .args(["completions", shell])
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
        assert_eq!(output.status.code(), Some(0), "{shell}");
    }
}

/// `toolbox` with `TOOLKIT_MONTY_WORKER` set to `worker`, or removed.
fn toolbox_with_worker(args: &[&str], dir: &Path, worker: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolbox"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    match worker {
        Some(worker) => command.env("TOOLKIT_MONTY_WORKER", worker),
        None => command.env_remove("TOOLKIT_MONTY_WORKER"),
    };
    command.output().expect("toolbox runs")
}

#[test]
fn check_says_execute_runs_in_process_without_a_worker() {
    let dir = project();
    let output = toolbox_with_worker(&["check"], dir.path(), None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("execute: in-process")
            && stdout(&output).contains("TOOLKIT_MONTY_WORKER"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn check_fails_naming_a_worker_that_is_not_there() {
    let dir = project();
    let output = toolbox_with_worker(&["check"], dir.path(), Some("/nonexistent/monty"));
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("`/nonexistent/monty`, which is not a file"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn call_execute_runs_in_the_worker_the_environment_names() {
    let dir = project();
    let output = toolbox_with_worker(
        &["call", "execute", r#"{"code": "1 + 1"}"#],
        dir.path(),
        Some("/nonexistent/monty"),
    );
    // The run went to the worker: the one named, which is not there.
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = format!("{}{}", stdout(&output), stderr(&output));
    assert!(
        text.contains("could not start the interpreter's worker `/nonexistent/monty`"),
        "{text}"
    );
}

/// `toolbox` with `home` as the user's home and `managed` as the managed settings file, so
/// that the machine's own Claude Code settings do not take part.
fn toolbox_at_home(args: &[&str], dir: &Path, home: &Path, managed: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("TOOLKIT_MANAGED_SETTINGS", managed)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("toolbox runs")
}

/// A project with Claude Code's settings in every place it looks: the user's, the project's,
/// the local file and the managed file.
struct Discovered {
    project: tempfile::TempDir,
    home: tempfile::TempDir,
    managed: std::path::PathBuf,
}

impl Discovered {
    fn new() -> Self {
        let project = project();
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".claude")).unwrap();
        std::fs::create_dir(home.path().join(".claude")).unwrap();
        let managed = home.path().join("managed-settings.json");
        Discovered {
            project,
            home,
            managed,
        }
    }

    fn write(&self, scope: &str, json: &str) {
        let path = match scope {
            "user" => self.home.path().join(".claude/settings.json"),
            "project" => self.project.path().join(".claude/settings.json"),
            "local" => self.project.path().join(".claude/settings.local.json"),
            _ => self.managed.clone(),
        };
        std::fs::write(path, json).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        toolbox_at_home(args, self.project.path(), self.home.path(), &self.managed)
    }

    fn explain(&self, tool: &str, arguments: &str, extra: &[&str]) -> String {
        let mut args = vec!["policy", "explain", tool, arguments];
        args.extend_from_slice(extra);
        let output = self.run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output)
    }
}

/// Issue 26: `policy explain` said "ask" for a call the project's own settings deny, since
/// `.claude/settings.json` was read only when passed with `--settings`.
#[test]
fn the_projects_settings_are_found_where_claude_code_finds_them() {
    let fx = Discovered::new();
    fx.write(
        "project",
        r#"{"permissions": {"deny": ["run_shell(rm *)"]}}"#,
    );
    let command = r#"{"command": "rm -rf build"}"#;
    let text = fx.explain("run_shell", command, &[]);
    assert!(text.starts_with("`run_shell`: deny"), "{text}");
    // Turned off, only what is named counts.
    let text = fx.explain("run_shell", command, &["--no-discover"]);
    assert!(text.starts_with("`run_shell`: ask"), "{text}");
}

#[test]
fn every_settings_file_takes_part_with_claude_codes_precedence() {
    let fx = Discovered::new();
    fx.write(
        "user",
        r#"{"permissions": {"defaultMode": "plan", "deny": ["fetch_url"]}}"#,
    );
    fx.write(
        "project",
        r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,
    );
    let write = r#"{"path": "a.txt", "content": "x"}"#;
    // The project's mode outranks the user's; the user's deny still applies.
    let text = fx.explain("write_file", write, &[]);
    assert!(text.starts_with("`write_file`: allow"), "{text}");
    let text = fx.explain("fetch_url", r#"{"url": "https://example.com"}"#, &[]);
    assert!(text.starts_with("`fetch_url`: deny"), "{text}");
    // The local file outranks the project's, --settings the local file, managed everything.
    fx.write("local", r#"{"permissions": {"defaultMode": "plan"}}"#);
    assert!(
        fx.explain("write_file", write, &[])
            .starts_with("`write_file`: deny")
    );
    std::fs::write(
        fx.project.path().join("cli.json"),
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    let text = fx.explain("write_file", write, &["--settings", "cli.json"]);
    assert!(text.starts_with("`write_file`: allow"), "{text}");
    fx.write("managed", r#"{"permissions": {"defaultMode": "plan"}}"#);
    let text = fx.explain("write_file", write, &["--settings", "cli.json"]);
    assert!(text.starts_with("`write_file`: deny"), "{text}");
}

#[test]
fn a_malformed_discovered_file_is_a_setup_error_naming_it() {
    let fx = Discovered::new();
    fx.write("local", r#"{"permissions": {"allow": "Read"}}"#);
    let output = fx.run(&["policy", "explain", "think", r#"{"thought": "x"}"#]);
    assert_eq!(output.status.code(), Some(3));
    let said = stderr(&output);
    assert!(said.contains("settings.local.json"), "{said}");
    assert!(said.contains("`permissions.allow`"), "{said}");
}

#[test]
fn policy_sources_names_each_file_and_where_each_rule_came_from() {
    let fx = Discovered::new();
    fx.write("user", r#"{"permissions": {"allow": ["read_file"]}}"#);
    fx.write(
        "project",
        r#"{"permissions": {"deny": ["run_shell(rm *)"]}}"#,
    );
    let output = fx.run(&["policy", "sources"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let project = fx.project.path().join(".claude/settings.json");
    let local = fx.project.path().join(".claude/settings.local.json");
    assert!(
        text.contains(&format!("project       {}\n", project.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("local         {} (absent)", local.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "deny  run_shell(rm *)  (project: {})",
            project.display()
        )),
        "{text}"
    );
    assert!(text.contains("allow  read_file  (user: "), "{text}");
}

/// Issue 26: a misspelt settings key was silently ignored, while a misspelt `.mcp.json` key
/// was an error. Claude Code's keys are now checked too, and a stranger is named.
#[test]
fn a_misspelt_top_level_settings_key_is_reported_with_the_likely_key() {
    let fx = Discovered::new();
    fx.write(
        "project",
        r#"{"permisions": {"deny": ["read_file"]}, "env": {"A": "1"}}"#,
    );
    let output = fx.run(&["policy", "explain", "think", r#"{"thought": "x"}"#]);
    assert!(output.status.success(), "{}", stderr(&output));
    let said = stderr(&output);
    assert!(
        said.contains("`permisions`: not a key of Claude Code's settings, so it has no effect; did you mean `permissions`?"),
        "{said}"
    );
    assert!(
        !said.contains("`env`"),
        "Claude Code's own keys are not reported: {said}"
    );
}

/// Issue 26: the project's `.mcp.json` is read as Claude Code reads it: its servers start
/// once the settings approve them.
#[test]
fn the_projects_mcp_json_servers_start_once_approved() {
    let fx = Discovered::new();
    let server = serde_json::json!({"mcpServers": {"self": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve", "--mode", "bypass", "--no-discover"],
    }}});
    std::fs::write(fx.project.path().join(".mcp.json"), server.to_string()).unwrap();
    let call = || {
        fx.run(&[
            "call",
            "mcp__self__read_file",
            r#"{"path": "notes.md"}"#,
            "--mode",
            "bypass",
        ])
    };
    let output = call();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("server `self` is not started: approve it"),
        "{}",
        stderr(&output)
    );
    fx.write("local", r#"{"enabledMcpjsonServers": ["self"]}"#);
    let output = call();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("buy milk"), "{}", stdout(&output));
    fx.write(
        "local",
        r#"{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["self"]}"#,
    );
    assert!(!call().status.success());
}

/// Issue 25: a misspelt key of `.mcp.json` is a warning, as one of settings is, printed on
/// stderr naming the file, the key and the key meant; the server still starts.
#[test]
fn a_misspelt_mcp_json_key_is_a_warning_on_stderr_and_the_server_still_starts() {
    let fx = Discovered::new();
    let server = serde_json::json!({"mcpServers": {"self": {
        "command": env!("CARGO_BIN_EXE_toolbox"),
        "args": ["serve", "--mode", "bypass", "--no-discover"],
        "evn": {"LEVEL": "1"},
    }}});
    let config = fx.project.path().join(".mcp.json");
    std::fs::write(&config, server.to_string()).unwrap();
    fx.write("local", r#"{"enabledMcpjsonServers": ["self"]}"#);
    let output = fx.run(&[
        "call",
        "mcp__self__read_file",
        r#"{"path": "notes.md"}"#,
        "--mode",
        "bypass",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("buy milk"), "{}", stdout(&output));
    let said = stderr(&output);
    assert!(
        said.contains(&format!(
            "toolbox: warning: {}: `mcpServers.self.evn`: not a key of a server, so it has no effect; did you mean `env`?",
            config.display()
        )),
        "{said}"
    );
}

/// `toolbox install CLIENT --config FILE` run in `dir` with `extra` arguments.
fn install(dir: &Path, config: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "install",
        "claude-desktop",
        "--config",
        config.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    toolbox(&args, dir)
}

#[test]
fn install_writes_the_entry_with_absolute_paths_after_showing_it() {
    let dir = project();
    let config = dir.path().join("client/claude_desktop_config.json");
    let output = install(
        dir.path(),
        &config,
        &["--yes", "--", "--tags", "fs", "--settings", "s.json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let entry = &written["mcpServers"]["toolbox"];
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_toolbox")).unwrap();
    let shown = format!("\"command\": \"{}\"", program.display());
    assert!(stdout(&output).contains(&shown), "{}", stdout(&output));
    assert_eq!(entry["command"], json!(program));
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(
        entry["args"],
        json!([
            "serve",
            "--workspace",
            root,
            "--tags",
            "fs",
            "--settings",
            root.join("s.json")
        ])
    );
}

#[test]
fn install_keeps_the_other_servers_and_says_it_replaces_its_own() {
    let dir = project();
    let config = dir.path().join("claude.json");
    std::fs::write(
        &config,
        r#"{"theme": "dark", "mcpServers": {"other": {"command": "other-server"}, "toolbox": {"command": "old"}}}"#,
    )
    .unwrap();
    let output = install(dir.path(), &config, &["--yes"]);
    assert!(
        stdout(&output).contains("replaces the entry `toolbox`"),
        "{}",
        stdout(&output)
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(written["theme"], "dark");
    assert_eq!(written["mcpServers"]["other"]["command"], "other-server");
    assert_eq!(
        written["mcpServers"]["toolbox"]["command"],
        env!("CARGO_BIN_EXE_toolbox")
    );
}

#[test]
fn install_without_a_terminal_or_yes_only_shows_the_entry() {
    let dir = project();
    let config = dir.path().join("claude.json");
    let output = install(dir.path(), &config, &[]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).contains("\"mcpServers\""),
        "{}",
        stdout(&output)
    );
    assert!(stdout(&output).contains("--yes"), "{}", stdout(&output));
    assert!(!config.exists());
}

#[test]
fn install_leaves_a_config_that_is_not_json_as_it_is() {
    let dir = project();
    let config = dir.path().join("claude.json");
    std::fs::write(&config, "{ not json").unwrap();
    let output = install(dir.path(), &config, &["--yes"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("left as it is"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "{ not json");
}

#[test]
fn a_command_cannot_write_the_settings_the_next_call_would_load() {
    if !matches!(
        tool_std::shell::sandbox::engine(),
        tool_std::shell::sandbox::Engine::Bubblewrap { .. }
            | tool_std::shell::sandbox::Engine::Namespaces { .. }
    ) {
        // Landlock alone cannot take a right away beneath the writable workspace.
        eprintln!("skipped: no mount namespace is the sandbox here");
        return;
    }
    let dir = project();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash"]}}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join(".mcp.json"), r#"{"mcpServers": {}}"#).unwrap();
    // A script, so that only the kernel can see what it writes.
    std::fs::write(
        dir.path().join("loosen.sh"),
        "echo '{\"sandbox\": {\"enabled\": false}}' > .claude/settings.local.json\n\
         mv .claude .moved; mkdir -p .claude; echo '{}' > .claude/settings.local.json\n\
         echo '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}' > .mcp.json\n\
         echo done > done.txt\n",
    )
    .unwrap();
    let ran = toolbox(
        &[
            "call",
            "run_shell",
            r#"{"command": "bash loosen.sh"}"#,
            "--mode",
            "bypass",
        ],
        dir.path(),
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("done.txt")).unwrap(),
        "done\n",
        "{}",
        stdout(&ran)
    );
    assert!(!dir.path().join(".claude/settings.local.json").exists());
    // Held as a mount, `.claude` is not renamed away to be made again.
    assert!(!dir.path().join(".moved").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".mcp.json")).unwrap(),
        r#"{"mcpServers": {}}"#
    );
}
