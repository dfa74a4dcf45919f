//! Parameters named like the generated code's own bindings (`args`, `ctx`, `prepared`,
//! `resources`, `deserializer`, `context_0`) still work.

use tool_core::{Coordinator, ToolCall, tool, context::ToolContext};

/// Join words.
///
/// # Arguments
/// * `args` - The words.
/// * `ctx` - The separator.
#[tool(read_only)]
fn join(args: Vec<String>, #[arg(default = String::from(" "))] ctx: String) -> String {
    args.join(&ctx)
}

/// Describe the call.
///
/// # Arguments
/// * `prepared` - Whether it is prepared.
/// * `resources` - Some resources.
#[tool(read_only)]
fn describe(
    context_0: &ToolContext,
    prepared: bool,
    #[arg(path)] resources: Vec<String>,
) -> String {
    format!("{} {prepared} {resources:?}", context_0.call().tool)
}

/// Add with defaults.
///
/// # Arguments
/// * `deserializer` - A value.
/// * `self_` - Another value.
/// * `__ToolArgs` - A third.
#[tool(read_only)]
#[allow(non_snake_case)]
fn sum(
    #[arg(default = 1)] deserializer: u32,
    #[arg(default = 2)] self_: u32,
    #[arg(default = 3)] __ToolArgs: u32,
) -> u32 {
    deserializer + self_ + __ToolArgs
}

fn main() {
    let coordinator = Coordinator::builder().build().unwrap();
    let call = |name: &str, args: &str| coordinator.call_blocking(ToolCall::new(name, args));
    assert_eq!(call("join", r#"{"args": ["a", "b"]}"#).text(), "a b");
    assert_eq!(
        call("describe", r#"{"prepared": true, "resources": ["x"]}"#).text(),
        r#"describe true ["x"]"#
    );
    assert_eq!(call("sum", "{}").text(), "6");
}
