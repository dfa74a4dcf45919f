//! The argument types that name resources: [`WorkspacePath`] (a path, resolved against the
//! workspace as it is parsed) and [`WebUrl`] (a URL, checked as it is parsed).

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::scope::resolve_in_scope;
use super::{Normalization, Resolution, Workspace};

/// A path argument, relative to the workspace root or absolute. Its type marks the argument as
/// a path resource, so policy rules on paths apply to it.
///
/// Parsed by a coordinator with a workspace, it arrives resolved: [`Workspace::resolve_lenient`]
/// has expanded `~` and environment variables (always, as a shell would) or applied the
/// normalizations (a redundant workspace name, a wrong first component), so
/// [`as_path`](Self::as_path) is where the file is (or is to be created), the very path the
/// workspace boundary checked, and [`normalization`](Self::normalization) says what was
/// changed, for the tool to tell the model. Parsed anywhere else it is kept as sent. It
/// serializes as sent.
///
/// ```
/// use tool_core::{tool, Coordinator, ToolCall, Toolset, Workspace, WorkspacePath};
///
/// /// Show where a file is.
/// #[tool(read_only, name = "doc_workspacepath_locate")]
/// fn locate(path: WorkspacePath) -> String {
///     let found = path.as_path().display();
///     match path.normalization() {
///         // Tell the model, so that its next call sends the right path.
///         Some(normalization) => format!("{found} ({normalization})"),
///         None => found.to_string(),
///     }
/// }
///
/// let parent = tempfile::tempdir().unwrap();
/// let root = parent.path().join("myproj");
/// std::fs::create_dir_all(root.join("src")).unwrap();
/// std::fs::write(root.join("src/lib.rs"), "").unwrap();
/// let ws = Workspace::new(&root).unwrap();
///
/// let coordinator = Coordinator::builder()
///     .toolset(Toolset::named(["doc_workspacepath_locate"]).unwrap())
///     .workspace(ws.clone())
///     .build()
///     .unwrap();
/// let call = ToolCall::new("doc_workspacepath_locate", r#"{"path": "myproj/src/lib.rs"}"#);
/// assert_eq!(
///     coordinator.call_blocking(call).text(),
///     format!(
///         "{} (resolved `myproj/src/lib.rs` as `src/lib.rs` (the workspace is `myproj`))",
///         ws.root().join("src/lib.rs").display()
///     )
/// );
///
/// // Made by hand (in a test, say), it is kept as sent.
/// let path = WorkspacePath::new("src/lib.rs");
/// assert!(!path.is_resolved());
/// assert_eq!(path.in_workspace(&ws), ws.root().join("src/lib.rs"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WorkspacePath {
    sent: PathBuf,
    resolution: Option<Resolution>,
    /// See [`WorkspacePath::to_create`].
    unrepaired: Option<PathBuf>,
}

impl WorkspacePath {
    /// A path argument, not resolved.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        WorkspacePath {
            sent: path.into(),
            resolution: None,
            unrepaired: None,
        }
    }

    /// This path as a tool that creates, replaces as a whole, moves to or deletes a file must
    /// take it: as resolved, unless the resolution dropped a first component and so landed on
    /// another file or directory that exists (`docs/notes.txt`, with no `docs`, resolved as the
    /// existing `notes.txt`). That repair is a guess at a file to read; acting on it would
    /// overwrite or delete the file it found. Then the path is taken as sent, and the tool
    /// creates `docs/notes.txt`. The coordinator checks both paths against the boundary and
    /// the policy for every call that is not read-only.
    ///
    /// ```
    /// use tool_core::{tool, Coordinator, ToolCall, Toolset, Workspace, WorkspacePath};
    ///
    /// /// Where a new file would go.
    /// #[tool(read_only, name = "doc_workspacepath_to_create")]
    /// fn to_create(path: WorkspacePath) -> String {
    ///     format!("{} / {}", path.as_path().display(), path.to_create().as_path().display())
    /// }
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("notes.txt"), "kept").unwrap();
    /// let ws = Workspace::new(dir.path()).unwrap();
    /// let coordinator = Coordinator::builder()
    ///     .toolset(Toolset::named(["doc_workspacepath_to_create"]).unwrap())
    ///     .workspace(ws.clone())
    ///     .build()
    ///     .unwrap();
    /// let call = ToolCall::new("doc_workspacepath_to_create", r#"{"path": "docs/notes.txt"}"#);
    /// // Read, it is the file that exists; created, it is the path as sent.
    /// assert_eq!(
    ///     coordinator.call_blocking(call).text(),
    ///     format!(
    ///         "{} / {}",
    ///         ws.root().join("notes.txt").display(),
    ///         ws.root().join("docs/notes.txt").display()
    ///     )
    /// );
    /// ```
    #[must_use]
    pub fn to_create(&self) -> WorkspacePath {
        match &self.unrepaired {
            Some(path) => WorkspacePath {
                sent: self.sent.clone(),
                resolution: Some(Resolution {
                    path: path.clone(),
                    normalization: None,
                }),
                unrepaired: None,
            },
            None => self.clone(),
        }
    }

    /// Where the path points: absolute when it was resolved against a workspace, otherwise
    /// as sent. The policy's path rules see this.
    #[must_use]
    pub fn as_path(&self) -> &Path {
        self.resolution
            .as_ref()
            .map_or(&self.sent, |resolution| &resolution.path)
    }

    /// The path as the model sent it.
    #[must_use]
    pub fn sent(&self) -> &Path {
        &self.sent
    }

    /// The normalization that resolved it, when one was needed.
    #[must_use]
    pub fn normalization(&self) -> Option<&Normalization> {
        self.resolution.as_ref()?.normalization.as_ref()
    }

    /// `true` when it was resolved against a workspace.
    #[must_use]
    pub fn is_resolved(&self) -> bool {
        self.resolution.is_some()
    }

    /// The path to use in `workspace`: as resolved, or, when it was not, as sent joined onto the
    /// workspace's first root.
    #[must_use]
    pub fn in_workspace(&self, workspace: &Workspace) -> PathBuf {
        match &self.resolution {
            Some(resolution) => resolution.path.clone(),
            None => workspace.root().join(&self.sent),
        }
    }
}

