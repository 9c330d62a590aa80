//! Names of the files `batch` writes beside its journals, so that every reader
//! of a batch directory (the browser, `export`, `summary`, `--resume`)
//! recognises them for what they are.

/// The runs file of an unsharded batch.
pub const RUNS_FILE: &str = "runs.jsonl";

/// What a fan was asked for, in its folder (`core::fan::plan::FanPlan`).
pub const FAN_PLAN_FILE: &str = "fan.json";

/// An attack search's plan, in its folder beside the node journals (`core::attack::plan`).
pub const ATTACK_PLAN_FILE: &str = "attack.json";

/// An attack search's calls, one byte each (`core::attack::meter`).
pub const ATTACK_CALLS_FILE: &str = "attack.calls";

/// A file a batch, a fan or a search writes beside its journals (never an episode).
pub fn is_batch_file(name: &str) -> bool {
    is_runs_file(name) || name == FAN_PLAN_FILE || name == ATTACK_PLAN_FILE
}

/// The runs file of shard `k` of `n`: shards never append to the same file
/// (appends are not atomic on the network file systems clusters share).
pub fn shard_runs_file(k: usize, n: usize) -> String {
    format!("runs-{k}-of-{n}.jsonl")
}

/// `runs.jsonl` or `runs-<k>-of-<n>.jsonl`.
pub fn is_runs_file(name: &str) -> bool {
    if name == RUNS_FILE {
        return true;
    }
    let Some(shard) = name.strip_prefix("runs-").and_then(|s| s.strip_suffix(".jsonl")) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    shard.split_once("-of-").is_some_and(|(k, n)| digits(k) && digits(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_files_are_recognised_by_name() {
        assert!(is_runs_file("runs.jsonl"));
        assert!(is_runs_file(&shard_runs_file(2, 16)));
        for other in
            ["runs-a-of-3.jsonl", "runs-1-of-.jsonl", "runs-1.jsonl", "my_runs.jsonl", "travel__r1.jsonl"]
        {
            assert!(!is_runs_file(other), "{other}");
        }
    }
}
