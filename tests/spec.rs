//! What the attribute derives into the spec: effect class, hints, names, per-call classification.

use std::time::Duration;

use tool_core::{
    Registry, Toolset,
    spec::{ApprovalKind, Effect},
    tool,
};

/// Look.
#[tool(
    read_only,
    name = "spec_look",
    title = "Look around",
    aliases("Look", "peek"),
    tags("spec", "fs")
)]
fn look() -> &'static str {
    "looked"
}

/// Change something.
#[tool(name = "spec_change", tags("spec"), timeout_ms = 1500, closed_world)]
fn change() {}

/// Delete everything.
#[tool(destructive, idempotent, name = "spec_delete", tags("spec"))]
fn delete() {}

/// Present a plan.
#[tool(self_approving, name = "spec_plan", tags("spec"))]
fn plan(plan: String) -> String {
    plan
}

fn is_read_only_command(command: &str, _timeout: Option<&u64>) -> bool {
    command.starts_with("git status") || command.starts_with("ls")
}

/// Run a command.
#[tool(name = "spec_shell", read_only_if = is_read_only_command, tags("spec"))]
fn shell(#[arg(command)] command: String, timeout: Option<u64>) -> String {
    format!("{command} {timeout:?}")
}

fn spec(name: &str) -> &'static tool_core::spec::ToolSpec {
    Registry::global().get(name).unwrap().spec()
}

#[test]
fn read_only_implies_idempotent_and_not_destructive() {
    let look = spec("spec_look");
    assert_eq!(look.effect, Effect::ReadOnly);
    assert!(look.idempotent);
    let hints = look.annotations();
    assert!(hints.read_only_hint && hints.idempotent_hint && !hints.destructive_hint);
    assert_eq!(hints.title.as_deref(), Some("Look around"));
}

#[test]
fn a_tool_without_effect_keys_is_mutating_and_open_world() {
    let delete = spec("spec_delete");
    assert_eq!(delete.effect, Effect::Destructive);
    assert!(delete.annotations().destructive_hint);
    assert!(delete.annotations().idempotent_hint);
    assert!(delete.open_world);
    let plan = spec("spec_plan");
    assert_eq!(plan.effect, Effect::Mutating);
    assert!(!plan.idempotent);
}

#[test]
fn closed_world_and_timeout_are_recorded() {
    let change = spec("spec_change");
    assert!(!change.open_world);
    assert!(!change.annotations().open_world_hint);
    assert_eq!(change.timeout, Some(Duration::from_millis(1500)));
}

#[test]
fn aliases_and_tags_are_recorded_and_aliases_find_the_tool() {
    let look = spec("spec_look");
    assert_eq!(look.aliases.as_ref(), ["Look", "peek"]);
    assert!(look.has_tag("fs"));
    assert_eq!(
        Registry::global().get("Look").unwrap().spec().name,
        "spec_look"
    );
    assert!(Toolset::tagged("spec").get("peek").is_some());
}

#[test]
fn self_approving_tools_are_marked() {
    assert_eq!(spec("spec_plan").approval, ApprovalKind::SelfApproving);
    assert_eq!(spec("spec_look").approval, ApprovalKind::Policy);
}

#[test]
fn a_classifier_makes_some_calls_read_only() {
    let shell = Registry::global().get("spec_shell").unwrap();
    assert!(shell.spec().classified_per_call);
    let status = shell
        .prepare(r#"{"command": "git status --short"}"#)
        .unwrap();
    assert_eq!(status.effect(shell.spec()), Effect::ReadOnly);
    let push = shell.prepare(r#"{"command": "git push"}"#).unwrap();
    assert_eq!(push.effect(shell.spec()), Effect::Mutating);
}

#[test]
fn prepare_extracts_resource_values() {
    let shell = Registry::global().get("spec_shell").unwrap();
    let prepared = shell.prepare(r#"{"command": "cargo test"}"#).unwrap();
    let resources = prepared.resources();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].arg, "command");
    assert_eq!(resources[0].kind.as_str(), "command");
    assert_eq!(resources[0].value, "cargo test");
}

#[test]
fn the_source_location_is_the_functions() {
    let look = spec("spec_look");
    assert_eq!(look.location.file, "tests/spec.rs");
    let fn_line = include_str!("spec.rs")
        .lines()
        .position(|line| line.starts_with("fn look()"))
        .unwrap()
        + 1;
    assert_eq!(look.location.line as usize, fn_line);
    assert_eq!(look.location.module, "spec");
}

#[test]
fn toolsets_select_by_effect_and_predicate() {
    let read_only = Toolset::with_effect(Effect::ReadOnly);
    assert!(read_only.contains("spec_look") && !read_only.contains("spec_change"));
    let timed = Toolset::matching(|spec| spec.timeout.is_some());
    assert!(timed.contains("spec_change") && !timed.contains("spec_look"));
}
