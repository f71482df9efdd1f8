//! The reproducer runner seen from the browser: [`BrowserRunner`] speaks the `acr-runner` server's wire format
//! (`POST /run` with a JSON [`RunRequest`] and `Authorization: Bearer <token>`, answered by a [`RunOutcome`] or
//! `{"error": ...}`; `GET /health`) over fetch.

use acr_core::runner::{RunError, RunOutcome, RunRequest, Runner};
use gloo_net::http::{Request, Response};
use serde_json::Value;

use crate::transport::network_advice;

/// A client for a running `acr-runner` server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserRunner {
    base: String,
    token: String,
}

impl BrowserRunner {
    /// A client for the server at `base_url` (e.g. `http://127.0.0.1:8787`) with its access token.
    pub fn new(base_url: &str, token: &str) -> Self {
        BrowserRunner { base: base_url.trim().trim_end_matches('/').to_string(), token: token.trim().to_string() }
    }

    /// The server's base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Asks the server how it is doing: a one-line summary of its isolation, and the server's warning when its
    /// runs are not sandboxed.
    pub async fn health(&self) -> Result<(String, Option<String>), RunError> {
        let url = format!("{}/health", self.base);
        let response = Request::get(&url)
            .header("Authorization", &format!("Bearer {}", self.token))
            .send()
            .await
            .map_err(|e| unreachable_error(&url, &e))?;
        let health: Value = read(response).await?;
        Ok(health_summary(&health))
    }
}

/// The summary of a `GET /health` answer, and its warning (present when runs are not sandboxed).
pub fn health_summary(health: &Value) -> (String, Option<String>) {
    let text = |key: &str| health.get(key).and_then(Value::as_str).unwrap_or("?").to_string();
    let limits = health.get("resource_limits").and_then(Value::as_bool).unwrap_or(false);
    let summary = format!(
        "runner {} is up; sandbox: {}; network isolation: {}; resource limits: {}",
        text("version"),
        text("containment"),
        text("network_isolation"),
        if limits { "enforced" } else { "not enforced" }
    );
    let unsandboxed = health.get("containment").and_then(Value::as_str) != Some("bubblewrap");
    let warning = health.get("warning").and_then(Value::as_str).map(str::to_string);
    (summary, warning.or_else(|| unsandboxed.then(|| "runs are NOT sandboxed".to_string())))
}

impl Runner for BrowserRunner {
    async fn run(&self, request: &RunRequest) -> Result<RunOutcome, RunError> {
        let url = format!("{}/run", self.base);
        let response = Request::post(&url)
            .header("Authorization", &format!("Bearer {}", self.token))
            .json(request)
            .map_err(|e| RunError::Refused(e.to_string()))?
            .send()
            .await
            .map_err(|e| unreachable_error(&url, &e))?;
        read(response).await
    }
}

/// The typed body of a success, or the server's `{"error": ...}` as a [`RunError`].
async fn read<T: serde::de::DeserializeOwned>(response: Response) -> Result<T, RunError> {
    let status = response.status();
    let text = response.text().await.map_err(|e| RunError::Unavailable(e.to_string()))?;
    if (200..300).contains(&status) {
        return serde_json::from_str(&text).map_err(|e| RunError::Unavailable(format!("unexpected answer: {e}")));
    }
    let message = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| text.chars().take(200).collect());
    match status {
        401 => Err(RunError::Refused(format!("the access token was refused ({message})"))),
        s if s >= 500 => Err(RunError::Unavailable(format!("{message} (HTTP {s})"))),
        s => Err(RunError::Refused(format!("{message} (HTTP {s})"))),
    }
}

fn unreachable_error(url: &str, e: &gloo_net::Error) -> RunError {
    match e {
        gloo_net::Error::JsError(js) if js.name == "TypeError" => RunError::Unavailable(network_advice(url)),
        other => RunError::Unavailable(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsandboxed_runner_comes_with_its_warning() {
        let contained = serde_json::json!({"version": "0.1.0", "containment": "bubblewrap",
            "network_isolation": "user_and_network_namespace", "resource_limits": true});
        let (summary, warning) = health_summary(&contained);
        assert_eq!(
            summary,
            "runner 0.1.0 is up; sandbox: bubblewrap; network isolation: user_and_network_namespace; resource limits: enforced"
        );
        assert_eq!(warning, None);
        let bare = serde_json::json!({"version": "0.1.0", "containment": "none", "warning": "UNSAFE: not sandboxed"});
        assert_eq!(health_summary(&bare).1.as_deref(), Some("UNSAFE: not sandboxed"));
        let old = serde_json::json!({"version": "0.0.9"});
        assert_eq!(health_summary(&old).1.as_deref(), Some("runs are NOT sandboxed"));
    }
}
