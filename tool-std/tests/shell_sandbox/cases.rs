use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::json;
use tool_core::ToolCall;
use tool_core::policy::{Mode, PolicyBuilder, Verdict};
use tool_core::{Coordinator, Toolset, Workspace};
use tool_std::shell::sandbox::{AutoAllowSandboxedShell, Network, SandboxConfig, status};

#[path = "../shell_support/mod.rs"]
mod shell_support;
use shell_support::{SHELL_TOOLS, Shell, allow_all};

/// The shell tools under `policy`, with `config` as the sandbox's configuration.
fn shell_with(config: SandboxConfig, policy: PolicyBuilder) -> Shell {
    shell_in(config, policy, Mode::Default)
}

/// The shell tools under `policy` in `mode`, with `config` as the sandbox's configuration.
fn shell_in(config: SandboxConfig, policy: PolicyBuilder, mode: Mode) -> Shell {
    Shell::sandboxed(policy, mode, Some(config))
}

/// The engines the cases run on, one test file each (each file names one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)]
enum Run {
    /// `bwrap` builds the mount namespace (`shell_sandbox.rs`).
    Bubblewrap,
    /// The sandbox builds it itself, as where `bwrap` is not installed
    /// (`shell_sandbox_namespaces.rs`).
    Namespaces,
    /// No mount namespace: Landlock holds the files (`shell_sandbox_landlock.rs`).
    Landlock,
}

/// The default configuration, on this file's engine.
fn config() -> SandboxConfig {
    SandboxConfig {
        bubblewrap: RUN != Run::Landlock,
        assume_no_bubblewrap: RUN == Run::Namespaces,
        ..SandboxConfig::default()
    }
}

/// Every shell tool allowed, the sandbox as configured by default.
fn sandboxed() -> Shell {
    shell_with(config(), allow_all())
}

/// `false` (with a note) where the kernel has no Landlock, so the test has nothing to check.
fn landlock() -> bool {
    let held = status().holds_files();
    if !held {
        eprintln!("skipped: this kernel has no Landlock ({})", status());
    }
    held
}

/// A path in the system's temporary directory that nothing has made yet, removed on drop.
struct Outside(PathBuf);

impl Outside {
    fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap().keep();
        Outside(dir.join(name))
    }

    fn shell_path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// `script` written to `name` in the workspace, for a command to run: a path the policy
/// would refuse in the command line itself (`echo x > ../x` is outside the workspace) reaches
/// the kernel only from inside a program, as it does from `python build.py` or `make`.
/// The command that runs `script`, written to `name` in the workspace. The policy reads the
/// command line, not the script's content: a write the script makes outside the workspace
/// reaches the kernel sandbox, which these tests are about (written on the command line, the
/// policy would refuse it first).
fn script(shell: &Shell, name: &str, script: &str) -> String {
    std::fs::write(shell.root().join(name), script).unwrap();
    format!("bash {name}")
}

fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

#[test]
fn a_write_in_the_workspace_succeeds() {
    let shell = sandboxed();
    let run = shell.run("mkdir -p src && echo made > src/new.txt && cat src/new.txt");
    assert_eq!((run.exit_code, run.output.as_str()), (Some(0), "made\n"));
    assert_eq!(run.note, None, "nothing to say about a sandboxed success");
}

#[test]
fn a_write_to_the_parent_of_the_workspace_fails_and_the_result_names_it() {
    if !landlock() {
        return;
    }
    let shell = sandboxed();
    // `../x`, named after the workspace so that no other test's file can be in the way.
    let name = format!("{}.x", shell.root().file_name().unwrap().to_string_lossy());
    let run = shell.run(&script(
        &shell,
        "build.sh",
        &format!("echo x > ../{name}\n"),
    ));
    assert_ne!(run.exit_code, Some(0));
    assert!(!exists(&shell.root().join("..").join(&name)));
    let note = run.note.expect("a note on the refusal");
    assert!(
        note.contains(&format!("the sandbox refused `../{name}`")),
        "{note}"
    );
    assert!(note.contains("SandboxConfig::writable"), "{note}");
}

#[test]
fn a_write_in_tmp_outside_the_temporary_directory_fails() {
    if !landlock() {
        return;
    }
    let outside = Outside::new("escaped");
    let shell = sandboxed();
    let command = script(
        &shell,
        "probe.sh",
        &format!("touch {}", outside.shell_path()),
    );
    let run = shell.run(&command);
    assert_ne!(run.exit_code, Some(0), "{}", run.output);
    assert!(!exists(&outside.0));
}

