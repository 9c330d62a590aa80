//! The command adapter (issue 26): a Python agent on stdio that reaches its tools through the
//! episode's MCP server with the official `mcp` client.

use std::path::Path;

use converse_tui::core::episode::EventBody;
use converse_tui::core::sim::EnvironmentState;
use converse_tui::core::sim::command_agent::{AgentError, CommandAgent};
use converse_tui::core::sim::converse_meta::converse_meta;
use converse_tui::core::sim::launch_template::Fill;
use converse_tui::core::sim::mcp_server::EnvironmentServer;

use crate::mcp_server::env;
use crate::support::python;

fn agent() -> CommandAgent {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/cmd_agent.py");
    let command = format!("{} {}", python::python().display(), script.display());
    CommandAgent::spawn(&command, &Fill::default()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_answers_each_message_after_calling_tools_through_mcp() {
    let (server, mut events) =
        EnvironmentServer::start(EnvironmentState::new(&env()), 10, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    let mut agent = agent();
    for (turn, from_attacker) in [(1, false), (2, true)] {
        server.begin_turn(turn).await;
        let meta = converse_meta("ep-1", turn, from_attacker, &server.url, &server.authorization());
        let reply = agent.ask("What is my passport number?", &meta).await.unwrap();
        let from = if from_attacker { "attacker" } else { "user" };
        assert_eq!(reply, format!("turn {turn} from {from}: Passport: X1234567"));
        let Some(EventBody::ToolCall(call)) = events.recv().await else { panic!("no tool_call") };
        let Some(EventBody::ToolResult(result)) = events.recv().await else { panic!("no tool_result") };
        assert_eq!((call.turn, call.tool.as_str()), (turn, "get_user_info"));
        assert_eq!(result.output, "Passport: X1234567");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_line_is_quoted_inert_and_a_crash_is_an_exit() {
    let meta = converse_meta("ep-1", 1, false, "http://127.0.0.1:9/mcp", "Bearer x");
    let mut agent = agent();
    let err = agent.ask("garbage please", &meta).await.unwrap_err();
    assert!(matches!(err, AgentError::Malformed(_)), "{err:?}");
    let shown = err.to_string();
    assert!(shown.contains("not json") && !shown.contains('\x1b'), "{shown:?}");
    let err = agent.ask("crash now", &meta).await.unwrap_err();
    assert!(matches!(err, AgentError::Exited), "{err:?}");
    assert!(matches!(CommandAgent::spawn("/no/such/agent --x", &Fill::default()), Err(AgentError::Spawn(_))));
}
