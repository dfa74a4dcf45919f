//! [`ImportedTool`]: one tool of an MCP server as a [`Tool`]: its spec (name, description,
//! effect class from annotations, trusted or not), its schemas, and its results converted
//! from MCP's content blocks.

use rmcp::model::{CallToolResult, Tool as McpTool};
use schemars::Schema;
use serde_json::{Map, Value};

use super::McpClient;
use crate::context::ToolContext;
use crate::definition::args::parse_arguments;
use crate::output::Content;
use crate::spec::{Effect, ToolSpec};
use crate::tool::{Prepared, ToolFuture};
use crate::{Tool, ToolError, ToolOutput};

/// A tool of an MCP server, named `mcp__<server>__<tool>`, called on the server by its own
/// name. Made by [`McpClient::tools`] and [`import`](super::import).
pub struct ImportedTool {
    spec: ToolSpec,
    input: Schema,
    output: Option<Schema>,
    remote: String,
    client: McpClient,
}

impl std::fmt::Debug for ImportedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportedTool")
            .field("name", &self.spec.name)
            .field("server", &self.client.config().name)
            .field("remote", &self.remote)
            .finish_non_exhaustive()
    }
}

impl ImportedTool {
    pub(super) fn new(client: McpClient, name: String, remote: McpTool) -> Self {
        let server = &client.config().name;
        let description = match remote.description.as_deref().map(str::trim) {
            Some(description) if !description.is_empty() => description.to_owned(),
            _ => format!("The tool `{}` of MCP server `{server}`.", remote.name),
        };
        let mut spec = classify(
            ToolSpec::new(name, description),
            remote.annotations.as_ref(),
            client.config().trusted,
        )
        .tags(["mcp"]);
        let title = remote
            .title
            .clone()
            .or_else(|| remote.annotations.as_ref().and_then(|a| a.title.clone()));
        if let Some(title) = title {
            spec = spec.title(title);
        }
        ImportedTool {
            spec,
            input: Schema::from((*remote.input_schema).clone()),
            output: remote
                .output_schema
                .as_ref()
                .map(|schema| Schema::from((**schema).clone())),
            remote: remote.name.into_owned(),
            client,
        }
    }

    /// The tool's name on its server.
    #[must_use]
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// The client of the tool's server.
    #[must_use]
    pub fn client(&self) -> &McpClient {
        &self.client
    }
}

/// The effect class from the annotations: believed when `trusted`, otherwise only where they
/// ask for more caution (see the module docs of [`client`](super)).
fn classify(
    spec: ToolSpec,
    annotations: Option<&rmcp::model::ToolAnnotations>,
    trusted: bool,
) -> ToolSpec {
    let hint = |get: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| annotations.and_then(get);
    let read_only = hint(|a| a.read_only_hint);
    let destructive = hint(|a| a.destructive_hint);
    if !trusted {
        // Mutating and open-world by `ToolSpec::new`; a tool that says it destroys is believed
        // (even when it also says it only reads: caution wins a contradiction).
        return if destructive == Some(true) {
            spec.destructive()
        } else {
            spec
        };
    }
    if read_only == Some(true) {
        let spec = spec.read_only();
        return if hint(|a| a.open_world_hint) == Some(false) {
            spec.closed_world()
        } else {
            spec
        };
    }
    let mut spec = if destructive.unwrap_or(true) {
        spec.destructive()
    } else {
        spec
    };
    if hint(|a| a.idempotent_hint) == Some(true) {
        spec = spec.idempotent();
    }
    if hint(|a| a.open_world_hint) == Some(false) {
        spec = spec.closed_world();
    }
    debug_assert!(matches!(
        spec.effect,
        Effect::Mutating | Effect::Destructive
    ));
    spec
}

impl Tool for ImportedTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> &Schema {
        &self.input
    }

    fn output_schema(&self) -> Option<&Schema> {
        self.output.as_ref()
    }

    fn prepare(&self, arguments: &str) -> Result<Prepared, ToolError> {
        // The server validates against its own schema; here the arguments need only be an
        // object (empty arguments are `{}`).
        parse_arguments::<Map<String, Value>>(&self.spec.name, &self.input, arguments)
            .map(Prepared::new)
    }

    fn invoke<'a>(&'a self, prepared: Prepared, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::new(async move {
            let arguments = prepared.take::<Map<String, Value>>()?;
            self.client.call(&self.remote, arguments, ctx).await
        })
    }
}

/// A `tools/call` result as a tool's output, or its error when `isError` is set.
pub(super) fn output(result: CallToolResult) -> Result<ToolOutput, ToolError> {
    let mut content: Vec<Content> = result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(|block| content(&block))
        .collect();
    if result.is_error == Some(true) {
        let text: Vec<&str> = content.iter().filter_map(Content::as_text).collect();
        let message = if text.is_empty() {
            "the MCP server reported an error without a message".to_owned()
        } else {
            text.join("\n")
        };
        return Err(ToolError::failed(message));
    }
    if content.is_empty()
        && let Some(value) = &result.structured_content
    {
        content.push(Content::text(value.to_string()));
    }
    let mut output = ToolOutput::from_content(content);
    if let Some(value) = result.structured_content {
        output = output.with_structured(value);
    }
    Ok(output)
}

