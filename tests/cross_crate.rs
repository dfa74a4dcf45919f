//! Tools defined in other crates register at link time: a binary that links two fixture crates
//! sees the tools of both in `Registry::global()`.

use fixture_beta as _; // linked for its tools alone: the documented way

use tool_core::{Coordinator, Registry, ToolCall, Toolset};

#[test]
fn tools_from_two_crates_are_all_in_the_global_registry() {
    let registry = Registry::global();
    for name in ["alpha_echo", "alpha_sum", "beta_upper"] {
        assert!(
            registry.get(name).is_some(),
            "{name} missing from {registry:?}"
        );
    }
    // The call links `fixture_alpha`, the other documented way; its tools are recorded as
    // that crate's.
    let alpha = registry.get("alpha_echo").unwrap().spec();
    assert_eq!(alpha.location.crate_name, fixture_alpha::crate_name());
}

#[test]
fn a_tool_from_another_crate_records_where_it_was_defined() {
    let spec = Registry::global().get("beta_upper").unwrap().spec();
    assert_eq!(spec.location.crate_name, "fixture_beta");
    assert_eq!(spec.location.module, "fixture_beta");
    assert!(
        spec.location.file.ends_with("src/lib.rs"),
        "{}",
        spec.location.file
    );
}

#[test]
fn an_alias_from_another_crate_finds_its_tool() {
    let tool = Registry::global().get("Upper").expect("alias registered");
    assert_eq!(tool.spec().name, "beta_upper");
}

#[test]
fn a_toolset_selects_the_tools_of_one_crate() {
    let set = Toolset::from_crate("fixture_alpha");
    let names: Vec<_> = set
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .collect();
    assert_eq!(names, ["alpha_echo", "alpha_sum"]);
}

#[test]
fn tools_from_other_crates_run_through_the_coordinator() {
    let coordinator = Coordinator::builder()
        .approver(tool_core::approval::AutoApprove)
        .toolset(Toolset::tagged("fixture"))
        .build()
        .unwrap();
    let result = coordinator.call_blocking(ToolCall::new("Upper", r#"{"text": "hi"}"#));
    assert_eq!(result.text(), "HI");
    let result = coordinator.call_blocking(ToolCall::new("alpha_sum", r#"{"a": 2, "b": 3}"#));
    assert_eq!(result.text(), "5");
}

#[test]
fn the_registry_is_sorted_by_name() {
    let names: Vec<String> = Registry::global()
        .iter()
        .map(|tool| tool.spec().name.to_string())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}
