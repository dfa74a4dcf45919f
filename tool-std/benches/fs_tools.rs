//! `read_file` and `list_dir` in process, through a coordinator: what each tool costs on top
//! of the cheapest call (`think`). `read_file` on the file the MCP servers bench reads (a
//! 10 kB source file) and on the first page (2,000 lines) of a 1 MB log, against the same job
//! done the plainest way in the same run: `std::fs::read_to_string` and a `{number:>6}\t{line}`
//! per line, what any server has to do at least. `list_dir` one level deep on a copy of this
//! crate's `src` (the directory the MCP servers bench lists), against `std::fs::read_dir` with
//! each entry's name and kind, sorted.
//!
//! Run with `cargo bench -p tool-std --bench fs_tools`. Prints the median of 2,000 calls of
//! each (200 for the log).

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use tool_core::{Coordinator, ToolCall};
use tool_std::fs::FileSession;

fn time(calls: usize, mut call: impl FnMut()) -> Duration {
    for _ in 0..calls / 10 {
        call();
    }
    let times = (0..calls)
        .map(|_| {
            let started = Instant::now();
            call();
            started.elapsed()
        })
        .collect();
    common::median(times)
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// The plainest reading: the whole file as a string, its first 2,000 lines numbered.
fn plain(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("the file reads");
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (index, line) in text.lines().take(2_000).enumerate() {
        let _ = writeln!(out, "{:>6}\t{line}", index + 1);
    }
    out
}

/// The plainest listing: names and kinds, sorted, one line each.
fn plain_list(dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the directory reads")
        .filter_map(Result::ok)
        .map(|entry| {
            let mut name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                name.push('/');
            }
            name
        })
        .collect();
    names.sort();
    names.join("\n")
}

/// `from` copied to `to`, files and directories.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read a directory") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("its kind").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy a file");
        }
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&crate_dir.join("src"), &dir.path().join("src"));
    let source = crate_dir.join("src/shell/run_shell.rs");
    std::fs::copy(&source, dir.path().join("source.rs")).expect("copy the source file");
    let mut log = String::new();
    let mut line = 0;
    while log.len() < 1_000_000 {
        line += 1;
        let _ = writeln!(log, "{line:>8} INFO request served in {} µs", line % 977);
    }
    std::fs::write(dir.path().join("big.log"), &log).expect("write the log");

    let coordinator: Coordinator = common::builder(["read_file", "list_dir", "think"], dir.path())
        .state(FileSession::default())
        .build()
        .expect("a coordinator");
    let call = |tool: &str, arguments: &str| {
        let result = coordinator.call_blocking(ToolCall::new(tool, arguments));
        assert!(!result.is_error(), "{}", result.text());
    };

    let floor = time(2_000, || call("think", r#"{"thought":"x"}"#));
    let source_read = time(2_000, || call("read_file", r#"{"path":"source.rs"}"#));
    let source_plain = time(2_000, || {
        plain(&dir.path().join("source.rs"));
    });
    let log_read = time(200, || call("read_file", r#"{"path":"big.log"}"#));
    let log_plain = time(200, || {
        plain(&dir.path().join("big.log"));
    });
    let list = time(2_000, || call("list_dir", r#"{"path":"src","depth":1}"#));
    let list_plain = time(2_000, || {
        plain_list(&dir.path().join("src"));
    });
    let size = std::fs::metadata(&source).map_or(0, |metadata| metadata.len());
    println!("median µs per call (less think = the tool's own cost)");
    println!(
        "{:<40} {:>9.1}",
        "think (the coordinator's floor)",
        micros(floor)
    );
    for (what, read, plain) in [
        (format!("{size} B source file"), source_read, source_plain),
        (
            "first 2,000 lines of a 1 MB log".to_owned(),
            log_read,
            log_plain,
        ),
    ] {
        println!(
            "{:<40} {:>9.1}   less think {:>9.1}   plain {:>9.1}",
            format!("read_file, {what}"),
            micros(read),
            micros(read.saturating_sub(floor)),
            micros(plain)
        );
    }
    println!(
        "{:<40} {:>9.1}   less think {:>9.1}   plain {:>9.1}",
        "list_dir, a copy of tool-std/src, depth 1",
        micros(list),
        micros(list.saturating_sub(floor)),
        micros(list_plain)
    );
    tiny_workspace();
}

/// grep and glob where there is almost nothing to walk (issue 29: a fixed cost of about 2 ms a
/// call, from threads started and a walker sleeping before it saw the end), against list_dir
/// of the same two files. Target: each at most list_dir + 0.2 ms.
fn tiny_workspace() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    std::fs::write(dir.path().join("b.txt"), "world\n").expect("write");
    let coordinator = common::builder(["grep", "glob", "list_dir"], dir.path())
        .build()
        .expect("a coordinator");
    let call = |tool: &str, arguments: &str| {
        let result = coordinator.call_blocking(ToolCall::new(tool, arguments));
        assert!(!result.is_error(), "{}", result.text());
    };
    let list = time(2_000, || call("list_dir", r#"{"path":"."}"#));
    let glob = time(2_000, || call("glob", r#"{"pattern":"*.txt"}"#));
    let grep = time(2_000, || call("grep", r#"{"pattern":"hello"}"#));
    println!("a workspace of two files, median µs per call:");
    for (what, took) in [
        ("list_dir", list),
        ("glob *.txt", glob),
        ("grep hello", grep),
    ] {
        println!(
            "{what:<40} {:>9.1}   over list_dir {:>+9.1}",
            micros(took),
            micros(took) - micros(list)
        );
    }
}
