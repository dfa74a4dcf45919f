//! `toolbox call --session NAME`: what one call leaves (artifacts, the record of files read,
//! the todo list) is there for the next call of the same session, and only of that session;
//! `toolbox session list` and `remove`; and every bad input refused with what would be right.
//! (Grants and modes, which need a terminal to give, are in `toolbox_pty.rs`.)
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A workspace, and a state directory of its own for the sessions.
struct Setup {
    workspace: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("notes.md"), "# Notes\nbuy milk\n").unwrap();
        Setup {
            workspace,
            state: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.workspace.path()
    }

    /// `toolbox ARGS` in the workspace, without a terminal.
    fn toolbox(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_toolbox"))
            .args(args)
            .current_dir(self.root())
            .env("TOOLBOX_STATE_DIR", self.state.path())
            .stdin(Stdio::null())
            .output()
            .expect("toolbox runs")
    }

    /// `toolbox call TOOL ARGUMENTS --session SESSION EXTRA...`.
    fn call(&self, tool: &str, arguments: &str, session: &str, extra: &[&str]) -> Output {
        let mut args = vec!["call", tool, arguments, "--session", session];
        args.extend_from_slice(extra);
        self.toolbox(&args)
    }

    fn sessions(&self) -> std::path::PathBuf {
        self.state.path().join("sessions")
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Fails with the whole text unless it holds `needle`.
fn assert_says(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

const READ_NOTES: &str = r#"{"path": "notes.md"}"#;

const LONG_OUTPUT: &str = r#"{"command": "seq 1 20000"}"#;
const LAST_LINES: &str = r#"{"id": "art_1", "offset": 19999, "limit": 2}"#;

#[test]
fn an_artifact_cut_in_one_call_is_read_in_the_next_call_of_the_session() {
    let setup = Setup::new();
    let cut = setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    assert!(cut.status.success(), "{}", stderr(&cut));
    assert_says(&stdout(&cut), "art_1");

    let read = setup.call("read_artifact", LAST_LINES, "build", &[]);
    assert!(read.status.success(), "{}", stdout(&read));
    assert_says(&stdout(&read), "19999\t19999");
    assert_says(&stdout(&read), "20000\t20000");
}

#[test]
fn another_session_or_none_does_not_see_the_artifact() {
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    for extra in [&["--session", "other"][..], &[]] {
        let mut args = vec!["call", "read_artifact", LAST_LINES];
        args.extend_from_slice(extra);
        let read = setup.toolbox(&args);
        assert_eq!(read.status.code(), Some(1), "{extra:?}");
        assert_says(&stdout(&read), "no artifact `art_1`");
    }
}

#[test]
fn ids_go_on_after_the_kept_artifacts() {
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    let second = setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    assert_says(&stdout(&second), "art_2");
    let first = setup.call("read_artifact", LAST_LINES, "build", &[]);
    assert!(first.status.success(), "{}", stdout(&first));
}

#[test]
fn a_file_read_in_one_call_may_be_overwritten_in_the_next() {
    let setup = Setup::new();
    let write = r##"{"path": "notes.md", "content": "# Notes\n"}"##;
    let unread = setup.call("write_file", write, "w", &["--mode", "accept_edits"]);
    assert_eq!(unread.status.code(), Some(1));
    assert_says(&stdout(&unread), "has not been read");

    let read = setup.call("read_file", READ_NOTES, "w", &[]);
    assert!(read.status.success(), "{}", stderr(&read));
    let written = setup.call("write_file", write, "w", &["--mode", "accept_edits"]);
    assert!(written.status.success(), "{}", stdout(&written));
    assert_eq!(
        std::fs::read_to_string(setup.root().join("notes.md")).unwrap(),
        "# Notes\n"
    );
}

#[test]
fn a_change_on_disk_since_an_earlier_calls_read_is_caught() {
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "e", &[]);
    std::fs::write(
        setup.root().join("notes.md"),
        "# Notes\nbuy milk\nand bread\n",
    )
    .unwrap();
    let edit = r#"{"path": "notes.md", "old_string": "milk", "new_string": "oat milk"}"#;
    let edited = setup.call("edit_file", edit, "e", &["--mode", "accept_edits"]);
    assert!(edited.status.success(), "{}", stdout(&edited));
    assert_says(
        &stdout(&edited),
        "had changed on disk since this session read it",
    );
}

#[test]
fn the_todo_list_is_kept_and_list_counts_what_each_session_keeps() {
    let setup = Setup::new();
    let todos = r#"{"todos": [{"content": "Write the parser", "status": "in_progress"}]}"#;
    let wrote = setup.call("todo_write", todos, "plan", &[]);
    assert!(wrote.status.success(), "{}", stdout(&wrote));
    setup.call("run_shell", LONG_OUTPUT, "build", &[]);

    let listed = setup.toolbox(&["session", "list"]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = stdout(&listed);
    let line = |name: &str| {
        text.lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} is not listed: {text}"))
            .to_owned()
    };
    let root = setup.root().to_str().unwrap();
    assert!(line("plan").contains(root), "{text}");
    assert!(
        line("plan").contains("1 todo,") || line("plan").ends_with("1 todo"),
        "{text}"
    );
    assert!(line("build").contains("1 artifact,"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(setup.sessions().join("plan/session.json")).unwrap())
            .unwrap();
    assert_eq!(saved["todos"][0]["content"], "Write the parser");
}

#[test]
fn remove_deletes_the_session_and_everything_it_kept() {
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    assert!(setup.sessions().join("build/artifacts/art_1.txt").exists());
    let removed = setup.toolbox(&["session", "remove", "build"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(!setup.sessions().join("build").exists());
    let listed = stdout(&setup.toolbox(&["session", "list"]));
    assert!(!listed.contains("build"), "{listed}");
    // The same name again is a new, empty session.
    let read = setup.call("read_artifact", LAST_LINES, "build", &[]);
    assert_eq!(read.status.code(), Some(1));
}

#[test]
fn removing_a_session_that_does_not_exist_says_how_to_see_them() {
    let setup = Setup::new();
    let removed = setup.toolbox(&["session", "remove", "nope"]);
    assert_eq!(removed.status.code(), Some(3));
    assert_says(&stderr(&removed), "no session `nope`");
    assert_says(&stderr(&removed), "toolbox session list");
}

#[test]
fn a_session_name_that_is_a_path_is_a_usage_error_and_nothing_is_made() {
    let setup = Setup::new();
    for name in ["../escape", "a/b", ".hidden", ""] {
        let call = setup.call("read_file", READ_NOTES, name, &[]);
        assert_eq!(call.status.code(), Some(2), "{name}: {}", stderr(&call));
        assert_says(&stderr(&call), "not a session name");
        let removed = setup.toolbox(&["session", "remove", name]);
        assert_eq!(removed.status.code(), Some(2), "{name}");
    }
    assert!(!setup.sessions().exists());
    assert!(!setup.state.path().join("escape").exists());
}

#[test]
fn a_session_belongs_to_its_workspace() {
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "s", &[]);
    let elsewhere = tempfile::tempdir().unwrap();
    let workspace = ["--workspace", elsewhere.path().to_str().unwrap()];
    let call = setup.call("read_file", READ_NOTES, "s", &workspace);
    assert_eq!(call.status.code(), Some(3));
    assert_says(&stderr(&call), "belongs to the workspace");
    assert_says(&stderr(&call), setup.root().to_str().unwrap());
}

#[test]
fn a_damaged_session_file_is_a_set_up_error_naming_the_remedy_and_is_left_as_it_was() {
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "s", &[]);
    let file = setup.sessions().join("s/session.json");
    std::fs::write(&file, "{not json").unwrap();
    let call = setup.call("read_file", READ_NOTES, "s", &[]);
    assert_eq!(call.status.code(), Some(3));
    assert_says(&stderr(&call), "toolbox session remove s");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{not json");
}

#[test]
fn a_session_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "build", &[]);
    let dir = setup.sessions().join("build");
    for path in [
        dir.clone(),
        dir.join("session.json"),
        dir.join("artifacts"),
        dir.join("artifacts/art_1.txt"),
    ] {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{} is {mode:o}", path.display());
    }
}

#[test]
fn an_artifact_id_in_the_session_file_never_names_a_file_outside_it() {
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "s", &[]);
    let file = setup.sessions().join("s/session.json");
    let mut saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    std::fs::write(setup.state.path().join("secret.txt"), "top secret").unwrap();
    saved["artifacts"] = serde_json::json!([
        {"id": "../../../secret", "tool": "x", "call_id": "c"}
    ]);
    std::fs::write(&file, serde_json::to_vec(&saved).unwrap()).unwrap();
    let listed = setup.call("list_artifacts", "{}", "s", &[]);
    assert!(!stdout(&listed).contains("secret"), "{}", stdout(&listed));
    assert_eq!(
        std::fs::read_to_string(setup.state.path().join("secret.txt")).unwrap(),
        "top secret"
    );
}

