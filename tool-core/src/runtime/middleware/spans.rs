//! A tracing span per invocation, by the OpenTelemetry GenAI conventions.

use tracing::Instrument as _;

use super::{Downstream, Invocation, Middleware};
use crate::{BoxFuture, ToolError, ToolOutput};

/// A span per invocation, named and attributed by the OpenTelemetry GenAI semantic
/// conventions: `execute_tool` (with `otel.name` = `execute_tool {tool}`), and the attributes
/// `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, and
/// `error.type` when the call fails.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CallSpans;

impl Middleware for CallSpans {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        let name: &str = &call.spec.name;
        let span = tracing::info_span!(
            "execute_tool",
            "otel.name" = format_args!("execute_tool {name}"),
            "gen_ai.operation.name" = "execute_tool",
            "gen_ai.tool.name" = name,
            "gen_ai.tool.call.id" = call.ctx.call().call_id.as_str(),
            "gen_ai.tool.type" = "function",
            "error.type" = tracing::field::Empty,
        );
        let recorder = span.clone();
        Box::pin(
            async move {
                let result = next.run().await;
                if let Err(error) = &result {
                    recorder.record("error.type", error.kind());
                }
                result
            }
            .instrument(span),
        )
    }
}
