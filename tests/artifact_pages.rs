//! The artifact store knows the output limit that fills it (`Artifacts::page_chars`), so a
//! tool paging through it can keep each page under that limit instead of being cut again.

use tool_core::middleware::Artifacts;
use tool_core::{Coordinator, State, ToolCall, Toolset, tool};

/// Say how long a page of the store may be.
#[tool(read_only, name = "pages_size")]
fn page_size(artifacts: State<Artifacts>) -> String {
    format!("{:?}", artifacts.page_chars())
}

fn builder() -> tool_core::coordinator::CoordinatorBuilder {
    Coordinator::builder().toolset(Toolset::named(["pages_size"]).unwrap())
}

#[test]
fn the_output_limit_tells_the_store_it_fills_how_long_a_page_may_be() {
    let coordinator = builder().output_limit(5_000).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("pages_size", "{}"));
    assert_eq!(result.text(), "Some(5000)");
}

#[test]
fn a_store_given_before_the_output_limit_learns_the_limit_too() {
    let store = Artifacts::new(1 << 20);
    let _coordinator = builder()
        .state(store.clone())
        .output_limit(300)
        .build()
        .unwrap();
    assert_eq!(store.page_chars(), Some(300));
}

#[test]
fn the_page_size_is_the_limit_as_applied_never_under_200() {
    let coordinator = builder().output_limit(10).build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("pages_size", "{}"));
    assert_eq!(result.text(), "Some(200)");
}

#[test]
fn without_an_output_limit_a_page_has_no_size_limit() {
    let coordinator = builder().build().unwrap();
    let result = coordinator.call_blocking(ToolCall::new("pages_size", "{}"));
    assert_eq!(result.text(), "None");
}
