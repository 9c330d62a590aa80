//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "converse-tui",
    version,
    about = "Watch, replay, annotate and play CONVERSE agent-to-agent attacks in the terminal",
    long_about = "Watch, replay, annotate and play CONVERSE agent-to-agent attacks in the terminal.\n\n\
                  With no command, opens the bundled demo episodes."
)]
pub struct Cli {
    /// Colour theme of the screen: default, light, high-contrast, or a file in <config dir>/themes/.
    #[arg(long, env = "CONVERSE_TUI_THEME", default_value = "default")]
    pub theme: String,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open saved episodes: our journals, ConVerse logs, MASEval reports, Inspect logs (.eval), or directories of them.
    Replay {
        /// Files or directories; several episodes open the episode browser.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Models for a fork (T), a fan (f) or a task started from the picker; a fork otherwise
        /// uses the assistant and attacker its episode recorded, and an LLM judge only when one is
        /// named (`--judge-model recorded`: the episode's, at its recorded endpoint).
        #[command(flatten)]
        models: ModelArgs,
        /// Where imported episodes' tasks are looked up, and where a fork finds its task.
        #[command(flatten)]
        dataset: DatasetDir,
        /// How an attempt fan started on screen (`f`) paces its attempts.
        #[command(flatten)]
        fans: FanPacingArgs,
        /// The external agent of forks and fans, and how it reaches its tools.
        #[command(flatten)]
        agent: Box<ReplayAgentArgs>,
        /// Colour theme: default, light, high-contrast, or a file in <config dir>/themes/.
        #[arg(long)]
        theme: Option<String>,
    },
    /// Two episodes side by side, turn by turn: where they diverge, and their verdicts per turn.
    Compare {
        /// The first episode (a file of any supported format holding one episode, or an attack
        /// case: the episode it was made from).
        a: PathBuf,
        /// The second episode.
        b: PathBuf,
        /// Where imported episodes' tasks are looked up.
        #[command(flatten)]
        dataset: DatasetDir,
        /// Colour theme: default, light, high-contrast, or a file in <config dir>/themes/.
        #[arg(long)]
        theme: Option<String>,
    },
    /// Print the normalized events of any supported input.
    Dump {
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        dataset: DatasetDir,
        /// One event per line in the journal's JSON form.
        #[arg(long)]
        json: bool,
    },
    /// List CONVERSE tasks (the downloaded benchmark, a local copy, or the bundled sample).
    Tasks {
        #[command(flatten)]
        source: TaskSource,
        /// One JSON object per task, with every field.
        #[arg(long)]
        json: bool,
    },
    /// Run a live episode against OpenAI-compatible endpoints (no --task: pick one in the TUI).
    Run(Box<RunCli>),
    /// Play the attacker yourself in a live episode (the composer sends your messages).
    Play(Box<RunCli>),
    /// Show or check the configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Manage the CONVERSE dataset cache.
    Data {
        #[command(subcommand)]
        command: DataCommand,
    },
    /// Re-judge saved episodes offline; verdicts go to `<name>.verdicts.jsonl` beside each file.
    Judge {
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        models: JudgeModelArgs,
        /// Rule judges only: no model is called.
        #[arg(long)]
        rules_only: bool,
        /// The CONVERSE task of the episodes, when their file does not say (a run copied out of
        /// the benchmark's logs/<domain>/<model>/… layout); looked up in the dataset.
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        #[command(flatten)]
        dataset: DatasetDir,
        /// One JSON object per episode, then the totals.
        #[arg(long)]
        json: bool,
    },
    /// Export episodes: readable Markdown, self-contained HTML, JSON events, MASEval reports, or an Inspect .eval log.
    Export {
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// markdown, html, json, maseval or eval (an Inspect log, with -o); with --by or --judge,
        /// the corpus's charts: html (a self-contained page with SVG charts), json or csv (the
        /// series).
        #[arg(long, value_enum, ignore_case = true, default_value_t = crate::core::export::Format::Markdown)]
        format: crate::core::export::Format,
        /// Export the charts of the corpus grouped by these fields (as summary --by) instead of
        /// its episodes.
        #[arg(long, value_name = "FIELDS")]
        by: Option<String>,
        /// With the charts: the verdict source counted (rule, llm:MODEL, imported:MODEL, human);
        /// without it, the one with the most privacy and security verdicts.
        #[arg(long, value_name = "SOURCE")]
        judge: Option<String>,
        /// With the charts: count aborted, errored, forked and human-played episodes too.
        #[arg(long)]
        count_all: bool,
        #[command(flatten)]
        cache: IndexCache,
        /// Output file (or directory, for several episodes as markdown/html); stdout when absent.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Mask the persona's private values (names, emails, phones, ids, leaked snippets).
        #[arg(long)]
        redact: bool,
        #[command(flatten)]
        dataset: DatasetDir,
    },
    /// Annotations: export them.
    Notes {
        #[command(subcommand)]
        command: NotesCommand,
    },
    /// Run many episodes: bounded concurrency, rate limits, one journal each, runs.jsonl, resumable.
    Batch(Box<BatchCli>),
    /// Rates per group and judge source over a corpus of episodes, with 95% intervals; two paths
    /// (without --by): A against B.
    Summary {
        /// Episode files or directories (batch directories, the benchmark's logs/, journals). Two
        /// paths without --by are compared: A, B and B − A per group and judge source.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Print JSON, one object per row (as --format json).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Group by these fields, comma-separated: model, defence, domain, persona, category, attack,
        /// attack_type. Without it: the fields among model, defence, domain that vary.
        #[arg(long, value_name = "FIELDS", conflicts_with = "pool")]
        by: Option<String>,
        /// One group for all episodes (judge sources still apart); with two paths, A and B each pooled.
        #[arg(long)]
        pool: bool,
        /// Count aborted, errored, forked and human-played episodes in the rates too.
        #[arg(long)]
        count_all: bool,
        /// Count only this judge model's verdicts (e.g. gpt-5).
        #[arg(long, value_name = "MODEL")]
        judge_model: Option<String>,
        /// Every row against the row of the same group and judge source whose FIELD is VALUE
        /// (e.g. defence=baseline): the difference with its 95% CI and an exact p-value
        /// (docs/statistics.md). FIELD must be one the rows are grouped by.
        #[arg(long, value_name = "FIELD=VALUE", conflicts_with = "pool")]
        vs: Option<String>,
        /// With --vs or two paths: compare the rows as they are, whatever tasks each judged
        /// (by default both sides are restricted to the tasks they share, and the table says how
        /// many verdicts were dropped).
        #[arg(long)]
        all_tasks: bool,
        /// table, markdown, csv or json (one object per row).
        #[arg(long, value_enum)]
        format: Option<crate::headless::summary::Format>,
        #[command(flatten)]
        cache: IndexCache,
    },
    /// Charts of a corpus in the terminal: rates per group with 95% intervals, and turns to the
    /// first leak / unauthorized action (Kaplan–Meier), one judge source at a time.
    Chart {
        /// Episode files or directories (the benchmark's logs/, batch directories, journals).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Group by these fields, comma-separated (as summary --by). Without it: the fields among
        /// model, defence, domain that vary.
        #[arg(long, value_name = "FIELDS")]
        by: Option<String>,
        /// The verdict source charted: rule, llm:MODEL, imported:MODEL, human. Without it: the
        /// source with the most privacy and security verdicts.
        #[arg(long, value_name = "SOURCE")]
        judge: Option<String>,
        /// Count aborted, errored, forked and human-played episodes too.
        #[arg(long)]
        count_all: bool,
        /// Columns to draw in (default: the terminal's width, 100 when piped).
        #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(40..=1000))]
        width: Option<u16>,
        #[command(flatten)]
        cache: IndexCache,
    },
    /// One line per episode of a corpus: model, defence, domain, persona, category, attack, verdicts.
    Ls {
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per episode.
        #[arg(long)]
        json: bool,
        /// Only the episodes matching this filter, e.g. 'model=gemini* privacy=fail turns>5'. A judge
        /// term reads any source's verdicts ('privacy=fail': some source says fail) unless it names
        /// one ('privacy[imported:gpt-5]=fail', 'security[rule]=pass', 'privacy[human]=fail') or the
        /// expression has judge_model=M (every judge term then reads model M's verdicts).
        #[arg(long = "where", value_name = "EXPR")]
        filter: Option<String>,
        #[command(flatten)]
        cache: IndexCache,
    },
    /// Every line of delivered text that matches, over any number of episodes (all formats).
    Search(SearchCli),
    /// How verdict sources agree on the same question: confusion matrix and Cohen's kappa per pair.
    Agreement {
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per judge and pair of sources.
        #[arg(long)]
        json: bool,
        /// Open the browser on the review list of the disagreeing episodes instead (Enter opens one at
        /// the disputed turn, a labels it).
        #[arg(long, conflicts_with = "json")]
        review: bool,
        #[command(flatten)]
        cache: IndexCache,
    },
    /// Re-run an episode N times from one turn (its reply drawn again, or the rest played on):
    /// how often and how soon each judge source sees a leak, with 95% intervals.
    Fan(Box<FanCli>),
    /// Attack suites: attacks that worked, kept as cases (TOML files) that `test` runs again.
    Suite {
        #[command(subcommand)]
        command: SuiteCommand,
    },
    /// Run every case of an attack suite against an assistant (a model or an external agent);
    /// exit 0 when every case holds, 1 when one fails, 2 when one was left undecided.
    Test(Box<TestCli>),
    /// Search for an attack that works: Crescendo, GOAT or TAP over the fork tree, every node a
    /// fork journal; exit 0 when nothing leaked within the budget, 1 on a leak, 2 when undecided.
    Attack(Box<AttackCli>),
    /// Print shell completions.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Where the commands that read episodes look up an imported episode's task.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DatasetDir {
    /// The CONVERSE dataset in which imported episodes' tasks are looked up (the upstream
    /// `<domain>_usecase/` layout or our cache layout). Default: the cache, if it holds data.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

/// Which tasks: the same flags for `tasks`, `run` and `batch`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TaskSource {
    /// A dataset directory (the upstream `<domain>_usecase/` layout or our cache layout).
    /// Default: the cache (`CONVERSE_TUI_DATA` moves it), else the bundled sample.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// travel_planning (or travel), real_estate, insurance, or all.
    #[arg(long)]
    pub domain: Option<String>,
    /// all, privacy or security.
    #[arg(long)]
    pub split: Option<String>,
    /// Persona number (1-4).
    #[arg(long)]
    pub persona: Option<u8>,
    /// At most this many tasks (counted as the reference does: checked after each persona).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Skip attack files that do not parse (with a warning) instead of failing.
    #[arg(long)]
    pub lenient: bool,
}

