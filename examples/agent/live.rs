//! A live model behind any OpenAI-compatible chat completions endpoint (`OPENAI_BASE_URL`,
//! `OPENAI_API_KEY`, `MODEL`): each request is POSTed with `stream: true` and the server-sent
//! events it streams back are the turn, parsed as the replay's are.

use std::sync::Arc;

use serde_json::Value;
use tool_core::BoxFuture;

use super::session::{Failed, Model};

/// An OpenAI-compatible endpoint.
pub struct OpenAiEndpoint {
    client: reqwest::Client,
    url: String,
    key: String,
    model: String,
}

impl OpenAiEndpoint {
    /// The endpoint the environment names, if it names one: `OPENAI_BASE_URL` (such as
    /// `https://api.openai.com/v1`), `OPENAI_API_KEY` and `MODEL`, all three set.
    pub fn from_env() -> Option<Result<OpenAiEndpoint, Failed>> {
        let var = |name| std::env::var(name).ok().filter(|value| !value.is_empty());
        let (base, key, model) = (
            var("OPENAI_BASE_URL")?,
            var("OPENAI_API_KEY")?,
            var("MODEL")?,
        );
        Some(OpenAiEndpoint::new(&base, &key, &model))
    }

    /// The endpoint at `base` (the URL `/chat/completions` is appended to).
    pub fn new(base: &str, key: &str, model: &str) -> Result<OpenAiEndpoint, Failed> {
        Ok(OpenAiEndpoint {
            client: client()?,
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            key: key.to_owned(),
            model: model.to_owned(),
        })
    }
}

impl Model for OpenAiEndpoint {
    fn answer<'a>(
        &'a mut self,
        request: &'a Value,
    ) -> BoxFuture<'a, Result<Option<String>, Failed>> {
        Box::pin(async move {
            let mut body = request.clone();
            body["model"] = Value::from(self.model.as_str());
            let response = self
                .client
                .post(&self.url)
                .bearer_auth(&self.key)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(serde_json::to_vec(&body)?)
                .send()
                .await?;
            let status = response.status();
            let mut response = response;
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
}

/// rustls over ring with the platform's certificate verifier, as tool-std's web tools use.
fn client() -> Result<reqwest::Client, Failed> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth();
    Ok(reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()?)
}
