//! `grep` through a coordinator against `rg` with the same options, on a corpus directory
//! (default: the crate sources under `$CARGO_HOME/registry/src`, present after a build; give
//! another as the first argument). Medians of alternating runs; the ratio is ours over rg's
//! (target: at most 1.0x). Run with `cargo bench -p tool-std --bench grep_vs_rg [-- DIR]`;
//! needs `rg` on the `PATH`.

mod common;

use std::process::Command;
use std::time::Instant;

use tool_core::ToolCall;
// Linked for its tools.
use tool_std as _;

const ROUNDS: usize = 5;

fn main() {
    let corpus = common::corpus();
    if !common::on_path("rg") {
        eprintln!("rg is not on the PATH (install ripgrep to compare against it)");
        return;
    }
    let coordinator = common::coordinator(["grep"], &corpus);
    println!("corpus: {}", corpus.display());
    for (name, pattern, flags, rg_flags) in [
        (
            "literal, files",
            "fn main",
            serde_json::json!({}),
            vec!["-l"],
        ),
        (
            "regex, files",
            r"fn \w+_test\(",
            serde_json::json!({}),
            vec!["-l"],
        ),
        (
            "case-insensitive, files",
            "tokio",
            serde_json::json!({"-i": true}),
            vec!["-l", "-i"],
        ),
        (
            "literal, content",
            "unsafe impl",
            serde_json::json!({"output_mode": "content"}),
            vec!["-n", "--no-heading"],
        ),
    ] {
        let mut arguments = serde_json::json!({"pattern": pattern, "head_limit": 100_000_000});
        for (key, value) in flags.as_object().unwrap() {
            arguments[key] = value.clone();
        }
        let call = ToolCall::new("grep", arguments.to_string());
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut our_lines, mut their_lines) = (0, 0);
        for _ in 0..ROUNDS {
            let started = Instant::now();
            let result = coordinator.call_blocking(call.clone());
            ours.push(started.elapsed());
            our_lines = result.text().lines().count();
            let started = Instant::now();
            let output = Command::new("rg")
                .args(&rg_flags)
                .arg(pattern)
                .current_dir(&corpus)
                .output()
                .unwrap();
            theirs.push(started.elapsed());
            their_lines = common::newlines(&output.stdout);
        }
        let (ours, theirs) = (common::median(ours), common::median(theirs));
        println!(
            "grep {name}: {ours:.1?} ({our_lines} lines); rg: {theirs:.1?} ({their_lines} lines); {:.2}x",
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
}
