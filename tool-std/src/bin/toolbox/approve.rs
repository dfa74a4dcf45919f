//! The console approver: when a call needs the user's approval and `toolbox` runs at a
//! terminal, it asks there. Its answers are the approval scopes: once, for the session, always
//! (kept in the grants file), a rule pattern, or no with guidance for the model.

use std::io::{BufRead, Write};

use tool_core::BoxFuture;
use tool_core::approval::{
    ApprovalRequest, ApprovalResponse, ApprovalScope, Approver, RequestKind,
};

/// Asks on the terminal (stderr for the question, stdin for the answer).
pub struct Console;

impl Approver for Console {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalResponse> {
        let request = request.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || ask(&request))
                .await
                .unwrap_or_else(|_| ApprovalResponse::reject("the approval prompt failed"))
        })
    }
}

fn ask(request: &ApprovalRequest) -> ApprovalResponse {
    let stdin = std::io::stdin();
    let mut stderr = std::io::stderr();
    match &request.kind {
        RequestKind::Plan { plan } => {
            let _ = writeln!(stderr, "\nThe model presents a plan:\n{plan}\n");
        }
        _ => {
            let _ = writeln!(stderr, "\n{}\n  {}", request.preview, request.reason);
        }
    }
    let rule = request.suggested_rule.as_deref();
    loop {
        let pattern = rule.map_or(String::new(), |rule| format!(", [p]attern {rule}"));
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
            "a" | "always" => return ApprovalResponse::Approve(ApprovalScope::Always),
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
                let _ = writeln!(stderr, "`{other}` is not one of the answers.");
            }
        }
    }
}
