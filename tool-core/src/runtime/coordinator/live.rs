//! The coordinator's toolset while it runs: tools added, removed or replaced at any time
//! ([`Coordinator::update_toolset`](super::Coordinator::update_toolset)), each call deciding on
//! a snapshot, and a generation number that moves on every real change
//! ([`ToolsetChanges`]), which is what an MCP server announces as `list_changed`.

use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::watch;

use crate::Toolset;
use crate::definition::tool::ToolHandle;

/// The current toolset and the generation that counts its changes.
pub(crate) struct LiveToolset {
    /// Replaced whole on a change, like the session's policy context: a call that took the
    /// snapshot keeps the tool it started with.
    current: RwLock<Arc<Toolset>>,
    generation: watch::Sender<u64>,
}

impl LiveToolset {
    pub(crate) fn new(toolset: Toolset) -> Self {
        LiveToolset {
            current: RwLock::new(Arc::new(toolset)),
            generation: watch::Sender::new(0),
        }
    }

    pub(crate) fn snapshot(&self) -> Arc<Toolset> {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(&current)
    }

    /// Runs `change` on a copy of the toolset and puts the copy in place, moving the
    /// generation, only when a tool was added, removed or replaced. Updates are serialized:
    /// the lock is held while `change` runs, so two updates never lose each other's tools.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut Toolset) -> R) -> R {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let mut next = Toolset::clone(&current);
        let answer = change(&mut next);
        if !same_tools(&current, &next) {
            *current = Arc::new(next);
            // `send_modify` updates the value even when nobody listens (`send` would not).
            self.generation.send_modify(|generation| *generation += 1);
        }
        answer
    }

    pub(crate) fn changes(&self) -> ToolsetChanges {
        ToolsetChanges {
            receiver: self.generation.subscribe(),
        }
    }
}

/// Whether two toolsets hold the very same tools (by name, and the same tool behind each).
fn same_tools(before: &Toolset, after: &Toolset) -> bool {
    before.len() == after.len()
        && before
            .iter()
            .zip(after.iter())
            .all(|(a, b)| same_tool(a, b))
}

fn same_tool(a: &ToolHandle, b: &ToolHandle) -> bool {
    match (a, b) {
        // A linked tool is known by its name and where it is defined (the registry keeps both
        // unique); its address says nothing, as a unit type's statics may share one.
        (ToolHandle::Static(a), ToolHandle::Static(b)) => {
            a.spec().name == b.spec().name && a.spec().location == b.spec().location
        }
        // A run-time tool is the value behind the `Arc`: a new value under the same name is a
        // replacement (its schema or description may differ).
        (ToolHandle::Shared(a), ToolHandle::Shared(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// Tells when a coordinator's toolset changes: each real change (a tool added, removed or
/// replaced) moves a generation number; an update that changes nothing does not. Changes that
/// come faster than they are awaited are seen as one, with the latest generation.
///
/// ```
/// use tool_core::{tool, Coordinator, Toolset};
///
/// /// Say hello.
/// #[tool(read_only, name = "doc_toolsetchanges_hello")]
/// fn hello() -> &'static str { "hello" }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let coordinator = Coordinator::builder().toolset(Toolset::empty()).build().unwrap();
/// let mut changes = coordinator.toolset_changes();
/// coordinator.add_tool(Toolset::named(["doc_toolsetchanges_hello"]).unwrap().iter().next().unwrap().clone()).unwrap();
/// assert_eq!(changes.changed().await, Some(1));
/// assert!(coordinator.toolset().contains("doc_toolsetchanges_hello"));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct ToolsetChanges {
    receiver: watch::Receiver<u64>,
}

impl ToolsetChanges {
    /// Changes told through `receiver` (an imported server's list, say).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn from_receiver(receiver: watch::Receiver<u64>) -> Self {
        ToolsetChanges { receiver }
    }

    /// Waits for a change not seen yet by this handle and returns the generation it reached;
    /// `None` once the coordinator is gone (nothing will change any more).
    pub async fn changed(&mut self) -> Option<u64> {
        self.receiver.changed().await.ok()?;
        Some(*self.receiver.borrow_and_update())
    }

    /// The generation now: 0 for the toolset the coordinator was built with, one more for
    /// each change since.
    #[must_use]
    pub fn generation(&self) -> u64 {
        *self.receiver.borrow()
    }

    /// Whether a change happened that [`changed`](Self::changed) has not returned yet.
    #[must_use]
    pub fn has_changed(&self) -> bool {
        self.receiver.has_changed().unwrap_or(false)
    }
}
