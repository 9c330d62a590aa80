//! Which shard of a batch this process runs: `--shard k/n`, or `--shard auto`
//! from the scheduler's variables (Slurm job arrays, Kubernetes Indexed Jobs).

use anyhow::bail;

/// `k/n`: this process runs shard k of n (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or("expected k/n, e.g. 1/3, or auto")?;
        let k: usize = k.trim().parse().map_err(|_| format!("{k:?} is not a number"))?;
        let n: usize = n.trim().parse().map_err(|_| format!("{n:?} is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: need 1 <= k <= n"));
        }
        Ok(Shard { k, n })
    }
}

/// The value of `--shard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    /// From `SLURM_ARRAY_TASK_ID` or `JOB_COMPLETION_INDEX`.
    Auto,
}

impl std::str::FromStr for ShardArg {
    type Err = String;
    fn from_str(s: &str) -> Result<ShardArg, String> {
        if s.trim() == "auto" { Ok(ShardArg::Auto) } else { s.parse().map(ShardArg::Fixed) }
    }
}

/// The shard this process runs, from `--shard` and `--shards`; `env` looks up
/// an environment variable (passed in so tests need not set the process's).
pub fn resolve(
    arg: Option<ShardArg>,
    shards: Option<usize>,
    env: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<Option<Shard>> {
    let shard = match arg {
        None => {
            if let Some(n) = shards {
                bail!("--shards {n} needs --shard auto (or --emit slurm|k8s to write the job)");
            }
            return Ok(None);
        }
        Some(ShardArg::Fixed(shard)) => shard,
        Some(ShardArg::Auto) => from_scheduler(shards, &env)?,
    };
    if let Some(n) = shards
        && n != shard.n
    {
        bail!("--shard {}/{} disagrees with --shards {n}", shard.k, shard.n);
    }
    Ok(Some(shard))
}

fn from_scheduler(shards: Option<usize>, env: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Shard> {
    let number = |name: &str| -> anyhow::Result<Option<usize>> {
        match env(name) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => match v.trim().parse() {
                Ok(n) => Ok(Some(n)),
                Err(_) => bail!("--shard auto: {name}={v:?} is not a number"),
            },
        }
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let span = match (number("SLURM_ARRAY_TASK_MIN")?, number("SLURM_ARRAY_TASK_MAX")?) {
            (Some(min), Some(max)) if max >= min => Some(max - min + 1),
            _ => None,
        };
        let n = match (number("SLURM_ARRAY_TASK_COUNT")?, span) {
            (Some(count), Some(span)) if count != span => bail!(
                "--shard auto: the Slurm array has {count} tasks over {span} indices (a step or a list): \
                 submit a contiguous array, e.g. --array=0-{}",
                count - 1
            ),
            (Some(count), _) => count,
            (None, Some(span)) => span,
            (None, None) => bail!(
                "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor \
                 SLURM_ARRAY_TASK_MIN/_MAX: is this a job array?"
            ),
        };
        if id < min || id - min >= n {
            bail!("--shard auto: SLURM_ARRAY_TASK_ID={id} is outside the array ({min}..{})", min + n - 1);
        }
        return Ok(Shard { k: id - min + 1, n });
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let Some(n) = shards else {
            bail!("--shard auto: JOB_COMPLETION_INDEX={index} needs --shards N (the Job's `completions`)");
        };
        if index >= n {
            bail!("--shard auto: JOB_COMPLETION_INDEX={index} is not below --shards {n}");
        }
        return Ok(Shard { k: index + 1, n });
    }
    bail!(
        "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX \
         (a Kubernetes Indexed Job) is set; pass --shard k/n to choose a shard by hand"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    fn auto(shards: Option<usize>, vars: &[(&str, &str)]) -> Result<Option<Shard>, String> {
        resolve(Some(ShardArg::Auto), shards, env(vars)).map_err(|e| e.to_string())
    }

    #[test]
    fn shard_parsing_rejects_nonsense() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
        assert_eq!("auto".parse::<ShardArg>(), Ok(ShardArg::Auto));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "automatic"] {
            assert!(bad.parse::<ShardArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn slurm_array_variables_give_the_shard() {
        let from_count = auto(None, &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "3")]);
        assert_eq!(from_count, Ok(Some(Shard { k: 3, n: 3 })));
        let vars =
            [("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_MIN", "4"), ("SLURM_ARRAY_TASK_MAX", "7")];
        assert_eq!(auto(Some(4), &vars), Ok(Some(Shard { k: 2, n: 4 })));
    }

    #[test]
    fn kubernetes_index_needs_shards() {
        assert_eq!(auto(Some(4), &[("JOB_COMPLETION_INDEX", "0")]), Ok(Some(Shard { k: 1, n: 4 })));
        assert!(auto(None, &[("JOB_COMPLETION_INDEX", "0")]).unwrap_err().contains("needs --shards"));
        assert!(auto(Some(4), &[("JOB_COMPLETION_INDEX", "4")]).unwrap_err().contains("not below"));
    }

    #[test]
    fn auto_fails_clearly() {
        assert!(auto(None, &[]).unwrap_err().contains("neither SLURM_ARRAY_TASK_ID"));
        let disagree = auto(Some(4), &[("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_COUNT", "3")]);
        assert!(disagree.unwrap_err().contains("disagrees with --shards 4"));
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ];
        assert!(auto(None, &stepped).unwrap_err().contains("contiguous"));
        assert!(auto(None, &[("SLURM_ARRAY_TASK_ID", "x")]).unwrap_err().contains("not a number"));
        let fixed = resolve(Some(ShardArg::Fixed(Shard { k: 1, n: 2 })), Some(3), env(&[]));
        assert!(fixed.unwrap_err().to_string().contains("disagrees"));
        assert!(resolve(None, Some(3), env(&[])).unwrap_err().to_string().contains("needs --shard auto"));
    }
}
