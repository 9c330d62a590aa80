//! `run --task ID --print-agent-config`: the task's environment served over MCP with no episode
//! around it, and the `converse` object an agent is given printed as one JSON line — to wire an
//! agent's tools, or to try them with any MCP client, before attacking it.

use std::io::Write;

use serde_json::json;

use crate::core::dataset::Task;
use crate::core::sim::agent_slots::AgentSlots;
use crate::core::sim::converse_meta::converse_meta;
use crate::core::sim::environment::EnvironmentState;
use crate::core::sim::mcp_server::EnvironmentServer;
use crate::core::sim::runner::new_episode_id;
use crate::core::sim::settings::EpisodeSettings;

/// Serves `task`'s tools until Ctrl-C / SIGTERM: the object on `out`, each tool call and result
/// on `err` as it happens (one line each, made inert). The tool budget is turn 1's.
pub async fn serve(
    task: &Task,
    settings: &EpisodeSettings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let env = EnvironmentState::new(&task.environment);
    let bind = std::net::SocketAddr::new(settings.mcp_bind, 0);
    // With --mcp-listen, the endpoint later runs use: the agent is wired once.
    let slots = match settings.mcp_listen {
        Some(_) => Some(AgentSlots::serve(settings.slots(), 1, err)?),
        None => None,
    };
    let lease = match &slots {
        Some(slots) => Some(slots.lease().await),
        None => None,
    };
    let served = match &lease {
        Some(lease) => EnvironmentServer::start_fixed(env, settings.max_tool_calls, lease.endpoint()),
        None => EnvironmentServer::start(env, settings.max_tool_calls, bind).await,
    };
    let place = settings.mcp_listen.unwrap_or(bind);
    let (server, mut events) =
        served.map_err(|e| anyhow::anyhow!("cannot serve the tools over MCP on {place}: {e}"))?;
    server.begin_turn(1).await;
    let wiring = new_episode_id();
    let meta = converse_meta(&wiring, 1, false, &server.url, &server.authorization());
    writeln!(out, "{}", json!({ "converse": meta }))?;
    out.flush()?;
    writeln!(err, "serving the tools of {} at {} (Ctrl-C stops)", task.id, server.url)?;
    let mut stop = crate::core::signals::stop_signals()?;
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(body) => {
                    if matches!(body, crate::core::episode::EventBody::ToolCall(_)) {
                        // An agent still wired here while a run goes on elsewhere: its calls
                        // reach no episode, and the run would see none of them (issue 37 D1).
                        writeln!(
                            err,
                            "NOT AN EPISODE'S CALL: this is the --print-agent-config server of {} ({wiring}, a wiring check); no episode's journal gets it. A run serves its own endpoint: wire the agent with --mcp-listen HOST:PORT on both commands.",
                            task.id
                        )?;
                    }
                    writeln!(err, "{}", super::run::event_line(&body))?
                }
                None => break,
            },
            _ = stop.recv() => break,
        }
    }
    Ok(())
}