impl AsRef<Path> for WorkspacePath {
    /// As [`WorkspacePath::as_path`].
    fn as_ref(&self) -> &Path {
        self.as_path()
    }
}

impl Serialize for WorkspacePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.sent.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let sent = PathBuf::deserialize(deserializer)?;
        let (resolution, unrepaired) = match resolve_in_scope(&sent) {
            Some((resolution, unrepaired)) => (Some(resolution), unrepaired),
            None => (None, None),
        };
        Ok(WorkspacePath {
            sent,
            resolution,
            unrepaired,
        })
    }
}

impl JsonSchema for WorkspacePath {
    fn schema_name() -> Cow<'static, str> {
        "WorkspacePath".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string" })
    }
}

/// A URL argument, parsed and checked when the arguments are. Its type marks the argument as
/// a URL resource.
///
/// ```
/// use tool_core::{tool, Registry, WebUrl, spec::ResourceKind};
///
/// /// The host a page is on.
/// #[tool(read_only, name = "doc_weburl_host")]
/// fn host(url: WebUrl) -> String {
///     url.as_url().host_str().unwrap_or_default().to_owned()
/// }
///
/// let url = WebUrl::parse("https://example.com/docs?page=2").unwrap();
/// assert_eq!(url.as_url().host_str(), Some("example.com"));
/// assert!(WebUrl::parse("example.com/docs").is_err()); // not absolute
///
/// // As an argument, a URL resource; a model's relative URL is an argument error.
/// let tool = Registry::global().get("doc_weburl_host").unwrap();
/// assert_eq!(tool.spec().resources[0].kind, ResourceKind::Url);
/// let error = tool.prepare(r#"{"url": "example.com"}"#).unwrap_err();
/// assert!(error.to_string().contains("send an absolute URL"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WebUrl(url::Url);

impl WebUrl {
    /// Parses a URL.
    ///
    /// # Errors
    /// When the text is not an absolute URL.
    pub fn parse(text: &str) -> Result<Self, url::ParseError> {
        url::Url::parse(text).map(WebUrl)
    }

    /// The parsed URL.
    #[must_use]
    pub fn as_url(&self) -> &url::Url {
        &self.0
    }

    /// The URL as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for WebUrl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for WebUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        WebUrl::parse(&text).map_err(|error| {
            serde::de::Error::custom(format_args!(
                "{text:?} is not a valid URL ({error}); send an absolute URL such as \"https://example.com/page\""
            ))
        })
    }
}

impl JsonSchema for WebUrl {
    fn schema_name() -> Cow<'static, str> {
        "WebUrl".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": "uri" })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::WorkspacePath;
    use crate::Workspace;
    use crate::definition::workspace::{Normalization, with_workspace};

    fn parse(json: &str) -> WorkspacePath {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn without_a_workspace_in_scope_the_path_is_kept_as_sent() {
        let path = parse(r#""myproj/src/a.rs""#);
        assert_eq!(path.as_path(), Path::new("myproj/src/a.rs"));
        assert!(!path.is_resolved());
        assert_eq!(path.normalization(), None);
    }

    #[test]
    fn within_a_workspace_scope_the_path_arrives_resolved() {
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("myproj");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "").unwrap();
        let ws = Workspace::new(&root).unwrap();

        let path = with_workspace(Some(&ws), || parse(r#""myproj/src/a.rs""#));

        assert_eq!(path.as_path(), ws.root().join("src/a.rs"));
        assert_eq!(path.in_workspace(&ws), ws.root().join("src/a.rs"));
        assert_eq!(path.sent(), Path::new("myproj/src/a.rs"));
        assert!(matches!(
            path.normalization(),
            Some(Normalization::WorkspaceName { .. })
        ));
        assert_eq!(
            serde_json::to_string(&path).unwrap(),
            r#""myproj/src/a.rs""#
        );
    }

    #[test]
    fn a_tool_taking_a_workspace_path_receives_it_resolved_when_prepared_in_scope() {
        /// Reports the path it was given.
        ///
        /// # Arguments
        /// * `path` - A file.
        #[crate::tool(read_only, name = "unit_workspace_path_echo", crate = crate)]
        fn echo(path: WorkspacePath) -> String {
            path.as_path().display().to_string()
        }

        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("myproj");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("notes.md"), "").unwrap();
        let ws = Workspace::new(&root).unwrap();
        let resolved = ws.root().join("notes.md").display().to_string();
        let tool = crate::Registry::global()
            .get("unit_workspace_path_echo")
            .unwrap();

        let prepared =
            with_workspace(Some(&ws), || tool.prepare(r#"{"path": "myproj/notes.md"}"#)).unwrap();
        // The policy sees the resolved path ...
        assert_eq!(prepared.resources()[0].value, resolved);
        // ... and so does the tool.
        let ctx = crate::definition::context::ToolContext::detached(
            crate::definition::context::CallInfo::new("1", "echo", 0),
        );
        let output = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(tool.invoke(prepared, &ctx))
            .unwrap();
        assert_eq!(output.content[0].as_text(), Some(resolved.as_str()));
    }
}
