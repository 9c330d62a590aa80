//! Where runner events go: appended to the journal (flushed) first, then sent
//! to whoever watches (the UI, the headless printer). A watcher that is gone
//! never stops the run: the journal is the record.

use tokio::sync::mpsc;

use crate::core::episode::{Event, EventBody, JournalWriter, Verdict};
use crate::core::judge::rules::RuleJudge;
use crate::core::llm::{Role, Usage};

pub use super::secrets::Secrets;

/// What a runner tells its watcher.
#[derive(Debug, Clone, PartialEq)]
pub enum RunnerUpdate {
    /// An event, already in the journal.
    Event(Box<Event>),
    /// A fragment of a reply being streamed (not journaled; the whole reply follows as an event).
    Delta {
        role: Role,
        text: String,
    },
    /// A model call finished (usage of every call, including those that only made tool calls).
    Usage {
        role: Role,
        usage: Usage,
    },
    Phase(Phase),
    /// A retry notice ("HTTP 429 …; retrying in 2s (attempt 2/4)").
    Notice(String),
    /// Something the user must not miss, said until the episode is closed (the agent never
    /// reached its tools; its card points elsewhere than the URL given).
    Warning(String),
    /// The attacker's generated message, held for an edit while paused.
    Pending(String),
}

/// What the runner is doing, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Held by the step gate before a model call for this role.
    Paused(Role),
    /// A model call for this role is in flight.
    Waiting(Role),
    /// Waiting for the human attacker's message.
    AwaitingHuman,
    /// The attacker's next message is held (the run is paused): it can be edited before delivery.
    PendingAttacker,
    Finished,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot write the journal {path}: {source}")]
pub struct JournalFailed {
    pub path: String,
    pub source: std::io::Error,
}

pub struct Emitter {
    journal: JournalWriter,
    tx: mpsc::Sender<RunnerUpdate>,
    secrets: Secrets,
    /// Rule judges see every event and add their verdicts right after it.
    judges: Vec<RuleJudge>,
    /// Everything written so far (the LLM judges read the whole episode).
    events: Vec<Event>,
}

impl Emitter {
    pub fn new(journal: JournalWriter, tx: mpsc::Sender<RunnerUpdate>, secrets: Secrets) -> Self {
        Emitter { journal, tx, secrets, judges: Vec::new(), events: Vec::new() }
    }

    pub fn with_judges(mut self, judges: Vec<RuleJudge>) -> Self {
        self.judges = judges;
        self
    }

    /// Journals `body`, hands the event to the watcher, then lets the rule judges
    /// look at it (their verdicts follow it, journaled the same way).
    pub async fn emit(&mut self, body: EventBody) -> Result<Event, JournalFailed> {
        let event = self.write(body).await?;
        if !matches!(event.body, EventBody::Verdict(_)) {
            let verdicts: Vec<Verdict> = self.judges.iter_mut().filter_map(|j| j.observe(&event)).collect();
            for verdict in verdicts {
                self.write(EventBody::from(verdict)).await?;
            }
        }
        Ok(event)
    }

    /// The rule judges' whole-episode verdicts (at the end of the run).
    pub async fn finish_judges(&mut self) -> Result<(), JournalFailed> {
        let verdicts: Vec<Verdict> = self.judges.iter_mut().filter_map(RuleJudge::finish).collect();
        for verdict in verdicts {
            self.write(EventBody::from(verdict)).await?;
        }
        Ok(())
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    async fn write(&mut self, body: EventBody) -> Result<Event, JournalFailed> {
        let body = self.secrets.redact(body);
        let event = self
            .journal
            .append(body)
            .map_err(|source| JournalFailed { path: self.journal.path().display().to_string(), source })?;
        self.events.push(event.clone());
        let _ = self.tx.send(RunnerUpdate::Event(Box::new(event.clone()))).await;
        Ok(event)
    }

    /// Updates that are not events are best effort: dropped when the watcher lags.
    /// Streamed text must have been through [`Emitter::stream_masker`].
    pub fn notify(&self, update: RunnerUpdate) {
        let _ = self.tx.try_send(update);
    }

    /// Masks the API keys in one reply's streamed fragments (a key split across fragments included).
    pub fn stream_masker(&self) -> super::secrets::StreamMasker<'_> {
        self.secrets.stream_masker()
    }

    /// The run's secrets, for a stream masker held while events are emitted (an external agent's
    /// reply streams in between its tool calls).
    pub fn secrets(&self) -> Secrets {
        self.secrets.clone()
    }

    pub fn phase(&self, phase: Phase) {
        self.notify(RunnerUpdate::Phase(phase));
    }

    /// Copies an event of another episode (a fork's prefix): same body and time, the next `seq`.
    pub async fn copy(&mut self, event: &Event) -> Result<Event, JournalFailed> {
        let copy = Event { seq: self.journal.next_seq(), at: event.at.clone(), body: event.body.clone() };
        self.journal
            .write_event(&copy)
            .map_err(|source| JournalFailed { path: self.journal.path().display().to_string(), source })?;
        self.events.push(copy.clone());
        let _ = self.tx.send(RunnerUpdate::Event(Box::new(copy.clone()))).await;
        // The judges learn the history; the source's own verdicts were copied with it.
        if !matches!(copy.body, EventBody::Verdict(_)) {
            for judge in &mut self.judges {
                let _ = judge.observe(&copy);
            }
        }
        Ok(copy)
    }

    /// Forces the journal to disk (at the end of the episode).
    pub fn sync(&self) {
        let _ = self.journal.sync();
    }

    pub fn next_seq(&self) -> u64 {
        self.journal.next_seq()
    }
}
