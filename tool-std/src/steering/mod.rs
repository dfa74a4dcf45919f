//! The tools that steer the agent rather than touch the workspace: `think` (a thought noted),
//! `todo_write` (the session's todo list), `present_plan` (the way out of plan mode),
//! `subtask` (a sub-agent the application runs) and `list_artifacts` / `read_artifact` (the
//! outputs the output limit kept whole). Their engines are the runtime's: the approver, the
//! session's state and the artifact store.

pub(crate) mod list_artifacts;
pub(crate) mod present_plan;
pub(crate) mod read_artifact;
pub(crate) mod subtask;
pub(crate) mod think;
pub(crate) mod todo_write;
