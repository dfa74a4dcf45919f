//! A live model: any OpenAI-compatible chat completions endpoint (`OPENAI_BASE_URL`,
//! `OPENAI_API_KEY`, `MODEL`), or Anthropic's Messages API (`ANTHROPIC_API_KEY`, with
//! `ANTHROPIC_BASE_URL` and `MODEL` optional). Each request is POSTed with `stream: true` and
//! the server-sent events streamed back are the turn, read as the replay's are.

use serde_json::Value;
use tool_core::BoxFuture;

use super::session::{Failed, Model};
use super::wire::Wire;

/// The model Anthropic's API is asked for when `MODEL` names none.
const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// A provider's endpoint.
pub struct Endpoint {
    client: reqwest::Client,
    url: String,
    /// The authentication and version headers the provider wants.
    headers: Vec<(&'static str, String)>,
    model: String,
    wire: Wire,
}

impl Endpoint {
    /// The endpoint the environment names, if it names one: an OpenAI-compatible one when
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `MODEL` are all set, else Anthropic's when
    /// `ANTHROPIC_API_KEY` is.
    pub fn from_env() -> Option<Result<Endpoint, Failed>> {
        let var = |name| {
            std::env::var(name)
                .ok()
                .filter(|value: &String| !value.is_empty())
        };
        if let (Some(base), Some(key), Some(model)) =
            (var("OPENAI_BASE_URL"), var("OPENAI_API_KEY"), var("MODEL"))
        {
            return Some(Endpoint::openai(&base, &key, &model));
        }
        let key = var("ANTHROPIC_API_KEY")?;
        let base = var("ANTHROPIC_BASE_URL").unwrap_or_else(|| "https://api.anthropic.com".into());
        let model = var("MODEL").unwrap_or_else(|| ANTHROPIC_MODEL.into());
        Some(Endpoint::anthropic(&base, &key, &model))
    }

    /// An OpenAI-compatible endpoint at `base` (`https://api.openai.com/v1`; the URL
    /// `/chat/completions` is appended to).
    pub fn openai(base: &str, key: &str, model: &str) -> Result<Endpoint, Failed> {
        Ok(Endpoint {
            client: client()?,
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            headers: vec![("authorization", format!("Bearer {key}"))],
            model: model.to_owned(),
            wire: Wire::OpenAiChat,
        })
    }

    /// Anthropic's Messages API at `base` (`https://api.anthropic.com`; `/v1/messages` is
    /// appended).
    pub fn anthropic(base: &str, key: &str, model: &str) -> Result<Endpoint, Failed> {
        Ok(Endpoint {
            client: client()?,
            url: format!("{}/v1/messages", base.trim_end_matches('/')),
            headers: vec![
                ("x-api-key", key.to_owned()),
                ("anthropic-version", "2023-06-01".to_owned()),
            ],
            model: model.to_owned(),
            wire: Wire::AnthropicMessages,
        })
    }

    /// The model asked for.
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl Model for Endpoint {
    fn answer<'a>(
        &'a mut self,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Option<String>, Failed>> {
        Box::pin(async move {
            let mut body = request.clone();
            body["model"] = Value::from(self.model.as_str());
            let mut post = self
                .client
                .post(&self.url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream");
            for (name, value) in &self.headers {
                post = post.header(*name, value);
            }
            let mut response = post.body(serde_json::to_vec(&body)?).send().await?;
            let status = response.status();
            let mut stream = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                stream.extend_from_slice(&chunk);
            }
            let stream = String::from_utf8_lossy(&stream).into_owned();
            if !status.is_success() {
                return Err(format!("{} answered {status}: {}", self.url, stream.trim()).into());
            }
            Ok(Some(stream))
        })
    }

    fn wire(&self) -> Wire {
        self.wire
    }
}

/// An HTTPS client with the TLS tool-std's web tools use.
fn client() -> Result<reqwest::Client, Failed> {
    Ok(reqwest::Client::builder()
        .tls_backend_preconfigured(tool_std::web::tls_config()?)
        .build()?)
}
