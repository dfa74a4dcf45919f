//! Progress of one `tools/call` as the client's `notifications/progress`: the sink the server
//! gives a call that carries `_meta.progressToken` ([`CallOptions::progress`](crate::coordinator::CallOptions::progress)).
//!
//! Reports arrive synchronously from the tool; notifications are sent by one task per call,
//! in the order reported. The protocol wants `progress` to grow with every notification, so a
//! report that does not (a nested call counting from zero again) is left out rather than sent
//! out of order. Before the call's response goes out, [`Flushed`] waits for the notifications
//! already reported to be sent: a notification sent after its response is one the client may
//! never see (over HTTP the response ends the stream it would travel on).

use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::{mpsc, oneshot};

use crate::definition::context::{ProgressSink, ProgressUpdate};

/// How long a response waits for the progress notifications before it (a client that reads
/// nothing must not hold the response forever).
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// What the sending task receives: a report, or a request to say when all before it are sent.
enum Message {
    Update(ProgressUpdate),
    Flush(oneshot::Sender<()>),
}

/// Sends a call's progress reports to the client that asked for them, with its token.
pub(super) struct ProgressForwarder {
    messages: mpsc::UnboundedSender<Message>,
}

/// Waits for the notifications reported so far to be sent.
pub(super) struct Flushed {
    messages: mpsc::UnboundedSender<Message>,
}

impl Flushed {
    /// Returns once every report made before this call is sent (or dropped as not growing),
    /// the client has gone, or [`FLUSH_LIMIT`] has passed.
    pub(super) async fn wait(self) {
        let (done, sent) = oneshot::channel();
        if self.messages.send(Message::Flush(done)).is_ok() {
            let _ = tokio::time::timeout(FLUSH_LIMIT, sent).await;
        }
    }
}

impl ProgressForwarder {
    /// A sink for one call, and the handle that waits for its notifications to be out; the
    /// task sending them ends when the last clone of the sink and the handle are dropped.
    pub(super) fn new(peer: Peer<RoleServer>, token: ProgressToken) -> (Self, Flushed) {
        let (messages, mut received) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            while let Some(message) = received.recv().await {
                let update = match message {
                    Message::Update(update) => update,
                    Message::Flush(done) => {
                        let _ = done.send(());
                        continue;
                    }
                };
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
        let flushed = Flushed {
            messages: messages.clone(),
        };
        (ProgressForwarder { messages }, flushed)
    }
}

impl ProgressSink for ProgressForwarder {
    fn report(&self, update: ProgressUpdate) {
        // Fails only when the sending task has ended (the client went away): nothing to do.
        let _ = self.messages.send(Message::Update(update));
    }
}