#[test]
fn one_call_at_a_time_uses_a_session_and_it_cannot_be_removed_meanwhile() {
    use rustix::fs::{FlockOperation, flock};
    let setup = Setup::new();
    let mut first = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "call",
            "run_shell",
            r#"{"command": "sleep 2"}"#,
            "--session",
            "s",
        ])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Until the first call holds the session's lock (a bound so a broken lock fails the test).
    let lock = setup.sessions().join("s/lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let held = std::fs::File::open(&lock)
            .is_ok_and(|file| flock(&file, FlockOperation::NonBlockingLockShared).is_err());
        if held {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the first call never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let removed = setup.toolbox(&["session", "remove", "s"]);
    assert_eq!(removed.status.code(), Some(3));
    assert_says(&stderr(&removed), "in use");

    let second = setup.call("read_file", READ_NOTES, "s", &[]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert_says(&stderr(&second), "waiting for it to end");
    assert!(first.wait().unwrap().success());
    assert!(setup.sessions().join("s/session.json").exists());
}

/// The command lines of the processes running now (not zombies) that hold `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // The state follows the command's name in parentheses; a zombie has ended.
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.contains(needle))
        .collect()
}

/// Waits up to 10 s for no running process to hold `needle`; fails naming those left.
fn assert_none_left(needle: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = processes_with(needle);
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Commands that only read run unasked; these tests' others need no terminal to ask.
const BYPASS: &[&str] = &["--mode", "bypass"];

fn background(command: &str) -> String {
    serde_json::json!({ "command": command, "run_in_background": true }).to_string()
}

impl Setup {
    /// What the session's keeper of this workspace has in its command line.
    fn keeper(&self) -> String {
        format!("session keep jobs --workspace {}", self.root().display())
    }

    /// `shell_output` of `id` in session `jobs`, read until the job has ended.
    fn output_when_ended(&self, id: &str) -> (Output, String) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut printed = String::new();
        loop {
            let read = self.call("shell_output", &format!(r#"{{"id": "{id}"}}"#), "jobs", &[]);
            printed.push_str(&stdout(&read));
            if !stdout(&read).contains(": running (") {
                return (read, printed);
            }
            assert!(std::time::Instant::now() < deadline, "{printed}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

#[test]
fn without_a_session_a_background_job_stops_with_the_command_and_says_so() {
    let setup = Setup::new();
    let marker = "sleep 97.125";
    let started = setup.toolbox(&["call", "run_shell", &background(marker)]);
    assert!(started.status.success(), "{}", stderr(&started));
    assert_says(&stderr(&started), "shell_1 is stopped as this command ends");
    assert_says(&stderr(&started), "only in a session (`--session NAME`)");
    assert!(processes_with(marker).is_empty());
}

#[test]
fn a_background_job_runs_on_after_the_call_and_a_later_call_reads_its_output() {
    let setup = Setup::new();
    let job = background("echo started; sleep 0.5; echo finished; exit 3");
    let started = setup.call("run_shell", &job, "jobs", BYPASS);
    assert!(started.status.success(), "{}", stderr(&started));
    assert_says(&stdout(&started), "shell_1");
    assert_says(&stderr(&started), "shell_1 runs on in session `jobs`");

    let (ended, printed) = setup.output_when_ended("shell_1");
    assert_says(&printed, "started\n");
    assert_says(&printed, "finished\n");
    assert_says(&stdout(&ended), "exited with code 3");
    // The job's failure is the command's, as for a command in the foreground.
    assert_eq!(ended.status.code(), Some(1));
    assert_says(&stderr(&ended), "the command exited with code 3");
    assert!(!stderr(&ended).contains("runs on"), "{}", stderr(&ended));

    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), "shell_1: exited with code 3");
    assert_says(&stdout(&listed), "echo started");
}

#[test]
fn jobs_of_several_calls_are_numbered_on_and_listed_with_the_sessions() {
    let setup = Setup::new();
    let (first, second) = ("sleep 96.25", "sleep 96.5");
    for (command, id) in [(first, "shell_1"), (second, "shell_2")] {
        let started = setup.call("run_shell", &background(command), "jobs", &[]);
        assert_says(&stdout(&started), id);
    }
    let listed = setup.toolbox(&["session", "list"]);
    assert_says(&stdout(&listed), "2 jobs running");
    let removed = setup.toolbox(&["session", "remove", "jobs"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_says(&stdout(&removed), "its 2 background jobs were stopped");
    assert_none_left(first);
    assert_none_left(second);
    assert_none_left(&setup.keeper());
    assert!(!setup.sessions().join("jobs").exists());
}

#[test]
fn kill_shell_in_a_later_call_stops_the_job_and_every_process_it_started() {
    let setup = Setup::new();
    let marker = "sleep 95.75";
    let job = background(&format!("{marker} & {marker}; wait"));
    setup.call("run_shell", &job, "jobs", BYPASS);
    assert_eq!(processes_with(marker).len(), 3, "bash and two sleeps");

    let killed = setup.call("kill_shell", r#"{"id": "shell_1"}"#, "jobs", BYPASS);
    assert!(killed.status.success(), "{}", stderr(&killed));
    assert_says(&stdout(&killed), "stopped by kill_shell");
    assert!(processes_with(marker).is_empty());
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), "(stopped by kill_shell)");
}

#[test]
fn a_jobs_long_output_is_an_artifact_a_later_call_reads() {
    let setup = Setup::new();
    setup.call("run_shell", &background("seq 1 20000"), "jobs", &[]);
    let (ended, _) = setup.output_when_ended("shell_1");
    assert_says(&stdout(&ended), "the whole output is artifact art_job_1");

    let tail = r#"{"id": "art_job_1", "offset": 19999, "limit": 2}"#;
    let read = setup.call("read_artifact", tail, "jobs", &[]);
    assert!(read.status.success(), "{}", stdout(&read));
    assert_says(&stdout(&read), "20000\t20000");
    // The session's own ids go on as before, apart from the keeper's.
    let cut = setup.call("run_shell", LONG_OUTPUT, "jobs", &[]);
    assert_says(&stdout(&cut), "art_1");
}

#[test]
fn a_command_in_the_foreground_starts_no_keeper() {
    let setup = Setup::new();
    let ran = setup.call("run_shell", r#"{"command": "echo here"}"#, "jobs", &[]);
    assert_says(&stdout(&ran), "here");
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), "No background jobs.");
    assert!(processes_with(&setup.keeper()).is_empty());
    assert!(!setup.sessions().join("jobs/jobs.sock").exists());
}

#[test]
fn an_idle_keeper_ends_and_leaves_no_socket() {
    let setup = Setup::new();
    let started = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "call",
            "run_shell",
            &background("true"),
            "--session",
            "jobs",
        ])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.state.path())
        .env("TOOLBOX_KEEPER_IDLE_MS", "200")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", stderr(&started));
    assert_none_left(&setup.keeper());
    assert!(!setup.sessions().join("jobs/jobs.sock").exists());
    let read = setup.call("shell_output", r#"{"id": "shell_1"}"#, "jobs", &[]);
    assert_eq!(read.status.code(), Some(1));
    assert_says(&stdout(&read), "have ended and were forgotten");
}

#[test]
fn a_job_is_refused_by_a_keeper_started_with_other_settings() {
    let setup = Setup::new();
    let marker = "sleep 94.5";
    setup.call("run_shell", &background(marker), "jobs", &["--no-discover"]);
    let other = setup.call("run_shell", &background("true"), "jobs", &[]);
    assert_eq!(other.status.code(), Some(1));
    assert_says(&stdout(&other), "other settings");
    assert_says(&stdout(&other), "toolbox session remove jobs");
    // Reading needs no such match.
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), marker);
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left(marker);
}

