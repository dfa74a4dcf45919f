//! The bundled conversation (`conversation.sse`): the model's turns as OpenAI's chat
//! completions API streams them, one stream per turn, each ending with `data: [DONE]`.
//! Replaying them answers each request with the next stream, whatever the request holds: the
//! model's side is fixed, everything the tools, the policy and the hooks do is real.

use std::collections::VecDeque;

use serde_json::Value;

use tool_core::BoxFuture;

use super::session::{Failed, Model};
use super::wire::Wire;

/// The recorded streams, answered in order.
pub struct Replay {
    turns: VecDeque<String>,
}

impl Replay {
    /// The conversation bundled with the example.
    pub fn bundled() -> Replay {
        Replay::from_sse(include_str!("conversation.sse"))
    }

    /// Streams out of server-sent events: each turn's events up to and including its
    /// `data: [DONE]`.
    pub fn from_sse(text: &str) -> Replay {
        let mut turns = VecDeque::new();
        let mut current = String::new();
        for event in text.split("\n\n").filter(|event| !event.trim().is_empty()) {
            current.push_str(event);
            current.push_str("\n\n");
            if event.trim() == "data: [DONE]" {
                turns.push_back(std::mem::take(&mut current));
            }
        }
        Replay { turns }
    }
}

impl Model for Replay {
    fn answer<'a>(
        &'a mut self,
        _request: &'a Value,
    ) -> BoxFuture<'a, Result<Option<String>, Failed>> {
        let next = self.turns.pop_front();
        Box::pin(async move { Ok(next) })
    }

    fn wire(&self) -> Wire {
        Wire::OpenAiChat
    }
}
