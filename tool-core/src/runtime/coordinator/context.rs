//! The context a call runs with (stage 5, see `pipeline.rs`): its own cancellation token,
//! its deadline; the coordinator it runs under is its shared context's owner
//! ([`Coordinator::of`]), for nested calls.

use std::sync::Arc;
use std::time::Instant;

use super::Coordinator;
use crate::definition::context::{CallInfo, CancellationToken, ToolContext};
use crate::definition::tool::ToolHandle;
use crate::runtime::events::CallEvent;

impl Coordinator {
    /// The context of a call about to run, with its own cancellation token; tells the event
    /// sink the call started.
    pub(crate) fn open(
        &self,
        call_id: String,
        tool: &ToolHandle,
        depth: u32,
        parent_cancellation: Option<CancellationToken>,
    ) -> ToolContext {
        let spec = tool.spec();
        let ctx = ToolContext::new(
            CallInfo {
                call_id,
                tool: spec.name.clone(),
                depth,
            },
            Arc::clone(&self.inner.shared),
            parent_cancellation,
        );
        if let Some(events) = &self.inner.events {
            events.send(CallEvent::Started {
                call_id: ctx.call().call_id.clone(),
                tool: spec.name.clone(),
            });
        }
        ctx
    }

    /// When a call of `tool` starting now must end: its time limit from now, and no later than
    /// its caller's deadline.
    pub(super) fn deadline(&self, tool: &ToolHandle, parent: Option<Instant>) -> Option<Instant> {
        let own = tool
            .spec()
            .timeout
            .or(self.inner.default_timeout)
            .and_then(|limit| Instant::now().checked_add(limit));
        match (own, parent) {
            (Some(own), Some(parent)) => Some(own.min(parent)),
            (own, parent) => own.or(parent),
        }
    }
}
