//! The console approver: when a call needs the user's approval and `toolbox` runs at a
//! terminal, it asks there. Its answers are the approval scopes: once, for the session, always
//! (kept in the `permissions.allow` of the settings file given with `--settings`), a rule
//! pattern, or no with guidance for the model. A running tool's own question (a form) is asked
//! there too, field by field ([`form`](crate::form)); the roots a tool asks for are the
//! workspace's; a message from a model cannot be had (`toolbox call` has no model).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use tool_core::BoxFuture;

use crate::form::printable;
use tool_core::approval::{
    Answer, ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, QuestionRequest,
    RequestKind, Root, Sampled, SamplingRequest, Unanswered,
};

/// Set while a prompt waits on the terminal, so the progress line does not write over it.
pub static PROMPTING: AtomicBool = AtomicBool::new(false);

/// Asks on the terminal (stderr for the question, stdin for the answer).
pub struct Console {
    /// Where an "always" answer is kept: the settings file, so the next `toolbox` run with it
    /// allows the tool without asking. Without one, "always" holds for this run only.
    settings: Option<PathBuf>,
    /// The workspace roots, given to a tool that asks for the roots.
    roots: Vec<PathBuf>,
    /// One prompt at a time: two calls asking at once would interleave their lines. Held by
    /// the prompt's thread until it has read its answer, even when nobody waits for it.
    terminal: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl Console {
    /// A console approver keeping "always" answers in `settings`, answering a tool that asks
    /// for the roots with `roots`.
    pub fn new(settings: Option<PathBuf>, roots: Vec<PathBuf>) -> Self {
        Console {
            settings,
            roots,
            terminal: std::sync::Arc::default(),
        }
    }

    /// Runs `prompt` on a thread of its own with the terminal to itself; `None` if it could
    /// not run or panicked.
    ///
    /// A read of the terminal cannot be called off, so a prompt whose asker stops waiting (its
    /// call cancelled or timed out, a server's question withdrawn) runs on until the user
    /// answers it: on a plain thread, which the runtime does not wait for when it shuts down
    /// (on its blocking pool `toolbox call` would hang after printing its result), holding
    /// the terminal meanwhile, so the next prompt waits for it instead of having its first
    /// line read by it, and the progress line stays off until it is done.
    async fn at_terminal<T: Send + 'static>(
        &self,
        prompt: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        /// Clears [`PROMPTING`] when the prompt ends, even by a panic.
        struct Prompting;
        impl Drop for Prompting {
            fn drop(&mut self) {
                PROMPTING.store(false, Ordering::SeqCst);
            }
        }
        let terminal = std::sync::Arc::clone(&self.terminal).lock_owned().await;
        let (answer, answered) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("toolbox-prompt".to_owned())
            .spawn(move || {
                let _terminal = terminal;
                PROMPTING.store(true, Ordering::SeqCst);
                let answered = {
                    let _prompting = Prompting;
                    prompt()
                };
                // After PROMPTING is cleared: whoever waits sees the terminal free.
                let _ = answer.send(answered);
            })
            .ok()?;
        answered.await.ok()
    }
}

impl Approver for Console {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let request = request.clone();
        let settings = self.settings.clone();
        Box::pin(async move {
            self.at_terminal(move || ask(&request, settings.as_deref()))
                .await
                .unwrap_or_else(|| ApprovalResponse::reject("the approval prompt failed"))
        })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a QuestionRequest,
    ) -> BoxFuture<'a, Result<Answer, Unanswered>> {
        let request = request.clone();
        Box::pin(async move {
            self.at_terminal(move || {
                let stdin = std::io::stdin();
                crate::form::ask(
                    &request.tool,
                    &request.question,
                    &mut stdin.lock(),
                    &mut std::io::stderr(),
                )
            })
            .await
            .ok_or_else(|| Unanswered::new("the question's prompt on the terminal failed"))
        })
    }

    fn sample<'a>(
        &'a self,
        tool: &'a str,
        _request: &'a SamplingRequest,
    ) -> BoxFuture<'a, Result<Sampled, Unanswered>> {
        Box::pin(std::future::ready(Err(Unanswered::new(format!(
            "`{tool}` asked for a message from a model, but `toolbox call` runs without one (it answers forms and roots only); serve the tool to an MCP client that samples, or do without"
        )))))
    }

    fn list_roots<'a>(&'a self, _tool: &'a str) -> BoxFuture<'a, Result<Vec<Root>, Unanswered>> {
        let roots = self
            .roots
            .iter()
            .map(|root| Root::directory(root))
            .collect();
        Box::pin(std::future::ready(Ok(roots)))
    }
}

