//! `read_artifact` paging through a large spilled output (1,000,000 lines, 37 MB), through a
//! coordinator, against the store's own `Artifacts::read` on the same artifact (the floor: the
//! lines cut out, no numbering, no total, no note, no call path). A page at the start and one
//! near the end, since both sides walk the text from its start.
//!
//! Run with `cargo bench -p tool-std --bench read_artifact`.

use std::hint::black_box;

use criterion::Criterion;
use tool_core::middleware::Artifacts;
use tool_core::{Coordinator, ToolCall, Toolset};
// Nothing else here names tool-std; linking it puts its tools in the registry.
use tool_std as _;

const LINES: usize = 1_000_000;
const PAGE: usize = 100;

fn main() {
    let text: String = (1..=LINES)
        .map(|i| format!("{i:>7} some output of a long build step\n"))
        .collect();
    let artifacts = Artifacts::new(usize::MAX);
    let id = artifacts.store("run_shell", "call_1", text);
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["read_artifact"]).expect("linked"))
        .state(artifacts.clone())
        .build()
        .expect("a coordinator");

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("read_artifact");
    for (name, offset) in [("first_page", 1), ("page_near_end", LINES - PAGE + 1)] {
        let arguments =
            serde_json::json!({ "id": id, "offset": offset, "limit": PAGE }).to_string();
        let call = ToolCall::new("read_artifact", arguments);
        let page = coordinator.call_blocking(call.clone());
        assert!(!page.is_error(), "{}", page.text());
        assert_eq!(page.text().lines().count(), PAGE + 1, "a page and its note");
        group.bench_function(format!("{name}/store_read"), |b| {
            b.iter(|| black_box(artifacts.read(&id, offset, PAGE).expect("kept")));
        });
        group.bench_function(format!("{name}/read_artifact"), |b| {
            b.iter(|| black_box(coordinator.call_blocking(call.clone())));
        });
    }
    group.finish();
    criterion.final_summary();
}
