//! The guarded accept loop against misbehaving clients, with a tiny router: stalled bodies, slow headers, idle
//! connections, a crowd beyond the connection cap, and a long request that must not be cut.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use acr_runner::guard::{self, Guard};
use axum::Router;
use axum::body::Bytes;
use axum::routing::{get, post};

/// A server with short timeouts on its own runtime and thread.
fn start(guard: Guard) -> SocketAddr {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind");
    let addr = listener.local_addr().expect("addr");
    let router = Router::new()
        .route("/hi", get(|| async { "hi" }))
        .route("/echo", post(|body: Bytes| async move { format!("{} bytes", body.len()) }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(2)).await;
                "done"
            }),
        );
    thread::spawn(move || runtime.block_on(guard::serve(listener, router, guard, std::future::pending())));
    addr
}

fn short() -> Guard {
    Guard {
        max_connections: 16,
        header_timeout: Duration::from_secs(1),
        body_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(1),
    }
}

/// Sends `request` on a fresh connection and reads the whole answer (the connection is closed after it).
fn exchange(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

fn get_hi(addr: SocketAddr) -> String {
    exchange(addr, "GET /hi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
}

/// How long until the server closes a connection that sent `prefix` (None: still open after 10 s).
fn closed_after(addr: SocketAddr, prefix: &[u8]) -> Option<Duration> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let started = Instant::now();
    stream.write_all(prefix).expect("send");
    let mut buf = Vec::new();
    match stream.read_to_end(&mut buf) {
        Ok(_) => Some(started.elapsed()),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => Some(started.elapsed()),
        Err(_) => None,
    }
}

#[test]
fn a_stalled_body_blocks_only_its_own_connection() {
    let addr = start(short());
    let mut stalled = TcpStream::connect(addr).expect("connect");
    stalled.write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx").expect("send");
    let started = Instant::now();
    for _ in 0..5 {
        assert!(get_hi(addr).ends_with("hi"), "others are served while one body stalls");
    }
    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    stalled.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut answer = String::new();
    let _ = stalled.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "the stalled request ends with an error: {answer:?}");
    assert!(started.elapsed() < Duration::from_secs(8), "took {:?}", started.elapsed());
    let whole = exchange(addr, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
    assert!(whole.ends_with("5 bytes"), "{whole}");
}

#[test]
fn slow_headers_and_idle_connections_are_closed() {
    let addr = start(short());
    let slow = closed_after(addr, b"GET /hi HTTP/1.1\r\nHost: x\r\n").expect("closed");
    assert!(slow < Duration::from_secs(5), "slow headers: {slow:?}");
    let idle = closed_after(addr, b"").expect("closed");
    assert!(idle < Duration::from_secs(5), "idle: {idle:?}");
    assert!(get_hi(addr).ends_with("hi"));
}

#[test]
fn a_long_request_is_not_cut_by_the_idle_timeout() {
    let addr = start(short());
    let answer = exchange(addr, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("done"), "{answer}");
}

#[test]
fn a_crowd_of_idle_connections_beyond_the_cap_does_not_lock_out_a_request() {
    let addr =
        start(Guard { idle_timeout: Duration::from_secs(60), header_timeout: Duration::from_secs(60), ..short() });
    let crowd: Vec<TcpStream> = (0..100).map(|_| TcpStream::connect(addr).expect("connect")).collect();
    thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    assert!(get_hi(addr).ends_with("hi"));
    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    thread::sleep(Duration::from_millis(200));
    let closed = crowd
        .iter()
        .filter(|s| {
            s.set_nonblocking(true).expect("nonblocking");
            match (&mut &**s).read(&mut [0u8; 1]) {
                Ok(0) => true,
                Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
                Ok(_) => false,
            }
        })
        .count();
    assert!(closed >= 100 - 16, "the oldest idle connections made room: {closed} of 100 closed");
}