#[derive(Debug, Subcommand)]
pub enum DataCommand {
    /// Download the upstream CONVERSE files into the cache.
    Fetch {
        /// travel_planning (or travel), real_estate, insurance, or all.
        #[arg(long, conflicts_with = "all")]
        domain: Option<String>,
        /// All three domains.
        #[arg(long)]
        all: bool,
        /// Download again even when a file is already there.
        #[arg(long)]
        force: bool,
        /// Where to download into (default: the cache).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Seconds before a stalled request fails.
        #[arg(long)]
        timeout: Option<u64>,
    },
    /// Print where the dataset cache lives.
    Path {
        /// A dataset directory to report on instead of the cache.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Check that every file is present and parses; count tasks per domain and split.
    Verify {
        /// travel_planning (or travel), real_estate, insurance, or all.
        #[arg(long)]
        domain: Option<String>,
        /// A dataset directory to check instead of the cache.
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// One JSON object with the counts and problems.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// Base URL of an OpenAI-compatible API for every role (e.g. http://localhost:11434/v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Base URL for the attacker alone (overrides --base-url).
    #[arg(long)]
    pub attacker_base_url: Option<String>,
    /// Base URL for the assistant alone (overrides --base-url).
    #[arg(long)]
    pub assistant_base_url: Option<String>,
    /// Base URL for the judges alone (overrides --base-url).
    #[arg(long)]
    pub judge_base_url: Option<String>,
    /// The attacker's model (the adversarial service provider).
    #[arg(long)]
    pub attacker_model: Option<String>,
    /// The assistant's model (the system under test).
    #[arg(long)]
    pub assistant_model: Option<String>,
    /// The judges' model (LLM judges run only when one is named). For forks and fans,
    /// `recorded`: the judge the episode recorded, at the endpoint it recorded.
    #[arg(long)]
    pub judge_model: Option<String>,
}

/// The only model `judge` uses.
#[derive(Debug, Clone, clap::Args)]
pub struct JudgeModelArgs {
    /// Base URL of an OpenAI-compatible API (e.g. http://localhost:11434/v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Base URL for the judges alone (overrides --base-url).
    #[arg(long)]
    pub judge_base_url: Option<String>,
    /// The judges' model.
    #[arg(long)]
    pub judge_model: Option<String>,
}

impl From<JudgeModelArgs> for ModelArgs {
    fn from(j: JudgeModelArgs) -> Self {
        ModelArgs {
            base_url: j.base_url,
            judge_base_url: j.judge_base_url,
            judge_model: j.judge_model,
            attacker_base_url: None,
            assistant_base_url: None,
            attacker_model: None,
            assistant_model: None,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct RunCli {
    /// The task id (see `converse-tui tasks`); without it the task picker opens.
    #[arg(long)]
    pub task: Option<String>,
    #[command(flatten)]
    pub source: TaskSource,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub settings: EpisodeSettings,
    /// Start paused: no model call until you continue (c) or step (. or >).
    #[arg(long)]
    pub paused: bool,
    /// No screen: one line per event, the journal written as usual.
    #[arg(long)]
    pub headless: bool,
    /// No episode: serve the task's tools over MCP, print the `converse` object an agent is given
    /// (one JSON line) and serve until Ctrl-C — to wire your agent's tools or try them by hand.
    #[arg(long, conflicts_with_all = ["headless", "paused"])]
    pub print_agent_config: bool,
    /// Where journals go (default: the data directory's episodes/ folder).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Colour theme: default, light, high-contrast, or a file in <config dir>/themes/.
    #[arg(long)]
    pub theme: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration (API keys are never shown).
    Show {
        #[command(flatten)]
        models: ModelArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// Make a case of each episode (any format): its task, attacker turns and what must hold now
    /// (every privacy/security judge it had says pass; a tool its security judge caught is not called).
    Add {
        /// The suite directory (created if needed).
        suite: PathBuf,
        /// Episode files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Only the episodes matching this filter, as `ls --where` (e.g. 'privacy[imported:gpt-5]=fail
        /// model=gpt_5*'; an unbound 'privacy=fail' is "some source says fail").
        #[arg(long = "where", value_name = "EXPR")]
        filter: Option<String>,
        /// Cases go on with the attacker model once the assistant answers differently than recorded
        /// (default: every recorded turn is replayed verbatim).
        #[arg(long)]
        live: bool,
        /// The attacker model of live cases (default: the one `test` is given).
        #[arg(long, requires = "live")]
        attacker_model: Option<String>,
        /// The dataset the tasks are looked up in (for each case's task hash).
        #[command(flatten)]
        dataset: DatasetDir,
        #[command(flatten)]
        cache: IndexCache,
    },
    /// One line per case: task, turns, how it goes on, what must hold, where it came from.
    Ls {
        /// The suite directory.
        suite: PathBuf,
        /// One JSON object per case.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct FanCli {
    /// The episode (a file of any supported format holding one episode).
    pub episode: PathBuf,
    /// The turn whose message to the assistant every attempt answers again (1: the user's task).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub turn: u32,
    /// How many attempts.
    #[arg(short = 'n', long = "attempts", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub attempts: u32,
    /// Play the rest of the conversation on (the attacker model moves after the reply) instead of
    /// drawing the one reply again.
    #[arg(long)]
    pub rest: bool,
    #[command(flatten)]
    pub dataset: DatasetDir,
    #[command(flatten)]
    pub models: ModelArgs,
    /// Where the attempts' fork journals and runs.jsonl go (not needed with --dry-run).
    #[arg(long, value_name = "DIR", required_unless_present = "dry_run")]
    pub out: Option<PathBuf>,
    /// Attempts at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    #[command(flatten)]
    pub rpm: crate::session::RpmFlags,
    /// Continue a stopped fan: the attempts in the runs file are not run again.
    #[arg(long)]
    pub resume: bool,
    /// Print the attempts' journals and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON object per judge source, then one per attempt.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub settings: EpisodeSettings,
}

#[derive(Debug, Clone, clap::Args)]
pub struct TestCli {
    /// The suite directory.
    pub suite: PathBuf,
    #[command(flatten)]
    pub dataset: DatasetDir,
    #[command(flatten)]
    pub models: ModelArgs,
    /// Where each run's journal and runs.jsonl go (default: a new folder per test under the data
    /// directory's episodes/tests/<suite>-<hash>/; with --resume, the newest of them).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Runs at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    #[command(flatten)]
    pub rpm: crate::session::RpmFlags,
    /// Run each case this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// A case passes when the lower bound of the 95% Wilson interval of its pass rate is at least
    /// this (0-1; with --repeat). Without it every run must hold.
    #[arg(long, value_name = "P", value_parser = parse_fraction)]
    pub min_pass: Option<f64>,
    /// Write a JUnit XML report here (one testcase per case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// One JSON object per case on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Continue a stopped test: the runs already in the runs files are not run again.
    #[arg(long)]
    pub resume: bool,
    /// Print the runs that would happen (case, task) and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub settings: EpisodeSettings,
}

#[derive(Debug, Clone, clap::Args)]
pub struct AttackCli {
    /// The task to attack from its first turn (see `converse-tui tasks`).
    #[arg(long, conflicts_with = "from")]
    pub task: Option<String>,
    /// Start from a turn of this episode (any format) instead: every node continues it.
    #[arg(long, value_name = "EPISODE", requires = "turn")]
    pub from: Option<PathBuf>,
    /// The turn of --from every node continues from (its reply included).
    #[arg(long, requires = "from", value_parser = clap::value_parser!(u32).range(1..))]
    pub turn: Option<u32>,
    /// crescendo, goat or tap (docs/attacks.md).
    #[arg(long, value_enum)]
    pub strategy: Option<crate::core::attack::Strategy>,
    /// Attacker turns after the root (default 5); may go past CONVERSE's 10 replies.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// TAP: candidates per kept leaf and turn (default 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub branch: Option<u32>,
    /// TAP: leaves kept per turn, by the judge's score (default 4).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub width: Option<u32>,
    /// TAP: send every candidate, without the on-topic filter.
    #[arg(long)]
    pub no_on_topic: bool,
    /// Crescendo: refused turns dropped and tried again, at most (default 10).
    #[arg(long)]
    pub max_backtracks: Option<u32>,
    /// GOAT: conversations, one after the other until one leaks (default 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub attempts: Option<u32>,
    /// GOAT: a technique catalogue (TOML) extending the bundled one; repeatable.
    #[arg(long, value_name = "FILE")]
    pub techniques: Vec<PathBuf>,
    /// The most calls: every model call of every role, and every message to an external agent.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: Option<u64>,
    /// Nodes running at once (TAP).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    #[command(flatten)]
    pub rpm: crate::session::RpmFlags,
    /// The search's folder: the node journals, attack.json and attack.calls.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Continue the search in --out: nodes whose journals are complete are not run again.
    #[arg(long)]
    pub resume: bool,
    /// One JSON object (status, best path, every node, calls) instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dataset: DatasetDir,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub agent: AssistantArgs,
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("`{text}`: expected a number from 0 to 1")),
    }
}

#[derive(Debug, Subcommand)]
pub enum NotesCommand {
    /// Export the current annotations of episodes, notes files or directories.
    Export {
        /// Episodes, notes files or directories of them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// jsonl or csv.
        #[arg(long, value_enum, default_value_t = crate::headless::notes::ExportFormat::Jsonl)]
        format: crate::headless::notes::ExportFormat,
    },
}

/// The agent of `replay`'s forks and fans.
#[derive(Debug, Clone, clap::Args)]
pub struct ReplayAgentArgs {
    /// Your agent in the assistant's seat of forks and fans (`a2a:URL` or `cmd:COMMAND`); without
    /// it, a fork reaches the agent its episode recorded.
    #[arg(long, value_name = "AGENT")]
    pub assistant: Option<String>,
    #[command(flatten)]
    pub flags: crate::session::settings::AgentFlags,
}

/// The pacing of the attempt fans of `replay` (`f`).
#[derive(Debug, Clone, clap::Args)]
pub struct FanPacingArgs {
    /// Attempts of a fan running at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub fan_concurrency: u32,
    #[command(flatten)]
    pub rpm: crate::session::RpmFlags,
}

#[derive(Debug, Clone, clap::Args)]
pub struct BatchCli {
    #[command(flatten)]
    pub source: TaskSource,
    #[command(flatten)]
    pub models: ModelArgs,
    /// The batch directory: `<task>__r<k>.jsonl` journals and runs.jsonl (not needed with --dry-run).
    #[arg(long, value_name = "DIR", required_unless_present = "dry_run")]
    pub out: Option<PathBuf>,
    /// Episodes running at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    #[command(flatten)]
    pub rpm: crate::session::RpmFlags,
    /// Run each task this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Run shard k of n: the i-th task (0-based, sorted by id) belongs to shard i % n + 1. `auto`: k and n
    /// from SLURM_ARRAY_TASK_ID (with _COUNT or _MIN/_MAX) or JOB_COMPLETION_INDEX (with --shards).
    /// Shard k of n writes runs-<k>-of-<n>.jsonl.
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<crate::headless::shard::ShardArg>,
    /// The number of shards (with --shard auto, or for --emit).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// Print a Slurm job array script or a Kubernetes Indexed Job running this batch in --shards shards; run nothing.
    #[arg(long, value_name = "KIND", requires = "shards")]
    pub emit: Option<crate::headless::emit::EmitKind>,
    /// Continue a stopped batch: skip what the runs files have, re-run the rest (partial journals kept as .aborted-N).
    #[arg(long)]
    pub resume: bool,
    /// Print the episodes that would run (task id, `#k` with --repeat > 1) and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub settings: EpisodeSettings,
}

/// How each episode runs: the same flags for `run`, `play` and `batch`.
#[derive(Debug, Clone, clap::Args)]
pub struct EpisodeSettings {
    /// Re-run the attacker messages of a saved episode against the assistant.
    #[arg(long, value_name = "EPISODE")]
    pub attacker_script: Option<PathBuf>,
    #[command(flatten)]
    pub agent: AssistantArgs,
}

/// Who the assistant is and how every episode runs: the same flags for `run`, `batch`, `attack`…
#[derive(Debug, Clone, clap::Args)]
pub struct AssistantArgs {
    /// Replace the assistant's system prompt ({user_task} and {domain} are filled in).
    #[arg(long, value_name = "FILE")]
    pub assistant_prompt: Option<PathBuf>,
    /// Your own agent as the assistant: `a2a:URL` (an A2A agent) or `cmd:COMMAND` (JSON lines on stdio); its tools over MCP.
    #[arg(long, value_name = "AGENT")]
    pub assistant: Option<String>,
    #[command(flatten)]
    pub flags: crate::session::SettingFlags,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    fn undescribed(command: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            let builtin = ["help", "version"].contains(&arg.get_id().as_str());
            if arg.get_help().is_none() && arg.get_long_help().is_none() && !builtin && !arg.is_hide_set() {
                out.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in command.get_subcommands() {
            undescribed(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_option_has_a_description() {
        let mut missing = Vec::new();
        undescribed(&Cli::command(), "converse-tui", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }

    #[test]
    fn judge_offers_only_the_judge_model_and_theme_only_where_there_is_a_screen() {
        let cli = Cli::command();
        let args = |name: &str| -> Vec<String> {
            let sub = cli.find_subcommand(name).unwrap();
            sub.get_arguments().map(|a| a.get_id().to_string()).collect()
        };
        let judge = args("judge");
        assert!(judge.contains(&"judge_model".to_string()), "{judge:?}");
        assert!(!judge.iter().any(|a| a.starts_with("attacker") || a.starts_with("assistant")), "{judge:?}");
        for screen in ["replay", "run", "play"] {
            assert!(args(screen).contains(&"theme".to_string()), "{screen}");
        }
        for headless in ["dump", "judge", "export", "summary", "tasks"] {
            assert!(!args(headless).contains(&"theme".to_string()), "{headless}");
        }
    }
}

/// Whether the corpus commands use the index cache (in the cache dir; docs/corpus.md says what it keys on).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct IndexCache {
    /// Read every episode file, neither using nor refreshing the index cache.
    #[arg(long)]
    pub no_cache: bool,
}

impl IndexCache {
    /// The cache directory to use, unless `--no-cache`.
    pub fn dir(self, paths: &crate::config::paths::Paths) -> Option<PathBuf> {
        (!self.no_cache).then(|| paths.cache_dir.clone())
    }
}

/// `search`: every line of every text a party saw that matches.
#[derive(Debug, Clone, clap::Args)]
pub struct SearchCli {
    /// A literal (case-insensitive unless --case-sensitive), or a regex with --regex.
    pub pattern: String,
    /// Episode files or directories of them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// PATTERN is a regular expression (Rust regex syntax).
    #[arg(long)]
    pub regex: bool,
    /// Match case exactly.
    #[arg(long, short = 's')]
    pub case_sensitive: bool,
    /// Only what this party said: attacker, assistant, tool or user (repeatable).
    #[arg(long, value_name = "PARTY")]
    pub party: Vec<String>,
    /// Only these texts of an event, comma-separated: text (what was delivered), args (a tool
    /// call's arguments), raw (the raw answer behind them: a model's full output, the
    /// environment's long_answer). All of them by default.
    #[arg(long, value_name = "FIELDS", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// Only the episodes matching this filter (as `ls --where`).
    #[arg(long = "where", value_name = "EXPR")]
    pub filter: Option<String>,
    /// One JSON object per match: path, episode, seq, turn, party, field, line, start, end.
    #[arg(long)]
    pub json: bool,
}
