//! A guarded HTTP/1 server for an axum [`Router`]: the one accept loop behind both `acr-runner` and
//! `acr serve-model`, so that no client, token or not, can lock the others out.
//!
//! - **Each connection on its own task**: a client that stalls holds up only itself.
//! - **Header timeout**: a connection must send a request's complete head within [`Guard::header_timeout`]
//!   (hyper's header-read timer), or it is closed.
//! - **Body timeout**: a request's body must arrive within [`Guard::body_timeout`] of its head; a client that
//!   promises 100,000 bytes and sends one gets an error, and its connection is closed.
//! - **Idle timeout**: a connection with no request in progress and no bytes moving for [`Guard::idle_timeout`]
//!   is closed (a request in progress, such as a long run, is never cut by it).
//! - **Connection cap**: at most [`Guard::max_connections`] at once (and never more than half the open-file
//!   limit). A new connection beyond the cap closes the oldest *idle* one (no request in progress) instead of
//!   being refused, so a crowd of idle connections cannot keep out a client that sends a request.
//! - **Open files**: [`raise_open_file_limit`] raises the soft `RLIMIT_NOFILE` to the hard limit, so the cap,
//!   not the common 1,024 default, is what binds.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tower::ServiceExt;

/// How often a connection checks whether it has been idle too long.
const IDLE_TICK: Duration = Duration::from_millis(250);

/// The protections, with defaults suited to a local server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Time to send a request's head (request line and headers).
    pub header_timeout: Duration,
    /// Time to send a request's body, counted from its head.
    pub body_timeout: Duration,
    /// Time a connection may stay open with no request in progress and no bytes moving.
    pub idle_timeout: Duration,
}

impl Default for Guard {
    /// 256 connections; 10 s for headers, 60 s for a body, 30 s idle.
    fn default() -> Self {
        Guard {
            max_connections: 256,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

impl Guard {
    /// The cap in force: [`Guard::max_connections`], but never more than half the soft open-file limit (the
    /// rest is for the server's own files and its runs' pipes).
    pub fn effective_max_connections(&self) -> usize {
        let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
            .map(|(soft, _)| usize::try_from(soft).unwrap_or(usize::MAX))
            .unwrap_or(1024);
        self.max_connections.min(soft / 2).max(1)
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        format!(
            "connections: at most {} (the oldest idle one is closed for a new one); {} s for headers, {} s for a \
             body, closed after {} s idle",
            self.effective_max_connections(),
            self.header_timeout.as_secs(),
            self.body_timeout.as_secs(),
            self.idle_timeout.as_secs()
        )
    }
}

/// Raises this process's soft open-file limit to its hard limit; returns the (soft, hard) limits now in force.
pub fn raise_open_file_limit() -> io::Result<(u64, u64)> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(io::Error::from)?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(io::Error::from)?;
    }
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(io::Error::from)?;
    Ok((soft, hard))
}

/// Serves `router` on `listener` under `guard` until `shutdown` completes (connections already open finish on
/// their own tasks).
pub async fn serve<F>(listener: TcpListener, router: Router, guard: Guard, shutdown: F) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let registry = Arc::new(Registry::new(guard.effective_max_connections()));
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors or a connection reset before it was accepted: wait a moment, go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Some(connection) = registry.admit() else {
            // Every connection has a request in progress: this one is refused by closing it.
            continue;
        };
        let (router, registry) = (router.clone(), Arc::clone(&registry));
        tokio::spawn(async move {
            serve_connection(stream, router, guard, &connection).await;
            registry.remove(connection.id);
        });
    }
}

/// Serves one connection until it ends, times out or is closed to make room.
async fn serve_connection(stream: TcpStream, router: Router, guard: Guard, connection: &Arc<Connection>) {
    let io = TokioIo::new(Tracked { inner: stream, connection: Arc::clone(connection) });
    let tracker = Arc::clone(connection);
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let in_flight = InFlight::enter(&tracker);
        let request = request.map(|body| Body::new(TimedBody::new(body, guard.body_timeout)));
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await;
            drop(in_flight);
            response
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(guard.header_timeout);
    let served = builder.serve_connection(io, service);
    tokio::pin!(served);
    loop {
        tokio::select! {
            _ = served.as_mut() => return,
            () = connection.evicted.notified() => return,
            () = tokio::time::sleep(IDLE_TICK) => {
                if connection.idle_for() >= guard.idle_timeout {
                    return;
                }
            }
        }
    }
}

