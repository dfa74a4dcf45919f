//! Tools written by hand against the `Tool` trait run through the same one call path as macro
//! tools, whatever their future does.

use std::sync::OnceLock;

use tool_core::{
    Coordinator, Tool, ToolCall, ToolError, ToolOutput, Toolset,
    context::ToolContext,
    schema::Schema,
    spec::ToolSpec,
    tool::{Prepared, ToolFuture},
};

/// What a hand-written tool's `invoke` does.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Returns a future that yields to the executor once before answering.
    YieldsOnce,
    /// Takes its prepared arguments back as the wrong type.
    WrongArgumentsType,
}

struct HandWritten {
    spec: ToolSpec,
    behaviour: Behaviour,
}

fn empty_schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::from_value(serde_json::json!({"type": "object", "properties": {}})).unwrap()
    })
}

impl Tool for HandWritten {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> &Schema {
        empty_schema()
    }
    fn prepare(&self, _arguments: &str) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(String::from("prepared")))
    }
    fn invoke<'a>(&'a self, prepared: Prepared, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        match self.behaviour {
            Behaviour::YieldsOnce => ToolFuture::new(async move {
                tokio::task::yield_now().await;
                prepared.take::<String>().map(ToolOutput::text)
            }),
            Behaviour::WrongArgumentsType => ToolFuture::ready(
                prepared
                    .take::<u64>()
                    .map(|n| ToolOutput::text(n.to_string())),
            ),
        }
    }
}

fn coordinator(behaviour: Behaviour) -> Coordinator {
    let tool = HandWritten {
        spec: ToolSpec::new("hw_tool", "A hand-written tool.").read_only(),
        behaviour,
    };
    Coordinator::builder()
        .toolset(
            Toolset::named(Vec::<String>::new())
                .unwrap()
                .with(tool)
                .unwrap(),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_hand_written_tool_whose_future_waits_runs_in_a_bare_coordinator() {
    let result = coordinator(Behaviour::YieldsOnce)
        .call(ToolCall::new("hw_tool", "{}"))
        .await;
    assert_eq!(result.text(), "prepared");
    assert!(!result.is_error());
}

#[test]
fn arguments_taken_back_as_the_wrong_type_are_an_internal_error_not_the_tools_failure() {
    let result =
        coordinator(Behaviour::WrongArgumentsType).call_blocking(ToolCall::new("hw_tool", "{}"));
    assert_eq!(result.error().map(ToolError::kind), Some("internal"));
    assert!(
        result
            .text()
            .contains("internal error in the tool framework")
            && result.text().contains("u64"),
        "{}",
        result.text()
    );
}
