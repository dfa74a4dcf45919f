//! `edit_file` changing one line of a 10 MB file, against `sed -i` doing the same, in the same
//! run (target: at most 2x). Both read the whole file and write it back through a temporary
//! file renamed over it; `edit_file` also decodes it as found, checks that it encodes back
//! exactly, and syncs the file and its directory.
//!
//! Run with `cargo bench -p tool-std --bench edit_vs_sed` (needs `sed` on the `PATH`).

mod common;

use std::process::Command;
use std::time::Instant;

use tool_core::ToolCall;

const ROUNDS: usize = 15;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("big.txt");
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 10_000_000 {
        line += 1;
        text.push_str(&format!(
            "line {line:>8}: the quick brown fox jumps over the lazy dog\n"
        ));
    }
    let middle = line / 2;
    let coordinator = common::editing_coordinator("edit_file", dir.path());
    let mut ours = Vec::new();
    let mut sed = Vec::new();
    for round in 0..ROUNDS {
        // The same file before each pair of edits; the two edits change the same line.
        std::fs::write(&path, &text).unwrap();
        let (from, to) = (
            format!("line {middle:>8}: the quick"),
            format!("line {middle:>8}: a quick {round}"),
        );
        let arguments =
            serde_json::json!({"path": "big.txt", "old_string": from, "new_string": to})
                .to_string();
        let started = Instant::now();
        let result = coordinator.call_blocking(ToolCall::new("edit_file", arguments));
        ours.push(started.elapsed());
        assert!(!result.is_error(), "{}", result.text());

        std::fs::write(&path, &text).unwrap();
        let started = Instant::now();
        let status = Command::new("sed")
            .arg("-i")
            .arg(format!("s/{from}/{to}/"))
            .arg(&path)
            .status()
            .expect("sed runs");
        sed.push(started.elapsed());
        assert!(status.success());
    }
    let (ours, sed) = (common::median(ours), common::median(sed));
    let ratio = ours.as_secs_f64() / sed.as_secs_f64();
    println!(
        "edit_file, one line of a 10 MB file: {ours:.2?}; sed -i: {sed:.2?}; ratio {ratio:.2}x (target <= 2x: {})",
        if ratio <= 2.0 { "met" } else { "missed" }
    );
}