#[test]
fn the_temporary_directory_is_given_as_tmpdir_and_is_writable() {
    let run = sandboxed().run(r#"echo kept > "$TMPDIR/f" && cat "$TMPDIR/f" && echo "$TMPDIR""#);
    assert_eq!(run.exit_code, Some(0), "{}", run.output);
    let mut lines = run.output.lines();
    assert_eq!(lines.next(), Some("kept"));
    let tmpdir = lines.next().unwrap();
    assert!(tmpdir.contains("tool-std-sandbox-"), "{tmpdir}");
}

#[test]
fn the_temporary_directory_is_removed_with_the_coordinator() {
    let shell = sandboxed();
    let run = shell.run(r#"echo "$TMPDIR""#);
    let tmpdir = PathBuf::from(run.output.trim());
    assert!(tmpdir.is_dir());
    drop(shell);
    assert!(!exists(&tmpdir));
}

#[test]
fn a_write_to_home_fails() {
    if !landlock() {
        return;
    }
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return;
    };
    let probe = home.join(format!(".tool-std-sandbox-probe-{}", std::process::id()));
    let shell = sandboxed();
    let command = script(&shell, "probe.sh", &format!("touch '{}'", probe.display()));
    let run = shell.run(&command);
    let escaped = exists(&probe);
    let _ = std::fs::remove_file(&probe);
    assert!(!escaped, "the command wrote to $HOME");
    assert_ne!(run.exit_code, Some(0));
}

#[test]
fn a_write_through_a_symlink_in_the_workspace_pointing_outside_fails() {
    if !landlock() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let shell = sandboxed();
    std::os::unix::fs::symlink(outside.path(), shell.root().join("link")).unwrap();
    let run = shell.run(&script(&shell, "build.sh", "echo x > link/escaped\n"));
    assert_ne!(run.exit_code, Some(0));
    assert!(!exists(&outside.path().join("escaped")));
}

#[test]
fn writes_to_dev_null_and_dev_stdout_keep_working() {
    let shell = sandboxed();
    // In a script: the policy judges `/dev/stdout` in a command line by what it resolves to in
    // this process.
    let command = script(
        &shell,
        "print.sh",
        "echo gone > /dev/null && echo gone 2>/dev/null >&2 && echo ok > /dev/stdout && echo err > /dev/stderr\n",
    );
    let run = shell.run(&command);
    assert_eq!((run.exit_code, run.output.as_str()), (Some(0), "ok\nerr\n"));
}

#[test]
fn mktemp_makes_its_file_in_the_temporary_directory() {
    let run = sandboxed().run(r#"file=$(mktemp) && echo kept > "$file" && cat "$file""#);
    assert_eq!((run.exit_code, run.output.as_str()), (Some(0), "kept\n"));
}

#[test]
fn a_child_process_and_a_sh_c_grandchild_are_confined() {
    if !landlock() {
        return;
    }
    let shell = sandboxed();
    let child = script(&shell, "child.sh", "bash -c 'touch ../child'");
    let grandchild = script(
        &shell,
        "grandchild.sh",
        r#"sh -c "sh -c 'touch ../grandchild'""#,
    );
    let run = shell.run(&format!("{child}; {grandchild}; touch inside"));
    assert_eq!(run.exit_code, Some(0), "{}", run.output);
    assert!(!exists(&shell.root().join("../child")));
    assert!(!exists(&shell.root().join("../grandchild")));
    assert!(exists(&shell.root().join("inside")));
}

#[test]
fn a_background_job_is_confined() {
    if !landlock() {
        return;
    }
    let shell = sandboxed();
    let command = script(&shell, "job.sh", "touch ../from_job; echo status $?");
    let id = shell.start(&command);
    let output = shell.read_until(&id, |seen| seen.contains("status"));
    assert!(!output.contains("status 0"), "{output}");
    assert!(!exists(&shell.root().join("../from_job")));
}

/// An attack review: an editor saves by renaming a new file into place, which a mount's
/// cover does not follow, so a background job started before the save read the new `.env`
/// (and one made after it started, never covered for it). A job carries Landlock's file
/// rules as well, which name the files they grant. It still writes in the workspace.
#[test]
fn a_background_job_reads_no_denied_file_saved_or_made_after_it_started() {
    if !landlock() {
        return;
    }
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = with_denied_secrets(From::Code, mode);
        let root = shell.root().to_owned();
        // What every job does, which a job's file rules must not take away: the devices
        // read, and `/dev/null` opened for reading and writing (Python's `DEVNULL`).
        let command = script(
            &shell,
            "poll.sh",
            "echo started > job_wrote.txt; while [ ! -e go ]; do sleep 0.05; done; \
             cat /dev/null && head -c 4 /dev/urandom | wc -c && cat /dev/zero | head -c 2 | wc -c \
             && python3 -c \"open('/dev/null', 'r+').write('x')\" && echo devices-ok; \
             cat .env secrets/late.txt; echo finished\n",
        );
        let id = shell.start(&command);
        let started = std::time::Instant::now();
        while !root.join("job_wrote.txt").exists() {
            assert!(started.elapsed().as_secs() < 20, "the job never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // As an editor saves: a new file renamed over the old one.
        std::fs::write(root.join(".env.swp"), "SECRET=SAVED\n").unwrap();
        std::fs::rename(root.join(".env.swp"), root.join(".env")).unwrap();
        std::fs::write(root.join("secrets/late.txt"), "hunter3-LATE\n").unwrap();
        std::fs::write(root.join("go"), "").unwrap();
        let output = shell.read_until(&id, |seen| seen.contains("finished"));
        assert!(output.contains("devices-ok"), "{mode:?}: {output}");
        assert!(!output.contains("SAVED"), "{mode:?}: {output}");
        assert!(!output.contains("hunter3"), "{mode:?}: {output}");
        assert_eq!(
            std::fs::read_to_string(root.join("job_wrote.txt")).unwrap(),
            "started\n"
        );
    }
}

#[test]
fn a_background_job_that_failed_in_the_sandbox_says_what_was_refused() {
    if !landlock() {
        return;
    }
    let shell = sandboxed();
    let command = script(&shell, "build.sh", "sleep 0.2; echo x > ../from_job.out\n");
    let id = shell.start(&command);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let ended = loop {
        let read = shell.job_output(&id, json!({ "since_last": false }));
        if read.status != "running" {
            break read;
        }
        assert!(std::time::Instant::now() < deadline, "the job never ended");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_ne!(ended.exit_code, Some(0));
    let note = ended.note.expect("a note on the refusal");
    assert!(
        note.contains("the sandbox refused `../from_job.out`"),
        "{note}"
    );
}

#[test]
fn reading_a_denied_path_fails_and_the_rest_of_the_workspace_reads() {
    if !landlock() {
        return;
    }
    let shell = shell_with(
        SandboxConfig {
            deny_read: vec![".env".into()],
            ..config()
        },
        allow_all(),
    );
    std::fs::write(shell.root().join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(shell.root().join("main.rs"), "fn main() {}\n").unwrap();
    let run = shell.run("cat .env");
    assert_ne!(run.exit_code, Some(0));
    assert!(!run.output.contains("SECRET"), "{}", run.output);
    let note = run.note.expect("a note on the refusal");
    assert!(note.contains("SandboxConfig::deny_read"), "{note}");
    let run = shell.run("cat main.rs && ls -a | grep -c env");
    assert_eq!(run.exit_code, Some(0), "{}", run.output);
    assert_eq!(run.output, "fn main() {}\n1\n");
}

/// The exit code of a TCP connection (bash's `/dev/tcp`) to a listener on loopback.
fn connect_to_loopback(shell: &Shell) -> tool_std::ShellRun {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    shell.run(&format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
    ))
}

#[test]
fn a_connection_to_a_loopback_listener_fails_with_the_network_off() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        eprintln!(
            "skipped: this kernel's Landlock has no TCP rules ({})",
            status()
        );
        return;
    }
    let run = connect_to_loopback(&sandboxed());
    assert_ne!(run.exit_code, Some(0), "{}", run.output);
    assert!(!run.output.contains("connected"));
    let note = run.note.expect("a note on the refusal");
    assert!(note.contains("network off"), "{note}");
}

#[test]
fn a_connection_to_a_loopback_listener_succeeds_when_the_network_is_allowed() {
    let shell = shell_with(
        SandboxConfig {
            network: Network::All,
            ..config()
        },
        allow_all(),
    );
    let run = connect_to_loopback(&shell);
    assert_eq!(
        (run.exit_code, run.output.as_str()),
        (Some(0), "connected\n")
    );
}

#[test]
fn a_command_denied_by_a_rule_never_runs_sandbox_or_not() {
    for enabled in [true, false] {
        let config = SandboxConfig {
            enabled,
            ..config()
        };
        let policy = PolicyBuilder::default()
            .deny("run_shell(touch:*)")
            .rule(AutoAllowSandboxedShell::new(&config));
        let shell = shell_with(config, policy);
        let result = shell.call("run_shell", json!({ "command": "touch marker" }));
        assert!(result.is_error(), "sandbox enabled: {enabled}");
        assert!(
            !exists(&shell.root().join("marker")),
            "sandbox enabled: {enabled}"
        );
    }
}

#[test]
fn a_sandboxed_command_no_rule_denies_runs_without_asking_and_explain_says_why() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        eprintln!("skipped: the sandbox is not enforced here ({})", status());
        return;
    }
    let config = config();
    let policy = PolicyBuilder::default().rule(AutoAllowSandboxedShell::new(&config));
    let shell = shell_with(config, policy);
    let run = shell.run("touch made");
    assert_eq!(run.exit_code, Some(0));
    assert!(exists(&shell.root().join("made")));
    let explanation = shell
        .coordinator
        .explain(&ToolCall::new("run_shell", r#"{"command": "touch made"}"#))
        .unwrap();
    assert_eq!(explanation.decision.verdict, Verdict::Allow);
    let decider = explanation.decider().unwrap();
    assert!(
        decider
            .name
            .starts_with("sandboxed run_shell runs without asking: sandbox enforced (Landlock ABI"),
        "{}",
        decider.name
    );
}

#[test]
fn an_ask_rule_still_asks_under_the_auto_allow() {
    let config = config();
    let policy = PolicyBuilder::default()
        .ask("run_shell(git push:*)")
        .rule(AutoAllowSandboxedShell::new(&config));
    let shell = shell_with(config, policy);
    let explanation = shell
        .coordinator
        .explain(&ToolCall::new("run_shell", r#"{"command": "git push"}"#))
        .unwrap();
    assert_eq!(explanation.decision.verdict, Verdict::Ask);
}

/// The configuration of a kernel without Landlock.
fn without_landlock() -> SandboxConfig {
    SandboxConfig {
        assume_unsupported: true,
        ..config()
    }
}

#[test]
fn without_landlock_the_command_runs_unsandboxed_and_the_result_says_so() {
    let shell = shell_with(without_landlock(), allow_all());
    let outside = Outside::new("written");
    let command = script(
        &shell,
        "probe.sh",
        &format!("touch {}", outside.shell_path()),
    );
    let run = shell.run(&command);
    assert_eq!(run.exit_code, Some(0), "{}", run.output);
    assert!(exists(&outside.0), "unsandboxed, the write goes through");
    let note = run
        .note
        .expect("a note saying the command was not sandboxed");
    assert!(
        note.starts_with("not sandboxed: the kernel has no Landlock"),
        "{note}"
    );
    let id = shell.start("true");
    assert!(!id.is_empty());
}

#[test]
fn without_landlock_the_auto_allow_does_not_apply() {
    let config = without_landlock();
    let rule = AutoAllowSandboxedShell::new(&config);
    assert!(!rule.applies());
    let shell = shell_with(config, PolicyBuilder::default().rule(rule));
    let explanation = shell
        .coordinator
        .explain(&ToolCall::new("run_shell", r#"{"command": "touch made"}"#))
        .unwrap();
    assert_eq!(explanation.decision.verdict, Verdict::Ask);
    assert!(
        explanation.steps.iter().any(|step| step
            .name
            .starts_with("sandboxed run_shell auto-allow not applied: the kernel has no Landlock")),
        "{explanation}"
    );
    let result = shell.call("run_shell", json!({ "command": "touch made" }));
    assert!(result.is_error(), "asked, with no one to answer");
    assert!(!exists(&shell.root().join("made")));
}

#[test]
fn the_sandbox_turned_off_runs_unsandboxed_and_says_so() {
    let shell = shell_with(
        SandboxConfig {
            enabled: false,
            ..config()
        },
        allow_all(),
    );
    let note = shell.run("true").note.unwrap();
    assert!(note.contains("SandboxConfig::enabled"), "{note}");
}

#[test]
fn settings_give_the_deny_rules_to_the_sandbox_and_turn_the_auto_allow_on() {
    if !landlock() {
        return;
    }
    let settings = tool_core::settings::Settings::from_json(
        r#"{"permissions": {"deny": ["Read(./.env)"]}, "sandbox": {"autoAllowBashIfSandboxed": true}}"#,
    )
    .unwrap();
    let config = SandboxConfig::from_settings(&settings);
    let rule = AutoAllowSandboxedShell::from_settings(&settings, &config).expect("turned on");
    let shell = shell_with(config, PolicyBuilder::default().rule(rule));
    std::fs::write(shell.root().join(".env"), "SECRET=1\n").unwrap();
    let run = shell.run("cat .env; echo read $?");
    assert!(!run.output.contains("SECRET"), "{}", run.output);
    assert!(run.output.ends_with("read 1\n"), "{}", run.output);
}

#[test]
fn settings_without_the_auto_allow_add_no_rule() {
    let settings =
        tool_core::settings::Settings::from_json(r#"{"sandbox": {"enabled": true}}"#).unwrap();
    let config = SandboxConfig::from_settings(&settings);
    assert!(AutoAllowSandboxedShell::from_settings(&settings, &config).is_none());
}

#[test]
fn a_connection_succeeds_on_an_allowed_port_and_fails_on_another() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        eprintln!(
            "skipped: this kernel's Landlock has no TCP rules ({})",
            status()
        );
        return;
    }
    let allowed = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = |listener: &TcpListener| listener.local_addr().unwrap().port();
    let shell = shell_with(
        SandboxConfig {
            network: Network::Ports(vec![port(&allowed)]),
            ..config()
        },
        allow_all(),
    );
    let connect = |port: u16| {
        shell.run(&format!(
            "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        ))
    };
    assert_eq!(connect(port(&allowed)).output, "connected\n");
    let refused = connect(port(&other));
    assert_ne!(refused.exit_code, Some(0), "{}", refused.output);
}

#[test]
fn a_command_cannot_signal_a_process_outside_its_sandbox() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { abi } if abi >= 6) {
        eprintln!(
            "skipped: this kernel's Landlock has no signal scope ({})",
            status()
        );
        return;
    }
    let mut outside = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let run = sandboxed().run(&format!("kill -TERM {}", outside.id()));
    let still_running = outside.try_wait().unwrap().is_none();
    outside.kill().unwrap();
    outside.wait().unwrap();
    assert_ne!(run.exit_code, Some(0), "{}", run.output);
    assert!(
        still_running,
        "the signal reached a process outside the sandbox"
    );
    let note = run.note.expect("a note on the refusal");
    assert!(note.contains("kill_shell"), "{note}");
}

#[test]
fn a_later_settings_file_overrides_the_sandbox_flags_it_sets() {
    use tool_core::settings::Settings;
    let mut settings =
        Settings::from_json(r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#)
            .unwrap();
    settings.merge(Settings::from_json(r#"{"sandbox": {"enabled": false}}"#).unwrap());
    assert_eq!(settings.sandbox.enabled, Some(false));
    assert_eq!(settings.sandbox.auto_allow_bash_if_sandboxed, Some(true));
    assert!(!SandboxConfig::from_settings(&settings).enabled);
}

#[test]
fn sandbox_keys_not_read_here_are_listed_as_ignored() {
    let settings = tool_core::settings::Settings::from_json(
        r#"{"sandbox": {"excludedCommands": ["docker"]}}"#,
    )
    .unwrap();
    assert_eq!(settings.ignored[0].location, "sandbox.excludedCommands");
}

#[test]
fn the_grants_file_cannot_be_read_by_a_sandboxed_command() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        eprintln!("skipped: no Landlock on this kernel ({})", status());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let grants = dir.path().join("grants.json");
    std::fs::write(&grants, r#"{"allow": ["run_shell(deploy *)"]}"#).unwrap();
    std::fs::write(dir.path().join("notes.md"), "readable\n").unwrap();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(SHELL_TOOLS).unwrap())
        .workspace(Workspace::new(dir.path()).unwrap())
        .grants_file(&grants)
        .policy(allow_all())
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new(
        "run_shell",
        json!({"command": "cat notes.md; cat grants.json; echo done $?"}).to_string(),
    ));
    let output = result.structured().unwrap()["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(output.contains("readable"), "{output}");
    assert!(!output.contains("deploy"), "the grants leaked: {output}");
    assert!(output.contains("done 1"), "{output}");
}

#[test]
fn a_read_deny_rule_given_in_code_holds_for_commands_too() {
    if !landlock() {
        return;
    }
    for mode in [Mode::Default, Mode::Bypass] {
        // No SandboxConfig: the sandbox takes the rule from the coordinator's policy.
        let shell = shell_in(config(), allow_all().deny("Read(./secrets/**)"), mode);
        std::fs::create_dir(shell.root().join("secrets")).unwrap();
        std::fs::write(shell.root().join("secrets/key.txt"), "hunter2-SECRET\n").unwrap();
        std::fs::write(shell.root().join("notes.txt"), "readable\n").unwrap();
        let run = shell.run("cat secrets/key.txt; cat notes.txt");
        assert!(!run.output.contains("hunter2"), "{mode:?}: {}", run.output);
        assert!(run.output.contains("readable"), "{mode:?}: {}", run.output);
    }
}

/// Whether this process may make devices at all (root, or `CAP_MKNOD`): where it may not, the
/// sandbox has nothing to add.
fn may_make_devices() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mknod")
        .arg(dir.path().join("probe"))
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|status| status.success());
    if !made {
        eprintln!("skipped: this process cannot make devices, sandboxed or not");
    }
    made
}

#[test]
fn no_device_can_be_made_in_the_workspace() {
    if !landlock() || !may_make_devices() {
        return;
    }
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = shell_in(config(), allow_all(), mode);
        // /dev/kmsg (1, 11) and a loop device (7, 0), as an attacker would reach a disk.
        let run = shell.run(
            "mknod kmsg c 1 11; echo kmsg $?; mknod disk b 7 0; echo disk $?; \
             python3 -c 'import os, stat; os.mknod(\"viapy\", stat.S_IFCHR | 0o600, os.makedev(1, 3))'; echo py $?; \
             mkfifo fifo; echo fifo $?",
        );
        for device in ["kmsg", "disk", "viapy"] {
            assert!(
                !exists(&shell.root().join(device)),
                "{mode:?}: `{device}` was made: {}",
                run.output
            );
        }
        assert!(
            run.output.contains("fifo 0"),
            "a FIFO is not a device: {}",
            run.output
        );
    }
}

/// A Python client trying to reach `port` on loopback the ways Landlock's TCP rules do not
/// see; prints what got through.
fn sneaky_clients(port: u16) -> String {
    format!(
        r#"python3 - <<'EOF'
import socket
def attempt(name, make):
    try:
        make()
        print(name, "through")
    except OSError as error:
        print(name, "refused", error.errno)
def fast_open():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.sendto(b"fast open", socket.MSG_FASTOPEN, ("127.0.0.1", {port}))
def mptcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
    s.connect(("127.0.0.1", {port}))
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"udp", ("127.0.0.1", {port}))
def vsock():
    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
attempt("fast_open", fast_open)
attempt("mptcp", mptcp)
attempt("udp", udp)
attempt("vsock", vsock)
EOF"#
    )
}

/// Each of `attempts` (a client's name, and the errno if it matters) was refused.
fn assert_refused(run: &tool_std::ShellRun, attempts: &[&str]) {
    for attempt in attempts {
        let (name, errno) = attempt.split_once(' ').unwrap_or((attempt, ""));
        let refused = format!("{name} refused");
        let matches = |line: &str| match line.strip_prefix(&refused) {
            Some(rest) => errno.is_empty() || rest.trim() == errno,
            None => false,
        };
        assert!(run.output.lines().any(matches), "{attempt}: {}", run.output);
    }
}

#[test]
fn with_the_network_off_no_socket_reaches_a_listener() {
    if !landlock() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let udp = std::net::UdpSocket::bind(("127.0.0.1", port)).unwrap();
    listener.set_nonblocking(true).unwrap();
    udp.set_nonblocking(true).unwrap();
    let run = sandboxed().run(&sneaky_clients(port));
    // `EPERM` is the filter's answer (a missing VSOCK module would say `EAFNOSUPPORT`).
    assert_refused(&run, &["fast_open 1", "mptcp 1", "udp 1", "vsock 1"]);
    assert!(
        listener.accept().is_err(),
        "the listener accepted a connection"
    );
    let mut buffer = [0u8; 64];
    assert!(udp.recv_from(&mut buffer).is_err(), "a datagram arrived");
}

#[test]
fn with_some_ports_allowed_fast_open_and_mptcp_reach_no_other_port() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let allowed = port.wrapping_add(1);
    let shell = shell_with(
        SandboxConfig {
            network: Network::Ports(vec![allowed]),
            ..config()
        },
        allow_all(),
    );
    let run = shell.run(&sneaky_clients(port));
    assert_refused(&run, &["fast_open", "mptcp"]);
    assert!(
        listener.accept().is_err(),
        "the listener accepted a connection"
    );
}

/// `true` when these cases run in a mount namespace (bubblewrap's, or the sandbox's own);
/// `false` (with a note) on the Landlock run, or where this file's engine is not installed or
/// does not work (a failure instead under `TOOLKIT_REQUIRE_SANDBOX_TOOLS=1`, as in CI).
fn mount_namespace() -> bool {
    use tool_std::shell::sandbox::Engine;
    if RUN == Run::Landlock || !landlock() {
        return false;
    }
    match (RUN, config().engine()) {
        (Run::Bubblewrap, Engine::Bubblewrap { .. })
        | (Run::Namespaces, Engine::Namespaces { .. }) => true,
        (_, engine) => {
            let required = std::env::var_os("TOOLKIT_REQUIRE_SANDBOX_TOOLS")
                .is_some_and(|value| value == "1");
            assert!(
                !required,
                "the {RUN:?} engine is required (TOOLKIT_REQUIRE_SANDBOX_TOOLS=1): {engine}"
            );
            eprintln!("skipped: {engine}");
            false
        }
    }
}

/// Where a rule comes from: the sandbox's configuration (as settings give it) or the
/// coordinator's policy (code).
#[derive(Debug, Clone, Copy)]
enum From {
    Config,
    Code,
}

/// The shell tools in `mode` with `secrets/` and `.env` denied to reads, the rules given
/// `from` where they may come; `secrets/key.txt` and `.env` hold secrets.
fn with_denied_secrets(from: From, mode: Mode) -> Shell {
    let shell = match from {
        From::Config => shell_in(
            SandboxConfig {
                deny_read: vec!["secrets".into(), ".env".into()],
                ..config()
            },
            allow_all(),
            mode,
        ),
        From::Code => shell_in(
            config(),
            allow_all().deny("Read(./secrets/**)").deny("Read(./.env)"),
            mode,
        ),
    };
    std::fs::create_dir(shell.root().join("secrets")).unwrap();
    std::fs::write(shell.root().join("secrets/key.txt"), "hunter2-KEY\n").unwrap();
    std::fs::write(shell.root().join(".env"), "SECRET=ENV\n").unwrap();
    shell
}

#[test]
fn a_denied_file_moved_renamed_or_linked_is_not_read_at_its_new_name() {
    if !landlock() {
        return;
    }
    for from in [From::Config, From::Code] {
        for mode in [Mode::Default, Mode::Bypass] {
            let shell = with_denied_secrets(from, mode);
            let run = shell.run(&script(
                &shell,
                "steal.sh",
                "mv secrets/key.txt moved.txt; mv secrets taken; mv .env env.txt; \
                 ln .env linked; ln secrets/key.txt linked_key; cp .env copied; \
                 cat moved.txt taken/key.txt env.txt linked linked_key copied; echo end\n",
            ));
            let seen = format!("{from:?} {mode:?}: {}", run.output);
            assert!(!run.output.contains("hunter2"), "{seen}");
            assert!(!run.output.contains("SECRET"), "{seen}");
            assert_eq!(
                std::fs::read_to_string(shell.root().join("secrets/key.txt")).unwrap(),
                "hunter2-KEY\n",
                "{seen}"
            );
            assert_eq!(
                std::fs::read_to_string(shell.root().join(".env")).unwrap(),
                "SECRET=ENV\n",
                "{seen}"
            );
            for name in ["moved.txt", "taken", "env.txt"] {
                assert!(!exists(&shell.root().join(name)), "{name} made; {seen}");
            }
            // A hard link Landlock let be made (same directory) is not read by the next
            // command either: it is the denied file under another name.
            let again = shell.run("cat linked linked_key copied");
            assert!(!again.output.contains("SECRET"), "{from:?} {mode:?}: {}", again.output);
            assert!(!again.output.contains("hunter2"), "{from:?} {mode:?}: {}", again.output);
        }
    }
}

#[test]
fn the_rest_of_the_workspace_stays_writable_beside_a_denied_path() {
    if !landlock() {
        return;
    }
    let shell = with_denied_secrets(From::Code, Mode::Default);
    std::fs::create_dir(shell.root().join("src")).unwrap();
    let run = shell.run(
        "echo a > src/new.rs && mv src/new.rs src/renamed.rs && cat src/renamed.rs && \
         rm src/renamed.rs && echo b > top.txt",
    );
    assert_eq!(run.exit_code, Some(0), "{}", run.output);
    assert_eq!(run.output, "a\n");
    // With Landlock alone a file new beside the denied one is readable from the next command
    // on (its grants are made when a command starts); under bubblewrap at once.
    let run = shell.run("cat top.txt");
    assert_eq!(run.output, "b\n");
}

/// `path`'s mode, owner, modification time and whether it has the extended attribute
/// `user.planted`.
fn file_state(path: &Path) -> (u32, u32, i64, bool) {
    use std::os::unix::fs::MetadataExt as _;
    let metadata = std::fs::metadata(path).unwrap();
    let name = std::ffi::CString::new("user.planted").unwrap();
    let file = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: both strings are NUL-terminated and live across the call; a null buffer of
    // size 0 asks only for the value's size.
    let size = unsafe { libc::getxattr(file.as_ptr(), name.as_ptr(), std::ptr::null_mut(), 0) };
    (
        metadata.mode(),
        metadata.uid(),
        metadata.mtime(),
        size >= 0,
    )
}

#[test]
fn metadata_outside_the_writable_paths_cannot_change() {
    if !mount_namespace() {
        return;
    }
    let outside = Outside::new("victim.txt");
    std::fs::write(&outside.0, "untouched\n").unwrap();
    let before = file_state(&outside.0);
    let victim = outside.shell_path();
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = shell_in(config(), allow_all(), mode);
        let run = shell.run(&script(
            &shell,
            "meta.sh",
            &format!(
                "chmod 777 '{victim}'; echo chmod $?\n\
                 chown 65534:65534 '{victim}'; echo chown $?\n\
                 touch -d 2001-01-01 '{victim}'; echo touch $?\n\
                 python3 -c \"import os; os.setxattr('{victim}', 'user.planted', b'1')\"; echo xattr $?\n\
                 exit 1\n"
            ),
        ));
        assert_eq!(file_state(&outside.0), before, "{mode:?}: {}", run.output);
        assert!(run.output.contains("Read-only file system"), "{}", run.output);
        let note = run.note.unwrap_or_default();
        assert!(note.contains("SandboxConfig::writable"), "{note}");
    }
    assert_eq!(std::fs::read_to_string(&outside.0).unwrap(), "untouched\n");
}

/// An attack review of the sandbox's own namespaces (which bubblewrap shared): a denied path
/// deeper than the root was carried away by moving its folder, the cover going with it, and
/// read at its new place by the next command. The folders on the way are mount points now
/// (Landlock alone grants them no removal).
#[test]
fn a_denied_path_deeper_than_the_root_is_not_carried_away_by_its_folder() {
    if !landlock() {
        return;
    }
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = shell_in(
            SandboxConfig {
                deny_read: vec!["config/secret.txt".into(), "deep/vault".into()],
                ..config()
            },
            allow_all(),
            mode,
        );
        let root = shell.root().to_owned();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(root.join("config/secret.txt"), "FILE-SECRET\n").unwrap();
        std::fs::create_dir_all(root.join("deep/vault")).unwrap();
        std::fs::write(root.join("deep/vault/key"), "DIR-SECRET\n").unwrap();
        let moved = shell.run(&script(&shell, "carry.sh", "mv config moved; mv deep deep2\n"));
        let read = shell.run(&script(
            &shell,
            "read.sh",
            "cat moved/secret.txt deep2/vault/key config/secret.txt deep/vault/key; echo end\n",
        ));
        let seen = format!("{mode:?}: {} / {}", moved.output, read.output);
        assert!(read.output.contains("end"), "{seen}");
        assert!(!read.output.contains("SECRET"), "{seen}");
        assert!(root.join("config/secret.txt").exists(), "{seen}");
        assert!(!exists(&root.join("moved")) && !exists(&root.join("deep2")), "{seen}");
    }
}