#[test]
fn the_keeper_ends_with_its_jobs_when_the_session_folder_is_deleted_by_hand() {
    let setup = Setup::new();
    let marker = "sleep 93.25";
    setup.call("run_shell", &background(marker), "jobs", &[]);
    assert_eq!(processes_with(marker).len(), 1);
    std::fs::remove_dir_all(setup.sessions().join("jobs")).unwrap();
    assert_none_left(marker);
    assert_none_left(&setup.keeper());
}

#[test]
fn a_call_waiting_on_a_session_removed_meanwhile_starts_it_afresh() {
    use rustix::fs::{FlockOperation, flock};
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "s", &[]);
    // Held here as `session remove` holds it while the folder goes.
    let lock = std::fs::File::options()
        .write(true)
        .open(setup.sessions().join("s/lock"))
        .unwrap();
    flock(&lock, FlockOperation::LockExclusive).unwrap();
    let said = setup.state.path().join("stderr.txt");
    let mut waiting = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "read_file", READ_NOTES, "--session", "s"])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&said).unwrap())
        .spawn()
        .unwrap();
    // Until the call says it waits (a bound so a call that never waits fails the test).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(&said)
        .unwrap()
        .contains("waiting for it to end")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the call never waited"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::fs::remove_dir_all(setup.sessions().join("s")).unwrap();
    drop(lock);
    let status = waiting.wait().unwrap();
    assert!(
        status.success(),
        "{}",
        std::fs::read_to_string(&said).unwrap()
    );
    // A new session: the old artifact is gone, what this call read is kept.
    let saved = std::fs::read_to_string(setup.sessions().join("s/session.json")).unwrap();
    assert!(saved.contains("notes.md"), "{saved}");
    assert!(!saved.contains("art_1"), "{saved}");
}

