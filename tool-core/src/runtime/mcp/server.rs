//! [`McpServer`]: rmcp's `ServerHandler` over a coordinator.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;

use crate::definition::output::Content;
use crate::schema::{Dialect, export_tool};
use crate::{Coordinator, ToolCall, ToolError, ToolResult};

/// A coordinator served over MCP. Cheap to clone (the coordinator is shared).
///
/// ```no_run
/// use tool_core::{Coordinator, Toolset, mcp};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let coordinator = Coordinator::builder().toolset(Toolset::all()).build()?;
/// mcp::serve_stdio(coordinator).await?; // until the client closes stdin
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    coordinator: Coordinator,
    /// The `tools/list` entries, made once: the toolset does not change while served.
    tools: Arc<Vec<McpTool>>,
}

impl McpServer {
    /// Serves `coordinator`'s toolset. A tool the MCP dialect cannot declare is left out (and
    /// logged); every tool-core tool can be, so this is for hand-written tools with broken
    /// schemas.
    #[must_use]
    pub fn new(coordinator: Coordinator) -> Self {
        let tools = coordinator
            .toolset()
            .iter()
            .filter_map(|tool| {
                let declared = export_tool(&**tool, Dialect::Mcp)
                    .map_err(|error| tracing::warn!(%error, "tool left out of tools/list"))
                    .ok()?;
                serde_json::from_value::<McpTool>(declared.definition)
                    .map_err(|error| {
                        tracing::warn!(tool = %tool.spec().name, %error, "tool left out of tools/list");
                    })
                    .ok()
            })
            .collect();
        McpServer {
            coordinator,
            tools: Arc::new(tools),
        }
    }

    /// The `tools/list` entries, in the toolset's order (by name).
    #[must_use]
    pub fn tools(&self) -> &[McpTool] {
        &self.tools
    }
}

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The connection could not start: the client's first messages were not a valid MCP
    /// handshake (or `server/discover`), or the transport closed before it.
    #[error("the MCP connection could not start: {0}")]
    Start(Box<rmcp::service::ServerInitializeError>),
    /// The task serving the connection panicked or was cancelled.
    #[error("the MCP connection ended abnormally: {0}")]
    Connection(#[from] tokio::task::JoinError),
}

/// Serves `coordinator` on stdin and stdout until the client closes stdin.
///
/// # Errors
/// [`ServeError`]: the connection could not start, or ended abnormally.
pub async fn serve_stdio(coordinator: Coordinator) -> Result<(), ServeError> {
    let running = McpServer::new(coordinator)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| ServeError::Start(Box::new(error)))?;
    running.waiting().await?;
    Ok(())
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("toolkit", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = match &request.arguments {
            Some(arguments) => Value::Object(arguments.clone()).to_string(),
            None => "{}".to_owned(),
        };
        // rmcp cancels `context.ct` on the client's `notifications/cancelled` (stdio) or when
        // the response stream closes (HTTP): the tool's own token follows it.
        let result = self
            .coordinator
            .call_cancellable(
                ToolCall::new(request.name.to_string(), arguments),
                &context.ct,
            )
            .await;
        if let Some(ToolError::UnknownTool { .. }) = result.error() {
            return Err(ErrorData::invalid_params(result.text().into_owned(), None));
        }
        Ok(CallToolResponse::Complete(to_mcp(&result)))
    }
}

/// A result as MCP's `CallToolResult`: content parts, the structured value (an object; mirrored
/// as text when the tool gave no text of its own), `isError`, and hook context as text.
fn to_mcp(result: &ToolResult) -> CallToolResult {
    let mut content: Vec<ContentBlock> = result
        .content
        .iter()
        .map(|part| match part {
            Content::Text { text } => ContentBlock::text(text.clone()),
            Content::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
            Content::Audio { data, mime_type } => {
                ContentBlock::audio(data.clone(), mime_type.clone())
            }
        })
        .collect();
    let structured = result.structured.clone().filter(Value::is_object);
    if content.is_empty()
        && let Some(value) = &result.structured
    {
        content.push(ContentBlock::text(value.to_string()));
    }
    content.extend(
        result
            .context
            .iter()
            .map(|note| ContentBlock::text(note.clone())),
    );
    let mut mcp = if result.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mcp.structured_content = structured;
    mcp
}
