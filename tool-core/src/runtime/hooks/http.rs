//! HTTP hooks, Claude Code's `"type": "http"`: the event's input POSTed as JSON to a URL, the
//! reply's body read as a command hook's stdout is (a JSON object is the structured answer).
//! A reply that is not 2xx, a connection that fails and a timeout are non-blocking errors, as
//! a command that exits with another code than 0 or 2 is: to block, a server answers 2xx with
//! a decision. Header values may name environment variables (`$TOKEN`, `${TOKEN}`), expanded
//! only when listed in `allowedEnvVars`, so a project's settings cannot send the user's
//! secrets anywhere. Redirects are not followed.

use std::borrow::Cow;
use std::time::Duration;

use super::Hook;
use super::command::{DEFAULT_TIMEOUT, OUTPUT_CAP};
use super::event::HookInput;
use super::output::HookOutput;
use crate::BoxFuture;
use crate::definition::workspace::expand_variables;

/// A hook that POSTs its input to a URL.
///
/// ```no_run
/// # async fn demo() {
/// use std::time::Duration;
/// use tool_core::hooks::{Hook, HookInput, HttpHook};
/// use serde_json::json;
///
/// let hook = HttpHook::new("http://127.0.0.1:8080/hooks/pre-tool-use")
///     .unwrap()
///     .header("Authorization", "Bearer $AUDIT_TOKEN")
///     .allow_env_var("AUDIT_TOKEN")
///     .timeout(Duration::from_secs(5));
/// let output = hook.run(&HookInput::pre_tool_use("Bash", json!({"command": "ls"}))).await;
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct HttpHook {
    /// Where the input is POSTed.
    pub url: String,
    /// Headers sent, as configured (variables not yet expanded).
    pub headers: Vec<(String, String)>,
    /// The environment variables header values may name.
    pub allowed_env_vars: Vec<String>,
    /// The longest the request may take.
    pub timeout: Duration,
    client: reqwest::Client,
}

/// Why an [`HttpHook`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HttpHookError(String);

impl HttpHook {
    /// A hook POSTing to `url` (`http://` or `https://`), with the [`DEFAULT_TIMEOUT`].
    ///
    /// # Errors
    ///
    /// [`HttpHookError`] for a URL that is not `http(s)://`, or when TLS cannot be set up.
    pub fn new(url: impl Into<String>) -> Result<Self, HttpHookError> {
        let url = url.into();
        let parsed = url::Url::parse(&url)
            .map_err(|error| HttpHookError(format!("`{url}` is not a URL: {error}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(HttpHookError(format!(
                "`{url}` is not an http:// or https:// URL"
            )));
        }
        let client = crate::runtime::https::client().map_err(HttpHookError)?;
        Ok(HttpHook {
            url,
            headers: Vec::new(),
            allowed_env_vars: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            client,
        })
    }

    /// The same hook sending one more header; `$VAR` in `value` is expanded when allowed.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The same hook allowed to expand `$name` in its header values.
    #[must_use]
    pub fn allow_env_var(mut self, name: impl Into<String>) -> Self {
        self.allowed_env_vars.push(name.into());
        self
    }

    /// The same hook with another timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// `value` with `$VAR` and `${VAR}` replaced by the variable's value when `VAR` is
    /// allowed and set, and by nothing otherwise.
    fn expand(&self, value: &str) -> String {
        expand_allowed(value, &self.allowed_env_vars, |name| {
            std::env::var(name).ok()
        })
    }

    async fn execute(&self, input: &HookInput) -> HookOutput {
        let body = match serde_json::to_vec(input) {
            Ok(body) => body,
            Err(error) => return HookOutput::error(format!("could not encode its input: {error}")),
        };
        let mut request = self
            .client
            .post(&self.url)
            .timeout(self.timeout)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), self.expand(value));
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) if error.is_timeout() => {
                return HookOutput::error(format!(
                    "`{}` did not answer within {}",
                    self.url,
                    super::describe(self.timeout)
                ));
            }
            Err(error) => {
                return HookOutput::error(format!("could not reach `{}`: {error}", self.url));
            }
        };
        let status = response.status();
        let text = match read_capped(response).await {
            Ok(text) => text,
            Err(error) => {
                return HookOutput::error(format!("`{}`'s answer broke off: {error}", self.url));
            }
        };
        if !status.is_success() {
            let excerpt: String = text.chars().take(300).collect();
            return HookOutput::error(format!(
                "`{}` answered HTTP {status}{}",
                self.url,
                if excerpt.trim().is_empty() {
                    String::new()
                } else {
                    format!(": {}", excerpt.trim())
                }
            ));
        }
        // A 2xx body is what a command would print on stdout with exit code 0.
        HookOutput::from_command(input.event(), Some(0), &text, "")
    }
}

/// Reads a response body, at most [`OUTPUT_CAP`] bytes of it.
async fn read_capped(mut response: reqwest::Response) -> Result<String, reqwest::Error> {
    let mut kept = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if room < chunk.len() {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&kept).into_owned())
}

/// `value` with `$NAME` and `${NAME}` replaced through `lookup` when `NAME` is in `allowed`,
/// and by nothing when it is not (or is not set); the grammar is the workspace's, for paths.
fn expand_allowed(
    value: &str,
    allowed: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> String {
    let value_of = |name: &str| {
        let found = allowed.iter().any(|a| a == name).then(|| lookup(name));
        Some(found.flatten().unwrap_or_default())
    };
    expand_variables(value, value_of).map_or_else(|| value.to_owned(), |(text, _)| text)
}

impl Hook for HttpHook {
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.url)
    }

    fn run<'a>(&'a self, input: &'a HookInput) -> BoxFuture<'a, HookOutput> {
        Box::pin(self.execute(input))
    }

    fn identity(&self) -> Option<&str> {
        Some(&self.url)
    }
}

#[cfg(test)]
mod tests {
    use super::expand_allowed;

    #[test]
    fn only_allowed_variables_are_expanded() {
        let lookup = |name: &str| Some(format!("<{name}>"));
        let allowed = ["TOKEN".to_owned()];
        assert_eq!(
            expand_allowed("Bearer $TOKEN", &allowed, lookup),
            "Bearer <TOKEN>"
        );
        assert_eq!(
            expand_allowed("Bearer ${TOKEN}!", &allowed, lookup),
            "Bearer <TOKEN>!"
        );
        assert_eq!(expand_allowed("x $SECRET y", &allowed, lookup), "x  y");
        assert_eq!(
            expand_allowed("cost $5 and $", &allowed, lookup),
            "cost $5 and $"
        );
        assert_eq!(expand_allowed("${TOKEN", &allowed, lookup), "${TOKEN");
    }
}
