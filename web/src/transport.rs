//! The chat-completions transport of the playground: `fetch` through gloo-net, with a time limit, and browser
//! failures turned into sentences a user can act on.
//!
//! A browser reports a refused connection, a wrong host and a CORS refusal the same way (`TypeError: Failed to
//! fetch`) and hides which one it was, so the message names all three and what to check for each.
//!
//! Streamed answers are read from the response's `ReadableStream` piece by piece. Every request has an
//! `AbortController` watched every 100 ms: the time limit or the run's stop flag aborts the request in flight, so a
//! stopped run also stops the server's generation (it sees the connection close).

use std::cell::Cell;
use std::rc::Rc;

use acr_core::llm::openai::{HttpResponse, Transport, TransportError};
use gloo_net::http::{Request, Response};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader};

use crate::browser;

/// Longest wait for one model answer.
const TIMEOUT_MS: u32 = 300_000;

/// [`Transport`] over the browser's `fetch`.
#[derive(Debug, Clone, Default)]
pub struct FetchTransport {
    /// Time limit per request in milliseconds (default five minutes).
    pub timeout_ms: Option<u32>,
    /// When set, the request in flight is aborted (the run's stop button).
    pub stop: Option<Rc<Cell<bool>>>,
}

/// A request in flight and the watch that aborts it. Dropped before its body was read to the end (the caller gave
/// up on it, as a stopped run does), it aborts the request; either way the watch ends.
struct InFlight {
    response: Response,
    controller: Option<AbortController>,
    read: bool,
    ended: Rc<Cell<bool>>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.ended.set(true);
        if !self.read
            && let Some(c) = &self.controller
        {
            c.abort();
        }
    }
}

impl FetchTransport {
    /// Sends the request (a POST with `body`, or a GET without) with an abort watch: the time limit or the stop flag
    /// aborts it, until it has been read.
    async fn send(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Option<&str>,
    ) -> Result<InFlight, TransportError> {
        let timeout = f64::from(self.timeout_ms.unwrap_or(TIMEOUT_MS));
        let controller = AbortController::new().ok();
        let builder = if body.is_some() { Request::post(url) } else { Request::get(url) };
        let mut builder = builder.abort_signal(controller.as_ref().map(|c| c.signal()).as_ref());
        for (k, v) in headers {
            builder = builder.header(k, v);
        }
        let request = match body {
            Some(body) => builder.body(body.to_string()),
            None => builder.build(),
        }
        .map_err(|e| TransportError::Failed(e.to_string()))?;
        let ended = Rc::new(Cell::new(false));
        if let Some(c) = controller.clone() {
            let (ended, stop, started) = (ended.clone(), self.stop.clone(), browser::now());
            leptos::task::spawn_local(async move {
                while !ended.get() {
                    if browser::now() - started > timeout || stop.as_ref().is_some_and(|s| s.get()) {
                        c.abort();
                        break;
                    }
                    browser::sleep_ms(100).await;
                }
            });
        }
        let response = request.send().await.map_err(|e| fetch_error(url, &e))?;
        Ok(InFlight { response, controller, read: false, ended })
    }
}

impl FetchTransport {
    /// Sends a request and reads its whole answer.
    async fn whole(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Option<&str>,
    ) -> Result<HttpResponse, TransportError> {
        let mut sent = self.send(url, headers, body).await?;
        let (status, retry_after) = head(&sent.response);
        let body = sent.response.text().await.map_err(|e| fetch_error(url, &e))?;
        sent.read = true;
        Ok(HttpResponse { status, body, retry_after })
    }
}