#[test]
fn an_artifacts_folder_swapped_for_a_link_is_neither_written_through_nor_cleaned() {
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "s", &[]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("keep.txt"), "mine").unwrap();
    std::fs::write(outside.path().join("art_9.txt"), "mine too").unwrap();
    let artifacts = setup.sessions().join("s/artifacts");
    std::fs::remove_dir_all(&artifacts).unwrap();
    std::os::unix::fs::symlink(outside.path(), &artifacts).unwrap();

    let call = setup.call("run_shell", LONG_OUTPUT, "s", &[]);
    assert_eq!(call.status.code(), Some(3), "{}", stderr(&call));
    assert_says(&stderr(&call), "is not a folder");
    let mut left: Vec<String> = std::fs::read_dir(outside.path())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["art_9.txt", "keep.txt"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("art_9.txt")).unwrap(),
        "mine too"
    );
}

#[test]
fn only_the_texts_of_dropped_artifacts_are_cleaned_from_the_folder() {
    let setup = Setup::new();
    setup.call("run_shell", LONG_OUTPUT, "s", &[]);
    let stray = setup.sessions().join("s/artifacts/notes.md");
    std::fs::write(&stray, "a note of the user's").unwrap();
    let call = setup.call("read_file", READ_NOTES, "s", &[]);
    assert!(call.status.success(), "{}", stderr(&call));
    assert!(stray.exists());
    assert!(setup.sessions().join("s/artifacts/art_1.txt").exists());
}

