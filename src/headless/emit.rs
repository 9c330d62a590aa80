//! `batch --emit slurm|k8s`: the same batch as a Slurm job array script or a
//! Kubernetes Indexed Job manifest, one shard per array task / index, each
//! running `batch … --shards N --shard auto --resume`. API keys appear by
//! environment variable name only, never by value.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{Context, bail};

use crate::config::Paths;
use crate::config::settings::ConfigFile;
use crate::core::llm::Role;

use super::batch::BatchArgs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EmitKind {
    /// An sbatch script for a job array.
    Slurm,
    /// A Kubernetes Indexed Job.
    K8s,
}

/// What a job needs besides the command line.
pub struct JobSpec<'a> {
    pub shards: usize,
    /// The batch's flags as the user gave them (after `batch`).
    pub batch_flags: &'a [OsString],
    /// The binary the Slurm tasks run (shared file systems see the same path).
    pub program: &'a Path,
    /// Where relative paths in the flags start from.
    pub workdir: &'a Path,
    pub cpus: u32,
    pub memory_mb: u32,
}

/// Flags that choose the shard or the output: each task gets its own.
const DROPPED: [&str; 3] = ["--emit", "--shard", "--shards"];

pub fn emit(kind: EmitKind, job: &JobSpec, args: &BatchArgs, paths: &Paths) -> anyhow::Result<String> {
    let flags = task_flags(job.batch_flags, job.shards, args.resume)?;
    let keys = key_variables(args, paths)?;
    Ok(match kind {
        EmitKind::Slurm => slurm(job, &flags, &keys)?,
        EmitKind::K8s => k8s(job, &flags, &keys),
    })
}

/// The flags of one task: the user's, without `--emit`/`--shard`/`--shards`,
/// then `--shards N --shard auto`, and `--resume` so a requeued task continues.
fn task_flags(given: &[OsString], shards: usize, resume: bool) -> anyhow::Result<Vec<String>> {
    let mut out = vec!["batch".to_string()];
    let mut given = given.iter();
    while let Some(flag) = given.next() {
        let flag = flag.to_str().context("--emit: a flag is not valid UTF-8")?;
        let name = flag.split_once('=').map_or(flag, |(name, _)| name);
        if DROPPED.contains(&name) {
            if !flag.contains('=') {
                given.next();
            }
            continue;
        }
        out.push(flag.to_string());
    }
    out.extend(["--shards".into(), shards.to_string(), "--shard".into(), "auto".into()]);
    if !resume {
        out.push("--resume".into());
    }
    Ok(out)
}

/// The variables holding the API keys of the roles this batch calls.
fn key_variables(args: &BatchArgs, paths: &Paths) -> anyhow::Result<Vec<String>> {
    let file = ConfigFile::load(&paths.config_file())?;
    let mut roles = vec![Role::Assistant];
    if args.run.attacker_script.is_none() {
        roles.push(Role::Attacker);
    }
    let mut keys: Vec<String> = Vec::new();
    for role in [Role::Assistant, Role::Attacker, Role::Judge] {
        let resolved = args.run.models.resolve(role, &file);
        let used = roles.contains(&role) || (role == Role::Judge && resolved.model.is_some());
        if let Some(var) = resolved.api_key_env.filter(|_| used)
            && !keys.contains(&var)
        {
            keys.push(var);
        }
    }
    Ok(keys)
}

