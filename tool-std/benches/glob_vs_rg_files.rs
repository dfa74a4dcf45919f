//! `glob` and `list_dir` through a coordinator against `rg --files` and `fd` (Debian's
//! `fdfind`) listing the same files, on a corpus directory (default: the crate sources under
//! `$CARGO_HOME/registry/src`; give another as the first argument). Medians of alternating
//! runs. Run with `cargo bench -p tool-std --bench glob_vs_rg_files [-- DIR]`; needs `rg`, and
//! `fd` or `fdfind` for that column.

use std::process::Command;
use std::time::{Duration, Instant};

use tool_core::{Coordinator, ToolCall, Toolset, Workspace};
// Linked for its tools.
use tool_std as _;

const ROUNDS: usize = 5;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time(mut run: impl FnMut() -> usize) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        lines = run();
        times.push(started.elapsed());
    }
    (median(times), lines)
}

fn command_lines(program: &str, args: &[&str], dir: &std::path::Path) -> usize {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_or(0, |output| {
            output.stdout.iter().filter(|&&b| b == b'\n').count()
        })
}

fn main() {
    let corpus = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with('-'))
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let home = std::env::var_os("CARGO_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .map(|home| std::path::PathBuf::from(home).join(".cargo"))
                })?;
            std::fs::read_dir(home.join("registry/src"))
                .ok()?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .next()
        })
        .expect("a corpus directory");
    let fd = ["fd", "fdfind"]
        .into_iter()
        .find(|name| Command::new(name).arg("--version").output().is_ok());
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["glob", "list_dir"]).unwrap())
        .workspace(Workspace::new(&corpus).unwrap())
        .build()
        .unwrap();
    println!("corpus: {}", corpus.display());
    let glob = ToolCall::new("glob", r#"{"pattern": "**/*.rs", "limit": 100000000}"#);
    let (ours, our_lines) = time(|| {
        coordinator
            .call_blocking(glob.clone())
            .text()
            .lines()
            .count()
    });
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
    let (ours, our_lines) = time(|| {
        coordinator
            .call_blocking(list.clone())
            .text()
            .lines()
            .count()
    });
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
