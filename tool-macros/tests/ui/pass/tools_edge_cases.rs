//! `#[tools]` on the impls rmcp users write, at their edges: a type named `Args` (clap's usual
//! name), a method with an ABI of its own, a method compiled out with its tool (whose
//! attribute's mistakes go with it), a method named by a raw identifier, an item made by a
//! macro, and a body that itself holds `fn`s, braces and an impl.

use tool_core::{Coordinator, ToolCall, Toolset, tools};

macro_rules! made_by_a_macro {
    () => {
        fn made_by_a_macro(&self) -> bool {
            !self.verbose
        }
    };
}

/// The command line's arguments, as clap would name them.
struct Args {
    verbose: bool,
}

#[tools]
impl Args {
    /// Say whether the command line asked for detail.
    #[tool(read_only, name = "ui_args_verbose")]
    fn verbose(&self) -> String {
        self.verbose.to_string()
    }

    /// Double a number, through the C ABI.
    ///
    /// # Arguments
    /// * `n` - The number.
    #[tool(read_only, name = "ui_args_double")]
    extern "C" fn double(&self, n: i64) -> i64 {
        n * 2
    }

    /// Say a keyword.
    #[tool(read_only)]
    fn r#match(&self) -> String {
        // A body the impl's parser must keep whole: items, braces and a `fn` of its own.
        struct Inner;
        impl Inner {
            fn word() -> &'static str {
                "match"
            }
        }
        fn braces() -> &'static str {
            "{}"
        }
        format!("{}{}", Inner::word(), &braces()[..0])
    }

    made_by_a_macro!();

    /// Not built here, and neither are its attribute's mistakes.
    #[cfg(any())]
    #[tool(bogus_option, another_bogus_option)]
    fn gone(&self) -> String {
        String::new()
    }
}

fn main() {
    let coordinator = Coordinator::builder()
        .toolset(Toolset::named(["ui_args_verbose", "ui_args_double", "match"]).unwrap())
        .policy(
            tool_core::policy::PolicyBuilder::default()
                .allow("ui_args_verbose")
                .allow("ui_args_double")
                .allow("match"),
        )
        .state(Args { verbose: true })
        .build()
        .unwrap();
    let verbose = coordinator.call_blocking(ToolCall::new("ui_args_verbose", "{}"));
    assert_eq!(verbose.text(), "true");
    let doubled = coordinator.call_blocking(ToolCall::new("ui_args_double", r#"{"n": 21}"#));
    assert_eq!(doubled.text(), "42");
    let keyword = coordinator.call_blocking(ToolCall::new("match", "{}"));
    assert_eq!(keyword.text(), "match");
    assert!(!Args { verbose: true }.made_by_a_macro());
}
