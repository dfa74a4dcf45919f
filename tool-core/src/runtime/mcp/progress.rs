//! Progress of one `tools/call` as the client's `notifications/progress`: the sink the server
//! gives a call that carries `_meta.progressToken` ([`CallOptions::progress`](crate::coordinator::CallOptions::progress)).
//!
//! Reports arrive synchronously from the tool; notifications are sent by one task per call,
//! in the order reported. The protocol wants `progress` to grow with every notification, so a
//! report that does not (a nested call counting from zero again) is left out rather than sent
//! out of order. Before the call's response goes out, [`Flushed`] waits for the notifications
//! already reported to be sent: a notification sent after its response is one the client may
//! never see (over HTTP the response ends the stream it would travel on).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::{mpsc, oneshot};

use crate::definition::context::{ProgressSink, ProgressUpdate};

/// How long a response waits for the progress notifications before it (a client that reads
/// nothing must not hold the response forever).
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// What waits to be sent: at most one report (a tool may report far faster than a client
/// reads; only the latest matters, so a newer report replaces one not yet sent and memory
/// stays bounded), and the flushes asked for since the sending task last looked.
#[derive(Default)]
struct Pending {
    update: Option<ProgressUpdate>,
    flushes: Vec<oneshot::Sender<()>>,
}

/// The state shared by a call's sink, its flush handle and the task sending for it.
#[derive(Clone)]
struct Route {
    pending: Arc<Mutex<Pending>>,
    /// Wakes the sending task; one wake-up pending is enough, as the task takes all that
    /// waits each time it wakes. The task ends when every sender is dropped.
    wake: mpsc::Sender<()>,
}

