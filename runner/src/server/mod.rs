//! The HTTP server: `POST /run` and `GET /health` behind a bearer token, CORS for one playground origin, a run
//! semaphore with a bounded wait (then 429), and a body size limit.
//!
//! Layers from the outside in: the guarded accept loop ([`crate::guard`]: connection cap, header, body and idle
//! timeouts), CORS (answers preflight requests itself, so they need no token), the body limit, then the token
//! check on every route (before any body is read). Runs happen on tokio's blocking pool via
//! [`crate::exec::execute`].

mod token;

use std::fmt;
use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use acr_core::repo::Limits;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::exec::{Containment, ExecLimits, Sandbox, execute};
use crate::guard::{self, Guard};
pub use crate::snapshot::{SnapshotError, request_from_body};
use crate::wire::{ErrorBody, Health, RunBody};
pub use token::{random_token, same_token};

/// Shortest token accepted from configuration.
pub const MIN_TOKEN_LEN: usize = 16;

/// How the server is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// Address to listen on (loopback by default; port 0 picks a free one).
    pub addr: SocketAddr,
    /// The one browser origin allowed by CORS, e.g. `http://127.0.0.1:8765`.
    pub origin: String,
    /// The bearer token every request must carry.
    pub token: String,
    /// Runs allowed at once.
    pub concurrency: usize,
    /// How long a request waits for a free slot before a 429.
    pub queue_wait: Duration,
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Largest unzipped snapshot, in bytes.
    pub max_snapshot_bytes: usize,
    /// Limits for every run.
    pub limits: ExecLimits,
    /// Connection cap and timeouts.
    pub guard: Guard,
}

impl ServerConfig {
    /// The defaults (127.0.0.1:8787, playground at http://127.0.0.1:8765, 2 runs at once, 30 s wait, 64 MiB
    /// bodies, 512 MiB snapshots, [`Guard::default`]) with the given token.
    pub fn new(token: String) -> Self {
        ServerConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 8787)),
            origin: "http://127.0.0.1:8765".into(),
            token,
            concurrency: 2,
            queue_wait: Duration::from_secs(30),
            max_body_bytes: 64 << 20,
            max_snapshot_bytes: 512 << 20,
            limits: ExecLimits::default(),
            guard: Guard::default(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// The origin is not a valid `scheme://host[:port]` header value.
    BadOrigin(String),
    /// The token is shorter than [`MIN_TOKEN_LEN`] or not printable ASCII.
    WeakToken,
    /// Concurrency must be at least one.
    NoConcurrency,
    /// The address could not be bound.
    Bind(std::io::Error),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::BadOrigin(o) => write!(f, "bad origin {o:?}: expected e.g. http://127.0.0.1:8765"),
            ServerError::WeakToken => {
                write!(f, "the token must be at least {MIN_TOKEN_LEN} printable ASCII characters")
            }
            ServerError::NoConcurrency => write!(f, "concurrency must be at least 1"),
            ServerError::Bind(e) => write!(f, "cannot listen: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// What every handler sees.
#[derive(Debug)]
struct AppState {
    token: String,
    limits: ExecLimits,
    snapshot_limits: Limits,
    sandbox: Sandbox,
    slots: Arc<Semaphore>,
    concurrency: usize,
    queue_wait: Duration,
}

/// A bound server, ready to serve.
#[derive(Debug)]
pub struct RunnerServer {
    listener: TcpListener,
    router: Router,
    addr: SocketAddr,
    config: ServerConfig,
    sandbox: Sandbox,
}

impl RunnerServer {
    /// Checks the configuration and binds the address.
    pub async fn bind(config: ServerConfig, sandbox: Sandbox) -> Result<Self, ServerError> {
        let origin = config.origin.trim_end_matches('/').to_string();
        let origin_ok = origin.starts_with("http://") || origin.starts_with("https://");
        let origin_value = HeaderValue::from_str(&origin).ok().filter(|_| origin_ok);
        let origin_value = origin_value.ok_or_else(|| ServerError::BadOrigin(config.origin.clone()))?;
        if config.token.len() < MIN_TOKEN_LEN || !config.token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ServerError::WeakToken);
        }
        if config.concurrency == 0 {
            return Err(ServerError::NoConcurrency);
        }
        let listener = TcpListener::bind(config.addr).await.map_err(ServerError::Bind)?;
        let addr = listener.local_addr().map_err(ServerError::Bind)?;
        let state = Arc::new(AppState {
            token: config.token.clone(),
            limits: config.limits,
            snapshot_limits: Limits { max_total_bytes: config.max_snapshot_bytes, ..Limits::default() },
            sandbox: sandbox.clone(),
            slots: Arc::new(Semaphore::new(config.concurrency)),
            concurrency: config.concurrency,
            queue_wait: config.queue_wait,
        });
        let cors = CorsLayer::new()
            .allow_origin(AllowOrigin::list([origin_value]))
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
            .max_age(Duration::from_secs(600));
        let router = Router::new()
            .route("/run", post(run))
            .route("/health", get(health))
            .route_layer(middleware::from_fn_with_state(Arc::clone(&state), require_token))
            .layer(DefaultBodyLimit::max(config.max_body_bytes))
            .layer(cors)
            .with_state(state);
        let config = ServerConfig { origin, ..config };
        Ok(RunnerServer { listener, router, addr, config, sandbox })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL clients use.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// What to print at startup: URL, token, origin, the containment and protections in force.
    pub fn banner(&self) -> String {
        let c = &self.config;
        let mut text = String::new();
        if !self.sandbox.is_contained() {
            text.push_str(&format!("*** {} ***\n", Containment::UNSAFE_WARNING));
        }
        text.push_str(&format!(
            "acr-runner {} listening on {}\ntoken: {}\nallowed origin: {}\nruns at once: {} (others wait up to {} s, \
             then 429)\n{}\n{}",
            env!("CARGO_PKG_VERSION"),
            self.url(),
            c.token,
            c.origin,
            c.concurrency,
            c.queue_wait.as_secs(),
            self.sandbox.describe(&c.limits),
            c.guard.describe()
        ));
        if !self.addr.ip().is_loopback() {
            text.push_str("\nWARNING: listening beyond this machine; anyone with the token can run commands here");
        }
        text
    }

    /// Serves until `shutdown` completes.
    pub async fn serve<F>(self, shutdown: F) -> std::io::Result<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        guard::serve(self.listener, self.router, self.config.guard, shutdown).await
    }
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(ErrorBody { error: message.into() })).into_response()
}

