//! `run --task ID --print-agent-config`: the task's environment served over MCP with no episode
//! around it, and the `converse` object an agent is given printed as one JSON line — to wire an
//! agent's tools, or to try them with any MCP client, before attacking it.

use std::io::Write;

use serde_json::json;

use crate::core::dataset::Task;
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
    let served = match settings.mcp_listen {
        Some(addr) => EnvironmentServer::start_fixed(env, settings.max_tool_calls, addr).await,
        None => EnvironmentServer::start(env, settings.max_tool_calls, bind).await,
    };
    let place = settings.mcp_listen.unwrap_or(bind);
    let (server, mut events) =
        served.map_err(|e| anyhow::anyhow!("cannot serve the tools over MCP on {place}: {e}"))?;
    server.begin_turn(1).await;
    let meta = converse_meta(&new_episode_id(), 1, false, &server.url, &server.authorization());
    writeln!(out, "{}", json!({ "converse": meta }))?;
    out.flush()?;
    writeln!(err, "serving the tools of {} at {} (Ctrl-C stops)", task.id, server.url)?;
    let mut stop = crate::core::signals::stop_signals()?;
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(body) => writeln!(err, "{}", super::run::event_line(&body))?,
                None => break,
            },
            _ = stop.recv() => break,
        }
    }
    Ok(())
}
