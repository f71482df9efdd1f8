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

    /// Asks the server how it is doing; returns a one-line summary of its isolation.
    pub async fn health(&self) -> Result<String, RunError> {
        let url = format!("{}/health", self.base);
        let response = Request::get(&url)
            .header("Authorization", &format!("Bearer {}", self.token))
            .send()
            .await
            .map_err(|e| unreachable_error(&url, &e))?;
        let health: Value = read(response).await?;
        let isolation = health.get("network_isolation").map(|v| v.to_string()).unwrap_or_default();
        let limits = health.get("resource_limits").and_then(Value::as_bool).unwrap_or(false);
        let version = health.get("version").and_then(Value::as_str).unwrap_or("?");
        Ok(format!(
            "runner {version} is up; network isolation: {}; resource limits: {}",
            isolation.trim_matches('"'),
            if limits { "enforced" } else { "not enforced" }
        ))
    }
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
