//! The MCP server's request handling for the fuzz target (issue 36): any bytes sent on one
//! connection, with `TOKEN` standing for the episode's token so the fuzzer reaches MCP itself.

use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::core::dataset::{CalendarEntry, Domain, Email, Environment};
use crate::core::episode::EventBody;

use super::environment::EnvironmentState;
use super::mcp_server::{EnvironmentServer, Limits};

/// Most of the response kept (the rest is read and dropped).
pub const RESPONSE_CAP: usize = 1 << 20;

/// What one connection got: the bytes answered and the events the episode journaled.
pub struct Exchange {
    pub response: Vec<u8>,
    pub events: Vec<EventBody>,
}

/// Sends `request` (`TOKEN` replaced by the episode's token) on one connection to a fresh
/// episode's server, reads what it answers for a moment, then ends the episode.
pub fn mcp_exchange(request: &[u8]) -> Exchange {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    }
    RUNTIME.with(|runtime| runtime.block_on(exchange(request)))
}

async fn exchange(request: &[u8]) -> Exchange {
    let limits = Limits { header_timeout: Duration::from_millis(100), ..Limits::default() };
    let loopback = "127.0.0.1:0".parse().expect("an address");
    let (server, mut events) =
        EnvironmentServer::start_with(EnvironmentState::new(&environment()), 3, loopback, limits)
            .await
            .expect("a loopback port");
    let token = server.authorization();
    let token = token.trim_start_matches("Bearer ").as_bytes();
    let request = replace(request, b"TOKEN", token);
    let (mut client, io) = tokio::io::duplex(64 * 1024);
    let mut response = Vec::new();
    let talk = async {
        let _ = client.write_all(&request).await;
        let mut chunk = [0u8; 8192];
        while let Ok(n) = client.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            let room = RESPONSE_CAP.saturating_sub(response.len());
            response.extend_from_slice(&chunk[..n.min(room)]);
        }
    };
    // The server closes an idle connection after its header timeout; a stream is cut short.
    let _ = tokio::join!(
        tokio::time::timeout(Duration::from_secs(1), server.serve_io(io)),
        tokio::time::timeout(Duration::from_millis(500), talk),
    );
    server.end(Duration::from_secs(2)).await;
    drop(server);
    let mut journal = Vec::new();
    while let Ok(event) = events.try_recv() {
        journal.push(event);
    }
    Exchange { response, events: journal }
}

fn replace(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = memchr::memmem::find(rest, needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

fn environment() -> Environment {
    Environment {
        domain: Domain::TravelPlanning,
        persona: 1,
        general_info: "Name: Ada\nPassport: X1234567".into(),
        emails: vec![Email {
            from: "bob@example.com".into(),
            to: "ada@example.com".into(),
            subject: "Trip".into(),
            body: "Booked.".into(),
        }],
        calendar: vec![CalendarEntry {
            date: "2025-03-01".into(),
            event: "Dentist".into(),
            participants: "Dr. Who".into(),
            details: "X-rays".into(),
        }],
        banking: String::new(),
        medical: String::new(),
        persona_text: String::new(),
        options_text: String::new(),
    }
}
