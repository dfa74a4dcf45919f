//! `apply_patch` of a 100-file patch (one hunk in each of 100 files of 200 lines), through a
//! coordinator, against writing the same 100 results with `std::fs::write` (the floor: no
//! parsing, no matching, no atomic write). Run with
//! `cargo bench -p tool-std --bench patch_100_files`.

mod common;

use std::fmt::Write as _;
use std::time::Instant;

use tool_core::ToolCall;

const FILES: usize = 100;
const ROUNDS: usize = 9;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let original = |file: usize| -> String {
        (1..=200)
            .map(|line| format!("file {file} line {line}: some text here\n"))
            .collect()
    };
    let mut patch = String::from("*** Begin Patch\n");
    for file in 0..FILES {
        let _ = write!(
            patch,
            "*** Update File: src/f{file}.txt\n@@\n file {file} line 99: some text here\n-file {file} line 100: some text here\n+file {file} line 100: changed\n file {file} line 101: some text here\n"
        );
    }
    patch.push_str("*** End Patch");
    let arguments = serde_json::json!({ "patch": patch }).to_string();
    let coordinator = common::editing_coordinator("apply_patch", dir.path());
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let reset = || {
        for file in 0..FILES {
            std::fs::write(dir.path().join(format!("src/f{file}.txt")), original(file)).unwrap();
        }
    };
    let mut ours = Vec::new();
    let mut floor = Vec::new();
    for _ in 0..ROUNDS {
        reset();
        let started = Instant::now();
        let result = coordinator.call_blocking(ToolCall::new("apply_patch", arguments.clone()));
        ours.push(started.elapsed());
        assert!(!result.is_error(), "{}", result.text());
        reset();
        let started = Instant::now();
        for file in 0..FILES {
            let text = original(file).replace(
                &format!("file {file} line 100: some text here"),
                &format!("file {file} line 100: changed"),
            );
            std::fs::write(dir.path().join(format!("src/f{file}.txt")), text).unwrap();
        }
        floor.push(started.elapsed());
    }
    let (ours, floor) = (common::median(ours), common::median(floor));
    println!(
        "apply_patch, {FILES} files in one patch: {ours:.2?} (plain std::fs::write of the same results: {floor:.2?}; {:.1}x)",
        ours.as_secs_f64() / floor.as_secs_f64()
    );
}
