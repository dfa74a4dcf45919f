//! Hooks a model answers: Claude Code's `"type": "prompt"` (one question to a small model)
//! and `"type": "agent"` (a model that may use tools to find out). This framework has no
//! model of its own: the embedding program provides one as a [`HookModel`]
//! ([`CoordinatorBuilder::hook_model`](crate::coordinator::CoordinatorBuilder::hook_model)),
//! and settings naming such a hook without one fail to build, naming the hook.
//!
//! The hook's `prompt` is sent with `$ARGUMENTS` replaced by the event's input JSON (or the
//! JSON appended when the prompt does not say where). The model answers as Claude Code asks:
//! `{"ok": true}` to let the call go on, `{"ok": false, "reason": "..."}` to block it with the
//! reason; an answer that is not that, a failure and a timeout are non-blocking errors.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::Hook;
use super::event::HookInput;
use super::output::HookOutput;
use crate::BoxFuture;

/// Whether a model hook asks one question or runs an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelHookKind {
    /// `"type": "prompt"`: one completion.
    Prompt,
    /// `"type": "agent"`: a model that may use tools before it answers.
    Agent,
}

impl ModelHookKind {
    /// Claude Code's name of the type.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ModelHookKind::Prompt => "prompt",
            ModelHookKind::Agent => "agent",
        }
    }
}

/// What a model hook asks the embedding program's model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelHookRequest {
    /// Prompt or agent.
    pub kind: ModelHookKind,
    /// The prompt, `$ARGUMENTS` replaced by the event's input JSON.
    pub prompt: String,
    /// The hook's `model`, when it names one.
    pub model: Option<String>,
}

/// The model behind `prompt` and `agent` hooks, provided by the embedding program: it
/// answers a request with the model's text (or why it could not).
///
/// ```
/// use tool_core::BoxFuture;
/// use tool_core::hooks::{HookModel, ModelHookRequest};
///
/// /// Blocks every call whose input mentions `prod` (a stand-in for a real model).
/// struct Careful;
///
/// impl HookModel for Careful {
///     fn answer<'a>(&'a self, request: &'a ModelHookRequest) -> BoxFuture<'a, Result<String, String>> {
///         let ok = !request.prompt.contains("prod");
///         Box::pin(async move {
///             Ok(if ok { r#"{"ok": true}"#.to_owned() } else { r#"{"ok": false, "reason": "touches prod"}"#.to_owned() })
///         })
///     }
/// }
/// ```
pub trait HookModel: Send + Sync {
    /// The model's answer to `request`.
    fn answer<'a>(&'a self, request: &'a ModelHookRequest)
    -> BoxFuture<'a, Result<String, String>>;
}

/// A `prompt` or `agent` hook, answered by a [`HookModel`].
pub struct ModelHook {
    kind: ModelHookKind,
    prompt: String,
    model: Option<String>,
    timeout: Duration,
    answerer: Arc<dyn HookModel>,
}

impl ModelHook {
    /// A hook of `kind` asking `answerer` `prompt`, for at most `timeout`.
    #[must_use]
    pub fn new(
        kind: ModelHookKind,
        prompt: impl Into<String>,
        model: Option<String>,
        timeout: Duration,
        answerer: Arc<dyn HookModel>,
    ) -> Self {
        ModelHook {
            kind,
            prompt: prompt.into(),
            model,
            timeout,
            answerer,
        }
    }

    async fn execute(&self, input: &HookInput) -> HookOutput {
        let arguments = match serde_json::to_string(input) {
            Ok(json) => json,
            Err(error) => return HookOutput::error(format!("could not encode its input: {error}")),
        };
        let prompt = if self.prompt.contains("$ARGUMENTS") {
            self.prompt.replace("$ARGUMENTS", &arguments)
        } else {
            format!("{}\n\n{arguments}", self.prompt)
        };
        let request = ModelHookRequest {
            kind: self.kind,
            prompt,
            model: self.model.clone(),
        };
        let answer = match tokio::time::timeout(self.timeout, self.answerer.answer(&request)).await
        {
            Ok(Ok(answer)) => answer,
            Ok(Err(error)) => return HookOutput::error(format!("the model failed: {error}")),
            Err(_) => {
                return HookOutput::error(format!(
                    "the model did not answer within {}",
                    super::describe(self.timeout)
                ));
            }
        };
        verdict(&answer)
    }
}

/// The model's answer as a hook's: `{"ok": false, "reason"}` blocks.
fn verdict(answer: &str) -> HookOutput {
    // Models wrap JSON in a code fence now and then.
    let trimmed = answer
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(object)) => match object.get("ok") {
            Some(Value::Bool(true)) => HookOutput::default(),
            Some(Value::Bool(false)) => HookOutput::block(
                object
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("a model hook said no")
                    .to_owned(),
            ),
            _ => HookOutput::error(format!(
                "the model's answer has no boolean `ok`: {}",
                excerpt(answer)
            )),
        },
        _ => HookOutput::error(format!(
            "the model did not answer with a JSON object like {{\"ok\": true}}: {}",
            excerpt(answer)
        )),
    }
}

fn excerpt(text: &str) -> String {
    text.chars().take(200).collect()
}

impl Hook for ModelHook {
    fn name(&self) -> Cow<'_, str> {
        let first_line = self.prompt.lines().next().unwrap_or_default();
        Cow::Owned(format!(
            "{} hook `{}`",
            self.kind.as_str(),
            excerpt(first_line)
        ))
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        Box::pin(self.execute(input))
    }
}

#[cfg(test)]
mod tests {
    use super::verdict;

    #[test]
    fn the_models_answer_decides_as_claude_code_reads_it() {
        assert_eq!(verdict(r#"{"ok": true}"#).block, None);
        assert_eq!(
            verdict("```json\n{\"ok\": false, \"reason\": \"no\"}\n```")
                .block
                .as_deref(),
            Some("no")
        );
        assert!(verdict("sure, go ahead").error.is_some());
        assert!(verdict(r#"{"decision": "yes"}"#).error.is_some());
    }
}