fn ask(request: &ApprovalRequest, settings: Option<&Path>) -> ApprovalResponse {
    let stdin = std::io::stdin();
    let mut stderr = std::io::stderr();
    match &request.kind {
        // The model's text (and an imported server's): escape sequences are shown, not sent.
        RequestKind::Plan { plan } => {
            let _ = writeln!(
                stderr,
                "\nThe model presents a plan:\n{}\n",
                printable(plan, true)
            );
        }
        _ => {
            let _ = writeln!(
                stderr,
                "\n{}\n  {}",
                printable(&request.preview, true),
                printable(&request.reason, true)
            );
        }
    }
    let rule = request.suggested_rule.as_deref();
    loop {
        let pattern = rule.map_or(String::new(), |rule| {
            format!(", [p]attern {}", printable(rule, false))
        });
        let _ = write!(
            stderr,
            "Allow? [y]es once, [s]ession, [a]lways{pattern}, [n]o: "
        );
        let _ = stderr.flush();
        let mut answer = String::new();
        if stdin.lock().read_line(&mut answer).unwrap_or(0) == 0 {
            return ApprovalResponse::reject("no answer: the terminal closed");
        }
        match answer.trim() {
            "y" | "yes" => return ApprovalResponse::Approve(ApprovalScope::Once),
            "s" | "session" => return ApprovalResponse::Approve(ApprovalScope::Session),
            "a" | "always" => return always(&request.tool, settings, &mut stderr),
            "p" | "pattern" if rule.is_some() => {
                return ApprovalResponse::Approve(ApprovalScope::Pattern {
                    rule: rule.unwrap_or_default().to_owned(),
                    always: false,
                });
            }
            "n" | "no" => {
                let _ = write!(
                    stderr,
                    "What should the model do instead? (enter to skip): "
                );
                let _ = stderr.flush();
                let mut guidance = String::new();
                let _ = stdin.lock().read_line(&mut guidance);
                let guidance = guidance.trim();
                return if guidance.is_empty() {
                    ApprovalResponse::Reject { guidance: None }
                } else {
                    ApprovalResponse::reject(guidance)
                };
            }
            other => {
                let pattern = if rule.is_some() { " p," } else { "" };
                let _ = writeln!(
                    stderr,
                    "`{other}` is not one of the answers: type y, s, a,{pattern} or n, then enter."
                );
            }
        }
    }
}

/// "Always": the tool is added to the settings file's `permissions.allow`, which the next run
/// reads, and allowed for the rest of this one. The coordinator is told "session", not
/// "always": `toolbox` gives it no grants file, and the settings file is where a user of
/// Claude Code's format looks for what they allowed.
fn always(tool: &str, settings: Option<&Path>, stderr: &mut impl Write) -> ApprovalResponse {
    match settings {
        Some(path) => match keep_in_settings(path, tool) {
            Ok(()) => {
                let _ = writeln!(stderr, "Allowed `{tool}` in {}.", path.display());
            }
            Err(error) => {
                let _ = writeln!(stderr, "Allowed `{tool}` for this run only: {error}.");
            }
        },
        None => {
            let _ = writeln!(
                stderr,
                "Allowed `{tool}` for this run only: give a settings file with --settings to keep it."
            );
        }
    }
    ApprovalResponse::Approve(ApprovalScope::Session)
}