/// What the registry knows about one open connection.
#[derive(Debug)]
struct Connection {
    id: u64,
    opened: Instant,
    /// Milliseconds after `opened` when bytes last moved or a request ended.
    last_active_ms: AtomicU64,
    /// Requests being handled now.
    in_flight: AtomicUsize,
    evicted: Notify,
}

impl Connection {
    fn touch(&self) {
        let now = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_active_ms.store(now, Ordering::Relaxed);
    }

    fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
    }

    /// How long the connection has been idle; zero while a request is in progress.
    fn idle_for(&self) -> Duration {
        if !self.is_idle() {
            return Duration::ZERO;
        }
        let last = Duration::from_millis(self.last_active_ms.load(Ordering::Relaxed));
        self.opened.elapsed().saturating_sub(last)
    }
}

/// Counts a request as in progress while it lives.
struct InFlight(Arc<Connection>);

impl InFlight {
    fn enter(connection: &Arc<Connection>) -> InFlight {
        connection.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(connection))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The open connections.
struct Registry {
    cap: usize,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Connection>>>,
}

impl Registry {
    fn new(cap: usize) -> Registry {
        Registry { cap, next_id: AtomicU64::new(1), open: Mutex::new(HashMap::new()) }
    }

    /// Registers a new connection, closing the longest-idle one when at the cap; `None` when every open
    /// connection has a request in progress.
    fn admit(&self) -> Option<Arc<Connection>> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.len() >= self.cap {
            let victim = open.values().filter(|c| c.is_idle()).max_by_key(|c| c.idle_for()).map(|c| c.id)?;
            if let Some(victim) = open.remove(&victim) {
                victim.evicted.notify_one();
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            id,
            opened: Instant::now(),
            last_active_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            evicted: Notify::new(),
        });
        open.insert(id, Arc::clone(&connection));
        Some(connection)
    }

    fn remove(&self, id: u64) {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }
}

/// A stream that records when bytes last moved.
struct Tracked {
    inner: TcpStream,
    connection: Arc<Connection>,
}

impl AsyncRead for Tracked {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.connection.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            this.connection.touch();
        }
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// A request body that must arrive before a deadline.
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
}

impl TimedBody {
    fn new(inner: Incoming, limit: Duration) -> TimedBody {
        TimedBody { inner, deadline: Box::pin(tokio::time::sleep(limit)), limit }
    }
}

/// The error a late body ends with.
#[derive(Debug)]
struct BodyTimeout(Duration);

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request body did not arrive within {} s", self.0.as_secs())
    }
}

impl std::error::Error for BodyTimeout {}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|r| r.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTimeout(this.limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_connection_makes_room() {
        let registry = Registry::new(2);
        let busy = registry.admit().expect("room");
        let _busy_request = InFlight::enter(&busy);
        let idle = registry.admit().expect("room");
        std::thread::sleep(Duration::from_millis(5));
        let newcomer = registry.admit().expect("the idle one makes room");
        assert!(!registry.open.lock().unwrap().contains_key(&idle.id));
        assert!(registry.open.lock().unwrap().contains_key(&busy.id));
        let _newcomer_request = InFlight::enter(&newcomer);
        assert!(registry.admit().is_none(), "every connection has a request in progress");
    }

    #[test]
    fn a_request_in_progress_is_never_idle() {
        let registry = Registry::new(4);
        let connection = registry.admit().expect("room");
        let request = InFlight::enter(&connection);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(connection.idle_for(), Duration::ZERO);
        drop(request);
        std::thread::sleep(Duration::from_millis(20));
        assert!(connection.idle_for() >= Duration::from_millis(15));
    }

    #[test]
    fn the_open_file_limit_is_raised_to_the_hard_limit() {
        let (soft, hard) = raise_open_file_limit().expect("getrlimit works");
        assert_eq!(soft, hard);
        assert!(Guard::default().effective_max_connections() <= usize::try_from(soft / 2).unwrap_or(usize::MAX));
    }
}