impl Route {
    fn with_pending<T>(&self, change: impl FnOnce(&mut Pending) -> T) -> T {
        change(&mut self.pending.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Sends a call's progress reports to the client that asked for them, with its token.
pub(super) struct ProgressForwarder {
    route: Route,
}

/// Waits for the notifications reported so far to be sent.
pub(super) struct Flushed {
    route: Route,
}

impl Flushed {
    /// Returns once every report made before this call is sent (or dropped as not growing,
    /// or replaced by a later one), the client has gone, or [`FLUSH_LIMIT`] has passed.
    pub(super) async fn wait(self) {
        let (done, sent) = oneshot::channel();
        self.route
            .with_pending(|pending| pending.flushes.push(done));
        if self.route.wake.is_closed() {
            return;
        }
        let _ = self.route.wake.try_send(());
        let _ = tokio::time::timeout(FLUSH_LIMIT, sent).await;
    }
}

impl ProgressForwarder {
    /// A sink for one call, and the handle that waits for its notifications to be out; the
    /// task sending them ends when the sink and the handle are dropped.
    pub(super) fn new(peer: Peer<RoleServer>, token: ProgressToken) -> (Self, Flushed) {
        ProgressForwarder::sending(move |update: ProgressUpdate| {
            let (peer, token) = (peer.clone(), token.clone());
            async move {
                let mut param = ProgressNotificationParam::new(token, update.progress);
                param.total = update.total;
                param.message = update.message;
                peer.notify_progress(param).await.is_ok()
            }
        })
    }

    /// As [`new`](Self::new), sending each notification with `send`, which says whether the
    /// client is still there.
    fn sending<F, S>(send: S) -> (Self, Flushed)
    where
        S: Fn(ProgressUpdate) -> F + Send + 'static,
        F: Future<Output = bool> + Send,
    {
        let (wake, mut woken) = mpsc::channel::<()>(1);
        let route = Route {
            pending: Arc::default(),
            wake,
        };
        let pending = Arc::clone(&route.pending);
        tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            while woken.recv().await.is_some() {
                let Pending { update, flushes } =
                    std::mem::take(&mut *pending.lock().unwrap_or_else(PoisonError::into_inner));
                if let Some(update) = update.filter(|update| update.progress > last) {
                    last = update.progress;
                    if !send(update).await {
                        // The client is gone; the call will hear of it through its
                        // cancellation, and the waiting flushes are let go as they drop.
                        break;
                    }
                }
                for done in flushes {
                    let _ = done.send(());
                }
            }
        });
        let flushed = Flushed {
            route: route.clone(),
        };
        (ProgressForwarder { route }, flushed)
    }
}

impl ProgressSink for ProgressForwarder {
    fn report(&self, update: ProgressUpdate) {
        // NaN, and a report not past the one waiting, would be dropped by the sender anyway.
        let replaced = self.route.with_pending(|pending| {
            let newer = pending
                .update
                .as_ref()
                .is_none_or(|waiting| update.progress > waiting.progress);
            if newer && !update.progress.is_nan() {
                pending.update = Some(update);
            }
            newer
        });
        if replaced {
            // Full means a wake-up is already pending; closed means the client went away.
            let _ = self.route.wake.try_send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use tokio::sync::Notify;

    use super::*;
    use crate::context::CallInfo;

    fn update(progress: f64) -> ProgressUpdate {
        ProgressUpdate {
            call: CallInfo::new("c1", "t", 0),
            progress,
            total: None,
            message: None,
        }
    }

    /// A forwarder whose client takes each notification only when let through, and the
    /// progress values it received.
    fn slow_client() -> (
        ProgressForwarder,
        Flushed,
        Arc<Notify>,
        Arc<Mutex<Vec<f64>>>,
    ) {
        let (gate, sent) = (Arc::new(Notify::new()), Arc::new(Mutex::new(Vec::new())));
        let (forwarder, flushed) = ProgressForwarder::sending({
            let (gate, sent) = (Arc::clone(&gate), Arc::clone(&sent));
            move |update: ProgressUpdate| {
                let (gate, sent) = (Arc::clone(&gate), Arc::clone(&sent));
                async move {
                    gate.notified().await;
                    sent.lock().unwrap().push(update.progress);
                    true
                }
            }
        });
        (forwarder, flushed, gate, sent)
    }

    #[tokio::test]
    async fn reports_faster_than_the_client_reads_keep_only_the_latest() {
        let (forwarder, flushed, gate, sent) = slow_client();
        forwarder.report(update(1.0));
        tokio::task::yield_now().await; // the sender takes 1 and waits on the client
        for progress in 2..=10_000 {
            forwarder.report(update(f64::from(progress)));
        }
        assert_eq!(
            forwarder
                .route
                .with_pending(|pending| pending.update.as_ref().map(|u| u.progress)),
            Some(10_000.0),
            "one report waits, the latest"
        );
        let flushing = tokio::spawn(flushed.wait());
        while !flushing.is_finished() {
            gate.notify_one();
            tokio::task::yield_now().await;
        }
        assert_eq!(*sent.lock().unwrap(), [1.0, 10_000.0]);
    }

    #[tokio::test]
    async fn a_report_not_past_the_last_is_left_out_and_a_flush_still_returns() {
        let (forwarder, flushed, gate, sent) = slow_client();
        gate.notify_one();
        forwarder.report(update(5.0));
        forwarder.report(update(3.0));
        forwarder.report(update(f64::NAN));
        let flushing = tokio::spawn(flushed.wait());
        while !flushing.is_finished() {
            gate.notify_one();
            tokio::task::yield_now().await;
        }
        forwarder.report(update(4.0)); // below what was sent
        gate.notify_one();
        tokio::task::yield_now().await;
        assert_eq!(*sent.lock().unwrap(), [5.0]);
    }

    #[tokio::test]
    async fn a_gone_client_ends_the_sender_and_lets_flushes_go() {
        let gone = Arc::new(AtomicBool::new(false));
        let (forwarder, flushed) = ProgressForwarder::sending({
            let gone = Arc::clone(&gone);
            move |_| {
                gone.store(true, Ordering::SeqCst);
                async { false }
            }
        });
        forwarder.report(update(1.0));
        tokio::time::timeout(Duration::from_millis(500), flushed.wait())
            .await
            .expect("the flush returns at once when the client is gone");
        assert!(gone.load(Ordering::SeqCst));
    }
}
