//! The screen's attempt fans: the launcher that starts one (the parent's models, the replay's
//! pacing flags), the fan running, and the fork search of the tree view, off the UI thread.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::app::Action;
use crate::config::Paths;
use crate::config::settings::ModelFlags;
use crate::core::episode::EventBody;
use crate::core::fan::plan::free_fan_dir;
use crate::session::Launch;
use crate::session::fan::{FanControl, FanHandle, FanRequest, FanUpdate};

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
) -> FanLauncher {
    Box::new(move |request: FanRequest| {
        let Some(EventBody::Episode(header)) = request.resume.prefix.first().map(|e| &e.body) else {
            anyhow::bail!("the episode has no header to take its models from");
        };
        let args = crate::session::fork_args(header, &models, data_dir.clone())?;
        let mut launch = Launch::new(&args, &paths)?;
        launch.set_rate_limits(pacing.rpm.limits());
        crate::session::fan::spawn(launch, request, pacing.concurrency)
    })
}

/// The fan launcher and the fan running, for the loop.
#[derive(Default)]
pub struct Fans {
    pub launcher: Option<FanLauncher>,
    pub running: Option<FanHandle>,
}

impl Fans {
    /// Starts the fan in a fresh folder under the episode's `fans/`, or goes on with a stopped one
    /// in its own (a running one is stopped).
    pub async fn start(&mut self, mut request: FanRequest) -> Action {
        let Some(launch) = self.launcher.as_mut() else {
            return Action::FanStarted(Err("fans are started from `converse-tui replay`".into()));
        };
        if !request.resuming {
            request.dir = free_fan_dir(&request.dir, &request.episode_id, request.turn);
        }
        let dir = request.dir.clone();
        match launch(request) {
            Ok(handle) => {
                if let Some(previous) = self.running.replace(handle) {
                    previous.stop(STOP_GRACE).await;
                }
                Action::FanStarted(Ok(dir))
            }
            Err(e) => Action::FanStarted(Err(format!("{e:#}"))),
        }
    }

    pub fn control(&self, control: FanControl) {
        if let Some(fan) = &self.running {
            fan.set(control);
        }
    }

    /// The next report of the running fan (pending forever when none runs).
    pub async fn next(&mut self) -> Option<FanUpdate> {
        match self.running.as_mut() {
            Some(fan) => fan.updates.recv().await,
            None => std::future::pending().await,
        }
    }

    /// A report already waiting.
    pub fn waiting(&mut self) -> Option<FanUpdate> {
        self.running.as_mut()?.updates.try_recv().ok()
    }

    /// The fan has reported its end (or its channel closed): nothing more comes.
    pub fn finished(&mut self) {
        self.running = None;
    }

    /// Aborts the running fan's attempts and waits for their journals to close.
    pub async fn stop(&mut self) {
        if let Some(fan) = self.running.take() {
            fan.stop(STOP_GRACE).await;
        }
    }
}

/// Looks for a stopped fan of `episode` from `turn` under `dir` on a blocking thread; answers with
/// [`Action::StoppedFanFound`].
pub fn find_stopped_fan(answers: mpsc::Sender<Action>, dir: PathBuf, episode: String, turn: u32) {
    tokio::task::spawn_blocking(move || {
        let found =
            crate::core::fan::stopped::find_stopped(&dir, &episode, turn).map_err(|e| format!("{e:#}"));
        let _ = answers.blocking_send(Action::StoppedFanFound(found));
    });
}

/// Looks for the fork family of `root` (its journal `journal`) on a blocking thread; answers with
/// [`Action::ForksFound`].
pub fn find_forks(answers: mpsc::Sender<Action>, journal: PathBuf, root: String) {
    tokio::task::spawn_blocking(move || {
        let family = crate::core::fan::forks::find_family(&journal, &root);
        let _ = answers.blocking_send(Action::ForksFound { root, family });
    });
}
