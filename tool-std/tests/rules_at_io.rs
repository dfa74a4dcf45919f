//! Rules enforced where the effect happens (issue 24, classes 1 to 3), written as an attacker
//! would: every call made the way a model makes it, and the answer, the file system or the
//! clock checked afterwards.
//!
//! 1. A `Read(..)` deny rule holds for every tool that reaches the file, not only for the path
//!    a call names: `grep` with no path, `grep` of the folder, `grep` with a `glob`, `glob`,
//!    `list_dir`, `repo_map`, and the tools that read to change (`edit_file`, `apply_patch`
//!    moving a file out). With the rule from code and from settings, in the default mode and
//!    in bypass mode.
//! 2. A walk cannot be swapped: a thread that swaps a folder for a link to the outside while
//!    `grep`, `glob` or `repo_map` walk never gets an outside line, name or symbol out.
//! 3. A FIFO in the workspace is refused at once by every file tool, naming what it is.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tool_core::policy::{Mode, PolicyBuilder};
use tool_core::settings::Settings;
use tool_core::{Coordinator, ToolCall, ToolResult, Toolset, Workspace};
use tool_std::fs::FileSession;

const SECRET: &str = "hunter2-SECRET";

const EVERY_TOOL: &[&str] = &[
    "grep",
    "glob",
    "list_dir",
    "repo_map",
    "read_file",
    "write_file",
    "edit_file",
    "multi_edit",
    "apply_patch",
];

/// A workspace with `secrets/key.txt` and `secrets/key.rs` (holding [`SECRET`]) beside
/// ordinary files.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("secrets/key.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(
        root.join("secrets/key.rs"),
        format!("pub fn secret_symbol() -> &'static str {{ \"{SECRET}\" }}\n"),
    )
    .unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn visible() {}\n").unwrap();
    std::fs::write(root.join("notes.txt"), "nothing secret here\n").unwrap();
    dir
}

/// How the deny rule reaches the coordinator.
#[derive(Debug, Clone, Copy)]
enum From {
    Code,
    Settings,
}

fn coordinator(root: &Path, rule: &str, from: From, mode: Mode) -> Coordinator {
    let builder = Coordinator::builder()
        .toolset(Toolset::named(EVERY_TOOL.iter().copied()).unwrap())
        .workspace(Workspace::new(root).unwrap())
        .state(FileSession::default())
        .mode(mode);
    let builder = match from {
        From::Code => builder.policy(PolicyBuilder::default().deny(rule)),
        From::Settings => builder.settings(
            Settings::from_json(&json!({"permissions": {"deny": [rule]}}).to_string()).unwrap(),
        ),
    };
    builder.build().unwrap()
}

fn call(coordinator: &Coordinator, tool: &str, arguments: serde_json::Value) -> ToolResult {
    coordinator.call_blocking(ToolCall::new(tool, arguments.to_string()))
}

/// Every way and every mode the rule can be given in.
fn every_setup() -> Vec<(From, Mode)> {
    let mut setups = Vec::new();
    for from in [From::Code, From::Settings] {
        for mode in [Mode::Default, Mode::Bypass, Mode::AcceptEdits] {
            setups.push((from, mode));
        }
    }
    setups
}

#[test]
fn a_read_deny_rule_keeps_the_file_from_every_walking_tool() {
    for (from, mode) in every_setup() {
        let dir = workspace();
        let coordinator = coordinator(dir.path(), "Read(./secrets/**)", from, mode);
        let attempts = [
            (
                "grep",
                json!({"pattern": "hunter2", "output_mode": "content"}),
            ),
            ("grep", json!({"pattern": "hunter2", "glob": "*.txt"})),
            (
                "grep",
                json!({"pattern": "hunter2", "include_hidden": true, "no_ignore": true}),
            ),
            ("grep", json!({"pattern": "secret_symbol", "type": "rust"})),
            ("glob", json!({"pattern": "**/*"})),
            ("glob", json!({"pattern": "**/key.*"})),
            ("list_dir", json!({"depth": 3})),
            ("repo_map", json!({})),
        ];
        for (tool, arguments) in attempts {
            let result = call(&coordinator, tool, arguments.clone());
            let text = result.text();
            assert!(
                !text.contains(SECRET) && !text.contains("fn secret_symbol"),
                "{from:?} {mode:?}: {tool} {arguments} leaked: {text}"
            );
            assert!(
                !text.contains("key.txt") && !text.contains("key.rs"),
                "{from:?} {mode:?}: {tool} {arguments} named a denied file: {text}"
            );
        }
    }
}