/// The folder attack with the rule spelled other ways: each spelling names the same file, so
/// its folder is held the same.
#[test]
fn a_denied_path_spelled_another_way_is_not_carried_away_either() {
    if !landlock() {
        return;
    }
    for rule in [
        "Read(./config/./secret.txt)",
        "Read(./config//secret.txt)",
        "Read(./other/../config/secret.txt)",
        "Read(/config/secret.txt)",
    ] {
        let shell = shell_in(config(), allow_all().deny(rule), Mode::Bypass);
        let root = shell.root().to_owned();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(root.join("config/secret.txt"), "FILE-SECRET\n").unwrap();
        let run = shell.run(&script(
            &shell,
            "carry.sh",
            "mv config moved; cat moved/secret.txt config/secret.txt; echo end\n",
        ));
        let again = shell.run("cat moved/secret.txt config/secret.txt; echo end");
        let seen = format!("{rule}: {} / {}", run.output, again.output);
        assert!(again.output.contains("end"), "{seen}");
        assert!(!seen.contains("FILE-SECRET"), "{seen}");
        assert!(root.join("config/secret.txt").exists(), "{seen}");
    }
}

/// Special files at a denied path: a FIFO, whose reader would wait for a writer, and a Unix
/// socket a process of the user listens on. Each is covered (Landlock alone: refused) and
/// nothing waits; where the engine builds a view the command still runs in one.
#[test]
fn a_denied_fifo_or_socket_is_covered_and_nothing_waits() {
    if !landlock() {
        return;
    }
    let shell = shell_in(
        SandboxConfig {
            deny_read: vec![".env".into(), "agent.sock".into()],
            ..config()
        },
        allow_all(),
        Mode::Bypass,
    );
    let root = shell.root().to_owned();
    let fifo = std::ffi::CString::new(root.join(".env").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path that lives across the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let listener = std::os::unix::net::UnixListener::bind(root.join("agent.sock")).unwrap();
    listener.set_nonblocking(true).unwrap();
    let run = shell.run(
        "timeout 5 cat .env; echo cat=$?; \
         timeout 5 python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); \
         s.connect('agent.sock'); print('CONNECTED')\"; echo python=$?; \
         readlink /proc/self/ns/mnt",
    );
    assert!(run.output.contains("cat="), "{}", run.output);
    assert!(!run.output.contains("cat=124"), "the read waited: {}", run.output);
    assert!(!run.output.contains("cat=0"), "{}", run.output);
    if mount_namespace() {
        // Landlock alone does not hold Unix sockets by path (see docs/sandbox.md).
        assert!(!run.output.contains("CONNECTED"), "{}", run.output);
        assert!(listener.accept().is_err(), "the listener accepted a connection");
        let namespace = run.output.lines().last().unwrap_or_default();
        assert_ne!(namespace, mount_namespace_of("self"), "{}", run.output);
    }
    // The FIFO is still the user's FIFO.
    use std::os::unix::fs::FileTypeExt as _;
    assert!(root.join(".env").symlink_metadata().unwrap().file_type().is_fifo());
}

/// The same attack on an `Edit(..)` deny path: its folder moved away and made again, the
/// protected file written in the new one.
#[test]
fn an_edit_deny_path_is_not_carried_away_by_its_folder() {
    if !mount_namespace() {
        return;
    }
    for rule in ["Edit(./config/prod.yaml)", "Edit(./config/deeper/**)"] {
        let shell = shell_in(config(), allow_all().deny(rule), Mode::Bypass);
        let root = shell.root().to_owned();
        std::fs::create_dir_all(root.join("config/deeper")).unwrap();
        std::fs::write(root.join("config/prod.yaml"), "kept\n").unwrap();
        let run = shell.run(&script(
            &shell,
            "swap.sh",
            "mv config c2; mkdir -p config/deeper; echo evil > config/prod.yaml; \
             echo evil > config/deeper/hook.sh; exit 1\n",
        ));
        let seen = format!("{rule}: {}", run.output);
        if rule.contains("prod.yaml") {
            assert_eq!(
                std::fs::read_to_string(root.join("config/prod.yaml")).unwrap(),
                "kept\n",
                "{seen}"
            );
        } else {
            assert!(!exists(&root.join("config/deeper/hook.sh")), "{seen}");
        }
        assert!(!exists(&root.join("c2")), "{seen}");
    }
}

/// The settings `toolbox` loads next, both present: their folder moved away and a new one
/// made with a policy of the command's choosing.
#[test]
fn a_folder_of_protected_files_is_not_swapped_for_a_new_one() {
    if !mount_namespace() {
        return;
    }
    let shell = shell_in(
        SandboxConfig {
            deny_write: vec![
                ".claude/settings.json".into(),
                ".claude/settings.local.json".into(),
            ],
            ..config()
        },
        allow_all(),
        Mode::Bypass,
    );
    let root = shell.root().to_owned();
    std::fs::create_dir(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), "{}\n").unwrap();
    std::fs::write(root.join(".claude/settings.local.json"), "{}\n").unwrap();
    let run = shell.run(&script(
        &shell,
        "policy.sh",
        "mv .claude .claude-old && mkdir .claude && \
         echo '{\"sandbox\": {\"enabled\": false}}' > .claude/settings.local.json; exit 1\n",
    ));
    assert_eq!(
        std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap(),
        "{}\n",
        "{}",
        run.output
    );
    assert!(!exists(&root.join(".claude-old")), "{}", run.output);
}