/// Why an "always" answer could not be kept in the settings file.
#[derive(Debug, thiserror::Error)]
enum KeepError {
    #[error("cannot read or write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not JSON ({source}); expected a settings object like {{\"permissions\": {{\"allow\": []}}}}", path.display())]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{} has no room for the rule: `{key}` is not a JSON {expected}", path.display())]
    Shape {
        path: PathBuf,
        key: &'static str,
        expected: &'static str,
    },
}

/// Adds `rule` (once) to `permissions.allow` in the settings file, keeping every other key, and
/// replaces the file atomically (a temporary file beside it, then a rename).
fn keep_in_settings(path: &Path, rule: &str) -> Result<(), KeepError> {
    let io = |source| KeepError::Io {
        path: path.to_owned(),
        source,
    };
    let shape = |key, expected| KeepError::Shape {
        path: path.to_owned(),
        key,
        expected,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => "{}".to_owned(),
        Err(error) => return Err(io(error)),
    };
    let mut document: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| KeepError::Invalid {
            path: path.to_owned(),
            source,
        })?;
    let permissions = document
        .as_object_mut()
        .ok_or_else(|| shape("the file", "object"))?
        .entry("permissions")
        .or_insert_with(|| serde_json::json!({}))
        .as_object_mut()
        .ok_or_else(|| shape("permissions", "object"))?;
    let allow = permissions
        .entry("allow")
        .or_insert_with(|| serde_json::json!([]))
        .as_array_mut()
        .ok_or_else(|| shape("permissions.allow", "array"))?;
    if allow.iter().any(|existing| existing == rule) {
        return Ok(());
    }
    allow.push(serde_json::Value::from(rule));
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    crate::replace::replace_file(path, text.as_bytes(), None).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_the_workspace_and_sampling_is_refused_saying_why() {
        let console = Console::new(None, vec![PathBuf::from("/srv/project")]);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let roots = runtime.block_on(console.list_roots("t")).unwrap();
        assert_eq!(
            roots,
            [Root::new("file:///srv/project/", Some("project".into()))]
        );
        let refused = runtime
            .block_on(console.sample("t", &SamplingRequest::new("hi", 5)))
            .unwrap_err();
        assert!(refused.reason.contains("runs without one"), "{refused}");
    }

    #[test]
    fn an_abandoned_prompt_neither_holds_up_the_exit_nor_lets_the_next_prompt_in() {
        let console = std::sync::Arc::new(Console::new(None, Vec::new()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let started = std::time::Instant::now();
        runtime.block_on(async {
            // The user never answers the first prompt while its asker waits.
            let first = std::sync::Arc::clone(&order);
            let abandoned = tokio::time::timeout(
                std::time::Duration::from_millis(50),
                console.at_terminal(move || {
                    std::thread::sleep(std::time::Duration::from_millis(400));
                    first.lock().unwrap().push("first");
                }),
            )
            .await;
            assert!(abandoned.is_err());
            let second = std::sync::Arc::clone(&order);
            console
                .at_terminal(move || second.lock().unwrap().push("second"))
                .await
                .unwrap();
        });
        // The next prompt waited for the abandoned one to have its line.
        assert_eq!(*order.lock().unwrap(), ["first", "second"]);
        assert!(!PROMPTING.load(Ordering::SeqCst));
        // An abandoned prompt still reading does not keep the runtime from shutting down.
        let console2 = std::sync::Arc::clone(&console);
        runtime.spawn(async move {
            console2
                .at_terminal(|| std::thread::sleep(std::time::Duration::from_secs(5)))
                .await
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let dropping = std::time::Instant::now();
        drop(runtime);
        assert!(
            dropping.elapsed() < std::time::Duration::from_secs(2),
            "the runtime waited {:?} for a prompt nobody waits for",
            dropping.elapsed()
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(4));
    }
}
