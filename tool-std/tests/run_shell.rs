//! `run_shell`: exit codes and signals, output in the order written and cleaned, long output
//! cut and kept, no terminal to wait on (gemini-cli#24707), a background child that does not
//! hold the call (opencode#22012), whole process groups stopped on timeout and cancellation,
//! the workdir confined by the policy, Claude Code's, Codex's and Gemini CLI's parameter
//! names, and plan mode driven by the read-only classification.
#![cfg(unix)]

use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::ToolError;
use tool_core::policy::{Mode, PolicyBuilder};

mod shell_support;
use shell_support::{Shell, first_line_pgid, group_gone};

#[test]
fn the_exit_code_is_reported() {
    let shell = Shell::new();
    let run = shell.run("echo failing; exit 3");
    assert_eq!((run.exit_code, run.signal.as_deref()), (Some(3), None));
    assert!(!run.timed_out);
    assert_eq!(run.output, "failing\n");
    assert_eq!(run.note, None);
    assert_eq!(shell.run("true").exit_code, Some(0));
}

#[test]
fn a_command_ended_by_a_signal_reports_the_signal() {
    let run = Shell::new().run("kill -KILL $$");
    assert_eq!(
        (run.exit_code, run.signal.as_deref()),
        (None, Some("SIGKILL"))
    );
}

#[test]
fn stdout_and_stderr_are_interleaved_in_the_order_written() {
    let run = Shell::new().run("echo one; echo two >&2; echo three; echo four >&2; echo five");
    assert_eq!(run.output, "one\ntwo\nthree\nfour\nfive\n");
}

#[test]
fn ansi_codes_and_progress_redraws_are_stripped() {
    let run = Shell::new()
        .run(r"printf '\033[1;31mred\033[0m plain\n\033]0;a title\007titled\n10%%\r55%%\r100%%\n'");
    assert_eq!(run.output, "red plain\ntitled\n100%\n");
}

#[test]
fn long_output_is_cut_with_a_marker_and_kept_whole_as_an_artifact() {
    let shell = Shell::new();
    let run = shell.run("seq 1 100000");
    let artifact = run.artifact.expect("the whole output kept");
    assert!(run.output.starts_with("1\n2\n3\n"), "{}", &run.output[..20]);
    assert!(run.output.ends_with("99999\n100000\n"));
    let marker = run
        .output
        .lines()
        .find(|line| line.starts_with("... [omitted "))
        .expect("a marker");
    assert!(
        marker.contains(&format!("the whole output is artifact {artifact}")),
        "{marker}"
    );
    assert!(run.output.chars().count() < 31_000);
    let omitted: usize = marker["... [omitted ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let shown = run.output.lines().count() - 1;
    assert_eq!(
        shown + omitted,
        100_000,
        "every line either shown or counted"
    );
    let whole = shell.artifacts.get(&artifact).unwrap();
    let expected: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
    assert_eq!(&*whole.text, expected);
}

#[test]
fn short_output_is_whole_and_no_artifact_is_kept() {
    let shell = Shell::new();
    let run = shell.run("seq 1 10");
    assert_eq!(run.artifact, None);
    assert!(shell.artifacts.list().is_empty());
}

/// opencode#22012: a call waited for the pipe to close, which a child left in the background
/// postpones for as long as it runs.
#[test]
fn a_background_child_holding_stdout_does_not_hold_the_call() {
    let shell = Shell::new();
    for command in [
        "echo $(cut -d' ' -f5 /proc/$$/stat); sleep 30 & echo started",
        "echo $(cut -d' ' -f5 /proc/$$/stat); (sleep 30 >&1 &); echo started",
    ] {
        let started = Instant::now();
        let run = shell.run_with(json!({"command": command, "timeout_ms": 20_000}));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "`{command}` took {:?}",
            started.elapsed()
        );
        assert!(!run.timed_out);
        assert_eq!(run.exit_code, Some(0));
        assert!(run.output.ends_with("started\n"), "{}", run.output);
        assert!(
            run.note
                .unwrap()
                .contains("processes the command left running (`cmd &`) were stopped")
        );
        // What it left running is stopped with it.
        let pgid = first_line_pgid(&run.output);
        assert_eq!(
            group_gone(pgid),
            Ok(()),
            "`{command}` left processes running"
        );
    }
}

