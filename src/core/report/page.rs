//! A corpus's charts as one self-contained HTML page (inline CSS and SVG, no script, no external
//! resource): per judge, the rates per group with their 95 % intervals and the Kaplan–Meier
//! curves of turns to the first leak, each with its table of figures; and the same series as
//! CSV rows. The JSON export is the series themselves.

use maud::{DOCTYPE, html};

use super::chart_svg::{rates_svg, survival_svg};
use crate::core::corpus::series::ChartSeries;

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
@media print { body { max-width: none; padding: 0; } h2, h3 { break-after: avoid; } svg, table { break-inside: avoid; } }
"#;

/// The page; `note` says what was counted (episodes, grouping, the other sources).
pub fn corpus_html(series: &ChartSeries, title: &str, note: &str) -> String {
    let percent = |v: f64| format!("{:.2}%", 100.0 * v);
    let turn = |t: Option<u32>| t.map_or("–".to_string(), |t| t.to_string());
    html! {
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
                @for (rates, survival) in series.rates.iter().zip(&series.survival) {
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
                    table {
                        tr { th { "group" } th { "n" } th { "events" } th { "unknown turn" } th { "median turn" } th { "95% CI" } }
                        @for line in &survival.lines {
                            tr {
                                td { (line.label) } td.n { (line.curve.observations) } td.n { (line.curve.events) }
                                td.n { (line.unknown_turn) } td.n { (turn(line.curve.median)) }
                                td.n { (turn(line.curve.median_ci95.0)) " – " (turn(line.curve.median_ci95.1)) }
                            }
                        }
                    }
                }
            }
        }
    }
    .into_string()
}

/// The CSV header of [`csv_rows`].
pub const CSV_HEADER: [&str; 14] = [
    "chart",
    "judge",
    "source",
    "group",
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
];

/// One row per bar (`rate`) and per curve step (`survival`).
pub fn csv_rows(series: &ChartSeries) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let f = |v: f64| format!("{v:.6}");
    for rates in &series.rates {
        for bar in &rates.bars {
            rows.push(vec![
                "rate".into(),
                rates.judge.clone(),
                rates.source.clone(),
                bar.label.clone(),
                String::new(),
                f(bar.rate),
                f(bar.ci95.0),
                f(bar.ci95.1),
                bar.succeeded.to_string(),
                bar.n.to_string(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    for survival in &series.survival {
        for line in &survival.lines {
            for step in &line.curve.steps {
                rows.push(vec![
                    "survival".into(),
                    survival.judge.clone(),
                    survival.source.clone(),
                    line.label.clone(),
                    step.turn.to_string(),
                    f(step.survival),
                    f(step.ci95.0),
                    f(step.ci95.1),
                    String::new(),
                    line.curve.observations.to_string(),
                    step.at_risk.to_string(),
                    step.events.to_string(),
                    step.censored.to_string(),
                    line.unknown_turn.to_string(),
                ]);
            }
        }
    }
    rows
}