/// One content block, read from its wire form (so that block types rmcp adds later still read
/// as text).
fn content(block: &Value) -> Content {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    match field("type") {
        Some("text") => Content::text(field("text").unwrap_or_default()),
        Some("image") | Some("audio") => {
            let data = field("data").unwrap_or_default().to_owned();
            let mime_type = field("mimeType")
                .unwrap_or("application/octet-stream")
                .to_owned();
            if field("type") == Some("image") {
                Content::Image { data, mime_type }
            } else {
                Content::Audio { data, mime_type }
            }
        }
        Some("resource_link") => {
            let uri = field("uri").unwrap_or_default();
            let name = field("name").unwrap_or(uri);
            let mut line = format!("[resource link] {name} <{uri}>");
            if let Some(mime) = field("mimeType") {
                line.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = field("description") {
                line.push_str(&format!(": {description}"));
            }
            Content::text(line)
        }
        Some("resource") => {
            let resource = block.get("resource").cloned().unwrap_or_default();
            let get = |name: &str| resource.get(name).and_then(Value::as_str);
            let uri = get("uri").unwrap_or_default();
            match (get("text"), get("blob")) {
                (Some(text), _) => Content::resource_text(uri, get("mimeType"), text),
                (None, Some(blob)) => Content::resource_blob(uri, get("mimeType"), blob),
                (None, None) => Content::text(format!("[resource {uri}]")),
            }
        }
        _ => Content::text(block.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    fn annotations(read_only: Option<bool>, destructive: Option<bool>) -> ToolAnnotations {
        let mut annotations = ToolAnnotations::new();
        annotations.read_only_hint = read_only;
        annotations.destructive_hint = destructive;
        annotations
    }

    fn effect(annotations: Option<&ToolAnnotations>, trusted: bool) -> Effect {
        classify(ToolSpec::new("t", "d"), annotations, trusted).effect
    }

    #[test]
    fn untrusted_read_only_hints_are_not_believed() {
        let read_only = annotations(Some(true), Some(false));
        assert_eq!(effect(Some(&read_only), false), Effect::Mutating);
        assert_eq!(effect(None, false), Effect::Mutating);
    }

    #[test]
    fn an_untrusted_tool_that_says_it_destroys_is_destructive() {
        let destructive = annotations(Some(false), Some(true));
        assert_eq!(effect(Some(&destructive), false), Effect::Destructive);
        // Saying both, it is taken at its more dangerous word.
        let contradictory = annotations(Some(true), Some(true));
        assert_eq!(effect(Some(&contradictory), false), Effect::Destructive);
    }

    #[test]
    fn trusted_annotations_map_to_the_effect_class() {
        assert_eq!(
            effect(Some(&annotations(Some(true), None)), true),
            Effect::ReadOnly
        );
        assert_eq!(
            effect(Some(&annotations(Some(false), Some(false))), true),
            Effect::Mutating
        );
        // The protocol's default for a tool that is not read-only is destructive.
        assert_eq!(effect(None, true), Effect::Destructive);
    }

    #[test]
    fn blocks_become_content_and_resource_links_text() {
        let text = content(&serde_json::json!({"type": "text", "text": "hi"}));
        assert_eq!(text, Content::text("hi"));
        let image =
            content(&serde_json::json!({"type": "image", "data": "AA==", "mimeType": "image/png"}));
        assert_eq!(
            image,
            Content::Image {
                data: "AA==".into(),
                mime_type: "image/png".into()
            }
        );
        let link =
            content(&serde_json::json!({"type": "resource_link", "uri": "file:///a", "name": "a"}));
        assert_eq!(link, Content::text("[resource link] a <file:///a>"));
        let embedded = content(&serde_json::json!({"type": "resource",
            "resource": {"uri": "file:///a", "text": "body"}}));
        assert_eq!(embedded, Content::resource_text("file:///a", None, "body"));
        let blob = content(&serde_json::json!({"type": "resource",
            "resource": {"uri": "file:///b", "mimeType": "image/png", "blob": "AA=="}}));
        assert_eq!(
            blob,
            Content::resource_blob("file:///b", Some("image/png"), "AA==")
        );
    }

    #[test]
    fn is_error_becomes_a_tool_error_with_the_servers_text() {
        let mut result =
            CallToolResult::error(vec![rmcp::model::ContentBlock::text("no such file")]);
        result.structured_content = None;
        let error = output(result).unwrap_err();
        assert_eq!(error.to_string(), "no such file");
    }

    #[test]
    fn structured_content_is_kept_and_mirrored_when_there_is_no_content() {
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(serde_json::json!({"n": 1}));
        let output = output(result).unwrap();
        assert_eq!(output.structured, Some(serde_json::json!({"n": 1})));
        assert_eq!(output.content, [Content::text(r#"{"n":1}"#)]);
    }
}
