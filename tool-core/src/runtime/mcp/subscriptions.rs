//! The served tool list and how its changes reach clients: [`ToolList`] makes the `tools/list`
//! entries once per toolset generation (the coordinator's toolset can change while served,
//! [`Coordinator::update_toolset`]); [`announce_to_peer`] tells a 2025-11-25 client with
//! `notifications/tools/list_changed`; [`listen`] serves a 2026-07-28 `subscriptions/listen`
//! stream.
//!
//! Both ways coalesce a burst of changes into one announcement ([`COALESCE`]) and say nothing
//! when the list a client would fetch is the same as the one last announced (a tool replaced by
//! an identical one, a change undone).

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use rmcp::model::{SubscriptionFilter, Tool as McpTool};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};

use crate::Coordinator;
use crate::coordinator::ToolsetChanges;
use crate::schema::{Dialect, export_tool};

/// How long after a change the announcement waits for more changes, so that a burst (a
/// server re-importing ten tools) is one `list_changed`.
pub(super) const COALESCE: Duration = Duration::from_millis(50);

/// How often a 2025-11-25 announcer checks that its connection is still open when nothing
/// changes: it holds no more than a task and a channel receiver meanwhile.
const PEER_CHECK: Duration = Duration::from_secs(30);

/// The `tools/list` entries of a coordinator's toolset, made once per generation.
pub(super) struct ToolList {
    coordinator: Coordinator,
    changes: ToolsetChanges,
    made: Mutex<Made>,
}

/// The list as last made.
struct Made {
    /// The toolset generation it was made from.
    generation: u64,
    tools: Arc<[McpTool]>,
    /// Counts the lists made that differ from the one made before: what a client may have
    /// seen. A change and its undoing within one announcement's wait are announced when a
    /// client could have listed the state in between, and only then.
    version: u64,
}

impl ToolList {
    pub(super) fn new(coordinator: Coordinator) -> Self {
        let changes = coordinator.toolset_changes();
        let generation = changes.generation();
        let tools = declare(&coordinator);
        ToolList {
            coordinator,
            changes,
            made: Mutex::new(Made {
                generation,
                tools,
                version: 0,
            }),
        }
    }

    /// The entries as they are now, in the toolset's order (by name).
    pub(super) fn current(&self) -> Arc<[McpTool]> {
        self.current_version().0
    }

    /// The entries as they are now, and the version of the list (see [`Made::version`]).
    fn current_version(&self) -> (Arc<[McpTool]>, u64) {
        let generation = self.changes.generation();
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        if made.generation != generation {
            // A change that lands while this runs moves the generation again: the next
            // caller makes the list anew, so nothing newer is ever hidden.
            let tools = declare(&self.coordinator);
            if tools != made.tools {
                made.version += 1;
                made.tools = tools;
            }
            made.generation = generation;
        }
        (Arc::clone(&made.tools), made.version)
    }

    pub(super) fn changes(&self) -> ToolsetChanges {
        self.coordinator.toolset_changes()
    }
}

/// The toolset as MCP tools. A tool the MCP dialect cannot declare is left out (and logged).
fn declare(coordinator: &Coordinator) -> Arc<[McpTool]> {
    coordinator
        .toolset()
        .iter()
        .filter_map(|tool| {
            let declared = export_tool(&**tool, Dialect::Mcp)
                .map_err(|error| tracing::warn!(%error, "tool left out of tools/list"))
                .ok()?;
            serde_json::from_value::<McpTool>(declared.definition)
                .map_err(|error| {
                    tracing::warn!(tool = %tool.spec().name, %error, "tool left out of tools/list");
                })
                .ok()
        })
        .collect()
}

/// Waits for the next change that alters the list: a burst is waited out ([`COALESCE`]), and a
/// change that leaves the list as it was (version `last`, see [`Made::version`]) is not one.
/// `None` when the coordinator is gone.
async fn next_change(
    version: impl Fn() -> Option<u64>,
    changes: &mut ToolsetChanges,
    last: &mut u64,
) -> Option<()> {
    loop {
        changes.changed().await?;
        tokio::time::sleep(COALESCE).await;
        if changes.has_changed() {
            // Seen now: the list made below includes it.
            changes.changed().await?;
        }
        let now = version()?;
        if now != *last {
            *last = now;
            return Some(());
        }
    }
}

/// Sends `notifications/tools/list_changed` to a 2025-11-25 client on each change of the list,
/// until the connection closes (checked on each change and every [`PEER_CHECK`]) or the
/// server is gone. The task holds the list weakly, so it keeps neither the server nor its
/// coordinator alive.
pub(super) fn announce_to_peer(list: &Arc<ToolList>, peer: Peer<RoleServer>) {
    let mut changes = list.changes();
    let mut last = list.current_version().1;
    let list = Arc::downgrade(list);
    let current = move || Weak::upgrade(&list).map(|list| list.current_version().1);
    tokio::spawn(async move {
        loop {
            let change = tokio::select! {
                change = next_change(&current, &mut changes, &mut last) => change,
                () = closed(&peer) => None,
            };
            if change.is_none() || peer.notify_tool_list_changed().await.is_err() {
                return;
            }
        }
    });
}

/// Resolves once `peer`'s connection has closed.
async fn closed(peer: &Peer<RoleServer>) {
    while !peer.is_transport_closed() {
        tokio::time::sleep(PEER_CHECK).await;
    }
}

/// What a `subscriptions/listen` request may have: tool list changes, the only list that
/// changes here.
pub(super) fn accepted_filter() -> SubscriptionFilter {
    SubscriptionFilter::builder().tools_list_changed().build()
}

/// Serves one `subscriptions/listen` stream (rmcp has already acknowledged it with the accepted
/// filter): `notifications/tools/list_changed` on each change of the list when the client asked
/// for it, nothing otherwise, until the client cancels (or closes the stream) or the
/// coordinator is gone.
pub(super) async fn listen(list: &ToolList, subscription: SubscriptionContext) {
    if subscription.accepted().tools_list_changed != Some(true) {
        subscription.cancelled().await;
        return;
    }
    let mut changes = list.changes();
    let mut last = list.current_version().1;
    loop {
        let change = tokio::select! {
            change = next_change(|| Some(list.current_version().1), &mut changes, &mut last) => change,
            () = subscription.cancelled() => return,
        };
        if change.is_none() {
            subscription.cancelled().await;
            return;
        }
        if let Err(error) = subscription.sink().notify_tool_list_changed().await {
            tracing::debug!(%error, "a subscriptions/listen stream could not be told of a change");
            return;
        }
    }
}
