//! The inspector's plots, as inline SVG made with maud: the speedup distribution of a run (a
//! histogram on a log₂ axis) and one entry's timing (the speedup with its interval and the
//! noise floor, and the timed samples of both sides when the record kept them). Hand-written
//! because a few rectangles and lines need no charting library, and a library that draws in
//! the browser would be a script to ship and to trust.

use maud::{Markup, html};

const W: f64 = 640.0;
const H: f64 = 200.0;
const PAD: f64 = 32.0;

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// A histogram of `speedups` on a log₂ axis from ¼× to 8×, one bar per quarter power of two;
/// a dashed line marks 1× (as fast as the reference).
pub(crate) fn speedup_histogram(speedups: &[f64]) -> Markup {
    const LO: f64 = -2.0;
    const HI: f64 = 3.0;
    const BINS: usize = 20;
    let mut counts = [0usize; BINS];
    for s in speedups {
        let t = ((s.log2() - LO) / (HI - LO) * BINS as f64).floor();
        let i = t.clamp(0.0, (BINS - 1) as f64) as usize;
        counts[i] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let x_of = |l: f64| PAD + (l - LO) / (HI - LO) * (W - 2.0 * PAD);
    let bw = (W - 2.0 * PAD) / BINS as f64;
    let base = H - PAD;
    let label = format!(
        "Histogram of {} measured speedups, from a quarter to eight times the reference's speed",
        speedups.len()
    );
    html! {
        svg.plot role="img" aria-label=(label) viewBox=(format!("0 0 {W} {H}")) width="100%" {
            title { (label) }
            @for (i, c) in counts.iter().enumerate() {
                @let h = *c as f64 / top * (H - 2.0 * PAD);
                rect.bar x=(f(PAD + i as f64 * bw + 1.0)) y=(f(base - h)) width=(f(bw - 2.0)) height=(f(h)) {
                    title { (format!("{:.2}× to {:.2}×: {c}", (LO + i as f64 * (HI - LO) / BINS as f64).exp2(), (LO + (i + 1) as f64 * (HI - LO) / BINS as f64).exp2())) }
                }
            }
            line.axis x1=(f(PAD)) y1=(f(base)) x2=(f(W - PAD)) y2=(f(base)) {}
            line.one x1=(f(x_of(0.0))) y1=(f(PAD / 2.0)) x2=(f(x_of(0.0))) y2=(f(base)) {}
            @for (l, t) in [(-2.0, "¼×"), (-1.0, "½×"), (0.0, "1×"), (1.0, "2×"), (2.0, "4×"), (3.0, "8×")] {
                text.tick x=(f(x_of(l))) y=(f(base + 16.0)) text-anchor="middle" { (t) }
            }
            text.tick x=(f(PAD)) y=(f(PAD / 2.0)) { (format!("most in one bar: {top}")) }
        }
    }
}

/// One entry's timing: the speedup `s` as a point, its interval as a bar, and the band of
/// speedups within the noise floor (`1 ± floor`) shaded, on a log₂ axis; below it, when the
/// record kept the timed pairs, each side's launch times as a strip of dots.
pub(crate) fn timing(
    s: Option<f64>,
    ci: Option<(f64, f64)>,
    floor: Option<f64>,
    pairs: &[(f64, f64)],
) -> Markup {
    let vals: Vec<f64> = [s, ci.map(|c| c.0), ci.map(|c| c.1)]
        .into_iter()
        .flatten()
        .filter(|x| x.is_finite() && *x > 0.0)
        .map(f64::log2)
        .collect();
    let lo = vals.iter().copied().fold(-1.0f64, f64::min).floor();
    let hi = vals.iter().copied().fold(1.0f64, f64::max).ceil();
    let x_of = |x: f64| PAD + (x.log2() - lo) / (hi - lo) * (W - 2.0 * PAD);
    let y = 50.0;
    let label = match s {
        Some(s) => format!("Speedup {s:.3}× on a log scale, with its interval and the noise floor"),
        None => "No speedup was measured".to_string(),
    };
    let (tmin, tmax) = pairs
        .iter()
        .flat_map(|(c, r)| [*c, *r])
        .filter(|t| t.is_finite() && *t > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), t| (a.min(t), b.max(t)));
    let t_of = |t: f64| {
        if tmax > tmin {
            PAD + (t - tmin) / (tmax - tmin) * (W - 2.0 * PAD)
        } else {
            W / 2.0
        }
    };
    let strip_h = if pairs.is_empty() { 0.0 } else { 90.0 };
    html! {
        svg.plot.timing role="img" aria-label=(label) viewBox=(format!("0 0 {W} {}", 100.0 + strip_h)) width="100%" {
            title { (label) }
            @if let Some(fl) = floor {
                rect.floor x=(f(x_of(1.0 / (1.0 + fl)))) y=(f(y - 18.0)) width=(f(x_of(1.0 + fl) - x_of(1.0 / (1.0 + fl)))) height="36" {
                    title { (format!("noise floor: within {:.1}% of the reference", fl * 100.0)) }
                }
            }
            line.axis x1=(f(PAD)) y1=(f(y + 24.0)) x2=(f(W - PAD)) y2=(f(y + 24.0)) {}
            line.one x1=(f(x_of(1.0))) y1=(f(y - 24.0)) x2=(f(x_of(1.0))) y2=(f(y + 24.0)) {}
            @for p in (lo as i32)..=(hi as i32) {
                text.tick x=(f(x_of(2f64.powi(p)))) y=(f(y + 40.0)) text-anchor="middle" { (format!("{}×", 2f64.powi(p))) }
            }
            @if let Some((a, b)) = ci {
                line.ci x1=(f(x_of(a))) y1=(f(y)) x2=(f(x_of(b))) y2=(f(y)) {
                    title { (format!("interval {a:.3}× to {b:.3}×")) }
                }
            }
            @if let Some(s) = s {
                circle.point cx=(f(x_of(s))) cy=(f(y)) r="6" { title { (format!("speedup {s:.3}×")) } }
            }
            @if !pairs.is_empty() {
                text.tick x=(f(PAD)) y="118" { (format!("launch times, {:.3e} s to {:.3e} s", tmin, tmax)) }
                text.tick x=(f(PAD)) y="140" { "candidate" }
                text.tick x=(f(PAD)) y="175" { "reference" }
                @for (c, r) in pairs {
                    circle.cand cx=(f(t_of(*c))) cy="150" r="2.5" {}
                    circle.refr cx=(f(t_of(*r))) cy="185" r="2.5" {}
                }
            }
        }
    }
}
