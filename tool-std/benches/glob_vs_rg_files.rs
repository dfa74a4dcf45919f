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
}