fn slurm(job: &JobSpec, flags: &[String], keys: &[String]) -> anyhow::Result<String> {
    let program = job.program.to_str().context("--emit: the program path is not valid UTF-8")?;
    let workdir = job.workdir.to_str().context("--emit: the working directory is not valid UTF-8")?;
    let words = std::iter::once(program).chain(flags.iter().map(String::as_str));
    let command = shlex::try_join(words).context("--emit: a flag cannot be quoted for the shell")?;
    let workdir_quoted =
        shlex::try_quote(workdir).context("--emit: the working directory cannot be quoted")?;
    if workdir.contains(char::is_whitespace) {
        bail!(
            "--emit slurm: #SBATCH --chdir cannot hold a path with spaces ({workdir}); run it from another directory"
        );
    }
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!(
        "# converse-tui batch as a Slurm job array: {n} shards, one array task each (written by `batch --emit slurm`).\n\
         # Edit what your site needs (partition, account, time limit, modules); submit with `sbatch <this file>`.\n\
         # Add %K to --array (e.g. 0-{last}%4) to run at most K shards at once; divide --rpm-* by that number.\n",
        n = job.shards,
        last = job.shards - 1
    ));
    s.push_str("#SBATCH --job-name=converse-batch\n");
    s.push_str(&format!("#SBATCH --array=0-{}\n", job.shards - 1));
    s.push_str(&format!("#SBATCH --cpus-per-task={}\n", job.cpus));
    s.push_str(&format!("#SBATCH --mem={}M\n", job.memory_mb));
    s.push_str(&format!("#SBATCH --chdir={workdir}\n"));
    s.push_str("#SBATCH --output=converse-batch-%A_%a.log\n");
    s.push_str(
        "# The tasks inherit the environment of `sbatch`: API keys travel by variable, never in this file.\n",
    );
    s.push_str("#SBATCH --export=ALL\n");
    s.push_str("##SBATCH --partition=…\n##SBATCH --time=24:00:00\n\n");
    s.push_str("set -euo pipefail\n");
    s.push_str(&format!("cd {workdir_quoted}\n"));
    for key in keys {
        let key = shlex::try_quote(key).context("--emit: a variable name cannot be quoted")?;
        s.push_str(&format!(
            "[ -n \"${{{key}:-}}\" ] || echo \"converse-tui: warning: {key} is not set in the job's environment\" >&2\n"
        ));
    }
    s.push_str(&format!("exec {command}\n"));
    Ok(s)
}

fn k8s(job: &JobSpec, flags: &[String], keys: &[String]) -> String {
    // JSON strings are YAML strings: every value is quoted by serde_json.
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let mut y = String::new();
    y.push_str(&format!(
        "# converse-tui batch as a Kubernetes Indexed Job: {n} shards, one pod per index (written by `batch --emit k8s`).\n\
         # Edit the image, the volume holding --out (ReadWriteMany: every pod writes to it) and the Secret with the\n\
         # API keys (`kubectl create secret generic converse-tui-keys --from-literal=NAME=…`). Lower parallelism to\n\
         # run fewer shards at once; divide --rpm-* by it.\n",
        n = job.shards
    ));
    y.push_str("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: converse-batch\nspec:\n");
    y.push_str("  completionMode: Indexed\n");
    y.push_str(&format!("  completions: {}\n  parallelism: {}\n", job.shards, job.shards));
    y.push_str(
        "  backoffLimit: 6\n  template:\n    spec:\n      restartPolicy: OnFailure\n      containers:\n",
    );
    y.push_str("        - name: converse-tui\n          image: converse-tui:latest\n");
    y.push_str("          workingDir: /runs\n");
    y.push_str("          command: [\"converse-tui\"]\n          args:\n");
    for flag in flags {
        y.push_str(&format!("            - {}\n", q(flag)));
    }
    if !keys.is_empty() {
        y.push_str("          env:\n");
        for key in keys {
            y.push_str(&format!(
                "            - name: {k}\n              valueFrom:\n                secretKeyRef:\n                  name: converse-tui-keys\n                  key: {k}\n",
                k = q(key)
            ));
        }
    }
    y.push_str(&format!(
        "          resources:\n            requests:\n              cpu: {cpu}\n              memory: {mem}\n            limits:\n              memory: {mem}\n",
        cpu = q(&job.cpus.to_string()),
        mem = q(&format!("{}Mi", job.memory_mb))
    ));
    y.push_str("          volumeMounts:\n            - name: runs\n              mountPath: /runs\n");
    y.push_str("      volumes:\n        - name: runs\n          persistentVolumeClaim:\n            claimName: converse-runs\n");
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn task_flags_replace_the_shard_choice() {
        let given =
            os(&["--out", "runs/x", "--shards", "3", "--emit=slurm", "--shard", "1/3", "--repeat", "2"]);
        let flags = task_flags(&given, 3, false).unwrap();
        assert_eq!(
            flags,
            ["batch", "--out", "runs/x", "--repeat", "2", "--shards", "3", "--shard", "auto", "--resume"]
        );
        let resumed = task_flags(&os(&["--resume", "--emit", "k8s"]), 2, true).unwrap();
        assert_eq!(resumed, ["batch", "--resume", "--shards", "2", "--shard", "auto"]);
    }
}
