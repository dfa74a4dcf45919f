//! Progress of one `tools/call` as the client's `notifications/progress`: the sink the server
//! gives a call that carries `_meta.progressToken` ([`CallOptions::progress`](crate::coordinator::CallOptions::progress)).
//!
//! Reports arrive synchronously from the tool; notifications are sent by one task per call,
//! in the order reported. The protocol wants `progress` to grow with every notification, so a
//! report that does not (a nested call counting from zero again) is left out rather than sent
//! out of order.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::definition::context::{ProgressSink, ProgressUpdate};

/// Sends a call's progress reports to the client that asked for them, with its token.
pub(super) struct ProgressForwarder {
    updates: mpsc::UnboundedSender<ProgressUpdate>,
}

impl ProgressForwarder {
    /// A sink for one call; the task sending its notifications ends when the last clone of
    /// the sink is dropped (the call, and whatever its context was handed to, has ended).
    pub(super) fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        let (updates, mut received) = mpsc::unbounded_channel::<ProgressUpdate>();
        tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            while let Some(update) = received.recv().await {
                if update.progress.is_nan() || update.progress <= last {
                    continue;
                }
                last = update.progress;
                let mut param = ProgressNotificationParam::new(token.clone(), update.progress);
                param.total = update.total;
                param.message = update.message;
                if peer.notify_progress(param).await.is_err() {
                    // The client is gone; the call will hear of it through its cancellation.
                    break;
                }
            }
        });
        ProgressForwarder { updates }
    }
}

impl ProgressSink for ProgressForwarder {
    fn report(&self, update: ProgressUpdate) {
        // Fails only when the sending task has ended (the client went away): nothing to do.
        let _ = self.updates.send(update);
    }
}
