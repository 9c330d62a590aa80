//! Each command to the function that does it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use super::args::{Cli, Command, ConfigCommand, NotesCommand, ReplayAgentArgs};
use super::commands::{
    batch_command, config_show, data, fan_command, model_flags, run_command, search_command, suite_command,
    task_selection, test_command,
};
use super::process::{stderr, stdout};
use crate::app::AppState;
use crate::app::browser::Browser;
use crate::config::Paths;
use crate::config::settings::ConfigFile;
use crate::core::llm::Role;
use crate::headless::summary::{Format, SummaryArgs};
use crate::headless::tasks::TasksArgs;
use crate::session::episode_tasks;
use crate::session::fork_agent::ForkAgent;
use crate::session::loader::load_one;
use crate::tui::setup::{ForkFlags, load_keymap, open_inputs, run_tui};

pub(super) fn run(cli: Cli, paths: &Paths) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => {
            let episodes = crate::core::demo::demo_episodes();
            let browser = Browser::new("demo episodes", episodes, Vec::new());
            let state = AppState::with_browser(browser, load_keymap(paths)?, true).playing();
            run_tui(state, &cli.theme, paths, ForkFlags::default(), None).map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Replay { paths: inputs, models, dataset, fans, agent, theme }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let (state, rest) = open_inputs(&inputs, tasks, load_keymap(paths)?, Some(&paths.cache_dir))?;
            let pacing =
                crate::tui::fan::FanPacing { concurrency: fans.fan_concurrency as usize, rpm: fans.rpm };
            let ReplayAgentArgs { assistant, flags } = *agent;
            let agent = ForkAgent { assistant, flags, slots: None };
            let forks = ForkFlags { models: model_flags(models), data_dir: dataset.data_dir, pacing, agent };
            run_tui(state, theme.as_deref().unwrap_or(&cli.theme), paths, forks, rest)
                .map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Compare { a, b, dataset, theme }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let [a, b] = [load_one(&a, &tasks)?, load_one(&b, &tasks)?];
            let state = AppState::comparing(a, b, load_keymap(paths)?).with_tasks(tasks);
            run_tui(state, theme.as_deref().unwrap_or(&cli.theme), paths, ForkFlags::default(), None)
                .map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Dump { paths: inputs, json, dataset }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let mut out = stdout();
            crate::headless::dump::dump(&inputs, json, &tasks, &mut out, &mut stderr())?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tasks { source, json }) => {
            let args = TasksArgs { select: task_selection(source), json };
            crate::headless::tasks::tasks(&args, paths, &mut stdout(), &mut stderr())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Data { command }) => data(command, paths),
        Some(Command::Judge { paths: inputs, models, rules_only, task, json, dataset }) => {
            let flags = model_flags(models.into());
            let judge = if rules_only {
                None
            } else {
                let file = ConfigFile::load(&paths.config_file())?;
                let role = flags.resolve(Role::Judge, &file);
                if role.model.is_none() {
                    anyhow::bail!(
                        "no judge model: pass --judge-model NAME (or --rules-only for rule judges alone)"
                    );
                }
                Some(role.endpoint(&paths.config_file())?)
            };
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let args = crate::headless::judge::JudgeArgs { paths: inputs, judge, json, tasks, task };
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let mut out = stdout();
            let clean = runtime.block_on(crate::headless::judge::judge(&args, &mut out))?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Batch(batch)) => batch_command(*batch, paths),
        Some(Command::Test(test)) => test_command(*test, paths),
        Some(Command::Attack(attack)) => super::commands::attack_command(*attack, paths),
        Some(Command::Fan(fan)) => fan_command(*fan, paths),
        Some(Command::Suite { command }) => suite_command(command, paths),
        Some(Command::Summary {
            dirs,
            json,
            by,
            pool,
            count_all,
            judge_model,
            vs,
            all_tasks,
            format,
            cache,
        }) => {
            let by = by
                .map(|list| crate::core::corpus::table::parse_group_fields(&list).map_err(anyhow::Error::msg))
                .transpose()?;
            let vs = vs
                .map(|text| crate::headless::summary::parse_vs(&text).map_err(anyhow::Error::msg))
                .transpose()?;
            let compare = dirs.len() == 2 && by.is_none() && vs.is_none();
            let format = format.unwrap_or(if json { Format::Json } else { Format::Table });
            let args = SummaryArgs {
                paths: dirs,
                by,
                pool,
                count_all,
                judge_model,
                format,
                compare,
                cache: cache.dir(paths),
                vs,
                all_tasks,
            };
            let clean = crate::headless::summary::summary(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Chart { paths: inputs, by, judge, count_all, width, cache }) => {
            let request =
                super::commands::ChartRequest { by, judge, count_all, width, cache: cache.dir(paths) };
            super::commands::chart_command(&inputs, request, paths)
        }
        Some(Command::Ls { paths: inputs, json, filter, cache }) => {
            let width = std::io::IsTerminal::is_terminal(&std::io::stdout())
                .then(|| ratatui::crossterm::terminal::size().ok().map(|(w, _)| usize::from(w)))
                .flatten();
            let args =
                crate::headless::ls::LsArgs { paths: inputs, json, filter, width, cache: cache.dir(paths) };
            let clean = crate::headless::ls::ls(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Agreement { paths: inputs, review: true, cache, .. }) => {
            // The browser over the same episodes, opened on its agreement review.
            let tasks = episode_tasks::open(None, paths)?;
            let (state, rest) =
                open_inputs(&inputs, tasks, load_keymap(paths)?, cache.dir(paths).as_deref())?;
            run_tui(state.reviewing(), &cli.theme, paths, ForkFlags::default(), rest)
                .map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Search(flags)) => search_command(flags),
        Some(Command::Agreement { paths: inputs, json, cache, .. }) => {
            let args =
                crate::headless::agreement::AgreementArgs { paths: inputs, json, cache: cache.dir(paths) };
            let clean = crate::headless::agreement::run(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Run(mut run)) => {
            let theme = run.theme.take().unwrap_or(cli.theme);
            run_command(*run, false, &theme, paths)
        }
        Some(Command::Play(mut run)) => {
            let theme = run.theme.take().unwrap_or(cli.theme);
            run_command(*run, true, &theme, paths)
        }
        Some(Command::Config { command: ConfigCommand::Show { models } }) => {
            config_show(&model_flags(models), paths)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Export {
            paths: inputs,
            format,
            output,
            redact,
            dataset,
            by,
            judge,
            count_all,
            cache,
        }) => match format.episode_format() {
            Some(format) if by.is_none() && judge.is_none() => {
                let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
                crate::headless::export::export(&inputs, format, output.as_deref(), redact, &tasks)?;
                Ok(ExitCode::SUCCESS)
            }
            _ => {
                let request = super::commands::ChartRequest {
                    by,
                    judge,
                    count_all,
                    width: None,
                    cache: cache.dir(paths),
                };
                super::commands::export_charts_command(inputs, request, format, output.as_deref(), redact)
            }
        },
        Some(Command::Notes { command: NotesCommand::Export { paths: inputs, format } }) => {
            let mut out = stdout();
            crate::headless::notes::export(&inputs, format, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "converse-tui", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    }
}
