//! A progress line on stderr while a long call runs, at a terminal only: the tool's name and
//! the seconds it has taken, cleared when it ends.

use std::future::Future;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Runs `call`, showing a progress line after the first second when stderr is a terminal.
pub async fn while_running<T>(tool: &str, call: impl Future<Output = T>) -> T {
    if !std::io::stderr().is_terminal() {
        return call.await;
    }
    let started = Instant::now();
    let mut shown = false;
    let mut ticks = tokio::time::interval_at(
        tokio::time::Instant::now() + Duration::from_secs(1),
        Duration::from_secs(1),
    );
    tokio::pin!(call);
    let output = loop {
        tokio::select! {
            output = &mut call => break output,
            _ = ticks.tick() => {
                // Not over a prompt that waits for the user (the line would land in it).
                if crate::approve::PROMPTING.load(std::sync::atomic::Ordering::SeqCst) {
                    continue;
                }
                shown = true;
                let _ = write!(
                    std::io::stderr(),
                    "\r{tool}: running, {}s",
                    started.elapsed().as_secs()
                );
                let _ = std::io::stderr().flush();
            }
        }
    };
    if shown {
        let _ = write!(std::io::stderr(), "\r\x1b[2K");
    }
    output
}
