//! The external agent of `replay`'s forks and fans (issue 37): the one named on the command
//! line, else the one each episode recorded, with the command's `--mcp-listen` / `--launch`
//! endpoints served once for the screen and shared by every fork and fan.

use std::sync::Arc;

use crate::config::Paths;
use crate::core::sanitize::SafeWriter;
use crate::core::sim::agent_slots::{self, AgentSlots, SlotsConfig};
use crate::core::sim::agent_spec::AgentSpec;

use super::launch::{Launch, RunArgs};
use super::settings::{AgentFlags, SettingFlags};

/// `replay --assistant … --mcp-listen … --launch …`: the agent forks and fans reach, and the
/// fixed endpoints (and launched agents) they share, served once for the screen.
#[derive(Default, Clone)]
pub struct ForkAgent {
    pub assistant: Option<String>,
    pub flags: AgentFlags,
    pub slots: Option<Arc<AgentSlots>>,
}

impl ForkAgent {
    /// A fork's run, with this agent and its flags; its launch shares the screen's slots.
    pub fn fork(&self, args: RunArgs, paths: &Paths) -> anyhow::Result<Launch> {
        let args = args.with_agent(self.assistant.as_deref(), &self.flags);
        Ok(Launch::new(&args, paths)?.with_agents(self.slots.clone()))
    }

    /// Serves the fixed endpoints `--mcp-listen` / `--launch` ask for, `at_once` of them (within
    /// a tokio runtime, before the screen takes the terminal).
    pub fn serve(&mut self, at_once: usize) -> anyhow::Result<()> {
        let settings =
            SettingFlags { agent: self.flags.clone(), ..Default::default() }.resolve(&Default::default())?;
        let config = settings.slots();
        if !config.wanted() {
            return Ok(());
        }
        let Some(assistant) = &self.assistant else {
            if config.launch.is_some() {
                anyhow::bail!(
                    "--launch on replay starts the agent of its forks: name it with --assistant a2a:URL"
                );
            }
            return self.serve_with(config, at_once);
        };
        let spec = AgentSpec::parse(assistant).map_err(anyhow::Error::msg)?;
        agent_slots::check(&config, &spec, at_once).map_err(anyhow::Error::msg)?;
        self.serve_with(config, at_once)
    }

    fn serve_with(&mut self, config: SlotsConfig, at_once: usize) -> anyhow::Result<()> {
        let slots = AgentSlots::serve(config, at_once, &mut SafeWriter::new(std::io::stderr()))?;
        self.slots = Some(slots);
        Ok(())
    }
}