/// With `/tmp` writable, the file the sandbox lays over each denied one (in the session's
/// folder under `/tmp`) was replaced by a link to a denied file, which the next view then
/// laid over that file: itself.
#[test]
fn the_cover_file_is_not_swapped_through_a_writable_temporary_directory() {
    if !mount_namespace() {
        return;
    }
    let shell = shell_in(
        SandboxConfig {
            deny_read: vec![".env".into()],
            writable: vec![std::env::temp_dir()],
            ..config()
        },
        allow_all(),
        Mode::Bypass,
    );
    std::fs::write(shell.root().join(".env"), "SECRET=ENV\n").unwrap();
    let swap = shell.run(&script(
        &shell,
        "swap.sh",
        "u=\"$(dirname \"$TMPDIR\")/unreadable\"; rm -f \"$u\"; ln -s \"$PWD/.env\" \"$u\"; \
         base=\"$(dirname \"$TMPDIR\")\"; mv \"$base\" \"$base.gone\"; echo done\n",
    ));
    let read = shell.run("cat .env; echo end");
    assert!(read.output.contains("end"), "{} / {}", swap.output, read.output);
    assert!(!read.output.contains("SECRET"), "{} / {}", swap.output, read.output);
}

/// An attack on every engine: the agent's own view of the file system, reached through its
/// entry in `/proc` (`root` and `cwd`, which lead into the agent's mount namespace, where
/// nothing is read-only), and a denied file read through the agent's open descriptors.
#[test]
fn the_agents_file_system_is_not_reached_through_proc() {
    if !landlock() {
        return;
    }
    let agent = std::process::id();
    let outside = Outside::new("through_proc.txt");
    let target = outside.shell_path();
    let cwd_probe = std::env::current_dir().unwrap().join("through_cwd_probe");
    for mode in [Mode::Default, Mode::Bypass] {
        let shell = with_denied_secrets(From::Code, mode);
        // Held open by the agent: a descriptor a command might borrow through /proc.
        let held = std::fs::File::open(shell.root().join(".env")).unwrap();
        let run = shell.run(&script(
            &shell,
            "proc.sh",
            &format!(
                "echo x > /proc/{agent}/root{target}; echo root $?\n\
                 echo x > /proc/{agent}/cwd/through_cwd_probe; echo cwd $?\n\
                 for fd in /proc/{agent}/fd/*; do cat \"$fd\" 2>/dev/null; done; echo fds $?\n\
                 cat /proc/{agent}/root{root}/.env; exit 1\n",
                root = shell.root().display(),
            ),
        ));
        drop(held);
        let escaped_through_cwd = cwd_probe.exists();
        let _ = std::fs::remove_file(&cwd_probe);
        assert!(!outside.0.exists(), "{mode:?}: {}", run.output);
        assert!(!escaped_through_cwd, "{mode:?}: {}", run.output);
        assert!(!run.output.contains("SECRET"), "{mode:?}: {}", run.output);
        assert!(run.output.contains("root 1") || run.output.contains("root 2"), "{}", run.output);
    }
}

