//! The MCP server's request handling (issue 36): any bytes on a connection (`TOKEN` stands for
//! the episode's token) get a bounded answer or a closed connection, never a panic; every tool
//! call journaled has its result, and nothing is journaled without the token.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;

use converse_tui::core::episode::EventBody;
use converse_tui::core::sim::mcp_fuzzing::{RESPONSE_CAP, mcp_exchange};

fuzz_target!(|request: &[u8]| {
    let exchange = mcp_exchange(request);
    assert!(exchange.response.len() <= RESPONSE_CAP);
    let mut open = HashSet::new();
    for event in &exchange.events {
        match event {
            EventBody::ToolCall(call) => assert!(open.insert(call.call_id.clone()), "a call id twice"),
            EventBody::ToolResult(result) => assert!(open.remove(&result.call_id), "a result without its call"),
            other => panic!("the MCP server journaled {other:?}"),
        }
    }
    assert!(open.is_empty(), "calls without a result: {open:?}");
    if !request.windows(5).any(|w| w == b"TOKEN") {
        assert!(exchange.events.is_empty(), "journaled without the token");
    }
});
