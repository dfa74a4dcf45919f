//! [`Artifacts`]: whole outputs kept for the model to page through.

use std::sync::{Arc, Mutex};

/// Whole outputs kept when the output limit cuts them, for the model to page through (the
/// standard library's `read_artifact` and `list_artifacts` tools). Cheap to clone; clones share
/// the store. The oldest artifacts are dropped when the store passes its size cap.
///
/// ```
/// use tool_core::middleware::Artifacts;
///
/// let artifacts = Artifacts::new(1 << 20);
/// let id = artifacts.store("grep", "call_1", "a\nb\nc\nd".to_owned());
/// assert_eq!(artifacts.read(&id, 2, 2).unwrap(), "b\nc");
/// assert!(artifacts.read("art_99", 1, 10).unwrap_err().contains(&id));
/// ```
#[derive(Debug, Clone)]
pub struct Artifacts {
    inner: Arc<Mutex<ArtifactStore>>,
}

#[derive(Debug)]
struct ArtifactStore {
    /// What every id this store gives starts with: `art_` unless set.
    prefix: String,
    next_id: u64,
    bytes: usize,
    max_bytes: usize,
    /// The output limit's size, when one cuts what tools return into this store.
    page_chars: Option<usize>,
    items: std::collections::VecDeque<Artifact>,
}

impl ArtifactStore {
    /// Keeps `artifact` as the newest, dropping the oldest past the size cap.
    fn push(&mut self, artifact: Artifact) {
        self.bytes += artifact.text.len();
        self.items.push_back(artifact);
        while self.bytes > self.max_bytes && self.items.len() > 1 {
            if let Some(old) = self.items.pop_front() {
                self.bytes -= old.text.len();
            }
        }
    }
}

/// One kept output.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// Its id (`art_1`, `art_2`, ...).
    pub id: String,
    /// The tool that produced it.
    pub tool: String,
    /// The call that produced it.
    pub call_id: String,
    /// The whole text.
    pub text: Arc<str>,
}

impl Default for Artifacts {
    fn default() -> Self {
        Artifacts::new(64 << 20)
    }
}

impl Artifacts {
    /// A store that keeps at most `max_bytes` of text (the newest artifact is always kept).
    #[must_use]
    pub fn new(max_bytes: usize) -> Self {
        Artifacts {
            inner: Arc::new(Mutex::new(ArtifactStore {
                prefix: "art_".to_owned(),
                next_id: 1,
                bytes: 0,
                max_bytes,
                page_chars: None,
                items: std::collections::VecDeque::new(),
            })),
        }
    }

    /// An empty store with this one's limits, for another session of the same coordinator.
    pub(crate) fn empty_like(&self) -> Self {
        let store = self.lock();
        let empty = Artifacts::new(store.max_bytes);
        empty.lock().prefix.clone_from(&store.prefix);
        if let Some(chars) = store.page_chars {
            empty.set_page_chars(chars);
        }
        empty
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ArtifactStore> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The most characters of text a tool's output may hold and reach the model uncut: the
    /// coordinator's [`output_limit`](crate::coordinator::CoordinatorBuilder::output_limit),
    /// `None` without one. A tool paging through an artifact keeps each page under it, so
    /// that the page is not itself cut and kept again.
    ///
    /// ```
    /// use tool_core::{Coordinator, middleware::Artifacts};
    ///
    /// let store = Artifacts::new(1 << 20);
    /// assert_eq!(store.page_chars(), None);
    /// let _coordinator = Coordinator::builder()
    ///     .state(store.clone()) // the store the output limit keeps outputs in
    ///     .output_limit(5_000)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(store.page_chars(), Some(5_000));
    /// ```
    #[must_use]
    pub fn page_chars(&self) -> Option<usize> {
        self.lock().page_chars
    }

    /// Records the output limit that cuts outputs into this store.
    pub(crate) fn set_page_chars(&self, chars: usize) {
        self.lock().page_chars = Some(chars);
    }

    /// This store, giving ids that start with `prefix` instead of `art_`, numbered from
    /// `first`: for a store whose artifacts join another's (`toolbox call --session` keeps
    /// background jobs in a process of their own, whose artifacts join the session's, and a
    /// later such process numbers on), so that no id is given twice.
    ///
    /// ```
    /// use tool_core::middleware::Artifacts;
    ///
    /// let jobs = Artifacts::new(1 << 20).with_ids("art_job_", 4);
    /// assert_eq!(jobs.store("shell_output", "call_1", "log".to_owned()), "art_job_4");
    /// ```
    #[must_use]
    pub fn with_ids(self, prefix: impl Into<String>, first: u64) -> Self {
        {
            let mut store = self.lock();
            store.prefix = prefix.into();
            store.next_id = first.max(1);
        }
        self
    }

    /// Keeps a text; returns its id.
    pub fn store(&self, tool: &str, call_id: &str, text: String) -> String {
        let mut store = self.lock();
        let id = format!("{}{}", store.prefix, store.next_id);
        store.next_id += 1;
        store.push(Artifact {
            id: id.clone(),
            tool: tool.to_owned(),
            call_id: call_id.to_owned(),
            text: text.into(),
        });
        id
    }

    /// Keeps `artifact` under its own id, as the newest: for a store filled again from what an
    /// earlier run kept (`toolbox call --session`). Ids given later follow the highest one
    /// restored, so none is given twice; an artifact with an id already kept replaces it.
    ///
    /// ```
    /// use tool_core::middleware::{Artifact, Artifacts};
    ///
    /// let earlier = Artifacts::new(1 << 20);
    /// earlier.store("grep", "call_1", "a".to_owned());
    /// earlier.store("grep", "call_2", "b".to_owned());
    ///
    /// let later = Artifacts::new(1 << 20);
    /// for artifact in earlier.list() {
    ///     later.restore(artifact);
    /// }
    /// assert_eq!(later.read("art_2", 1, 1).unwrap(), "b");
    /// assert_eq!(later.store("grep", "call_3", "c".to_owned()), "art_3");
    /// ```
    pub fn restore(&self, artifact: Artifact) {
        let mut store = self.lock();
        let own_number = artifact
            .id
            .strip_prefix(store.prefix.as_str())
            .and_then(|number| number.parse::<u64>().ok());
        if let Some(number) = own_number {
            store.next_id = store.next_id.max(number.saturating_add(1));
        }
        if let Some(at) = store.items.iter().position(|kept| kept.id == artifact.id)
            && let Some(old) = store.items.remove(at)
        {
            store.bytes -= old.text.len();
        }
        store.push(artifact);
    }

    /// The artifact with this id.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<Artifact> {
        self.lock().items.iter().find(|a| a.id == id).cloned()
    }

    /// Every artifact kept, oldest first.
    #[must_use]
    pub fn list(&self) -> Vec<Artifact> {
        self.lock().items.iter().cloned().collect()
    }

    /// `limit` lines of an artifact from line `offset` (1-based).
    ///
    /// # Errors
    /// A message for the model when no artifact has that id, naming the ids there are.
    pub fn read(&self, id: &str, offset: usize, limit: usize) -> Result<String, String> {
        let Some(artifact) = self.get(id) else {
            let ids: Vec<String> = self.lock().items.iter().map(|a| a.id.clone()).collect();
            return Err(if ids.is_empty() {
                format!("no artifact `{id}`: no output has been kept in this session")
            } else {
                format!("no artifact `{id}`; the artifacts are: {}", ids.join(", "))
            });
        };
        let lines: Vec<&str> = artifact
            .text
            .lines()
            .skip(offset.saturating_sub(1))
            .take(limit)
            .collect();
        Ok(lines.join("\n"))
    }
}