#[test]
fn an_edit_deny_rule_makes_its_path_read_only_to_commands() {
    if !mount_namespace() {
        return;
    }
    for from in [From::Config, From::Code] {
        let shell = match from {
            From::Config => shell_with(
                SandboxConfig {
                    deny_write: vec!["protected".into()],
                    ..config()
                },
                allow_all(),
            ),
            From::Code => shell_with(config(), allow_all().deny("Edit(./protected/**)")),
        };
        std::fs::create_dir(shell.root().join("protected")).unwrap();
        std::fs::write(shell.root().join("protected/settings.json"), "{}\n").unwrap();
        let run = shell.run(&script(
            &shell,
            "edit.sh",
            "echo '{\"evil\": 1}' > protected/settings.json; touch protected/new; \
             rm protected/settings.json; chmod 777 protected; echo edited > elsewhere.txt; exit 1\n",
        ));
        let seen = format!("{from:?}: {}", run.output);
        assert_eq!(
            std::fs::read_to_string(shell.root().join("protected/settings.json")).unwrap(),
            "{}\n",
            "{seen}"
        );
        assert!(!exists(&shell.root().join("protected/new")), "{seen}");
        assert!(exists(&shell.root().join("elsewhere.txt")), "{seen}");
        let note = run.note.unwrap_or_default();
        assert!(note.contains("SandboxConfig::deny_write"), "{note}; {seen}");
    }
}

