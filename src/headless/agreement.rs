//! `converse-tui agreement PATH… [--json]`: how verdict sources agree on the
//! same question (judge models, rule vs judge file, reviewers' labels).

use std::io::Write;
use std::path::PathBuf;

use crate::core::corpus::agreement::{LABELS, PairAgreement, agreement};
use crate::core::corpus::index_cached;
use crate::core::sanitize::single_line;

use super::ls::report_problems;
use super::text_table::Table;

pub struct AgreementArgs {
    pub paths: Vec<PathBuf>,
    pub json: bool,
    /// Where the index cache lives (`None`: every file is read).
    pub cache: Option<PathBuf>,
}

/// Prints one row (or JSON object) per judge and pair of sources; `Ok(false)`
/// when some file could not be read.
pub fn run(args: &AgreementArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    let corpus = index_cached(&args.paths, args.cache.as_deref());
    let pairs = agreement(&corpus.rows);
    if args.json {
        for pair in &pairs {
            writeln!(out, "{}", crate::core::safe_json::to_string(pair)?)?;
        }
    } else if pairs.is_empty() {
        writeln!(out, "no episode has two verdict sources on the same question")?;
    } else {
        let header =
            ["judge", "a", "b", "n", "agree", "kappa", "unweighted", "excluded", "leak turn", "confusion"];
        let cells = pairs.iter().map(cells).collect();
        Table::new(header.iter().map(|h| h.to_string()).collect(), cells).write(out)?;
        writeln!(
            out,
            "kappa: linear-weighted over {}; confusion: rows a, columns b, in that order",
            LABELS.join(" < ")
        )?;
    }
    report_problems(&corpus, err)
}

fn cells(p: &PairAgreement) -> Vec<String> {
    let number = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    let turn = match p.leak_turn {
        Some(t) if t.n > 0 && t.inferred > 0 => format!("{}/{} ({} both inferred)", t.same, t.n, t.inferred),
        Some(t) if t.n > 0 => format!("{}/{}", t.same, t.n),
        Some(t) if t.inferred > 0 => format!("- ({} both inferred)", t.inferred),
        _ => "-".to_string(),
    };
    let confusion: Vec<String> =
        p.confusion.iter().map(|r| r.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")).collect();
    [
        p.judge.clone(),
        p.a.label(),
        p.b.label(),
        p.n.to_string(),
        p.agreement.map_or("-".to_string(), |a| format!("{:.1}%", 100.0 * a)),
        number(p.kappa),
        number(p.kappa_unweighted),
        p.excluded.to_string(),
        turn,
        confusion.join(" | "),
    ]
    .into_iter()
    .map(|c| single_line(&c).into_owned())
    .collect()
}
