//! Two tools claiming one name make the registry invalid, and the error names both places.
//! (A test binary of its own: the global registry of every other test binary stays valid.)

use tool_core::{Registry, registry::RegistryProblem, tool};

mod first {
    use super::tool;

    /// Deploy, the first.
    #[tool(name = "dup_deploy")]
    fn deploy() {} // first
}

mod second {
    use super::tool;

    /// Deploy, the second.
    #[tool(name = "dup_deploy")]
    fn deploy() {} // second

    /// Release, whose alias collides.
    #[tool(name = "dup_release", aliases("dup_deploy"))]
    fn release() {}
}

#[test]
fn a_duplicate_name_is_an_error_naming_both_locations() {
    let error = Registry::try_global().unwrap_err();
    let duplicates: Vec<_> = error
        .problems
        .iter()
        .filter(|problem| matches!(problem, RegistryProblem::Duplicate { name, .. } if name == "dup_deploy"))
        .collect();
    assert_eq!(duplicates.len(), 2, "{error}");
    let message = error.to_string();
    let line_of = |needle: &str| {
        include_str!("duplicate_names.rs")
            .lines()
            .position(|line| line.contains(needle))
            .unwrap()
            + 1
    };
    for line in [
        line_of("fn deploy() {} // first"),
        line_of("fn deploy() {} // second"),
    ] {
        assert!(
            message.contains(&format!("tests/duplicate_names.rs:{line}")),
            "{message}"
        );
    }
    assert!(
        message.contains("as an alias of `dup_release`"),
        "{message}"
    );
}

#[test]
fn the_global_registry_panics_with_that_message() {
    let panic = std::panic::catch_unwind(Registry::global).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("the tool name `dup_deploy` is claimed twice"),
        "{message}"
    );
}
