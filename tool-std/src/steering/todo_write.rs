//! `todo_write`: the session's task list, replaced whole by each call, validated, kept for the
//! session ([`TodoList`], one per coordinator) and shown back to the model. An application
//! reads it with `coordinator.session_state::<TodoList>()` to show it in its UI; a client that
//! sees only results finds it in the result's structured value (`{"todos": [...]}`).
//!
//! The tool is `read_only`: it changes no file and nothing outside the session, only the list
//! the model keeps for itself, so it needs no permission and plan mode allows it (Claude Code
//! treats `TodoWrite` the same way).

use std::fmt::{self, Write as _};
use std::sync::{Mutex, PoisonError};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_core::context::ToolContext;
use tool_core::{ToolError, ToolOutput, tool};

/// Where an item of the list stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on now; at most one item at a time.
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    /// The box the item is shown with: `[ ]`, `[>]`, `[x]`.
    #[must_use]
    pub const fn marker(self) -> &'static str {
        match self {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[>]",
            TodoStatus::Completed => "[x]",
        }
    }
}

/// One item of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// What is to be done, in the imperative: "Run the tests". (Codex's plan items call it
    /// `step`, Gemini CLI's todos `description`: both are accepted.)
    #[serde(alias = "step", alias = "description")]
    pub content: String,
    /// The same in the present continuous, for a UI to show while the item is in progress:
    /// "Running the tests" (Claude Code's `activeForm`). Optional; a UI falls back to
    /// `content`.
    #[serde(default, alias = "activeForm", skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// `pending`, `in_progress` or `completed`.
    pub status: TodoStatus,
}

impl TodoItem {
    /// What a UI shows for this item: its `active_form` while it is in progress (when it has
    /// one), else its `content`.
    #[must_use]
    pub fn label(&self) -> &str {
        match (&self.active_form, self.status) {
            (Some(active), TodoStatus::InProgress) if !active.trim().is_empty() => active,
            _ => &self.content,
        }
    }
}

/// What is wrong with a list given to [`TodoList::replace`]. Items are named by their index
/// in the list, from 0, as a JSON path would (`todos[2]`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TodoProblem {
    /// An item says nothing.
    #[error("todos[{index}] has empty content; say what is to be done (\"Run the tests\")")]
    EmptyContent {
        /// The item.
        index: usize,
    },
    /// Two items say the same (ignoring case and surrounding spaces).
    #[error(
        "todos[{index}] repeats todos[{first}] (\"{content}\"); keep each task once and update its status instead"
    )]
    Duplicate {
        /// The later item.
        index: usize,
        /// The item it repeats.
        first: usize,
        /// What they say.
        content: String,
    },
    /// Items remain to do but none is in progress.
    #[error(
        "no item is in_progress while {pending} {} pending; mark the one you are working on now in_progress (exactly one at a time, until all are completed)",
        if *pending == 1 { "is" } else { "are" }
    )]
    NoneInProgress {
        /// How many items are pending.
        pending: usize,
    },
    /// More than one item is in progress.
    #[error(
        "{} items are in_progress (todos[{}]); exactly one may be: keep the one you are working on now in_progress and set the others to pending or completed",
        indexes.len(),
        indexes.iter().map(ToString::to_string).collect::<Vec<_>>().join("], todos[")
    )]
    SeveralInProgress {
        /// The items in progress.
        indexes: Vec<usize>,
    },
}

/// Every problem of a list [`TodoList::replace`] refused (at least one), so that all are
/// fixed at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidTodos(pub Vec<TodoProblem>);

impl fmt::Display for InvalidTodos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the todo list was not changed: ")?;
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidTodos {}