#[test]
fn a_walk_says_how_many_files_a_rule_held_back() {
    let dir = workspace();
    let coordinator = coordinator(dir.path(), "Read(./secrets/**)", From::Code, Mode::Default);
    let text = call(&coordinator, "grep", json!({"pattern": "hunter2"}))
        .text()
        .into_owned();
    assert!(text.starts_with("no match for `hunter2`"), "{text}");
    assert!(
        text.contains("(2 entries held back by the rule `Read(./secrets/**)`"),
        "{text}"
    );
    let text = call(&coordinator, "glob", json!({"pattern": "**/*.txt"}))
        .text()
        .into_owned();
    assert!(text.starts_with("notes.txt"), "{text}");
    assert!(text.contains("held back by the rule"), "{text}");
}

#[test]
fn a_glob_with_a_literal_folder_walks_that_folder_alone() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
    std::fs::write(dir.path().join("src/deep/inner.rs"), "").unwrap();
    std::fs::write(dir.path().join("top.rs"), "").unwrap();
    let coordinator = coordinator(dir.path(), "Read(./secrets/**)", From::Code, Mode::Default);
    // Walked from `src`: the denied folder beside it is never reached, so nothing is held back.
    let text = call(&coordinator, "glob", json!({"pattern": "src/*.rs"}))
        .text()
        .into_owned();
    assert_eq!(text, "src/lib.rs");
    let text = call(&coordinator, "glob", json!({"pattern": "src/**/*.rs"}))
        .text()
        .into_owned();
    let mut found: Vec<&str> = text.lines().collect();
    found.sort_unstable();
    assert_eq!(found, ["src/deep/inner.rs", "src/lib.rs"]);
    // No `**` and no folder: the top level alone, the denied folder below it not walked.
    let text = call(&coordinator, "glob", json!({"pattern": "*.rs"}))
        .text()
        .into_owned();
    assert_eq!(text, "top.rs");
    // Into the denied folder: nothing found, and why.
    let text = call(&coordinator, "glob", json!({"pattern": "secrets/*.txt"}))
        .text()
        .into_owned();
    assert!(!text.contains("key.txt"), "{text}");
    assert!(text.contains("held back by the rule"), "{text}");
    // A folder that is not there: nothing matches.
    let text = call(&coordinator, "glob", json!({"pattern": "nowhere/**/*.rs"}))
        .text()
        .into_owned();
    assert!(text.starts_with("no file matches"), "{text}");
}

#[test]
fn a_walk_of_a_large_tree_counts_what_it_held_back_once() {
    // Over 2,000 entries: read on the calling thread first (the denied folder among the first,
    // the walk going by name), then walked again on every core.
    let dir = workspace();
    let many = dir.path().join("zz_many");
    std::fs::create_dir_all(&many).unwrap();
    for n in 0..2_100 {
        std::fs::write(many.join(format!("f{n}.txt")), "plain\n").unwrap();
    }
    let coordinator = coordinator(dir.path(), "Read(./secrets/**)", From::Code, Mode::Default);
    let text = call(
        &coordinator,
        "glob",
        json!({"pattern": "**/*.txt", "limit": 1}),
    )
    .text()
    .into_owned();
    assert!(
        text.contains("of 2101") && text.contains("(2 entries held back by the rule"),
        "{text}"
    );
    let text = call(&coordinator, "grep", json!({"pattern": "hunter2"}))
        .text()
        .into_owned();
    assert!(text.contains("(2 entries held back by the rule"), "{text}");
}

#[test]
fn a_search_of_a_folder_a_rule_covers_whole_is_refused_naming_the_rule() {
    for (from, mode) in every_setup() {
        let dir = workspace();
        let coordinator = coordinator(dir.path(), "Read(./secrets/**)", from, mode);
        for (tool, arguments) in [
            ("grep", json!({"pattern": "hunter2", "path": "secrets"})),
            ("grep", json!({"pattern": "hunter2", "path": "./secrets/"})),
            ("glob", json!({"pattern": "*", "path": "secrets"})),
            ("list_dir", json!({"path": "secrets"})),
            ("repo_map", json!({"path": "secrets"})),
        ] {
            let result = call(&coordinator, tool, arguments.clone());
            assert!(
                result.is_error(),
                "{from:?} {mode:?}: {tool} {arguments}: {}",
                result.text()
            );
            let text = result.text();
            assert!(!text.contains("hunter2"), "{text}");
            assert!(
                text.contains("Read(./secrets/**)"),
                "{tool} {arguments}: {text}"
            );
        }
    }
}