/// Issue 24: the protected `.git` (a bare name, no concrete path of a rule) reached commands
/// the policy cannot read: a script removing the repository ran. The `.git` at the root is
/// read-only to every command where bubblewrap builds the file system.
#[test]
fn the_protected_git_at_the_root_is_read_only_to_commands() {
    if !mount_namespace() {
        return;
    }
    let shell = shell_in(config(), allow_all(), Mode::Bypass);
    std::fs::create_dir_all(shell.root().join(".git/hooks")).unwrap();
    std::fs::write(shell.root().join(".git/config"), "kept\n").unwrap();
    let run = shell.run(&script(
        &shell,
        "wipe.sh",
        "echo evil > .git/hooks/post-merge; echo evil > .git/config; rm -rf .git;          echo done > elsewhere.txt; exit 1\n",
    ));
    let seen = run.output.clone();
    assert_eq!(
        std::fs::read_to_string(shell.root().join(".git/config")).unwrap(),
        "kept\n",
        "{seen}"
    );
    assert!(!exists(&shell.root().join(".git/hooks/post-merge")), "{seen}");
    assert!(exists(&shell.root().join("elsewhere.txt")), "{seen}");
    let note = run.note.unwrap_or_default();
    assert!(note.contains("SandboxConfig::deny_write"), "{note}; {seen}");
}