#[test]
fn sigterm_to_the_keeper_stops_its_jobs_before_it_ends() {
    let setup = Setup::new();
    let marker = "sleep 92.75";
    setup.call("run_shell", &background(marker), "jobs", &[]);
    let keeper: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .contains(&setup.keeper())
                .then_some(pid)
        })
        .collect();
    assert_eq!(keeper.len(), 1, "one keeper");
    let signalled = Command::new("kill")
        .args(["-TERM", &keeper[0].to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    assert_none_left(marker);
    assert_none_left(&setup.keeper());
}

#[test]
fn commands_cannot_read_the_sessions_folder_in_the_call_nor_as_a_job() {
    if !tool_std::shell::sandbox::status().holds_files() {
        eprintln!("skipped: no kernel sandbox here");
        return;
    }
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "jobs", &[]);
    let file = setup.sessions().join("jobs/session.json");
    assert!(file.exists());
    let cat = serde_json::json!({ "command": format!("cat {}", file.display()) }).to_string();
    let read = setup.call("run_shell", &cat, "jobs", BYPASS);
    assert_eq!(read.status.code(), Some(1), "{}", stdout(&read));
    assert_says(&stdout(&read), "Permission denied");
    assert!(!stdout(&read).contains("notes.md"), "{}", stdout(&read));

    let job = serde_json::json!({ "command": format!("cat {}", file.display()), "run_in_background": true });
    setup.call("run_shell", &job.to_string(), "jobs", BYPASS);
    let (ended, printed) = setup.output_when_ended("shell_1");
    assert_says(&stdout(&ended), "exited with code 1");
    assert!(!printed.contains("notes.md"), "{printed}");
    setup.toolbox(&["session", "remove", "jobs"]);
}