#[test]
fn a_tool_that_reads_to_change_a_denied_file_is_refused_and_changes_nothing() {
    for (from, mode) in every_setup() {
        let dir = workspace();
        let root = dir.path();
        let coordinator = coordinator(root, "Read(./secrets/**)", from, mode);
        let attempts = [
            (
                "edit_file",
                json!({"path": "secrets/key.txt", "old_string": "hunter2", "new_string": "x"}),
            ),
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Update File: secrets/key.txt\n*** Move to: moved.txt\n@@\n-hunter2-SECRET\n+hunter2-SECRET\n*** End Patch"}),
            ),
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Delete File: secrets/key.txt\n*** End Patch"}),
            ),
        ];
        for (tool, arguments) in attempts {
            let result = call(&coordinator, tool, arguments.clone());
            let text = result.text();
            assert!(
                result.is_error(),
                "{from:?} {mode:?}: {tool} {arguments} ran: {text}"
            );
            assert!(!text.contains("hunter2-SECRET\n"), "{text}");
        }
        assert_eq!(
            std::fs::read_to_string(root.join("secrets/key.txt")).unwrap(),
            format!("{SECRET}\n"),
            "{from:?} {mode:?}"
        );
        assert!(!root.join("moved.txt").exists(), "{from:?} {mode:?}");
    }
}

#[test]
fn a_link_inside_the_workspace_does_not_lead_a_read_into_a_denied_folder() {
    let dir = workspace();
    let root = dir.path();
    std::os::unix::fs::symlink("secrets/key.txt", root.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink("secrets", root.join("innocent")).unwrap();
    for mode in [Mode::Default, Mode::Bypass] {
        let coordinator = coordinator(root, "Read(./secrets/**)", From::Code, mode);
        for (tool, arguments) in [
            ("read_file", json!({"path": "innocent.txt"})),
            ("read_file", json!({"path": "innocent/key.txt"})),
            (
                "grep",
                json!({"pattern": "hunter2", "path": "innocent.txt"}),
            ),
            ("grep", json!({"pattern": "hunter2", "path": "innocent"})),
        ] {
            let text = call(&coordinator, tool, arguments.clone())
                .text()
                .into_owned();
            assert!(
                !text.contains("hunter2-SECRET"),
                "{mode:?}: {tool} {arguments}: {text}"
            );
        }
    }
}

#[test]
fn an_edit_deny_rule_holds_for_every_write_whatever_the_mode() {
    for (from, mode) in every_setup() {
        let dir = workspace();
        let root = dir.path();
        let coordinator = coordinator(root, "Edit(./src/**)", from, mode);
        let attempts = [
            (
                "write_file",
                json!({"path": "src/lib.rs", "content": "pwned"}),
            ),
            (
                "write_file",
                json!({"path": "src/new.rs", "content": "pwned"}),
            ),
            (
                "apply_patch",
                json!({"patch": "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: src/moved.txt\n@@\n-nothing secret here\n+pwned\n*** End Patch"}),
            ),
        ];
        for (tool, arguments) in attempts {
            let result = call(&coordinator, tool, arguments.clone());
            assert!(
                result.is_error(),
                "{from:?} {mode:?}: {tool} {arguments}: {}",
                result.text()
            );
        }
        assert_eq!(
            std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
            "pub fn visible() {}\n"
        );
        assert!(!root.join("src/new.rs").exists());
        assert!(!root.join("src/moved.txt").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("notes.txt")).unwrap(),
            "nothing secret here\n"
        );
    }
}

/// Swaps `dir` for a link to `outside` and back, as fast as it can, until told to stop.
fn swapper(
    root: &Path,
    name: &str,
    outside: &Path,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    let (dir, parked) = (root.join(name), root.join(format!("{name}.parked")));
    let outside = outside.to_owned();
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            if std::fs::rename(&dir, &parked).is_ok() {
                let _ = std::os::unix::fs::symlink(&outside, &dir);
                std::thread::yield_now();
                let _ = std::fs::remove_file(&dir);
                let _ = std::fs::rename(&parked, &dir);
                swaps += 1;
            }
        }
        swaps
    })
}

