//! Peak memory of `read_file` reading near the end of a 1 GiB file: the file is streamed, so
//! memory stays bounded whatever its size (target: under 32 MiB of peak resident memory).
//!
//! Run with `cargo bench -p tool-std --bench read_memory`. It writes a 1 GiB file of numbered
//! lines to a temporary directory, reads 20 lines near its end through a coordinator, and
//! prints the process's peak resident memory (`VmHWM`) before and after the read.

mod common;

use std::io::Write as _;

use tool_core::ToolCall;
use tool_std::fs::FileSession;

const SIZE: u64 = 1 << 30;

fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("big.log");
    let mut lines = 0u64;
    {
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        let mut written = 0u64;
        while written < SIZE {
            lines += 1;
            let line = format!("{lines:>12} the quick brown fox jumps over the lazy dog\n");
            out.write_all(line.as_bytes()).unwrap();
            written += line.len() as u64;
        }
    }
    let coordinator = common::builder(["read_file"], dir.path())
        .state(FileSession::default())
        .build()
        .unwrap();
    let before = peak_kib();
    let started = std::time::Instant::now();
    let arguments =
        serde_json::json!({"path": "big.log", "offset": lines - 30, "limit": 20}).to_string();
    let result = coordinator.call_blocking(ToolCall::new("read_file", arguments));
    let elapsed = started.elapsed();
    assert!(!result.is_error(), "{}", result.text());
    assert!(result.text().contains(&format!("{:>12}", lines - 30)));
    let after = peak_kib();
    println!(
        "read_file near the end of a 1 GiB file ({lines} lines): {elapsed:.2?}; peak resident memory {} MiB (before the read: {} MiB) (target < 32 MiB: {})",
        after / 1024,
        before / 1024,
        if after < 32 * 1024 { "met" } else { "missed" }
    );
}
