//! `blocking` and `blocking(quick)` tools on a current-thread runtime (the stdio MCP server's):
//! a `blocking` body always runs on Tokio's blocking pool, so it may enter the runtime itself
//! (`Handle::block_on`, which panics on the runtime's own thread); a `blocking(quick)` body
//! runs in place once its last calls were quick, saving the two thread wake-ups of the pool.

use tool_core::{Coordinator, ToolCall, Toolset, tool};

/// Enter the runtime from a blocking body.
#[tool(read_only, blocking, name = "bt_enters_runtime")]
fn enters_runtime() -> String {
    tokio::runtime::Handle::current().block_on(async { "entered".to_owned() })
}

/// Say which thread the body ran on.
#[tool(read_only, blocking(quick), name = "bt_quick")]
fn quick() -> String {
    format!("{:?}", std::thread::current().id())
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn coordinator(tool: &str) -> Coordinator {
    Coordinator::builder()
        .toolset(Toolset::named([tool]).unwrap())
        .build()
        .unwrap()
}

#[test]
fn a_blocking_body_may_enter_the_runtime_on_every_call() {
    let coordinator = coordinator("bt_enters_runtime");
    current_thread().block_on(async {
        for _ in 0..10 {
            let result = coordinator
                .call(ToolCall::new("bt_enters_runtime", "{}"))
                .await;
            assert_eq!(result.text(), "entered", "{result:?}");
        }
    });
}

#[test]
fn a_quick_blocking_body_runs_in_place_once_its_calls_were_quick() {
    let coordinator = coordinator("bt_quick");
    let here = format!("{:?}", std::thread::current().id());
    let threads: Vec<String> = current_thread().block_on(async {
        let mut threads = Vec::new();
        for _ in 0..6 {
            let result = coordinator.call(ToolCall::new("bt_quick", "{}")).await;
            threads.push(result.text().into_owned());
        }
        threads
    });
    // The first calls on the pool, then in place (this coordinator has no workspace, so no
    // file system to find local).
    assert_ne!(threads[0], here);
    assert_eq!(threads[5], here, "{threads:?}");
}