/// What the policy cannot read (a target known only at run time, an interpreter, a program
/// named by a variable) meets the sandbox: the root's `.git` survives each, in bypass mode
/// with every command allowed.
#[test]
fn the_root_git_survives_removals_the_policy_cannot_read() {
    if !mount_namespace() {
        return;
    }
    for command in [
        "rm -rf \"$PWD\"/.git",
        "d=.git; rm -rf $d",
        "python3 -c \"import shutil; shutil.rmtree('.git')\"",
        "x=mv; $x .git gone",
        "find \"$PWD\" -path '*/.git/*' -delete",
    ] {
        let shell = shell_in(config(), allow_all(), Mode::Bypass);
        std::fs::create_dir_all(shell.root().join(".git")).unwrap();
        std::fs::write(shell.root().join(".git/config"), "kept\n").unwrap();
        let run = shell.run(command);
        assert_eq!(
            std::fs::read_to_string(shell.root().join(".git/config")).unwrap_or_default(),
            "kept\n",
            "{command}: {}",
            run.output
        );
        assert!(!exists(&shell.root().join("gone")), "{command}");
        // It ran, and the kernel refused it: the policy did not stand in the way.
        assert_ne!(run.exit_code, Some(0), "{command}: {}", run.output);
    }
}

#[test]
fn only_harmless_devices_are_there_to_open() {
    if !mount_namespace() {
        return;
    }
    let run = sandboxed().run("ls /dev | tr '\\n' ' '; echo; echo x > /dev/null && echo null ok");
    assert!(run.output.contains("null ok"), "{}", run.output);
    for absent in ["kmsg", "mem", "sda", "vda", "loop0"] {
        assert!(
            !run.output.split_whitespace().any(|name| name == absent),
            "/dev/{absent} is there: {}",
            run.output
        );
    }
}

#[test]
fn a_killed_command_is_reported_killed_through_bubblewrap() {
    if !landlock() {
        return;
    }
    let run = sandboxed().run("kill -KILL $$");
    assert_eq!(
        (run.exit_code, run.signal.as_deref()),
        (None, Some("SIGKILL"))
    );
    let run = sandboxed().run("exit 7");
    assert_eq!(run.exit_code, Some(7));
}

#[test]
fn an_edit_deny_rule_on_a_path_not_made_yet_still_keeps_commands_from_making_it() {
    if !mount_namespace() {
        return;
    }
    for rule in ["Edit(./config/settings.json)", "Edit(./config/deeper/**)"] {
        let shell = shell_with(config(), allow_all().deny(rule));
        std::fs::create_dir(shell.root().join("config")).unwrap();
        let run = shell.run(&script(
            &shell,
            "plant.sh",
            "mkdir -p config/deeper; echo evil > config/settings.json; \
             echo evil > config/deeper/hook.sh; exit 1\n",
        ));
        let seen = format!("{rule}: {}", run.output);
        assert!(!exists(&shell.root().join("config/settings.json")), "{seen}");
        assert!(!exists(&shell.root().join("config/deeper/hook.sh")), "{seen}");
        let note = run.note.unwrap_or_default();
        assert!(note.contains("SandboxConfig::deny_write"), "{note}; {seen}");
    }
}

#[test]
fn a_denied_folder_reached_by_another_spelling_or_a_link_stays_unread() {
    if !landlock() {
        return;
    }
    // Anchored spellings name one path, which the sandbox covers; a bare name
    // (`Read(secrets)`, `Read(secrets/)`: any depth, gitignore's way) reaches it as what it
    // matches at the root (deeper matches are held for the file tools only: see docs/sandbox.md).
    for rule in [
        "Read(./secrets/**)",
        "Read(./secrets/)",
        "Read(/secrets/**)",
        "Read(secrets)",
        "Read(secrets/)",
        "Read(secre*)",
    ] {
        let shell = shell_in(config(), allow_all().deny(rule), Mode::Bypass);
        std::fs::create_dir(shell.root().join("secrets")).unwrap();
        std::fs::write(shell.root().join("secrets/key.txt"), "hunter2-KEY\n").unwrap();
        let run = shell.run(&script(
            &shell,
            "spell.sh",
            "cat ./secrets//key.txt secrets/../secrets/key.txt; ln -s secrets alias; \
             cat alias/key.txt; ln -s secrets/key.txt file_alias; cat file_alias; \
             cat \"$PWD/secrets/key.txt\"; tar cf - secrets 2>/dev/null | strings\n",
        ));
        assert!(!run.output.contains("hunter2"), "{rule}: {}", run.output);
        let again = shell.run("cat alias/key.txt file_alias");
        assert!(!again.output.contains("hunter2"), "{rule}: {}", again.output);
    }
}

// ---- Bubblewrap's view kept between commands (the `kept` module) ----

/// The mount namespace a process is in (`mnt:[4026532177]`).
fn mount_namespace_of(pid: &str) -> String {
    std::fs::read_link(format!("/proc/{pid}/ns/mnt"))
        .map(|link| link.display().to_string())
        .unwrap_or_default()
}

/// The pids of the processes in the mount namespace `namespace` (`mnt:[..]`).
fn processes_in(namespace: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| mount_namespace_of(&pid.to_string()) == namespace)
        .collect()
}

#[test]
fn commands_share_one_kept_view_and_no_bwrap_stays_running() {
    if !mount_namespace() {
        return;
    }
    let shell = sandboxed();
    let first = shell.run("readlink /proc/self/ns/mnt");
    let second = shell.run(&script(
        &shell,
        "probe.sh",
        "readlink /proc/self/ns/mnt; echo x > /usr/kept-probe || echo refused\n",
    ));
    let first = first.output.trim();
    assert!(first.starts_with("mnt:["), "{first}");
    assert_ne!(first, mount_namespace_of("self"), "the command ran in this process's namespace");
    assert!(second.output.starts_with(first), "{} then {}", first, second.output);
    assert!(second.output.contains("refused"), "{}", second.output);
    assert!(!Path::new("/usr/kept-probe").exists());
    // The view outlives its commands with no process in it: the shell `bwrap` ran to build
    // it, and `bwrap` itself, are gone. (Other tests' views are other namespaces.)
    assert_eq!(
        processes_in(first),
        Vec::<u32>::new(),
        "a process was left in the view"
    );
}

