//! A crate the binary depends on but never names is not linked, so its tools are absent: this
//! is why `registry.rs` documents `use the_crate as _;`. (`cross_crate.rs` shows that line
//! working.) If this test ever fails, the toolchain started linking unreferenced crates, and the
//! documentation can relax.

use tool_core::Registry;

#[test]
fn a_crate_nothing_references_contributes_no_tools() {
    assert!(Registry::global().get("unreferenced_ping").is_none());
}
