//! The generated code names everything by absolute path: a module that shadows the prelude,
//! primitive types and common crate names still gets working tools.

#![allow(non_camel_case_types, dead_code, non_snake_case, unused_macros, clippy::all)]

mod shadowed {
    use ::tool_core::tool;

    // The prelude's types, variants and traits, replaced.
    struct Result;
    struct Option;
    struct String;
    struct Vec;
    struct Box;
    fn Ok() {}
    fn Err() {}
    trait Send {}
    trait Sync {}
    trait Sized {}
    trait Clone {}
    trait Copy {}
    trait Default {}
    trait Drop {}
    trait Fn {}
    trait From {}
    trait Into {}
    trait Iterator {}
    trait IntoIterator {}
    trait ToString {}
    trait ToOwned {}
    trait AsRef {}
    trait PartialEq {}
    trait Eq {}
    trait Debug {}
    trait Deserialize {}
    trait Serialize {}
    trait JsonSchema {}
    trait Tool {}
    trait Future {}

    // Crate names the generated code might reach for.
    mod core {}
    mod std {}
    mod alloc {}
    mod serde {}
    mod serde_json {}
    mod schemars {}
    mod inventory {}
    mod tool_core {}
    mod __private {}

    // Macros the generated code might call.
    macro_rules! vec {
        () => {
            compile_error!("the user's `vec!` was called")
        };
    }
    macro_rules! format {
        () => {
            compile_error!("the user's `format!` was called")
        };
    }
    macro_rules! line {
        () => {
            compile_error!("the user's `line!` was called")
        };
    }

    /// Add two integers.
    ///
    /// # Arguments
    /// * `a` - The first addend.
    /// * `b` - The second addend, if any.
    #[tool(read_only, name = "shadowed_add", aliases("ShadowedAdd"), tags("math"))]
    fn add(
        a: ::core::primitive::i64,
        b: ::core::option::Option<::core::primitive::i64>,
    ) -> ::std::string::String {
        ::std::string::ToString::to_string(&(a + b.unwrap_or(0)))
    }

    /// Join words.
    ///
    /// # Arguments
    /// * `words` - The words.
    /// * `sep` - The separator.
    /// * `path` - Where the words come from.
    #[tool(read_only, blocking, timeout_ms = 1000)]
    fn join(
        words: ::std::vec::Vec<::std::string::String>,
        #[arg(default = ::std::string::String::from(" "))] sep: ::std::string::String,
        #[arg(path)] path: ::core::option::Option<::std::string::String>,
    ) -> ::core::result::Result<::std::string::String, ::tool_core::ToolError> {
        let _ = path;
        ::core::result::Result::Ok(words.join(&sep))
    }

    /// Count, asynchronously.
    ///
    /// # Arguments
    /// * `n` - How many.
    #[tool(crate = ::tool_core)]
    async fn count(
        ws: &::tool_core::Workspace,
        state: ::tool_core::State<Counter>,
        n: ::core::primitive::u32,
    ) -> ::tool_core::Json<::std::vec::Vec<::core::primitive::u32>> {
        let _ = (ws, state);
        ::tool_core::Json((0..n).collect())
    }

    struct Counter;

    /// Echo the input.
    #[tool(read_only)]
    fn echo(::tool_core::Args(input): ::tool_core::Args<super::Input>) -> ::std::string::String {
        input.text
    }

    /// Nothing to return.
    #[tool]
    fn nothing() {}
}

/// `Some` and `None` shadowed too. (Only tools without `Option` or `default` arguments here:
/// schemars' derive writes a bare `Some(..)` for fields with a serde default, so it cannot
/// compile against a `struct Some` in scope.)
mod shadowed_variants {
    use ::tool_core::tool;

    struct Some;
    struct None;
    struct Ok;
    struct Err;
    struct Option;
    struct Result;

    /// Multiply two integers.
    ///
    /// # Arguments
    /// * `a` - The first factor.
    /// * `b` - The second factor.
    #[tool(read_only, name = "shadowed_mul")]
    fn mul(a: i64, b: i64) -> ::core::result::Result<i64, ::tool_core::ToolError> {
        a.checked_mul(b)
            .ok_or_else(|| ::tool_core::ToolError::failed("overflow"))
    }

    /// Describe the call.
    #[tool(read_only, blocking, name = "shadowed_call")]
    fn call(
        info: &::tool_core::context::CallInfo,
        #[ctx] ws: ::core::option::Option<&::tool_core::Workspace>,
    ) -> String {
        ::std::format!("{} {}", info.tool, ws.is_some())
    }
}

/// The input of `echo`: outside the module, because schemars' own derive names `schemars` by
/// a relative path, which `mod schemars {}` would break.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Input {
    /// The text.
    text: String,
}

fn main() {
    let registry = tool_core::Registry::global();
    for name in [
        "shadowed_add",
        "join",
        "count",
        "echo",
        "nothing",
        "shadowed_mul",
        "shadowed_call",
    ] {
        assert!(registry.get(name).is_some(), "{name} is not registered");
    }
    let coordinator = tool_core::Coordinator::builder().approver(tool_core::approval::AutoApprove).build().unwrap();
    let result = coordinator.call_blocking(tool_core::ToolCall::new(
        "shadowed_add",
        r#"{"a": 1, "b": 2}"#,
    ));
    assert_eq!(result.text(), "3");
    let result = coordinator.call_blocking(tool_core::ToolCall::new(
        "join",
        r#"{"words": ["a", "b"]}"#,
    ));
    assert_eq!(result.text(), "a b");
    let result = coordinator.call_blocking(tool_core::ToolCall::new(
        "shadowed_mul",
        r#"{"a": 6, "b": 7}"#,
    ));
    assert_eq!(result.text(), "42");
    let result = coordinator.call_blocking(tool_core::ToolCall::new("shadowed_call", "{}"));
    assert_eq!(result.text(), "shadowed_call false");
}