/// The session's todo list: what `todo_write` keeps, one per coordinator (a
/// [session value](tool_core::context::ToolContext::session_state)).
///
/// The rule a list must keep: every item has content, no two items say the same, and exactly
/// one item is `in_progress` unless none is left to do (the list is empty or every item is
/// completed), when none may be.
///
/// ```
/// use tool_core::{Coordinator, ToolCall, Toolset};
/// use tool_std::{TodoList, TodoStatus};
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["todo_write"]).unwrap())
///     .build()
///     .unwrap();
/// let call = ToolCall::new(
///     "todo_write",
///     r#"{"todos": [
///         {"content": "Write the parser", "status": "completed"},
///         {"content": "Test it", "activeForm": "Testing it", "status": "in_progress"}
///     ]}"#,
/// );
/// assert!(!coordinator.call_blocking(call).is_error());
///
/// // What an agent's UI shows.
/// let list = coordinator.session_state::<TodoList>().snapshot();
/// assert_eq!(list[1].status, TodoStatus::InProgress);
/// assert_eq!(list[1].label(), "Testing it");
/// ```
#[derive(Debug, Default)]
pub struct TodoList {
    items: Mutex<Vec<TodoItem>>,
}

impl TodoList {
    /// The items as they are now, in order.
    #[must_use]
    pub fn snapshot(&self) -> Vec<TodoItem> {
        self.items
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the whole list, if the new one keeps the rule; else leaves it as it was.
    ///
    /// # Errors
    /// Every way the new list breaks the rule.
    pub fn replace(&self, items: Vec<TodoItem>) -> Result<(), InvalidTodos> {
        let problems = problems(&items);
        if !problems.is_empty() {
            return Err(InvalidTodos(problems));
        }
        *self.items.lock().unwrap_or_else(PoisonError::into_inner) = items;
        Ok(())
    }
}

/// Every way `items` breaks the rule, in the order of the items.
fn problems(items: &[TodoItem]) -> Vec<TodoProblem> {
    let mut problems = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let content = item.content.trim();
        if content.is_empty() {
            problems.push(TodoProblem::EmptyContent { index });
            continue;
        }
        let key = content.to_lowercase();
        match seen.iter().find(|(seen, _)| *seen == key) {
            Some(&(_, first)) => problems.push(TodoProblem::Duplicate {
                index,
                first,
                content: content.to_owned(),
            }),
            None => seen.push((key, index)),
        }
    }
    let in_progress: Vec<usize> = (items.iter().enumerate())
        .filter(|(_, item)| item.status == TodoStatus::InProgress)
        .map(|(index, _)| index)
        .collect();
    let pending = (items.iter())
        .filter(|item| item.status == TodoStatus::Pending)
        .count();
    match in_progress.len() {
        0 if pending > 0 => problems.push(TodoProblem::NoneInProgress { pending }),
        0 | 1 => {}
        _ => problems.push(TodoProblem::SeveralInProgress {
            indexes: in_progress,
        }),
    }
    problems
}

/// The list as the model reads it back: a count, then one line per item with its box.
fn render(items: &[TodoItem]) -> String {
    if items.is_empty() {
        return "The todo list is now empty.".to_owned();
    }
    let done = (items.iter())
        .filter(|item| item.status == TodoStatus::Completed)
        .count();
    let mut text = if done == items.len() {
        format!("Todo list updated: all {done} items completed.")
    } else {
        format!("Todo list updated ({done} of {} completed):", items.len())
    };
    for item in items {
        let _ = write!(text, "\n{} {}", item.status.marker(), item.content.trim());
    }
    text
}

/// Write the session's todo list: the whole list each time, replacing the last one. Use it for
/// work of three steps or more, to plan the steps and show progress: mark an item
/// `in_progress` before starting it (exactly one at a time) and `completed` as soon as it is
/// done; add items found along the way. The list is kept for the session and shown back.
///
/// # Arguments
/// * `todos` - The whole list, in order: each item's `content` (imperative: "Run the tests"), `active_form` (optional, present continuous: "Running the tests") and `status` (`pending`, `in_progress` or `completed`).
#[tool(
    read_only,
    idempotent,
    closed_world,
    name = "todo_write",
    aliases("TodoWrite"),
    tags("steering")
)]
fn todo_write(ctx: &ToolContext, todos: Vec<TodoItem>) -> Result<ToolOutput, ToolError> {
    let list = ctx.session_state::<TodoList>();
    list.replace(todos.clone())
        .map_err(|invalid| ToolError::failed(invalid.to_string()))?;
    // The list as data too, for a client that sees only results (over MCP, say).
    let structured = serde_json::json!({ "todos": todos });
    Ok(ToolOutput::text(render(&todos)).with_structured(structured))
}
