//! Small SVG plots for run reports (no plotting dependency): overlaid histograms of rewards or
//! speedups, one colour per series, with axes, ticks and a legend.
//!
//! Written here because a plotting crate (plotters and the like) brings a font and drawing stack
//! for what a few hundred bytes of SVG text show.

use std::fmt::Write as _;

const COLOURS: [&str; 4] = ["#4477aa", "#ee6677", "#228833", "#ccbb44"];

/// One named series of values.
pub struct Series<'a> {
    /// Legend label.
    pub label: &'a str,
    /// Values (non-finite ones are left out).
    pub values: &'a [f64],
}

/// An SVG histogram of the series over `[lo, hi]` in `bins` bins, bars side by side per bin,
/// heights as the share of each series' values.
pub fn histogram_svg(
    title: &str,
    x_label: &str,
    series: &[Series<'_>],
    lo: f64,
    hi: f64,
    bins: usize,
) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 360.0, 60.0, 20.0, 40.0, 50.0);
    let bins = bins.max(1);
    let width = (hi - lo).max(f64::MIN_POSITIVE);
    let shares: Vec<Vec<f64>> = series
        .iter()
        .map(|s| {
            let vals: Vec<f64> = s.values.iter().copied().filter(|v| v.is_finite()).collect();
            let mut counts = vec![0usize; bins];
            for v in &vals {
                let b = (((v - lo) / width) * bins as f64)
                    .floor()
                    .clamp(0.0, (bins - 1) as f64) as usize;
                counts[b] += 1;
            }
            let n = vals.len().max(1) as f64;
            counts.into_iter().map(|c| c as f64 / n).collect()
        })
        .collect();
    let max_share = shares.iter().flatten().copied().fold(0.0f64, f64::max).max(0.05);
    let plot_w = w - left - right;
    let plot_h = h - top - bottom;
    let bin_w = plot_w / bins as f64;
    let bar_w = bin_w / (series.len().max(1) as f64 + 0.5);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        w / 2.0,
        esc(title)
    );
    for (si, shares) in shares.iter().enumerate() {
        for (b, s) in shares.iter().enumerate() {
            let bh = s / max_share * plot_h;
            let x = left + b as f64 * bin_w + bar_w * (si as f64 + 0.25);
            let y = top + plot_h - bh;
            let _ = writeln!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{bar_w:.1}" height="{bh:.1}" fill="{}"/>"#,
                COLOURS[si % COLOURS.len()]
            );
        }
    }
    // Axes and ticks.
    let (x0, y0, x1) = (left, top + plot_h, left + plot_w);
    let _ = writeln!(
        svg,
        r#"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="black"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<line x1="{x0}" y1="{top}" x2="{x0}" y2="{y0}" stroke="black"/>"#
    );
    for t in 0..=5 {
        let v = lo + width * t as f64 / 5.0;
        let x = left + plot_w * t as f64 / 5.0;
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{}" text-anchor="middle">{v:.2}</text>"#,
            y0 + 16.0
        );
        let share = max_share * t as f64 / 5.0;
        let y = y0 - plot_h * t as f64 / 5.0;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{y:.1}" text-anchor="end">{:.0}%</text>"#,
            x0 - 6.0,
            share * 100.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        left + plot_w / 2.0,
        h - 12.0,
        esc(x_label)
    );
    for (si, s) in series.iter().enumerate() {
        let y = top + 14.0 + 16.0 * si as f64;
        let _ = writeln!(
            svg,
            r#"<rect x="{}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{} (n={})</text>"#,
            x0 + 16.0,
            y - 9.0,
            COLOURS[si % COLOURS.len()],
            x0 + 31.0,
            y,
            esc(s.label),
            s.values.iter().filter(|v| v.is_finite()).count()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_follow_the_data() {
        let a = [0.0, 0.0, 1.0];
        let svg = histogram_svg(
            "t <x>",
            "reward",
            &[Series {
                label: "a",
                values: &a,
            }],
            0.0,
            1.0,
            2,
        );
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("t &lt;x&gt;"));
        assert!(svg.contains("a (n=3)"));
        // Two bars: shares 2/3 (full height, 270) and 1/3 (half height).
        assert!(svg.contains(r#"height="270.0""#), "{svg}");
        assert!(svg.contains(r#"height="135.0""#), "{svg}");
    }
}