async fn require_token(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    let token = given.and_then(|v| v.strip_prefix("Bearer ")).map(str::trim);
    if token.is_some_and(|t| same_token(t.as_bytes(), state.token.as_bytes())) {
        return next.run(request).await;
    }
    let mut response = error(StatusCode::UNAUTHORIZED, "missing or wrong token (Authorization: Bearer <token>)");
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

async fn health(State(state): State<Arc<AppState>>) -> Json<Health> {
    let sandbox = &state.sandbox;
    Json(Health {
        status: "ok".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        containment: sandbox.containment,
        warning: (!sandbox.is_contained()).then(|| Containment::UNSAFE_WARNING.to_string()),
        network_isolation: sandbox.network,
        resource_limits: sandbox.resource_limits,
        process_cap: sandbox.caps_processes(),
        memory_cap: sandbox.caps_total_memory(),
        python: sandbox.python.as_ref().map(|p| format!("{} {} ({})", p.name, p.version, p.executable.display())),
        limits: state.limits,
        concurrency: state.concurrency,
        available: state.slots.available_permits(),
    })
}

async fn run(State(state): State<Arc<AppState>>, body: Result<Json<RunBody>, JsonRejection>) -> Response {
    let body = match body {
        Ok(Json(body)) => body,
        Err(rejection) => return error(rejection.status(), rejection.body_text()),
    };
    let slot = tokio::time::timeout(state.queue_wait, Arc::clone(&state.slots).acquire_owned()).await;
    let Ok(Ok(permit)) = slot else {
        let message = format!("busy: {} runs in progress and no slot freed in time; retry later", state.concurrency);
        let mut response = error(StatusCode::TOO_MANY_REQUESTS, message);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return response;
    };
    let work = Arc::clone(&state);
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let request =
            request_from_body(body, &work.snapshot_limits).map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
        execute(&request, &work.limits, &work.sandbox).map_err(|e| {
            let status = if e.is_refusal() { StatusCode::BAD_REQUEST } else { StatusCode::INTERNAL_SERVER_ERROR };
            (status, e.to_string())
        })
    })
    .await;
    match done {
        Ok(Ok(outcome)) => Json(outcome).into_response(),
        Ok(Err((status, message))) => error(status, message),
        Err(join) => error(StatusCode::INTERNAL_SERVER_ERROR, format!("the run crashed: {join}")),
    }
}
