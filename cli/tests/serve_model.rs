//! `acr serve-model` under misbehaving clients: a client that promises a body and stalls, or a crowd of idle
//! connections, must not hold up anyone else.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

mod common;
use common::ModelServer;

fn address(server: &ModelServer) -> String {
    server.url.trim_start_matches("http://").trim_end_matches("/v1").to_string()
}

/// A connection test as the playground sends it: answered with `ok`.
fn completion(server: &ModelServer) -> String {
    let body = r#"{"model": "m", "messages": [{"role": "user", "content": "Say ok."}]}"#;
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(10))).build().into();
    let mut response =
        agent.post(format!("{}/chat/completions", server.url)).send(body).expect("the server answers in time");
    response.body_mut().read_to_string().expect("a body")
}

#[test]
fn a_client_that_stalls_mid_body_blocks_no_one() {
    let server = ModelServer::start("minirepo.json");
    let addr = address(&server);
    let mut stalled: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).expect("connect");
            s.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{")
                .expect("send");
            s
        })
        .collect();
    let started = Instant::now();
    for _ in 0..3 {
        assert!(completion(&server).contains("\"content\":\"ok\""));
    }
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?} with stalled clients", started.elapsed());
    let first = stalled.first_mut().expect("a stalled client");
    first.set_read_timeout(Some(Duration::from_millis(100))).expect("timeout");
    assert!(first.read(&mut [0u8; 1]).is_err(), "the stalled client is still waiting, not answered");
}

#[test]
fn a_crowd_of_idle_connections_does_not_lock_the_server() {
    let server = ModelServer::start("minirepo.json");
    let addr = address(&server);
    let crowd: Vec<TcpStream> = (0..300).filter_map(|_| TcpStream::connect(&addr).ok()).collect();
    assert!(crowd.len() >= 290, "{} connections", crowd.len());
    let started = Instant::now();
    assert!(completion(&server).contains("\"content\":\"ok\""));
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
}
