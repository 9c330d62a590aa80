//! The screen's attempt fans: the launcher that starts one (the parent's models, the replay's
//! pacing flags), and the fan running, its reports forwarded to the inbox.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::app::Action;
use crate::config::Paths;
use crate::config::settings::ModelFlags;
use crate::core::episode::EventBody;
use crate::core::fan::plan::free_fan_dir;
use crate::session::fan::{FanControl, FanHandle, FanRequest};

use super::inbox::{Outbox, forward};

/// How long quitting waits for the attempts of a stopped fan to close their journals.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Attempts at once and requests per minute per role, shared by all of a fan's attempts.
#[derive(Debug, Clone, Copy)]
pub struct FanPacing {
    pub concurrency: usize,
    pub rpm: crate::session::RpmFlags,
}

impl Default for FanPacing {
    fn default() -> Self {
        FanPacing { concurrency: 4, rpm: crate::session::RpmFlags::default() }
    }
}

/// Starts a fan: the attempts run with the models the episode recorded (a flag names another),
/// its limits, and the pacing.
pub type FanLauncher = Box<dyn FnMut(FanRequest) -> anyhow::Result<FanHandle>>;

pub fn fan_launcher(
    paths: Paths,
    models: ModelFlags,
    data_dir: Option<PathBuf>,
    pacing: FanPacing,
    agent: crate::session::fork_agent::ForkAgent,
) -> FanLauncher {
    Box::new(move |request: FanRequest| {
        let Some(EventBody::Episode(header)) = request.resume.prefix.first().map(|e| &e.body) else {
            anyhow::bail!("the episode has no header to take its models from");
        };
        let args = crate::session::fork_args(header, &models, data_dir.clone())?;
        let mut launch = agent.fork(args, &paths)?;
        launch.set_rate_limits(pacing.rpm.limits());
        crate::session::fan::spawn(launch, request, pacing.concurrency)
    })
}

/// The fan launcher, and the fan running with the task that hands its reports to the inbox.
pub struct Fans {
    launcher: Option<FanLauncher>,
    running: Option<(FanHandle, JoinHandle<()>)>,
}

impl Fans {
    pub fn new(launcher: Option<FanLauncher>) -> Self {
        Fans { launcher, running: None }
    }

    /// Starts the fan in a fresh folder under the episode's `fans/`, or goes on with a stopped one
    /// in its own (a running one is stopped first). The inbox gets [`Action::FanStarted`], then
    /// the fan's reports; a fan that cannot start is the answer.
    pub async fn start(&mut self, mut request: FanRequest, inbox: Outbox) -> Option<Action> {
        let Some(launch) = self.launcher.as_mut() else {
            return Some(Action::FanStarted(Err("fans are started from `converse-tui replay`".into())));
        };
        if !request.resuming {
            request.dir = free_fan_dir(&request.dir, &request.episode_id, request.turn);
        }
        let dir = request.dir.clone();
        match launch(request) {
            Ok(mut handle) => {
                self.stop().await;
                // The handle keeps the controls; its reports go to the inbox.
                let reports = std::mem::replace(&mut handle.updates, mpsc::channel(1).1);
                let forward = forward(inbox, Action::FanStarted(Ok(dir)), reports, Action::Fan);
                self.running = Some((handle, forward));
                None
            }
            Err(e) => Some(Action::FanStarted(Err(format!("{e:#}")))),
        }
    }

    pub fn control(&self, control: FanControl) {
        if let Some((fan, _)) = &self.running {
            fan.set(control);
        }
    }

    /// Aborts the running fan's attempts and waits for their journals to close; nothing it
    /// reports after this reaches the screen.
    pub async fn stop(&mut self) {
        if let Some((fan, forward)) = self.running.take() {
            forward.abort();
            fan.stop(STOP_GRACE).await;
        }
    }
}
