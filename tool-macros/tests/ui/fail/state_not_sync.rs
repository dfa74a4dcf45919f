use std::cell::Cell;

use tool_core::{tool, State};

/// Count with state that is not `Sync`.
#[tool]
fn count(counter: State<Cell<u32>>) -> u32 {
    counter.set(counter.get() + 1);
    counter.get()
}

fn main() {}