/// The pipe is read after the shell's exit only until it is quiet: a child left writing
/// without pause kept it busy, and the call waited for its time limit.
#[test]
fn a_background_child_writing_without_pause_does_not_hold_the_call() {
    let shell = Shell::new();
    let started = Instant::now();
    let run = shell.run_with(json!({
        "command": "echo $(cut -d' ' -f5 /proc/$$/stat) > pgid.txt; yes & sleep 0.2; echo started",
        "timeout_ms": 20_000,
    }));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(!run.timed_out);
    assert_eq!(run.exit_code, Some(0));
    let pgid = std::fs::read_to_string(shell.root().join("pgid.txt")).unwrap();
    assert_eq!(group_gone(pgid.trim().parse().unwrap()), Ok(()));
}

#[test]
fn a_timed_out_command_leaves_no_process_of_its_group() {
    let shell = Shell::new();
    let run = shell.run_with(json!({
        "command": "echo $(cut -d' ' -f5 /proc/$$/stat); sleep 30 & sleep 30 & wait",
        "timeout_ms": 1000,
    }));
    assert!(run.timed_out);
    assert_eq!(run.signal.as_deref(), Some("SIGTERM"));
    assert!(run.note.unwrap().contains("time limit of 1000 ms"));
    assert_eq!(group_gone(first_line_pgid(&run.output)), Ok(()));
}

