//! A write killed at any moment leaves the old content or the new, never a mix, a truncation
//! or an empty file: `write_file`'s atomic write (a temporary file beside the target, synced,
//! renamed over it) against `SIGKILL`, a thousand times.

#![cfg(unix)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::ToolCall;

mod common;

const SIZE: usize = 16 * 1024;
const KILLS: usize = 1_000;

/// The child: replaces `target` in `WRITER_ROOT` with all `a`s or all `b`s, by turns, through
/// `write_file`, until killed.
#[test]
fn writer_child() {
    let Ok(root) = std::env::var("WRITER_ROOT") else {
        return; // run as an ordinary test: nothing to do
    };
    let coordinator = common::coordinator(
        std::path::Path::new(&root),
        &["write_file"],
        Some(common::allowing(&["write_file"])),
    );
    let contents = ["a".repeat(SIZE), "b".repeat(SIZE)];
    // Start with the version the file does not hold, so every write done changes it.
    let holds_a = std::fs::read(std::path::Path::new(&root).join("target.txt"))
        .is_ok_and(|bytes| bytes.first() == Some(&b'a'));
    // Tell the parent the writes start now, so its kill lands among them.
    println!("ready");
    std::io::Write::flush(&mut std::io::stdout()).unwrap();
    for turn in usize::from(holds_a).. {
        let call = ToolCall::new(
            "write_file",
            json!({"path": "target.txt", "content": contents[turn % 2], "overwrite": true})
                .to_string(),
        );
        let result = coordinator.call_blocking(call);
        assert!(!result.is_error(), "{}", result.text());
    }
}

#[test]
fn a_write_killed_at_any_moment_leaves_the_old_or_the_new_content() {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("target.txt");
    std::fs::write(&target, "a".repeat(SIZE)).unwrap();
    let me = std::env::current_exe().unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let started = Instant::now();
    let mut last = b'a';
    let mut changes = 0;
    for kill in 0..KILLS {
        let mut child = Command::new(&me)
            .args([
                "--exact",
                "writer_child",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("WRITER_ROOT", root.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("ready") {
            line.clear();
            if std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() == 0 {
                panic!("the writer exited before it started writing");
            }
        }
        // A pseudo-random moment among the writes (each takes a few milliseconds in a debug build).
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_micros(seed % 30_000));
        child.kill().unwrap();
        child.wait().unwrap();
        let bytes = std::fs::read(&target).unwrap();
        let whole = bytes.len() == SIZE
            && (bytes.iter().all(|&b| b == b'a') || bytes.iter().all(|&b| b == b'b'));
        assert!(
            whole,
            "kill {kill}: the file holds {} bytes, not one whole version",
            bytes.len()
        );
        if bytes[0] != last {
            changes += 1;
            last = bytes[0];
        }
        assert!(started.elapsed() < Duration::from_secs(600), "too slow");
    }
    // A killed writer's temporary file is cleared by the next write: at most the last one's is left.
    let temps = std::fs::read_dir(root.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert!(temps <= 1, "{temps} temporary files left behind");
    // The kills landed while writes were going on, not only before the first one.
    assert!(
        changes > KILLS / 20,
        "only {changes} of {KILLS} runs got a write done"
    );
}