#[test]
fn a_folder_swapped_for_a_link_mid_walk_never_leaks_the_outside() {
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("ws"), dir.path().join("outside"));
    std::fs::create_dir_all(root.join("deep/a/b")).unwrap();
    std::fs::create_dir_all(outside.join("a/b")).unwrap();
    for n in 0..40 {
        std::fs::write(
            root.join(format!("deep/a/b/f{n}.rs")),
            format!("fn inside_{n}() {{}}\n"),
        )
        .unwrap();
        std::fs::write(
            outside.join(format!("a/b/f{n}.rs")),
            format!("fn outside_symbol_{n}() {{}} // OUTSIDE-LINE\n"),
        )
        .unwrap();
        std::fs::write(outside.join(format!("a/b/outside_name_{n}.rs")), "x").unwrap();
    }
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["grep", "glob", "repo_map"]).unwrap())
        .workspace(Workspace::new(&root).unwrap())
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(&root, "deep", &outside, Arc::clone(&stop));
    let mut calls = 0;
    for round in 0..400 {
        for (tool, arguments) in [
            (
                "grep",
                json!({"pattern": "fn ", "output_mode": "content", "head_limit": 1000}),
            ),
            ("glob", json!({"pattern": "**/*.rs", "limit": 1000})),
            ("repo_map", json!({"max_tokens": 100000})),
        ] {
            let text = call(&coordinator, tool, arguments).text().into_owned();
            calls += 1;
            assert!(
                !text.contains("OUTSIDE") && !text.contains("outside_"),
                "round {round}: {tool} leaked the outside: {text}"
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    assert!(swaps > 0 && calls == 1200, "{swaps} swaps");
}

#[test]
fn a_glob_started_in_its_prefix_folder_never_leaks_the_outside_when_that_folder_is_swapped() {
    // glob walks from the folder a pattern names (`deep/a/b/*.rs` from `deep/a/b`): swapped for
    // a link to the outside between the check of that folder and the walk, the walk lists the
    // outside; every name it brings must still be refused.
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("ws"), dir.path().join("outside"));
    std::fs::create_dir_all(root.join("deep/a/b")).unwrap();
    std::fs::create_dir_all(outside.join("a/b")).unwrap();
    for n in 0..40 {
        std::fs::write(root.join(format!("deep/a/b/f{n}.rs")), "").unwrap();
        std::fs::write(outside.join(format!("a/b/outside_name_{n}.rs")), "x").unwrap();
    }
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["glob"]).unwrap())
        .workspace(Workspace::new(&root).unwrap())
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(&root, "deep", &outside, Arc::clone(&stop));
    for round in 0..600 {
        for pattern in ["deep/a/b/*.rs", "deep/a/**/*.rs", "deep/*/b/*.rs"] {
            let text = call(
                &coordinator,
                "glob",
                json!({"pattern": pattern, "limit": 1000}),
            )
            .text()
            .into_owned();
            assert!(
                !text.contains("outside_"),
                "round {round}: glob {pattern} leaked the outside: {text}"
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swaps.join().unwrap() > 0);
}

#[test]
fn a_glob_prefix_that_is_a_link_finds_nothing_through_it() {
    // A link inside the workspace to a folder outside, and one to a folder inside: the walk
    // follows neither, from the root or from the prefix.
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("ws"), dir.path().join("outside"));
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("src/inside.rs"), "").unwrap();
    std::fs::write(outside.join("outside_name.rs"), "").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(root.join("src"), root.join("alias")).unwrap();
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["glob"]).unwrap())
        .workspace(Workspace::new(&root).unwrap())
        .build()
        .unwrap();
    for pattern in [
        "out/*.rs",
        "out/**/*.rs",
        "./out/*.rs",
        "out//*.rs",
        "alias/*.rs",
    ] {
        let text = call(&coordinator, "glob", json!({"pattern": pattern}))
            .text()
            .into_owned();
        assert!(text.starts_with("no file matches"), "{pattern}: {text}");
    }
    // The folder itself, named as it is, is found.
    let text = call(&coordinator, "glob", json!({"pattern": "src/*.rs"}))
        .text()
        .into_owned();
    assert_eq!(text, "src/inside.rs");
}

/// Runs `call` on a thread and waits at most ten seconds for its answer: a tool that blocks
/// fails the test instead of hanging it.
fn within_seconds(call: impl FnOnce() -> ToolResult + Send + 'static) -> ToolResult {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(call());
    });
    receiver
        .recv_timeout(Duration::from_secs(10))
        .expect("the tool blocked on the FIFO")
}