impl Transport for FetchTransport {
    async fn post_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
    ) -> Result<HttpResponse, TransportError> {
        self.whole(url, headers, Some(body)).await
    }

    /// A GET with the same abort watch (llama.cpp's `/props`, read before the first call).
    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, TransportError> {
        self.whole(url, headers, None).await
    }

    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<HttpResponse, TransportError> {
        let mut sent = self.send(url, headers, Some(body)).await?;
        let (status, retry_after) = head(&sent.response);
        let stream = sent.response.body().filter(|_| (200..300).contains(&status));
        let Some(stream) = stream else {
            let body = sent.response.text().await.map_err(|e| fetch_error(url, &e))?;
            sent.read = true;
            return Ok(HttpResponse { status, body, retry_after });
        };
        let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| read_error(url, e))?;
            let done = js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true);
            if done {
                break;
            }
            let value = js_sys::Reflect::get(&chunk, &"value".into()).unwrap_or_default();
            let bytes = value.dyn_into::<js_sys::Uint8Array>().map(|a| a.to_vec()).unwrap_or_default();
            if !sink(&bytes) {
                // Enough: closing the stream closes the connection, and the server stops generating.
                let _ = reader.cancel();
                break;
            }
        }
        sent.read = true;
        Ok(HttpResponse { status, body: String::new(), retry_after })
    }

    async fn sleep(&self, ms: u64) {
        browser::sleep_ms(u32::try_from(ms).unwrap_or(u32::MAX)).await;
    }
}

/// The status and the `Retry-After` header of a response.
fn head(response: &Response) -> (u16, Option<f64>) {
    let retry_after = response.headers().get("retry-after").and_then(|v| v.trim().parse::<f64>().ok());
    (response.status(), retry_after)
}

/// A failure while reading a streamed body: aborted (time limit or stop) or the connection broke.
fn read_error(url: &str, e: wasm_bindgen::JsValue) -> TransportError {
    let name = js_sys::Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
    if name == "AbortError" {
        return TransportError::Timeout;
    }
    let message = js_sys::Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or(name);
    TransportError::Failed(format!("the answer from {url} broke off while streaming: {message}"))
}

/// Turns a gloo-net error into a transport error with advice.
fn fetch_error(url: &str, e: &gloo_net::Error) -> TransportError {
    match e {
        gloo_net::Error::JsError(js) if js.name == "AbortError" => TransportError::Timeout,
        gloo_net::Error::JsError(js) if js.name == "TypeError" => TransportError::Failed(network_advice(url)),
        other => TransportError::Failed(other.to_string()),
    }
}

/// What a `TypeError: Failed to fetch` can mean, for `url`.
pub fn network_advice(url: &str) -> String {
    advice(url, &browser::origin())
}

/// [`network_advice`] for a page served from `origin`.
fn advice(url: &str, origin: &str) -> String {
    let mut advice = format!(
        "the browser could not complete the request to {url}. Either nothing answers at that address (is the server \
         running? is the URL right?), or the server does not allow requests from this page ({origin}) — it must send \
         CORS headers (Access-Control-Allow-Origin) — or the server failed before it could answer with them: an \
         error page without CORS headers looks the same to the page (a LiteLLM proxy asked without a valid key \
         answers a plain-text 500 without them). The server's log says which."
    );
    if url.contains(":11434") {
        advice.push_str(" For Ollama, start it with OLLAMA_ORIGINS set to this page's origin (or *).");
    } else if url.contains(":1234") {
        advice.push_str(" For LM Studio, enable CORS in the server settings.");
    } else if url.contains(":4000") {
        advice.push_str(" For LiteLLM, enter its master key (or a virtual key) as the API key.");
    }
    if url.starts_with("http://") && origin.starts_with("https://") {
        advice.push_str(" This page is served over https, so the browser also blocks plain http endpoints.");
    }
    advice
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_fetch_names_every_cause_the_browser_hides() {
        let text = advice("http://127.0.0.1:4000/v1/chat/completions", "http://127.0.0.1:8765");
        assert!(text.contains("nothing answers at that address"), "{text}");
        assert!(text.contains("CORS headers"), "{text}");
        assert!(text.contains("failed before it could answer"), "{text}");
        assert!(text.contains("master key"), "{text}");
        assert!(text.contains("(http://127.0.0.1:8765)"), "{text}");
        let https = advice("http://localhost:11434/v1/chat/completions", "https://example.org");
        assert!(https.contains("OLLAMA_ORIGINS") && https.contains("served over https"), "{https}");
    }
}
