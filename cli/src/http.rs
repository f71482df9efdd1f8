//! The native HTTP transport for the chat-completions client: blocking `ureq`, driven by `pollster`.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use acr_core::llm::openai::{HttpResponse, Transport, TransportError};

/// Largest answer body read.
const MAX_BODY_BYTES: u64 = 32 << 20;

/// A `ureq` agent with a whole-request timeout.
pub struct UreqTransport {
    agent: ureq::Agent,
    /// The time-out of every request, unless a request is given less.
    timeout: Duration,
    /// Set when the user stops the run: a streamed answer is cut (its connection closed) at the next chunk.
    stop: Arc<AtomicBool>,
}

impl UreqTransport {
    /// A transport whose requests give up after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // Error statuses are answers to interpret, not transport failures.
            .http_status_as_error(false)
            .build();
        UreqTransport { agent: config.into(), timeout, stop: Arc::default() }
    }

    /// The same transport, cutting streamed answers once `stop` is set.
    pub fn stopped_by(self, stop: Arc<AtomicBool>) -> Self {
        UreqTransport { stop, ..self }
    }
}

impl UreqTransport {
    /// POSTs and reads the head: the response, its status and its `Retry-After`; the whole request within
    /// `within` milliseconds when that is less than the transport's time-out.
    fn send(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
    ) -> Result<(ureq::http::Response<ureq::Body>, u16, Option<f64>), TransportError> {
        let mut request = self.agent.post(url);
        if let Some(ms) = within.filter(|&ms| Duration::from_millis(ms) < self.timeout) {
            request = request.config().timeout_global(Some(Duration::from_millis(ms))).build();
        }
        for (k, v) in headers {
            request = request.header(k, v);
        }
        let response = request.send(body).map_err(transport_error)?;
        let status = response.status().as_u16();
        let retry_after = retry_after(&response);
        Ok((response, status, retry_after))
    }
}

impl Transport for UreqTransport {
    async fn post_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
    ) -> Result<HttpResponse, TransportError> {
        self.post_json_within(url, headers, body, None).await
    }

    async fn post_json_within(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
    ) -> Result<HttpResponse, TransportError> {
        let (mut response, status, retry_after) = self.send(url, headers, body, within)?;
        Ok(HttpResponse { status, body: read_whole(&mut response)?, retry_after })
    }

    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<HttpResponse, TransportError> {
        self.post_stream_within(url, headers, body, None, sink).await
    }

    /// Reads a successful body in pieces as they arrive; dropping the response when the sink has had enough closes
    /// the connection, so the server stops generating.
    async fn post_stream_within(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        within: Option<u64>,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<HttpResponse, TransportError> {
        let (mut response, status, retry_after) = self.send(url, headers, body, within)?;
        if !(200..300).contains(&status) {
            return Ok(HttpResponse { status, body: read_whole(&mut response)?, retry_after });
        }
        let mut reader = response.body_mut().with_config().limit(MAX_BODY_BYTES).reader();
        let mut buffer = vec![0u8; 16 << 10];
        loop {
            let n = reader.read(&mut buffer).map_err(|e| reading_error(ureq::Error::from(e)))?;
            if n == 0 || self.stop.load(Ordering::SeqCst) || !sink(&buffer[..n]) {
                break;
            }
        }
        Ok(HttpResponse { status, body: String::new(), retry_after })
    }

    async fn sleep(&self, ms: u64) {
        std::thread::sleep(Duration::from_millis(ms));
    }

    async fn get(&self, url: &str, headers: &[(String, String)]) -> Result<HttpResponse, TransportError> {
        let mut request = self.agent.get(url);
        for (k, v) in headers.iter().filter(|(k, _)| k != "Content-Type") {
            request = request.header(k, v);
        }
        let mut response = request.call().map_err(transport_error)?;
        let status = response.status().as_u16();
        Ok(HttpResponse { status, body: read_whole(&mut response)?, retry_after: None })
    }
}

/// A whole answer body, up to [`MAX_BODY_BYTES`].
fn read_whole(response: &mut ureq::http::Response<ureq::Body>) -> Result<String, TransportError> {
    response.body_mut().with_config().limit(MAX_BODY_BYTES).read_to_string().map_err(reading_error)
}

/// The `Retry-After` header in seconds, when present.
fn retry_after(response: &ureq::http::Response<ureq::Body>) -> Option<f64> {
    response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<f64>().ok())
}

/// A failure before any answer.
fn transport_error(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        e => TransportError::Failed(e.to_string()),
    }
}

/// A failure while reading an answer's body.
fn reading_error(e: ureq::Error) -> TransportError {
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        e => TransportError::Failed(format!("reading the answer: {e}")),
    }
}