/// A review of the sandbox's own namespaces: a writable path under `/dev` (whose view is the
/// sandbox's own, not the host's) failed every view's identity check, and each command fell
/// to Landlock alone. Commands still run in a view.
#[test]
fn a_writable_path_under_dev_still_gets_a_view() {
    if !mount_namespace() {
        return;
    }
    let shell = shell_with(
        SandboxConfig {
            writable: vec!["/dev/shm".into()],
            ..config()
        },
        allow_all(),
    );
    let run = shell.run("readlink /proc/self/ns/mnt");
    let namespace = run.output.trim();
    assert!(namespace.starts_with("mnt:["), "{}", run.output);
    assert_ne!(namespace, mount_namespace_of("self"), "the command ran outside a view");
}

#[test]
fn a_command_in_a_kept_view_holds_no_capability_and_makes_no_namespace() {
    if !mount_namespace() {
        return;
    }
    let run = sandboxed().run(
        "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; \
         unshare -U true && echo MADE-USER-NS; unshare -m true && echo MADE-MOUNT-NS; \
         umount /dev 2>/dev/null && echo UNMOUNTED; echo end",
    );
    assert!(run.output.contains("end"), "{}", run.output);
    for line in run.output.lines().filter(|line| line.starts_with("Cap")) {
        assert!(line.ends_with("0000000000000000"), "{line}\n{}", run.output);
    }
    assert_eq!(run.output.lines().filter(|line| line.starts_with("Cap")).count(), 5);
    for escaped in ["MADE-USER-NS", "MADE-MOUNT-NS", "UNMOUNTED"] {
        assert!(!run.output.contains(escaped), "{}", run.output);
    }
}

#[test]
fn a_denied_file_made_again_outside_is_still_covered_in_the_next_command() {
    if !mount_namespace() {
        return;
    }
    for from in [From::Config, From::Code] {
        let shell = with_denied_secrets(from, Mode::Default);
        let run = shell.run("cat .env; echo end");
        assert!(!run.output.contains("SECRET"), "{}", run.output);
        // A new file at the denied name: the old cover sat on the file that was removed.
        std::fs::remove_file(shell.root().join(".env")).unwrap();
        std::fs::write(shell.root().join(".env"), "SECRET=AGAIN\n").unwrap();
        std::fs::remove_dir_all(shell.root().join("secrets")).unwrap();
        std::fs::create_dir(shell.root().join("secrets")).unwrap();
        std::fs::write(shell.root().join("secrets/key.txt"), "hunter3-KEY\n").unwrap();
        let run = shell.run("cat .env secrets/key.txt; echo end");
        assert!(run.output.contains("end"), "{from:?}: {}", run.output);
        for secret in ["AGAIN", "hunter3"] {
            assert!(!run.output.contains(secret), "{from:?}: {}", run.output);
        }
    }
}

#[test]
fn a_denied_file_made_after_a_command_is_covered_in_the_next() {
    if !mount_namespace() {
        return;
    }
    let shell = shell_with(
        SandboxConfig {
            deny_read: vec![".env".into()],
            ..config()
        },
        allow_all(),
    );
    assert_eq!(shell.run("echo first").output.trim(), "first");
    std::fs::write(shell.root().join(".env"), "SECRET=LATE\n").unwrap();
    let run = shell.run("cat .env; echo end");
    assert!(run.output.contains("end"), "{}", run.output);
    assert!(!run.output.contains("LATE"), "{}", run.output);
}

/// Runs `mount` with `arguments`; `false` where this process may not.
fn mount(arguments: &[&std::ffi::OsStr]) -> bool {
    std::process::Command::new("mount")
        .args(arguments)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn a_mount_made_outside_after_a_command_is_read_only_in_the_next() {
    if !mount_namespace() {
        return;
    }
    // A shared mount (as systemd makes `/`): what is mounted beneath it later propagates
    // into every namespace copied from it, writable as it was mounted.
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().as_os_str();
    if !mount(&["--bind".as_ref(), dir, dir]) {
        eprintln!("skipped: this process may not mount");
        return;
    }
    let shared = mount(&["--make-shared".as_ref(), dir]);
    let shell = sandboxed();
    assert_eq!(shell.run("echo first").output.trim(), "first");
    let beneath = outside.path().join("beneath");
    std::fs::create_dir(&beneath).unwrap();
    let mounted = mount(&["-t".as_ref(), "tmpfs".as_ref(), "tmpfs".as_ref(), beneath.as_os_str()]);
    let target = beneath.join("written");
    let run = shell.run(&script(
        &shell,
        "write.sh",
        &format!("echo x > '{}' || echo refused\n", target.display()),
    ));
    let written = target.exists();
    for path in [beneath.as_os_str(), dir] {
        let _ = std::process::Command::new("umount").arg(path).status();
    }
    assert!(shared && mounted, "the mounts were refused");
    assert!(run.output.contains("refused"), "{}", run.output);
    assert!(!written);
}

#[test]
fn with_some_ports_allowed_a_listen_on_a_socket_never_bound_is_refused() {
    if !matches!(status(), tool_std::shell::sandbox::Sandbox::Enforced { .. }) {
        return;
    }
    // A free port to allow: bound here, then let go.
    let allowed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let shell = shell_with(
        SandboxConfig {
            network: Network::Ports(vec![allowed]),
            ..config()
        },
        allow_all(),
    );
    let run = shell.run(&format!(
        r#"python3 - <<'EOF'
import ctypes, os, socket
def attempt(name, make):
    try:
        make()
        print(name, "through")
    except OSError as error:
        print(name, "refused", error.errno)
def unbound_v4():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.listen()
    print("listening on", s.getsockname())
def unbound_v6():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.listen()
    print("listening on", s.getsockname())
def bound_allowed():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", {allowed}))
    print("bound", flush=True)
    s.listen(1)
    print("listened", flush=True)
    c = socket.create_connection(("127.0.0.1", {allowed}), timeout=5)
    print("connected", flush=True)
    s.settimeout(5)
    peer, _ = s.accept()
    c.sendall(b"hello")
    assert peer.recv(5) == b"hello"
def unix():
    path = os.path.join(os.environ["TMPDIR"], "sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen()
def x32_socket():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(0x40000000 + 41, socket.AF_INET, socket.SOCK_STREAM, 0) < 0:
        raise OSError(ctypes.get_errno(), "x32 socket")
attempt("unbound_v4", unbound_v4)
attempt("unbound_v6", unbound_v6)
attempt("bound_allowed", bound_allowed)
attempt("unix", unix)
attempt("x32_socket", x32_socket)
EOF"#
    ));
    assert_refused(&run, &["unbound_v4 1", "unbound_v6 1", "x32_socket 38"]);
    for through in ["bound_allowed through", "unix through"] {
        assert!(run.output.contains(through), "{through}: {}", run.output);
    }
    assert!(!run.output.contains("listening on"), "{}", run.output);
}
