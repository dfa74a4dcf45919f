//! `execute_test_rendezvous`, a tool that proves two calls ran side by side: each call waits
//! for the other. Included by the `execute` tests, in-process and in a worker.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use tool_core::tool;

/// How many calls of `execute_test_rendezvous` have arrived.
static ARRIVED: (Mutex<u32>, Condvar) = (Mutex::new(0), Condvar::new());

/// Wait (up to 10 s) for a second call of this tool to arrive: "met" if one did, else "alone".
#[tool(read_only, blocking, name = "execute_test_rendezvous")]
fn rendezvous() -> &'static str {
    let (arrived, changed) = &ARRIVED;
    let mut count = arrived.lock().unwrap();
    *count += 1;
    changed.notify_all();
    let (count, timeout) = changed
        .wait_timeout_while(count, Duration::from_secs(10), |count| *count < 2)
        .unwrap();
    drop(count);
    if timeout.timed_out() { "alone" } else { "met" }
}