#[test]
fn a_fifo_is_refused_at_once_by_every_file_tool_naming_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_owned();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let coordinator = Arc::new(
        Coordinator::builder()
            .toolset(Toolset::named(EVERY_TOOL.iter().copied()).unwrap())
            .workspace(Workspace::new(&root).unwrap())
            .state(FileSession::default())
            .mode(Mode::Bypass)
            .build()
            .unwrap(),
    );
    let attempts = [
        ("read_file", json!({"path": "pipe"})),
        (
            "edit_file",
            json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
        ),
        (
            "multi_edit",
            json!({"path": "pipe", "edits": [{"old_string": "a", "new_string": "b"}]}),
        ),
        ("write_file", json!({"path": "pipe", "content": "x"})),
        (
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch"}),
        ),
        ("grep", json!({"pattern": "a", "path": "pipe"})),
    ];
    for (tool, arguments) in attempts {
        let coordinator = Arc::clone(&coordinator);
        let result = within_seconds(move || call(&coordinator, tool, arguments));
        let text = result.text();
        assert!(result.is_error(), "{tool}: {text}");
        assert!(text.contains("FIFO"), "{tool}: {text}");
    }
    // A walk passes it by without blocking.
    let coordinator = Arc::clone(&coordinator);
    let result = within_seconds(move || call(&coordinator, "grep", json!({"pattern": "a"})));
    assert!(!result.is_error(), "{}", result.text());
    use std::os::unix::fs::FileTypeExt as _;
    assert!(
        std::fs::symlink_metadata(root.join("pipe"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn did_you_mean_never_names_a_file_a_rule_keeps_from_reading() {
    let dir = workspace();
    let coordinator = coordinator(dir.path(), "Read(./secrets/**)", From::Code, Mode::Default);
    let text = call(&coordinator, "read_file", json!({"path": "secret/key.txt"}))
        .text()
        .into_owned();
    assert!(text.contains("does not exist"), "{text}");
    assert!(!text.contains("secrets/key"), "{text}");
    // Without the rule, the same slip is answered with the file.
    let open = coordinator_without_rules(dir.path());
    let text = call(&open, "read_file", json!({"path": "secret/key.txt"}))
        .text()
        .into_owned();
    assert!(
        text.contains(SECRET) || text.contains("secrets/key.txt"),
        "{text}"
    );
}

fn coordinator_without_rules(root: &Path) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named(["read_file"]).unwrap())
        .workspace(Workspace::new(root).unwrap())
        .build()
        .unwrap()
}

#[test]
fn code_calling_the_walking_tools_meets_the_same_rules() {
    for (from, mode) in every_setup() {
        let dir = workspace();
        let builder = Coordinator::builder()
            .toolset(Toolset::named(["execute", "grep", "glob", "repo_map", "list_dir"]).unwrap())
            .workspace(Workspace::new(dir.path()).unwrap())
            .mode(mode);
        let rule = "Read(./secrets/**)";
        let coordinator = match from {
            From::Code => builder.policy(PolicyBuilder::default().deny(rule)),
            From::Settings => builder.settings(
                Settings::from_json(&json!({"permissions": {"deny": [rule]}}).to_string()).unwrap(),
            ),
        }
        .build()
        .unwrap();
        let code = "[grep(pattern='hunter2', output_mode='content'), glob(pattern='**/*'), repo_map(), list_dir(depth=3)]";
        let text = call(&coordinator, "execute", json!({ "code": code }))
            .text()
            .into_owned();
        assert!(
            !text.contains(SECRET) && !text.contains("key.txt"),
            "{from:?} {mode:?}: {text}"
        );
        assert!(text.contains("held back"), "{from:?} {mode:?}: {text}");
    }
}

/// issue 24: `write_file` and `apply_patch` could make a git directory under another name
/// (`gd/HEAD` and `gd/config` naming a `core.fsmonitor`), which `git --git-dir=gd status`
/// then obeyed. The second of the two files is refused, whichever comes first and however.
#[test]
fn no_tool_makes_a_git_directory_under_another_name() {
    let config = "[core]\n\tfsmonitor = touch pwned\n";
    let attempts = [
        vec![
            (
                "write_file",
                json!({"path": "gd/HEAD", "content": "ref: refs/heads/main\n"}),
            ),
            (
                "write_file",
                json!({"path": "gd/config", "content": config}),
            ),
        ],
        vec![
            (
                "write_file",
                json!({"path": "gd/config", "content": config}),
            ),
            (
                "write_file",
                json!({"path": "gd/HEAD", "content": "ref: refs/heads/main\n"}),
            ),
        ],
        vec![(
            "apply_patch",
            json!({"patch": format!(
                "*** Begin Patch\n*** Add File: gd/HEAD\n+ref: refs/heads/main\n*** Add File: gd/config\n+{}\n*** End Patch",
                config.trim_end().replace('\n', "\n+")
            )}),
        )],
    ];
    for calls in attempts {
        let dir = workspace();
        let coordinator = coordinator(
            dir.path(),
            "Edit(./secrets/**)",
            From::Code,
            Mode::AcceptEdits,
        );
        for (tool, arguments) in &calls {
            call(&coordinator, tool, arguments.clone());
        }
        let gd = dir.path().join("gd");
        assert!(
            !(gd.join("HEAD").exists() && gd.join("config").exists()),
            "{calls:?} made a git directory"
        );
    }
}
