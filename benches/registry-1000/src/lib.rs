//! 1,000 generated tools (see `build.rs`), linked into the `registry` benchmark.

use tool_core::tool;

include!(concat!(env!("OUT_DIR"), "/tools.rs"));

/// Referenced by the benchmark so this crate is linked.
#[must_use]
pub const fn tool_count() -> usize {
    1000
}
