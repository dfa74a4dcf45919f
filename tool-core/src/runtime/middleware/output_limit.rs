//! Keeping what the model reads short, with the whole output kept as an artifact.

use std::fmt::Write as _;

use super::{Artifacts, Downstream, Invocation, Middleware};
use crate::definition::output::Content;
use crate::{BoxFuture, ToolError, ToolOutput};

/// Keeps what the model reads short: output longer than the limit is cut to its head and tail,
/// and the whole of it is kept as an artifact the model can page through.
#[derive(Debug, Clone)]
pub(crate) struct OutputLimit {
    max_chars: usize,
    artifacts: Artifacts,
    /// The toolset has `read_artifact`, so the note can tell the model to call it.
    readable: bool,
}

impl OutputLimit {
    /// At most `max_chars` characters of text reach the model; the rest goes to `artifacts`.
    /// `readable`: the model has a `read_artifact` tool to page through them.
    pub(crate) fn new(max_chars: usize, artifacts: Artifacts, readable: bool) -> Self {
        let max_chars = max_chars.max(200);
        // So that a tool paging through the store keeps its pages under the limit.
        artifacts.set_page_chars(max_chars);
        OutputLimit {
            max_chars,
            artifacts,
            readable,
        }
    }

    fn limit(&self, call: &Invocation<'_>, mut output: ToolOutput) -> ToolOutput {
        let chars: usize = output
            .content
            .iter()
            .filter_map(Content::as_text)
            .map(|text| text.chars().count())
            .sum();
        if chars <= self.max_chars {
            return output;
        }
        let mut whole = String::new();
        for text in output.content.iter().filter_map(Content::as_text) {
            if !whole.is_empty() {
                whole.push('\n');
            }
            whole.push_str(text);
        }
        let text = self.cut(call, whole, chars);
        output.content.retain(|part| part.as_text().is_none());
        output.content.insert(0, Content::text(text));
        output
    }

    /// A failure's message is text the model reads too: cut it the same way.
    fn limit_error(&self, call: &Invocation<'_>, error: ToolError) -> ToolError {
        match error {
            ToolError::Failed { message, source } => {
                let chars = message.chars().count();
                if chars <= self.max_chars {
                    return ToolError::Failed { message, source };
                }
                ToolError::Failed {
                    message: self.cut(call, message, chars),
                    source,
                }
            }
            other => other,
        }
    }

    /// Keeps `whole` (of `chars` characters) as an artifact and returns its head and tail with
    /// a note saying where the rest is.
    fn cut(&self, call: &Invocation<'_>, whole: String, chars: usize) -> String {
        let head_chars = self.max_chars * 3 / 5;
        let tail_chars = self.max_chars - head_chars;
        let head: String = whole.chars().take(head_chars).collect();
        let tail_start = whole
            .char_indices()
            .rev()
            .nth(tail_chars.saturating_sub(1))
            .map_or(0, |(i, _)| i);
        let omitted = chars - head_chars - tail_chars;
        let lines = whole.lines().count();
        let tail = whole[tail_start..].to_owned();
        // The store of the call's session (each session of a coordinator has its own; see
        // `Coordinator::new_session`), else the one this limit was built with.
        let artifacts = call
            .ctx
            .state::<Artifacts>()
            .map_or(&self.artifacts, |state| &**state);
        let id = artifacts.store(&call.spec.name, &call.ctx.call().call_id, whole);
        let mut text = head;
        let _ = write!(
            text,
            "\n\n[... {omitted} characters omitted. The whole output ({chars} characters, {lines} lines) \
             is kept as artifact `{id}`"
        );
        if self.readable {
            let _ = write!(
                text,
                ": read it with read_artifact(id = \"{id}\", offset, limit)"
            );
        }
        text.push_str(" ...]\n\n");
        text.push_str(&tail);
        text
    }
}

impl Middleware for OutputLimit {
    fn handle<'a>(
        &'a self,
        call: &'a Invocation<'a>,
        next: Downstream<'a>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            match next.run().await {
                Ok(output) => Ok(self.limit(call, output)),
                Err(error) => Err(self.limit_error(call, error)),
            }
        })
    }
}