/// `toolbox call --session jobs` with `env` set, and `TOOLBOX_KEEPER_IDLE_MS`.
fn call_idle_ms(setup: &Setup, idle_ms: &str, tool: &str, arguments: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", tool, arguments, "--session", "jobs"])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.state.path())
        .env("TOOLBOX_KEEPER_IDLE_MS", idle_ms)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_job_that_outlasts_the_idle_time_is_still_read_after_it_ends() {
    let setup = Setup::new();
    let job = background("sleep 1; echo late result");
    let started = call_idle_ms(&setup, "300", "run_shell", &job);
    assert!(started.status.success(), "{}", stderr(&started));
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let read = call_idle_ms(&setup, "300", "shell_output", r#"{"id": "shell_1"}"#);
    assert_says(&stdout(&read), "late result");
    setup.toolbox(&["session", "remove", "jobs"]);
}

#[test]
fn after_the_keeper_ended_its_jobs_are_said_to_have_ended_and_numbers_go_on() {
    let setup = Setup::new();
    call_idle_ms(&setup, "200", "run_shell", &background("seq 1 20000"));
    let (ended, _) = setup.output_when_ended("shell_1");
    assert_says(&stdout(&ended), "artifact art_job_1");
    // Nothing asked since: the keeper ends, its job with it.
    assert_none_left(&setup.keeper());
    let gone = setup.call("shell_output", r#"{"id": "shell_1"}"#, "jobs", &[]);
    assert_eq!(gone.status.code(), Some(1));
    assert_says(&stdout(&gone), "have ended and were forgotten");

    let next = setup.call("run_shell", &background("seq 30001 50000"), "jobs", &[]);
    assert_says(&stdout(&next), "shell_2");
    let (ended, _) = setup.output_when_ended("shell_2");
    assert_says(&stdout(&ended), "artifact art_job_2");
    let first = r#"{"id": "art_job_1", "offset": 1, "limit": 1}"#;
    let read = setup.call("read_artifact", first, "jobs", &[]);
    assert_says(&stdout(&read), "1\t1\n");
    setup.toolbox(&["session", "remove", "jobs"]);
}

/// One request line sent to the session's keeper, and its answer.
fn ask_keeper(setup: &Setup, line: &str) -> String {
    use std::io::{BufRead as _, Write as _};
    let socket = setup.sessions().join("jobs/jobs.sock");
    let mut stream = std::os::unix::net::UnixStream::connect(socket).unwrap();
    stream.write_all(line.as_bytes()).unwrap();
    let mut answer = String::new();
    std::io::BufReader::new(stream)
        .read_line(&mut answer)
        .unwrap();
    answer
}

#[test]
fn the_keeper_answers_nobody_without_its_secret() {
    let setup = Setup::new();
    let marker = "sleep 91.5";
    setup.call("run_shell", &background(marker), "jobs", &[]);
    let escape = setup.root().join("escaped");
    let request = serde_json::json!({
        "secret": "0".repeat(32),
        "request": {
            "kind": "call",
            "tool": "run_shell",
            "arguments": serde_json::json!({ "command": format!("touch {}", escape.display()), "run_in_background": true }).to_string(),
            "call_id": "x",
            "settings": "",
        },
    });
    let answer = ask_keeper(&setup, &format!("{request}\n"));
    assert_says(&answer, "not this keeper's secret");
    let stop = serde_json::json!({ "secret": "", "request": { "kind": "stop" } });
    assert_says(
        &ask_keeper(&setup, &format!("{stop}\n")),
        "not this keeper's secret",
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!escape.exists());
    assert_eq!(processes_with(marker).len(), 1, "the job runs on");
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left(marker);
}

#[test]
fn connections_that_never_ask_do_not_keep_a_call_waiting() {
    let setup = Setup::new();
    setup.call("run_shell", &background("sleep 90.25"), "jobs", &[]);
    let socket = setup.sessions().join("jobs/jobs.sock");
    // Each would hold a keeper that answered one connection at a time for 10 s.
    let silent: Vec<_> = (0..4)
        .map(|_| std::os::unix::net::UnixStream::connect(&socket).unwrap())
        .collect();
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert!(listed.status.success(), "{}", stdout(&listed));
    assert_says(&stdout(&listed), "sleep 90.25");
    drop(silent);
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left("sleep 90.25");
}

#[test]
fn a_settings_file_changed_since_the_keeper_started_is_refused_a_new_job() {
    let setup = Setup::new();
    let settings = setup.root().join("rules.json");
    std::fs::write(&settings, r#"{"permissions": {"allow": ["Bash"]}}"#).unwrap();
    let path = settings.to_str().unwrap();
    let first = setup.call(
        "run_shell",
        &background("sleep 89.75"),
        "jobs",
        &["--settings", path],
    );
    assert!(first.status.success(), "{}", stderr(&first));
    std::fs::write(
        &settings,
        r#"{"permissions": {"allow": ["Bash"], "deny": ["Read(./notes.md)"]}}"#,
    )
    .unwrap();
    let second = setup.call(
        "run_shell",
        &background("cat notes.md"),
        "jobs",
        &["--settings", path],
    );
    assert_eq!(second.status.code(), Some(1), "{}", stdout(&second));
    assert_says(&stdout(&second), "changed since the first job started");
    assert!(!stdout(&second).contains("buy milk"));
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left("sleep 89.75");
}

#[test]
fn the_keeper_holds_no_descriptor_its_caller_passed_on() {
    let setup = Setup::new();
    // The caller's stdout is a pipe, also given as descriptor 7: a keeper that kept either
    // would keep the reader waiting for as long as it lives.
    let script = format!(
        "exec 7>&1; {} call run_shell '{}' --session jobs >/dev/null 2>&1",
        env!("CARGO_BIN_EXE_toolbox"),
        background("sleep 88.5")
    );
    let mut shell = Command::new("bash")
        .args(["-c", &script])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = shell.stdout.take().unwrap();
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut all);
        let _ = done.send(());
    });
    let closed = ended
        .recv_timeout(std::time::Duration::from_secs(20))
        .is_ok();
    assert!(shell.wait().unwrap().success());
    assert_eq!(processes_with("sleep 88.5").len(), 1, "the job runs");
    setup.toolbox(&["session", "remove", "jobs"]);
    assert!(closed, "the pipe stayed open while the keeper lived");
    assert_none_left("sleep 88.5");
}

#[test]
fn a_long_session_name_keeps_jobs_and_is_removed() {
    let setup = Setup::new();
    let name = "n".repeat(64);
    let started = setup.call("run_shell", &background("sleep 87.25"), &name, &[]);
    assert!(started.status.success(), "{}", stdout(&started));
    let listed = setup.call("list_shells", "{}", &name, &[]);
    assert_says(&stdout(&listed), "sleep 87.25");
    let removed = setup.toolbox(&["session", "remove", &name]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_none_left("sleep 87.25");
}

#[test]
fn a_session_folder_that_is_a_link_is_refused() {
    let setup = Setup::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(setup.sessions()).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), setup.sessions().join("jobs")).unwrap();
    let refused = setup.call("read_file", READ_NOTES, "jobs", &[]);
    assert_eq!(refused.status.code(), Some(3));
    assert_says(&stderr(&refused), "not a folder (a link?)");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    let removed = setup.toolbox(&["session", "remove", "jobs"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(elsewhere.path().exists());
}

#[test]
fn a_relative_state_folder_is_hidden_from_commands_too() {
    if !tool_std::shell::sandbox::status().holds_files() {
        eprintln!("skipped: no kernel sandbox here");
        return;
    }
    let setup = Setup::new();
    let caller = setup.state.path();
    std::fs::create_dir_all(caller.join("rel/sessions/jobs")).unwrap();
    std::fs::write(caller.join("rel/sessions/jobs/secret.txt"), "hidden words").unwrap();
    let cat = serde_json::json!({
        "command": format!("cat {}", caller.join("rel/sessions/jobs/secret.txt").display())
    });
    let read = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args([
            "call",
            "run_shell",
            &cat.to_string(),
            "--mode",
            "bypass",
            "--workspace",
        ])
        .arg(setup.root())
        .current_dir(caller)
        .env("TOOLBOX_STATE_DIR", "rel")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!stdout(&read).contains("hidden words"), "{}", stdout(&read));
    assert_says(&stdout(&read), "Permission denied");
}

#[test]
fn a_second_keeper_is_refused_and_the_first_keeps_its_jobs() {
    let setup = Setup::new();
    setup.call("run_shell", &background("sleep 86.75"), "jobs", &[]);
    let workspace = setup.root().to_str().unwrap();
    let second = setup.toolbox(&["session", "keep", "jobs", "--workspace", workspace]);
    assert_eq!(second.status.code(), Some(3));
    assert_says(&stdout(&second), "has a keeper already");
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), "shell_1: running");
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left("sleep 86.75");
}

