//! `glob` and `list_dir` through a coordinator against `rg --files` and `fd` (Debian's
//! `fdfind`) listing the same files, on a corpus directory (default: the crate sources under
//! `$CARGO_HOME/registry/src`; give another as the first argument). Medians of alternating
//! runs. Run with `cargo bench -p tool-std --bench glob_vs_rg_files [-- DIR]`; needs `rg`, and
//! `fd` or `fdfind` for that column.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use tool_core::ToolCall;
// Linked for its tools.
use tool_std as _;

const ROUNDS: usize = 5;

fn time(mut run: impl FnMut() -> usize) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        lines = run();
        times.push(started.elapsed());
    }
    (common::median(times), lines)
}

fn command_lines(program: &str, args: &[&str], dir: &std::path::Path) -> usize {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_or(0, |output| common::newlines(&output.stdout))
}

fn main() {
    let corpus = common::corpus();
    let fd = ["fd", "fdfind"]
        .into_iter()
        .find(|name| common::on_path(name));
    let coordinator = common::coordinator(["glob", "list_dir"], &corpus);
    println!("corpus: {}", corpus.display());
    let glob = ToolCall::new("glob", r#"{"pattern": "**/*.rs", "limit": 100000000}"#);
    let (ours, our_lines) = time(|| common::result_lines(&coordinator, &glob));
    let (rg, rg_lines) = time(|| command_lines("rg", &["--files", "-g", "*.rs"], &corpus));
    print!(
        "glob **/*.rs: {ours:.1?} ({our_lines} paths); rg --files: {rg:.1?} ({rg_lines}); {:.2}x",
        ours.as_secs_f64() / rg.as_secs_f64()
    );
    if let Some(fd) = fd {
        let (theirs, lines) = time(|| command_lines(fd, &["-e", "rs", "-t", "f"], &corpus));
        print!(
            "; {fd}: {theirs:.1?} ({lines}); {:.2}x",
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    println!();
    let list = ToolCall::new("list_dir", r#"{"depth": 2, "limit": 100000000}"#);
    let (ours, our_lines) = time(|| common::result_lines(&coordinator, &list));
    if let Some(fd) = fd {
        let (theirs, lines) = time(|| command_lines(fd, &["--max-depth", "2"], &corpus));
        println!(
            "list_dir depth 2: {ours:.1?} ({our_lines} lines); {fd} --max-depth 2: {theirs:.1?} ({lines}); {:.2}x",
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    } else {
        println!("list_dir depth 2: {ours:.1?} ({our_lines} lines)");
    }
    prefixed_patterns(&coordinator, &corpus);
}

/// A pattern naming a folder two levels down (where a walk of the whole corpus would be
/// wasted) against the same pattern with `path` set to that folder and `rg --files` in it, and
/// a pattern that does not descend (`*.rs` in that folder) against `rg --max-depth 1`.
fn prefixed_patterns(coordinator: &tool_core::Coordinator, corpus: &std::path::Path) {
    // tokio's `src` (the newest tokio 1.x in the registry), one or two levels down.
    let tokio_src = |dir: &std::path::Path| -> Option<String> {
        let mut crates: Vec<String> = std::fs::read_dir(dir)
            .ok()?
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("tokio-1."))
            .collect();
        crates.sort();
        crates.pop().map(|name| format!("{name}/src"))
    };
    let folder = tokio_src(corpus).or_else(|| {
        std::fs::read_dir(corpus).ok()?.flatten().find_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            tokio_src(&entry.path()).map(|inner| format!("{name}/{inner}"))
        })
    });
    let Some(folder) = folder else {
        println!("(no tokio 1.x in the corpus: the prefixed patterns are not measured)");
        return;
    };
    let call = |arguments: serde_json::Value| ToolCall::new("glob", arguments.to_string());
    let prefixed =
        call(serde_json::json!({"pattern": format!("{folder}/**/*.rs"), "limit": 100000000}));
    let with_path =
        call(serde_json::json!({"pattern": "**/*.rs", "path": folder, "limit": 100000000}));
    let (ours, our_lines) = time(|| common::result_lines(coordinator, &prefixed));
    let (path, path_lines) = time(|| common::result_lines(coordinator, &with_path));
    let (rg, rg_lines) =
        time(|| command_lines("rg", &["--files", "-g", "*.rs"], &corpus.join(&folder)));
    println!(
        "glob {folder}/**/*.rs: {ours:.1?} ({our_lines} paths); with path set: {path:.1?} ({path_lines}), {:.2}x; rg --files there: {rg:.1?} ({rg_lines}), {:.2}x",
        ours.as_secs_f64() / path.as_secs_f64(),
        ours.as_secs_f64() / rg.as_secs_f64()
    );
    let top = call(serde_json::json!({"pattern": format!("{folder}/*.rs"), "limit": 100000000}));
    let (ours, our_lines) = time(|| common::result_lines(coordinator, &top));
    let (rg, rg_lines) = time(|| {
        command_lines(
            "rg",
            &["--files", "--max-depth", "1", "-g", "*.rs"],
            &corpus.join(&folder),
        )
    });
    println!(
        "glob {folder}/*.rs: {ours:.1?} ({our_lines} paths); rg --files --max-depth 1: {rg:.1?} ({rg_lines}), {:.2}x",
        ours.as_secs_f64() / rg.as_secs_f64()
    );
}