#[test]
fn a_command_ignoring_sigterm_is_killed_after_the_grace_period() {
    let shell = Shell::new();
    let run = shell.run_with(json!({
        "command": "trap '' TERM; echo $(cut -d' ' -f5 /proc/$$/stat); sleep 30 & wait",
        "timeout_ms": 1000,
    }));
    assert!(run.timed_out);
    assert_eq!(run.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(group_gone(first_line_pgid(&run.output)), Ok(()));
}

/// gemini-cli#24707: a command asking for input on a terminal nobody watches hung the agent.
#[test]
fn a_command_waiting_on_a_terminal_prompt_fails_at_once() {
    let shell = Shell::new();
    // No controlling terminal: /dev/tty cannot even be opened.
    let run = shell.run_with(json!({
        "command": "read -p 'Password: ' secret < /dev/tty",
        "timeout_ms": 30_000,
    }));
    assert!(!run.timed_out, "it waited for an answer");
    assert_ne!(run.exit_code, Some(0));
    assert!(run.output.contains("/dev/tty"), "{}", run.output);
    // Standard input is empty, not a terminal: a read gets end of file at once.
    let run = shell.run_with(json!({
        "command": "read answer; echo \"read: $? [$answer]\"; [ -t 0 ] || echo 'stdin is no terminal'",
        "timeout_ms": 30_000,
    }));
    assert_eq!(run.output, "read: 1 []\nstdin is no terminal\n");
}

#[test]
fn prompting_programs_are_told_not_to_prompt() {
    let run = Shell::new().run(
        "echo \"$GIT_TERMINAL_PROMPT [$GIT_ASKPASS] $DEBIAN_FRONTEND $PAGER $GIT_PAGER $TERM $NO_COLOR\"",
    );
    assert_eq!(run.output, "0 [] noninteractive cat cat dumb 1\n");
}

#[test]
fn a_cancelled_call_kills_its_group() {
    let shell = Shell::new();
    let coordinator = shell.coordinator.clone();
    let call = std::thread::spawn(move || {
        coordinator.call_blocking(tool_core::ToolCall::new(
            "run_shell",
            json!({"command": "echo $(cut -d' ' -f5 /proc/$$/stat) > pgid.txt; sleep 30 & sleep 30"}).to_string(),
        ))
    });
    let pgid_file = shell.root().join("pgid.txt");
    let deadline = Instant::now() + Duration::from_secs(10);
    let pgid = loop {
        if let Some(pgid) = std::fs::read_to_string(&pgid_file)
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        {
            break pgid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(!shell_support::live_members(pgid).is_empty());
    shell.cancellation.cancel();
    let result = call.join().unwrap();
    assert!(
        matches!(result.error(), Some(ToolError::Cancelled)),
        "{}",
        result.text()
    );
    assert_eq!(group_gone(pgid), Ok(()));
}

#[test]
fn workdir_defaults_to_the_workspace_root_and_is_a_workspace_path() {
    let shell = Shell::new();
    std::fs::create_dir(shell.root().join("sub")).unwrap();
    let root = shell.root().canonicalize().unwrap();
    assert_eq!(shell.run("pwd -P").output, format!("{}\n", root.display()));
    let run = shell.run_with(json!({"command": "pwd -P", "workdir": "sub"}));
    assert_eq!(run.output, format!("{}\n", root.join("sub").display()));
}

#[test]
fn workdir_outside_the_workspace_is_refused_by_the_policy() {
    let shell = Shell::new();
    for outside in ["/", "..", "/etc"] {
        let result = shell.call("run_shell", json!({"command": "ls", "workdir": outside}));
        assert!(
            matches!(result.error(), Some(ToolError::Denied { .. })),
            "{outside}: {}",
            result.text()
        );
    }
}

#[test]
fn a_workdir_that_is_a_file_or_missing_is_said() {
    let shell = Shell::new();
    std::fs::write(shell.root().join("notes.txt"), "x").unwrap();
    let result = shell.call(
        "run_shell",
        json!({"command": "ls", "workdir": "notes.txt"}),
    );
    assert!(
        result
            .text()
            .contains("`notes.txt` is a file, not a directory"),
        "{}",
        result.text()
    );
    let result = shell.call("run_shell", json!({"command": "ls", "workdir": "missing"}));
    assert!(
        result.is_error() && result.text().contains("missing"),
        "{}",
        result.text()
    );
}

#[test]
fn a_timeout_over_the_maximum_is_an_argument_error_naming_the_maximum() {
    let result = Shell::new().call(
        "run_shell",
        json!({"command": "true", "timeout_ms": 600_001}),
    );
    assert!(matches!(
        result.error(),
        Some(ToolError::InvalidArguments { .. })
    ));
    assert!(result.text().contains("$.timeout_ms"), "{}", result.text());
    assert!(result.text().contains("600000"), "{}", result.text());
}

#[test]
fn the_bash_alias_takes_claude_codes_parameter_names() {
    let shell = Shell::new();
    let run: tool_std::ShellReply = shell.reply(
        "Bash",
        json!({
            "command": "echo from claude",
            "timeout": 5000,
            "description": "Print a greeting",
            "run_in_background": false,
        }),
    );
    let tool_std::ShellReply::Finished(run) = run else {
        panic!("expected a finished command");
    };
    assert_eq!(run.output, "from claude\n");
    // A timeout in Claude Code's name is checked like one in ours.
    let result = shell.call("Bash", json!({"command": "true", "timeout": 900_000}));
    assert!(matches!(
        result.error(),
        Some(ToolError::InvalidArguments { .. })
    ));
}

#[test]
fn codex_and_gemini_cli_parameter_names_are_taken() {
    let shell = Shell::new();
    std::fs::create_dir(shell.root().join("sub")).unwrap();
    for arguments in [
        json!({"command": "basename \"$PWD\"", "workdir": "sub", "timeout_ms": 5000}),
        json!({"command": "basename \"$PWD\"", "directory": "sub"}),
    ] {
        assert_eq!(shell.run_with(arguments).output, "sub\n");
    }
}

#[test]
fn plan_mode_runs_git_status_and_refuses_rm() {
    let shell = Shell::with(PolicyBuilder::default(), Mode::Plan);
    std::fs::write(shell.root().join("x"), "keep me").unwrap();
    let run = shell.run("git status --short");
    assert!(
        run.exit_code.is_some(),
        "git status ran (in or out of a repository)"
    );
    let result = shell.call("run_shell", json!({"command": "rm x"}));
    assert!(
        matches!(result.error(), Some(ToolError::Denied { .. })),
        "{}",
        result.text()
    );
    let result = shell.call("run_shell", json!({"command": "git status > status.txt"}));
    assert!(
        matches!(result.error(), Some(ToolError::Denied { .. })),
        "{}",
        result.text()
    );
    assert!(shell.root().join("x").exists());
    assert!(!shell.root().join("status.txt").exists());
}

#[test]
fn the_spec_is_mutating_open_world_with_a_per_call_classification() {
    let registry = tool_core::Registry::global();
    let spec = registry.get("Bash").unwrap().spec();
    assert_eq!(spec.name, "run_shell");
    assert_eq!(spec.effect, tool_core::spec::Effect::Mutating);
    assert!(spec.open_world);
    for (name, effect) in [
        ("shell_output", tool_core::spec::Effect::ReadOnly),
        ("list_shells", tool_core::spec::Effect::ReadOnly),
        ("kill_shell", tool_core::spec::Effect::Mutating),
    ] {
        assert_eq!(registry.get(name).unwrap().spec().effect, effect, "{name}");
    }
}

#[test]
fn command_rules_judge_the_command_line() {
    let shell = Shell::with(
        PolicyBuilder::default()
            .allow("run_shell(echo *)")
            .deny("Bash(rm:*)"),
        Mode::Default,
    );
    std::fs::write(shell.root().join("x"), "keep me").unwrap();
    assert_eq!(shell.run("echo allowed").output, "allowed\n");
    for command in ["touch made", "echo ok && rm x", "rm -f x"] {
        let result = shell.call("run_shell", json!({"command": command}));
        assert!(result.is_error(), "{command}: {}", result.text());
    }
    assert!(shell.root().join("x").exists());
    assert!(!shell.root().join("made").exists());
}

/// The same prompt when the agent itself has a controlling terminal (as a CLI agent run by a
/// person has): util-linux's `script` runs this test binary again in a pseudo-terminal of its
/// own, and [`in_the_agents_own_terminal`] checks there that the command cannot reach it.
/// Without a session of its own the command would be in a background group of that terminal,
/// stopped by SIGTTIN until its time limit.
#[test]
fn a_prompt_on_the_agents_own_terminal_fails_at_once() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` is not on the PATH");
        return;
    }
    let test_binary = std::env::current_exe().unwrap();
    let inner = format!(
        "'{}' --exact in_the_agents_own_terminal --ignored --nocapture",
        test_binary.display()
    );
    let output = std::process::Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains("1 passed"), "{printed}");
}

#[test]
#[ignore = "run by a_prompt_on_the_agents_own_terminal_fails_at_once, in a pseudo-terminal"]
fn in_the_agents_own_terminal() {
    assert!(
        std::fs::File::open("/dev/tty").is_ok(),
        "this test needs a controlling terminal"
    );
    let run = Shell::new().run_with(json!({
        "command": "read -p 'Password: ' secret < /dev/tty",
        "timeout_ms": 10_000,
    }));
    assert!(!run.timed_out, "it waited on the terminal");
    assert_ne!(run.exit_code, Some(0));
    assert!(run.output.contains("/dev/tty"), "{}", run.output);
}

#[test]
fn output_past_the_cap_keeps_the_newest_bytes_and_says_so() {
    let shell = Shell::new();
    // 12 MB in numbered lines of 100 bytes, past the 8 MiB a command keeps.
    let run = shell.run("seq -f '%099g' 1 120000");
    assert_eq!(run.exit_code, Some(0));
    let note = run.note.expect("the drop is said");
    assert!(
        note.contains("bytes of output were dropped: at most the last 8388608 bytes are kept"),
        "{note}"
    );
    assert!(run.output.ends_with(&format!("{:099}\n", 120_000)));
    let whole = shell.artifacts.get(&run.artifact.unwrap()).unwrap();
    assert_eq!(whole.text.len(), 8 * 1024 * 1024);
}

/// Issue 27: the model read `run_shell`'s reply as JSON, a build log with every line break and
/// quote escaped. It reads the status, the wall time and the output as it came, as Codex and
/// Claude Code give it; the structure is still there for programs.
#[test]
fn the_model_reads_the_exit_status_and_the_output_as_it_came() {
    let shell = Shell::new();
    let result = shell.call(
        "run_shell",
        json!({"command": "printf 'error: \"x\" not found\\n\\tat line 3\\n'; exit 2"}),
    );
    let text = result.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Exit code: 2", "{text}");
    assert!(
        lines[1].starts_with("Wall time: ") && lines[1].ends_with(" ms"),
        "{text}"
    );
    assert_eq!(
        lines[2..],
        ["Output:", "error: \"x\" not found", "\tat line 3"],
        "{text}"
    );
    assert_eq!(result.structured().unwrap()["exit_code"], 2);

    let quiet = shell.call("run_shell", json!({"command": "true"}));
    assert!(
        quiet.text().ends_with("Output: (none)\n"),
        "{}",
        quiet.text()
    );

    let slow = shell.call(
        "run_shell",
        json!({"command": "sleep 5", "timeout_ms": 200}),
    );
    assert!(
        slow.text()
            .starts_with("Timed out: stopped at its time limit (SIGTERM)"),
        "{}",
        slow.text()
    );
}

/// Found by an exploratory run: under `toolbox`'s output limit (30,000 characters), a long
/// output cut to 30,000 characters grew past the limit once escaped into the JSON answer, so
/// the answer was cut again: its JSON broken, its count of what was left out wrong, and the
/// artifact it named one holding only the first cut.
#[test]
fn a_long_output_is_cut_once_to_fit_the_coordinators_output_limit() {
    let dir = tempfile::tempdir().unwrap();
    let artifacts = tool_core::middleware::Artifacts::default();
    let coordinator = tool_core::Coordinator::builder()
        .toolset(tool_core::Toolset::named(["run_shell"]).unwrap())
        .workspace(tool_core::Workspace::new(dir.path()).unwrap())
        .state(artifacts.clone())
        .policy(PolicyBuilder::default().allow("run_shell"))
        .output_limit(30_000)
        .build()
        .unwrap();
    let result = coordinator.call_blocking(tool_core::ToolCall::new(
        "run_shell",
        json!({"command": "seq 1 200000"}).to_string(),
    ));
    assert!(!result.is_error(), "{}", result.text());
    let text = result.text();
    assert!(
        text.chars().count() <= 30_000,
        "{} characters",
        text.chars().count()
    );
    // The model reads the status, then the output as it came: cut once, not cut again.
    assert!(text.starts_with("Exit code: 0\nWall time: "), "{text:.200}");
    assert!(text.contains("Output:\n1\n2\n3\n") && text.ends_with("199999\n200000\n"));
    let answer = result.structured().expect("the structure, for programs");
    let output = answer["output"].as_str().unwrap();
    assert!(output.starts_with("1\n2\n3\n") && output.ends_with("199999\n200000\n"));
    let id = answer["artifact"]
        .as_str()
        .expect("the whole output is kept");
    assert!(
        output.contains(&format!("the whole output is artifact {id}")),
        "{output}"
    );
    let whole = artifacts.get(id).unwrap();
    assert_eq!(whole.text.lines().count(), 200_000);
    assert_eq!(
        artifacts.list().len(),
        1,
        "one artifact: the output was cut once"
    );
}

/// Calls `run_shell` with `command`, asserting that the policy denied it; the result.
fn refused(shell: &Shell, command: &str) -> tool_core::ToolResult {
    let result = shell.call("run_shell", json!({ "command": command }));
    assert_eq!(
        result.error().map(ToolError::kind),
        Some("denied"),
        "{command}: {}",
        result.text()
    );
    result
}

/// Found by an exploratory run: in bypass mode `echo x > .git/hooks/post-merge` was refused,
/// but `tee`, `cp` and `sed -i` wrote under `.git` unopposed.
#[test]
fn programs_that_write_by_argument_cannot_write_under_git_either() {
    let shell = Shell::with(shell_support::allow_all(), Mode::Bypass);
    std::fs::create_dir_all(shell.root().join(".git/hooks")).unwrap();
    std::fs::write(shell.root().join(".git/description"), "kept\n").unwrap();
    std::fs::write(shell.root().join("hook"), "#!/bin/sh\n").unwrap();
    for command in [
        "echo x | tee .git/hooks/post-merge",
        "cp hook .git/hooks/post-checkout",
        "sed -i s/kept/changed/ .git/description",
        "rm -f .git/description",
    ] {
        refused(&shell, command);
    }
    assert!(!shell.root().join(".git/hooks/post-merge").exists());
    assert!(!shell.root().join(".git/hooks/post-checkout").exists());
    assert_eq!(
        std::fs::read_to_string(shell.root().join(".git/description")).unwrap(),
        "kept\n"
    );
}

/// Issue 24: in bypass mode `rm -rf .` passed the protected-path check, which saw only `.`,
/// and removed `.git` with the rest. A write that reaches beneath its target (a recursive
/// removal, `find -delete`, an extraction, a recursive copy or `chmod -R`, a move) is refused
/// when a protected path lies beneath it, naming that path; and the repository is untouched.
#[test]
fn a_recursive_write_above_git_is_refused_naming_git() {
    let shell = Shell::with(shell_support::allow_all(), Mode::Bypass);
    let root = shell.root();
    std::fs::create_dir_all(root.join(".git/objects/ab")).unwrap();
    std::fs::write(root.join(".git/config"), "kept\n").unwrap();
    std::fs::write(root.join(".git/objects/ab/cd"), "object").unwrap();
    std::fs::create_dir_all(root.join("vendor/lib/.git")).unwrap();
    std::fs::write(root.join("vendor/lib/.git/HEAD"), "ref\n").unwrap();
    std::fs::write(root.join("keep.txt"), "kept\n").unwrap();
    std::fs::create_dir_all(root.join("backup/.git")).unwrap();
    for (command, reached) in [
        ("rm -rf .", "./.git"),
        ("rm -r -f ./", "./.git"),
        ("cd vendor && rm -rf lib", "vendor/lib/.git"),
        ("rm -rf vendor", "vendor/lib/.git"),
        ("find . -delete", "./.git"),
        ("find . -type f -delete", "./.git/config"),
        ("find . -name config -delete", "./.git/config"),
        ("find . -name HEAD -delete", "./vendor/lib/.git/HEAD"),
        ("find . -maxdepth 1 -name '.g*' -delete", "./.git"),
        ("find vendor -path '*/.git/*' -delete", "vendor/lib/.git"),
        ("chmod -R 000 .", "./.git"),
        ("tar -xf a.tar", "./.git"),
        ("unzip -o a.zip -d .", "./.git"),
        ("rsync -a ../elsewhere/ .", "./.git"),
        ("cp -a backup/. .", "./.git"),
        ("cp -r backup/.git .", "./.git"),
        ("mv vendor old", "vendor/lib/.git"),
    ] {
        let result = refused(&shell, command);
        assert!(
            result
                .text()
                .contains(&format!("`{reached}` is a protected path")),
            "{command}: {}",
            result.text()
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "kept\n"
    );
    assert!(root.join(".git/objects/ab/cd").exists());
    assert!(root.join("vendor/lib/.git/HEAD").exists());
    assert!(root.join("keep.txt").exists());
}

/// The same class written as an attacker would: wrapped, escaped, after `--`, through `..`,
/// a doubled slash, a `cd`, a symlink to an ancestor, find's other options, and an `Edit(..)`
/// deny rule in place of `.git`. Each is refused and nothing beneath the target changed.
#[test]
fn recursive_writes_in_other_spellings_are_refused_too() {
    let shell = Shell::with(
        shell_support::allow_all().deny("Edit(./keys/**)"),
        Mode::Bypass,
    );
    let root = shell.root();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "kept\n").unwrap();
    std::fs::create_dir_all(root.join("keys")).unwrap();
    std::fs::write(root.join("keys/id"), "secret\n").unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
    for command in [
        "rm -rf -- .",
        "\\rm -rf .",
        "command rm -rf .",
        "env rm -rf .",
        "timeout 5 rm -rf .",
        "rm -rf ./.",
        "rm -rf .//",
        "rm -rf sub/..",
        "cd sub && rm -rf ..",
        "rm -rf sub/up/",
        "find ./ -depth -delete",
        "find . -mindepth 1 -xdev -delete",
        "find . -name id -delete",
        "rm -rf keys/..",
        "chown -R 0 .",
    ] {
        refused(&shell, command);
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "kept\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("keys/id")).unwrap(),
        "secret\n"
    );
    assert!(root.join("sub/up").is_symlink());
}

/// The other side: a recursive write that reaches no protected path runs, even beside `.git`:
/// `find` deleting what its tests select outside `.git`, `rm -rf` of a build folder, a copy
/// of a folder into the root.
#[test]
fn a_recursive_write_that_reaches_no_protected_path_runs() {
    let shell = Shell::with(shell_support::allow_all(), Mode::Bypass);
    let root = shell.root();
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::write(root.join(".git/config"), "kept\n").unwrap();
    std::fs::create_dir_all(root.join("build/deep")).unwrap();
    std::fs::write(root.join("build/deep/a.o"), "").unwrap();
    // A FIFO beneath the target: looking beneath never opens an entry, so nothing waits.
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("build/deep/pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::write(root.join("main.o"), "").unwrap();
    std::fs::create_dir_all(root.join("assets/img")).unwrap();
    for command in [
        "find . -name '*.o' -delete",
        "rm -rf build",
        "cp -r assets copied",
        "cp -r assets/img .",
        "chmod -R u+w assets",
        // A copy over a file that exists: nothing lands beneath it.
        "echo a > a.txt && cp a.txt b.txt",
        "cp a.txt b.txt",
        "mv b.txt a.txt",
    ] {
        let result = shell.call("run_shell", json!({ "command": command }));
        assert!(!result.is_error(), "{command}: {}", result.text());
    }
    assert!(!root.join("main.o").exists());
    assert!(!root.join("build").exists());
    assert!(root.join("copied/img").is_dir() && root.join("img").is_dir());
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).unwrap(),
        "kept\n"
    );
}

/// Issue 26: with `run_shell` allowed, `find .. -delete` ran; the policy, which refuses
/// `rm ../x`, did not see a delete named by an option. Every program that writes or removes
/// through an option or operand is confined like `rm`'s arguments.
#[test]
fn writes_named_by_options_are_confined_like_rm() {
    let shell = Shell::new();
    let outside = tempfile::NamedTempFile::new_in(shell.root().parent().unwrap()).unwrap();
    std::fs::write(outside.path(), "kept\n").unwrap();
    let name = outside.path().file_name().unwrap().to_str().unwrap();
    for command in [
        format!("find .. -maxdepth 1 -name {name} -delete"),
        format!("find . -fprint ../{name}"),
        format!("tar -cf ../{name} ."),
        format!("tar -x -f a.tar -C ../{name}.d"),
        format!("mv ../{name} here"),
        format!("truncate -s 0 ../{name}"),
        format!("chmod 000 ../{name}"),
        format!("rsync -a . ../{name}.d"),
        "git -C .. commit -m x".to_owned(),
        format!("cp -t .. ../{name}"),
        format!("dd if=/dev/zero of=../{name} count=1"),
        // Other spellings: wrapped, by path, after a cd, clustered or attached options.
        format!("command find .. -maxdepth 1 -name {name} -delete"),
        format!("/usr/bin/find .. -maxdepth 1 -name {name} -delete"),
        format!("timeout 5 find .. -maxdepth 1 -name {name} -delete"),
        format!("cd .. && find . -maxdepth 1 -name {name} -delete"),
        format!("tar -C ../{name}.d -xf a.tar"),
        format!("tar --extract --directory=../{name}.d -f a.tar"),
        format!("curl -o../{name} https://example.com"),
        format!("unzip -o a.zip -d../{name}.d"),
        format!("mv -- ../{name} here"),
        "git --work-tree=.. checkout .".to_owned(),
    ] {
        let result = refused(&shell, &command);
        assert!(
            result.text().contains("outside"),
            "{command}: {}",
            result.text()
        );
    }
    assert_eq!(std::fs::read_to_string(outside.path()).unwrap(), "kept\n");
    assert!(!shell.root().join("here").exists());
}

/// Found by an exploratory run: an empty command ran, and answered exit code 0 with no output.
#[test]
fn an_empty_command_is_an_invalid_argument() {
    let shell = Shell::new();
    for command in ["", "  \n"] {
        let result = shell.call("run_shell", json!({ "command": command }));
        assert_eq!(
            result.error().map(ToolError::kind),
            Some("invalid_arguments"),
            "{command:?}: {}",
            result.text()
        );
        assert!(
            result.text().contains("the shell command to run"),
            "{}",
            result.text()
        );
    }
}

/// `rm`, `rmdir`, `unlink` and `mv`'s sources act on a symbolic link itself, not on what it
/// points to: removing or moving a link to `.git`, to the workspace's parent or out of the
/// workspace runs, in the default mode under an allow rule and in bypass, and what the link
/// pointed to is untouched; `find` without `-H` or `-L` deletes a link it starts at, not what
/// it points to. With a trailing `/`, or `find -H`/`-L`, the link is followed, and refused.
#[test]
fn removing_or_moving_a_link_acts_on_the_link_not_on_what_it_points_to() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("file"), "outside\n").unwrap();
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = Shell::with(shell_support::allow_all(), mode);
        let root = shell.root();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "kept\n").unwrap();
        for (link, to) in [
            ("to_git", root.join(".git")),
            ("to_git_again", root.join(".git")),
            ("up", root.join("..")),
            ("out", outside.path().to_owned()),
            ("out_file", outside.path().join("file")),
            ("kept_link", root.join(".git")),
            ("found", root.join(".git")),
        ] {
            std::os::unix::fs::symlink(to, root.join(link)).unwrap();
        }
        for command in [
            "rm -rf to_git",
            "rm up",
            "rm -r out",
            "unlink out_file",
            "mv to_git_again moved",
            "find found -delete",
            // A pattern that matches no protected path runs.
            "rm -f *.o",
        ] {
            let result = shell.call("run_shell", json!({ "command": command }));
            assert!(!result.is_error(), "{mode:?}: {command}: {}", result.text());
        }
        for gone in ["to_git", "up", "out", "out_file", "to_git_again", "found"] {
            assert!(
                !root.join(gone).exists() && !root.join(gone).is_symlink(),
                "{gone}"
            );
        }
        assert!(root.join("moved").is_symlink());
        // Spellings that go through the link to `.git`.
        for command in [
            "rm -rf kept_link/",
            "rm -rf ./kept_link//",
            "rm -rf kept_link/.",
            "rm -rf kept_link/..",
            "find kept_link/. -delete",
            "rm -rf kept_link/config",
            "find -L kept_link -delete",
            "find -H kept_link -name config -delete",
            // Other spellings of the same paths: a glob, quoting, escapes, `--`.
            "rm -rf kept_link/*",
            "rm -rf \"kept_link\"/",
            "rm -rf 'kept_link/'",
            "rm -rf kept_link\\/",
            "rm -rf $'kept_link/'",
            "rm -rf kept_link/./",
            "rm -r -- kept_link/",
            "mv kept_link/ elsewhere",
            // Patterns, matched now as the shell will expand them.
            "rm -rf .git/*",
            "rm -rf .*",
            "rm -f .gi?/config",
            "rm -f .g[i]t/conf*",
            "rm -rf .{git,nothing}",
        ] {
            refused(&shell, command);
        }
        assert!(root.join("kept_link").is_symlink());
        assert_eq!(
            std::fs::read_to_string(root.join(".git/config")).unwrap(),
            "kept\n"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("file")).unwrap(),
        "outside\n"
    );
}
