//! `repo_map` of a repository of about 100,000 lines, cold (every file parsed) and cached (a
//! second map of the unchanged repository), through a coordinator (target: cached under
//! 100 ms). Default repository: tokio's sources under `$CARGO_HOME/registry/src` (present after
//! a build); give another directory as the first argument. Run with
//! `cargo bench -p tool-std --bench repo_map [-- DIR]`.

mod common;

use std::time::Instant;

use tool_core::ToolCall;
// Linked for its tools.
use tool_std as _;

fn lines_of_code(dir: &std::path::Path) -> usize {
    let mut total = 0;
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                total += std::fs::read_to_string(&path).map_or(0, |text| text.lines().count());
            }
        }
    }
    total
}

fn main() {
    let repository = common::dir_argument()
        .or_else(|| {
            let registry = common::registry_src()?;
            let mut tokio: Vec<_> = std::fs::read_dir(registry)
                .ok()?
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with("tokio-1."))
                })
                .collect();
            tokio.sort();
            tokio.pop()
        })
        .expect("a repository directory");
    let coordinator = common::coordinator(["repo_map"], &repository);
    let call = ToolCall::new("repo_map", r#"{"max_tokens": 4096}"#);
    let started = Instant::now();
    let cold = coordinator.call_blocking(call.clone());
    let cold_time = started.elapsed();
    assert!(!cold.is_error(), "{}", cold.text());
    let mut cached = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let result = coordinator.call_blocking(call.clone());
        cached.push(started.elapsed());
        assert_eq!(result.text(), cold.text(), "the same map");
    }
    let cached = common::median(cached);
    println!(
        "repo_map of {} ({} lines of Rust): cold {cold_time:.1?}, cached {cached:.1?} (target < 100 ms: {})",
        repository.display(),
        lines_of_code(&repository),
        if cached.as_millis() < 100 {
            "met"
        } else {
            "missed"
        }
    );
}
