//! A run's total memory, in-process: [`CountingAllocator`], a global allocator that counts the
//! process's live bytes where monty's resource limits read them, so that
//! [`CodeModeConfig::max_memory`](super::CodeModeConfig::max_memory) bounds what a run adds
//! to the process (`x.append('a' * 10**8)` in a loop raises `MemoryError` at the limit, instead
//! of growing the agent by gigabytes).
//!
//! monty checks a run's memory against a count a global allocator keeps (its own worker
//! installs `monty-alloc`, which also ends the process past a hard ceiling: right for a
//! worker, wrong for an agent). A library cannot install a global allocator; a program can,
//! with one line, and `toolbox` does. Where none counts, a run's memory is bounded per
//! allocation only ([`CodeModeConfig::max_allocation`](super::CodeModeConfig::max_allocation)),
//! and `execute`'s [`Isolation::Worker`](super::Isolation::Worker) bounds the whole run instead.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::Ordering;

use monty_types::{BASELINE_MEMORY, LIVE_MEMORY};

/// The system allocator, counting the live bytes of the process for monty's memory limit.
/// Install it in the program that links tool-std, and in-process runs of `execute` are
/// bounded in total by [`CodeModeConfig::max_memory`](super::CodeModeConfig::max_memory):
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: tool_std::code::CountingAllocator = tool_std::code::CountingAllocator;
/// # fn main() { assert!(tool_std::code::counts_memory()); }
/// ```
///
/// The count is the whole process's: another thread's allocations during a run count toward
/// it too, so a busy agent may see a run stopped a little early, never late. Runs at the same
/// time share one baseline, the moment the latest of them started.
pub struct CountingAllocator;

// SAFETY: every method forwards its arguments unchanged to `System` and returns what `System`
// returned; the only addition is an atomic counter, which neither allocates nor touches the
// memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `layout` is the caller's, forwarded unchanged.
        counted(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_MEMORY.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `layout` is the caller's, forwarded unchanged (`System` keeps calloc's
        // pre-zeroed pages).
        counted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` and `layout` describe a live block of this allocator; `new_size` is
        // the caller's.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        // A failed realloc leaves the old block as it was: nothing changes hands.
        if !moved.is_null() {
            if new_size >= layout.size() {
                LIVE_MEMORY.fetch_add(new_size - layout.size(), Ordering::Relaxed);
            } else {
                LIVE_MEMORY.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        moved
    }
}

/// Counts `size` bytes when the allocation behind `ptr` was made (a null one was not).
fn counted(ptr: *mut u8, size: usize) -> *mut u8 {
    if !ptr.is_null() {
        LIVE_MEMORY.fetch_add(size, Ordering::Relaxed);
    }
    ptr
}

/// `true` when [`CountingAllocator`] (or monty's own) is the program's global allocator, so
/// a run's total memory can be bounded.
#[must_use]
pub fn counts_memory() -> bool {
    LIVE_MEMORY.load(Ordering::Relaxed) > 0
}

/// Starts a run's count: what the process holds now is not the run's. Returns whether the
/// count is kept at all.
pub(super) fn arm() -> bool {
    let live = LIVE_MEMORY.load(Ordering::Relaxed);
    if live == 0 {
        return false;
    }
    BASELINE_MEMORY.store(live, Ordering::Relaxed);
    true
}
