//! The project's documentation, compiled: every Rust block of the README, of the guide
//! (`docs/*.md`), of `CONTRIBUTING.md` and of `BENCHMARKS.md` is a doctest of this library, so
//! a snippet that stops compiling, or whose assertions stop holding, fails `cargo test`. A block
//! of another project's code, shown for comparison, is marked `rust,ignore` and says so.
//!
//! Blocks that define tools or link tool-std are `standalone_crate`: merged into one test
//! binary, their tools would meet in one registry (two `read_file`s).

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct Readme;

#[cfg(doctest)]
#[doc = include_str!("../CONTRIBUTING.md")]
pub struct Contributing;

#[cfg(doctest)]
#[doc = include_str!("../BENCHMARKS.md")]
pub struct Benchmarks;

/// The guide, one page per item.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("README.md")]
    pub struct Index;
    #[doc = include_str!("tools.md")]
    pub struct Tools;
    #[doc = include_str!("policy.md")]
    pub struct Policy;
    #[doc = include_str!("hooks.md")]
    pub struct Hooks;
    #[doc = include_str!("settings.md")]
    pub struct Settings;
    #[doc = include_str!("providers.md")]
    pub struct Providers;
    #[doc = include_str!("tool-std.md")]
    pub struct ToolStd;
    #[doc = include_str!("sandbox.md")]
    pub struct Sandbox;
    #[doc = include_str!("toolbox.md")]
    pub struct Toolbox;
    #[doc = include_str!("mcp.md")]
    pub struct Mcp;
    #[doc = include_str!("performance.md")]
    pub struct Performance;
}
