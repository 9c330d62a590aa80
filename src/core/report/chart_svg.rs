//! The charts of a corpus as inline SVG for the HTML report: rates as bars with their 95 %
//! interval as a whisker, highest first; Kaplan–Meier curves as step lines, told apart by dash
//! pattern as well as colour (readable printed in black and white). Every text goes through
//! `maud`, which escapes it.

use maud::{Markup, html};

use crate::core::corpus::series::{RateChart, SurvivalChart};

const WIDTH: f64 = 900.0;
const LABEL: f64 = 300.0;
const FIGURES: f64 = 120.0;
const ROW: f64 = 24.0;
const COLOURS: [&str; 6] = ["#1d4ed8", "#b45309", "#7e22ce", "#047857", "#b91c1c", "#0e7490"];
const DASHES: [&str; 6] = ["", "8 4", "2 3", "10 3 2 3", "1 5", "14 6"];

/// The style of curve `i`: a colour and a dash pattern.
pub fn curve_style(i: usize) -> (&'static str, &'static str) {
    (COLOURS[i % COLOURS.len()], DASHES[(i / COLOURS.len() + i) % DASHES.len()])
}

fn cut(label: &str, chars: usize) -> String {
    if label.chars().count() <= chars {
        label.to_string()
    } else {
        label.chars().take(chars - 1).chain(['…']).collect()
    }
}

/// Bars of one judge's rates with their Wilson intervals.
pub fn rates_svg(chart: &RateChart) -> Markup {
    let track_x = LABEL + FIGURES;
    let track = WIDTH - track_x - 20.0;
    let x = |v: f64| track_x + v.clamp(0.0, 1.0) * track;
    let height = 30.0 + ROW * chart.bars.len().max(1) as f64 + 10.0;
    let axis_y = height - 12.0;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height) viewBox={"0 0 " (WIDTH) " " (height)}
            role="img" aria-label={(chart.judge) " rate per group, " (chart.source)} font-family="sans-serif" font-size="12" {
            @for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
                line x1=(x(tick)) x2=(x(tick)) y1="8" y2=(axis_y - 12.0) stroke="#e5e7eb" {}
                text x=(x(tick)) y=(axis_y) text-anchor="middle" fill="#6b7280" { (format!("{:.0}%", 100.0 * tick)) }
            }
            @for (i, bar) in chart.bars.iter().enumerate() {
                @let mid = 20.0 + ROW * i as f64;
                text x=(LABEL - 8.0) y=(mid + 4.0) text-anchor="end" { (cut(&bar.label, 44)) }
                text x=(LABEL) y=(mid + 4.0) fill="#374151" { (format!("{}/{}  {:.1}%", bar.succeeded, bar.n, 100.0 * bar.rate)) }
                rect x=(track_x) y=(mid - 7.0) width=(x(bar.rate) - track_x) height="14" fill="#b91c1c" fill-opacity="0.7" {}
                line x1=(x(bar.ci95.0)) x2=(x(bar.ci95.1)) y1=(mid) y2=(mid) stroke="#111827" stroke-width="1.5" {}
                line x1=(x(bar.ci95.0)) x2=(x(bar.ci95.0)) y1=(mid - 5.0) y2=(mid + 5.0) stroke="#111827" stroke-width="1.5" {}
                line x1=(x(bar.ci95.1)) x2=(x(bar.ci95.1)) y1=(mid - 5.0) y2=(mid + 5.0) stroke="#111827" stroke-width="1.5" {}
                circle cx=(x(bar.rate)) cy=(mid) r="3.5" fill="#111827" {}
            }
        }
    }
}

/// Step curves of one judge: the share of episodes without the event after each turn.
pub fn survival_svg(chart: &SurvivalChart) -> Markup {
    let (left, top, plot_w, plot_h) = (60.0, 14.0, WIDTH - 90.0, 240.0);
    let last =
        chart.lines.iter().flat_map(|l| l.curve.steps.iter().map(|s| s.turn)).max().unwrap_or(1).max(1);
    let x = |turn: f64| left + turn / f64::from(last) * plot_w;
    let y = |share: f64| top + (1.0 - share.clamp(0.0, 1.0)) * plot_h;
    let legend_y = top + plot_h + 40.0;
    let height = legend_y + 20.0 * chart.lines.len() as f64 + 10.0;
    let step = last.div_ceil(10).max(1);
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(height) viewBox={"0 0 " (WIDTH) " " (height)}
            role="img" aria-label={(chart.judge) " turns to the " (chart.event) ", " (chart.source)} font-family="sans-serif" font-size="12" {
            @for share in [0.0, 0.25, 0.5, 0.75, 1.0] {
                line x1=(left) x2=(left + plot_w) y1=(y(share)) y2=(y(share)) stroke=(if share == 0.5 { "#9ca3af" } else { "#e5e7eb" })
                    stroke-dasharray=(if share == 0.5 { "4 4" } else { "" }) {}
                text x=(left - 6.0) y=(y(share) + 4.0) text-anchor="end" fill="#6b7280" { (format!("{:.0}%", 100.0 * share)) }
            }
            @for turn in (0..=last).step_by(step as usize) {
                text x=(x(f64::from(turn))) y=(top + plot_h + 16.0) text-anchor="middle" fill="#6b7280" { (turn) }
            }
            text x=(left + plot_w / 2.0) y=(top + plot_h + 30.0) text-anchor="middle" fill="#374151" { "turn" }
            @for (i, line) in chart.lines.iter().enumerate() {
                @let (colour, dash) = curve_style(i);
                @if line.curve.observations > 0 {
                    path d=(step_path(line.curve.steps.iter().map(|s| (s.turn, s.survival)), &x, &y)) fill="none" stroke=(colour)
                        stroke-width="2" stroke-dasharray=(dash) {}
                }
                @let ly = legend_y + 20.0 * i as f64;
                line x1=(left) x2=(left + 40.0) y1=(ly - 4.0) y2=(ly - 4.0) stroke=(colour) stroke-width="2" stroke-dasharray=(dash) {}
                text x=(left + 48.0) y=(ly) { (line.legend()) }
            }
        }
    }
}

/// `M` at 100 % at turn 0, then across to each turn and down to its share.
fn step_path(
    steps: impl Iterator<Item = (u32, f64)>,
    x: &dyn Fn(f64) -> f64,
    y: &dyn Fn(f64) -> f64,
) -> String {
    let mut d = format!("M {:.1} {:.1}", x(0.0), y(1.0));
    for (turn, share) in steps {
        d.push_str(&format!(" H {:.1} V {:.1}", x(f64::from(turn)), y(share)));
    }
    d
}
