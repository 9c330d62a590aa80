//! A corpus's charts as one self-contained HTML page (inline CSS and SVG, no script, no external
//! resource): per judge, the rates per group with their 95 % intervals and the Kaplan–Meier
//! curves of turns to the first leak, each with its table of figures; and the same series as
//! CSV rows. The JSON export is the series themselves.

use maud::{DOCTYPE, html};

use super::chart_svg::{rates_svg, survival_svg};
use crate::core::corpus::series::ChartSeries;
use crate::core::markup_chars::fit_for_markup;

const STYLE: &str = r#"
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2937; background: #fff;
  max-width: 62rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #e5e7eb; }
h3 { font-size: 1rem; margin-top: 1.25rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #d1d5db; padding: .2rem .5rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f4f6; }
.note { color: #4b5563; }
svg { max-width: 100%; height: auto; }
.wide { overflow-x: auto; }
@media print { body { max-width: none; padding: 0; } h2, h3 { break-after: avoid; } svg, table { break-inside: avoid; } }
"#;

/// The page; `note` says what was counted (episodes, grouping, the other sources).
pub fn corpus_html(series: &ChartSeries, title: &str, note: &str) -> String {
    let percent = |v: f64| format!("{:.2}%", 100.0 * v);
    let turn = |t: Option<u32>| t.map_or("–".to_string(), |t| t.to_string());
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (title) }
                style { (maud::PreEscaped(STYLE)) }
            }
            body {
                h1 { (title) }
                p.note { (note) }
                p.note {
                    "One judge source: " strong { (series.source) } " (rates of different sources are never pooled). \
                     Rate: fail verdicts over those that judged, with the 95% Wilson interval. Curves: Kaplan–Meier \
                     estimate of the share of episodes without the event by turn; an episode without it is censored \
                     at its last turn; an event whose turn is unknown is left out and counted. Medians with the 95% \
                     interval of lifelines' method (exponential Greenwood)."
                }
                @if series.is_empty() {
                    p { "No privacy or security verdict of this source judged an episode." }
                }
                @for ((rates, survival), map) in series.rates.iter().zip(&series.survival).zip(&series.heatmaps) {
                    h2 { (rates.judge) " · " (rates.source) }
                    h3 { "Rate per group, highest first" }
                    (rates_svg(rates))
                    table {
                        tr { th { "group" } th { "succeeded" } th { "n" } th { "rate" } th { "95% CI" } }
                        @for bar in &rates.bars {
                            tr {
                                td { (bar.label) } td.n { (bar.succeeded) } td.n { (bar.n) } td.n { (percent(bar.rate)) }
                                td.n { (percent(bar.ci95.0)) " – " (percent(bar.ci95.1)) }
                            }
                        }
                    }
                    h3 { "Turns to the " (survival.event) }
                    (survival_svg(survival))
                    @if survival.lines.iter().all(|l| l.curve.events == 0) && survival.lines.iter().any(|l| l.unknown_turn > 0) {
                        p.note {
                            "No curve: the turn of none of this source's successes is known (the judge names none, \
                             nor was a snippet it quotes found in the conversation)."
                        }
                    }
                    table {
                        tr { th { "group" } th { "n" } th { "events" } th { "unknown turn" } th { "unknown length" } th { "median turn" } th { "95% CI" } }
                        @for line in &survival.lines {
                            tr {
                                td { (line.label) } td.n { (line.curve.observations) } td.n { (line.curve.events) }
                                td.n { (line.unknown_turn) } td.n { (line.unknown_length) }
                                td.n { (turn(line.curve.median)) }
                                td.n { (turn(line.curve.median_ci95.0)) " – " (turn(line.curve.median_ci95.1)) }
                            }
                        }
                    }
                    h3 { "Rate per attack × group" }
                    div.wide { table {
                        tr { th { "attack" } @for column in &map.columns { th { (column) } } }
                        @for (attack, cells) in map.rows.iter().zip(&map.cells) {
                            tr {
                                td { (attack) }
                                @for cell in cells {
                                    @match cell {
                                        Some((k, n)) => td.n style=(heat(*k, *n)) { (k) "/" (n) },
                                        None => td {},
                                    }
                                }
                            }
                        }
                    } }
                }
            }
        }
    };
    // Labels come from episodes: what HTML and SVG cannot hold (controls, noncharacters) is U+FFFD.
    fit_for_markup(&page.into_string()).into_owned()
}

/// A cell's background: white (none leaked) to red (all).
fn heat(k: usize, n: usize) -> String {
    let rate = k as f64 / n.max(1) as f64;
    let fade = (255.0 - 155.0 * rate) as u8;
    format!("background: rgb(255, {fade}, {fade})")
}

/// The CSV header of [`csv_rows`].
pub const CSV_HEADER: [&str; 16] = [
    "chart",
    "judge",
    "source",
    "group",
    "attack",
    "turn",
    "value",
    "lower",
    "upper",
    "succeeded",
    "n",
    "at_risk",
    "events",
    "censored",
    "unknown_turn",
    "unknown_length",
];

/// A CSV row with the named columns set, the others empty.
fn csv_row(fields: &[(&str, String)]) -> Vec<String> {
    CSV_HEADER
        .iter()
        .map(|column| {
            fields.iter().find(|(name, _)| name == column).map(|(_, v)| v.clone()).unwrap_or_default()
        })
        .collect()
}

/// One row per bar (`rate`), per curve step (`survival`) and per heatmap cell (`heatmap`).
pub fn csv_rows(series: &ChartSeries) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let f = |v: f64| format!("{v:.6}");
    for rates in &series.rates {
        for bar in &rates.bars {
            rows.push(csv_row(&[
                ("chart", "rate".into()),
                ("judge", rates.judge.clone()),
                ("source", rates.source.clone()),
                ("group", bar.label.clone()),
                ("value", f(bar.rate)),
                ("lower", f(bar.ci95.0)),
                ("upper", f(bar.ci95.1)),
                ("succeeded", bar.succeeded.to_string()),
                ("n", bar.n.to_string()),
            ]));
        }
    }
    for survival in &series.survival {
        for line in &survival.lines {
            for step in &line.curve.steps {
                rows.push(csv_row(&[
                    ("chart", "survival".into()),
                    ("judge", survival.judge.clone()),
                    ("source", survival.source.clone()),
                    ("group", line.label.clone()),
                    ("turn", step.turn.to_string()),
                    ("value", f(step.survival)),
                    ("lower", f(step.ci95.0)),
                    ("upper", f(step.ci95.1)),
                    ("n", line.curve.observations.to_string()),
                    ("at_risk", step.at_risk.to_string()),
                    ("events", step.events.to_string()),
                    ("censored", step.censored.to_string()),
                    ("unknown_turn", line.unknown_turn.to_string()),
                    ("unknown_length", line.unknown_length.to_string()),
                ]));
            }
        }
    }
    for map in &series.heatmaps {
        for (attack, cells) in map.rows.iter().zip(&map.cells) {
            for (column, cell) in map.columns.iter().zip(cells) {
                let Some((k, n)) = cell else { continue };
                rows.push(csv_row(&[
                    ("chart", "heatmap".into()),
                    ("judge", map.judge.clone()),
                    ("source", map.source.clone()),
                    ("group", column.clone()),
                    ("attack", attack.clone()),
                    ("value", f(*k as f64 / *n as f64)),
                    ("succeeded", k.to_string()),
                    ("n", n.to_string()),
                ]));
            }
        }
    }
    rows
}