#[test]
fn a_socket_that_is_not_one_is_named_and_the_session_still_removed() {
    let setup = Setup::new();
    setup.call("read_file", READ_NOTES, "jobs", &[]);
    std::fs::create_dir(setup.sessions().join("jobs/jobs.sock")).unwrap();
    let refused = setup.call("run_shell", &background("sleep 85.5"), "jobs", &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert_says(&stdout(&refused), "is not the socket of session `jobs`");
    assert!(processes_with("sleep 85.5").is_empty());
    let removed = setup.toolbox(&["session", "remove", "jobs"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
}

#[test]
fn the_sessions_folder_is_made_and_hidden_before_any_session() {
    if !tool_std::shell::sandbox::status().holds_files() {
        eprintln!("skipped: no kernel sandbox here");
        return;
    }
    let setup = Setup::new();
    // A command run before any session could otherwise leave a process behind that sees the
    // sessions made after it.
    let ls = serde_json::json!({ "command": format!("ls {}", setup.sessions().display()) });
    let listed = setup.toolbox(&["call", "run_shell", &ls.to_string(), "--mode", "bypass"]);
    assert!(setup.sessions().is_dir());
    assert_says(&stdout(&listed), "Permission denied");
}

#[test]
fn sessions_kept_inside_the_workspace_are_refused() {
    let setup = Setup::new();
    let inside = Command::new(env!("CARGO_BIN_EXE_toolbox"))
        .args(["call", "read_file", READ_NOTES, "--session", "jobs"])
        .current_dir(setup.root())
        .env("TOOLBOX_STATE_DIR", setup.root().join(".state"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(inside.status.code(), Some(3));
    assert_says(&stderr(&inside), "is inside the workspace");
    assert!(!setup.root().join(".state/sessions/jobs").exists());
}

#[test]
fn a_workspace_inside_the_sessions_folder_is_refused() {
    let setup = Setup::new();
    let workspace = setup.sessions().join("project");
    std::fs::create_dir_all(&workspace).unwrap();
    let refused = setup.toolbox(&[
        "call",
        "run_shell",
        r#"{"command": "ls .."}"#,
        "--workspace",
        workspace.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(3));
    assert_says(&stderr(&refused), "inside toolbox's sessions folder");
}

#[test]
fn a_request_line_past_the_limit_is_dropped_and_the_keeper_serves_on() {
    use std::io::Write as _;
    let setup = Setup::new();
    setup.call("run_shell", &background("sleep 84.25"), "jobs", &[]);
    let socket = setup.sessions().join("jobs/jobs.sock");
    let mut flood = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    // Two MiB without a line break: read no further than one.
    let _ = flood.write_all(&vec![b'x'; 2 << 20]);
    let listed = setup.call("list_shells", "{}", "jobs", &[]);
    assert_says(&stdout(&listed), "sleep 84.25");
    drop(flood);
    setup.toolbox(&["session", "remove", "jobs"]);
    assert_none_left("sleep 84.25");
}

#[test]
fn remove_never_signals_a_keeper_a_forged_keeper_file_names() {
    let (one, other) = (Setup::new(), Setup::new());
    one.call("run_shell", &background("sleep 83.75"), "jobs", &[]);
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(one.sessions().join("jobs/keeper.json")).unwrap())
            .unwrap();
    // The other state folder's session names the first one's keeper, as a stale file would.
    std::fs::create_dir_all(other.sessions().join("jobs")).unwrap();
    let forged = serde_json::json!({ "pid": state["pid"], "started": 1, "secret": "x", "next_job": 1, "next_artifact": 1 });
    std::fs::write(
        other.sessions().join("jobs/keeper.json"),
        forged.to_string(),
    )
    .unwrap();
    let removed = other.toolbox(&["session", "remove", "jobs"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        processes_with("sleep 83.75").len(),
        1,
        "the first keeper's job runs on"
    );
    one.toolbox(&["session", "remove", "jobs"]);
    assert_none_left("sleep 83.75");
}

#[test]
fn a_keeper_whose_file_is_gone_is_named_and_still_removed() {
    let setup = Setup::new();
    setup.call("run_shell", &background("sleep 82.5"), "jobs", &[]);
    std::fs::remove_file(setup.sessions().join("jobs/keeper.json")).unwrap();
    let another = setup.call("run_shell", &background("sleep 82.25"), "jobs", &[]);
    assert_eq!(another.status.code(), Some(1));
    assert_says(&stdout(&another), "is missing or damaged");
    assert!(processes_with("sleep 82.25").is_empty());
    assert_eq!(
        processes_with("sleep 82.5").len(),
        1,
        "the first job was not taken over"
    );
    let removed = setup.toolbox(&["session", "remove", "jobs"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert_none_left("sleep 82.5");
    assert_none_left(&setup.keeper());
}
