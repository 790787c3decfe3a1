//! Hand-built SVG for the HTML reports' charts (the gate's, the scorer's and the history's),
//! and the pages' one style sheet.
//!
//! Why not plotters' SVG backend (tried, 0.3 with `svg_backend` only): a dashed series comes
//! out as one `<polyline>` per dash (58 elements for a four-point line) instead of one path
//! with `stroke-dasharray`; there is no `<title>`, `<desc>` or `role` to hang a text
//! alternative on; a log axis is ticked 1, 2, 3, ... rather than at powers of two; and its
//! label layout rests on text metrics that are guesses without a font feature and come from
//! the machine's fonts with one (so the bytes would depend on the machine). The charts here
//! are lines, markers and boxes on two axes: a few hundred lines written once, with every
//! coordinate printed with one decimal, so the same numbers give the same bytes.

use std::fmt::Write as _;

/// The style sheet of every HTML page.
pub const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1040px;padding:0 16px 48px;color:#111;line-height:1.4}\
h1{font-size:1.6em}h2{border-bottom:2px solid #333;margin-top:2em}h3{margin-top:1.6em}h4{margin:1.2em 0 .3em}\
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\
td.num{text-align:right;font-variant-numeric:tabular-nums}\
.ok{color:#005a32}.mismatch{color:#a50f15;font-weight:bold}.refused{color:#555}\
figure{margin:1.2em 0;border-top:1px solid #ddd;padding-top:.6em}figcaption{font-weight:bold}\
svg{max-width:100%;height:auto}details{margin:.3em 0}summary{cursor:pointer}\
nav ol{padding-left:1.4em}nav li{margin:.1em 0}.note{color:#444}";

/// How one series is drawn: a colour from the Okabe-Ito palette (distinct under the common
/// colour-vision deficiencies), a dash pattern and a marker, so no series is told apart by
/// colour alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub color: &'static str,
    /// `stroke-dasharray`, or `None` for a solid line.
    pub dash: Option<&'static str>,
    pub marker: Marker,
    /// Words for the legend and the text alternative: "solid line, filled circles".
    pub described: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

pub const MEASURED: Style =
    Style { color: "#000000", dash: None, marker: Marker::Circle, described: "black solid line, circles" };

/// The style of an arm, by its key; an unknown arm gets the fifth style.
pub fn arm_style(key: &str) -> Style {
    match key {
        "blis" => Style {
            color: "#0072B2",
            dash: Some("9 4"),
            marker: Marker::Square,
            described: "blue long dashes, squares",
        },
        // The release a candidate is compared with (`--baseline-blis`): BLIS's blue, lighter.
        "blis_baseline" => Style {
            color: "#56B4E9",
            dash: Some("2 2"),
            marker: Marker::Square,
            described: "sky-blue fine dashes, squares",
        },
        "aisimulate" => Style {
            color: "#D55E00",
            dash: Some("4 3"),
            marker: Marker::Triangle,
            described: "vermilion short dashes, triangles",
        },
        "aic" => Style {
            color: "#009E73",
            dash: Some("1 3"),
            marker: Marker::Diamond,
            described: "green dotted line, diamonds",
        },
        _ => Style {
            color: "#CC79A7",
            dash: Some("8 3 1 3"),
            marker: Marker::Cross,
            described: "pink dash-dot line, crosses",
        },
    }
}

/// The opening of a self-contained report page, through its `<h1>`: the score, gate and history
/// pages share it.
pub fn page_start(title: &str) -> String {
    let title = esc(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    )
}

/// The close of a report page: which build of the tool wrote it, when one is recorded, so a page
/// passed around says where it came from.
pub fn page_end() -> String {
    let written = crate::version::get().map(|tool| format!("<p>Written by cargo xtask {}.</p>\n", esc(tool)));
    format!("{}</body>\n</html>\n", written.unwrap_or_default())
}

/// Escapes text for HTML and SVG content and attributes.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters (BEL ...) and bidirectional overrides (U+202E reverses what
            // follows) from corpus strings are shown, never obeyed.
            c if (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c) => {
                out.push_str(&format!("[U+{:04X}]", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod esc_tests {
    #[test]
    fn bidi_overrides_and_bells_are_shown_not_obeyed() {
        assert_eq!(super::esc("a\u{202E}b\u{7}c<"), "a[U+202E]b[U+0007]c&lt;");
        assert_eq!(super::esc("plain – text"), "plain – text");
    }
}

/// A coordinate, one decimal: stable text for the same number.
fn n(x: f64) -> String {
    let s = format!("{x:.1}");
    if s == "-0.0" {
        "0.0".into()
    } else {
        s
    }
}

/// A rectangle of the canvas.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// A linear axis: the data range and its ticks.
#[derive(Clone, Debug)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<(f64, String)>,
    pub log2: bool,
}

impl Axis {
    /// Log-2 axis over concurrencies, ticked at every power of two in range.
    pub fn log2(values: &[u32]) -> Axis {
        let lo = values.iter().copied().min().unwrap_or(1).max(1) as f64;
        let hi = values.iter().copied().max().unwrap_or(2).max(1) as f64;
        let (l, h) = (lo.log2(), hi.log2());
        let pad = ((h - l) * 0.06).max(0.25);
        let mut ticks = Vec::new();
        let mut p = l.floor() as i32;
        while (p as f64) <= h.ceil() {
            let v = 2f64.powi(p);
            if (p as f64) >= l - pad && (p as f64) <= h + pad {
                ticks.push((p as f64, format!("{v}")));
            }
            p += 1;
        }
        Axis { lo: l - pad, hi: h + pad, ticks, log2: true }
    }

    /// Linear axis covering `lo..=hi` with five to ten round ticks.
    pub fn linear(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = if hi - lo < 1e-9 { (lo - 1.0, hi + 1.0) } else { (lo, hi) };
        let raw = (hi - lo) / 6.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
        let lo = (lo / step).floor() * step;
        let hi = (hi / step).ceil() * step;
        // as many decimals as the step needs: 0.25 -> 2, 2.5 -> 1, 5 -> 0
        let decimals = (0..=4usize).find(|d| {
            let scaled = step * 10f64.powi(*d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        });
        let decimals = decimals.unwrap_or(4);
        let mut ticks = Vec::new();
        let count = ((hi - lo) / step).round() as i64;
        for i in 0..=count {
            let v = lo + step * i as f64;
            let text = format!("{v:.decimals$}");
            ticks.push((v, if text == "-0" { "0".into() } else { text }));
        }
        Axis { lo, hi, ticks, log2: false }
    }

    /// The axis coordinate of a data value (log2 applied for a log axis).
    pub fn at(&self, value: f64) -> f64 {
        if self.log2 {
            value.log2()
        } else {
            value
        }
    }

    fn frac(&self, value: f64) -> f64 {
        (self.at(value) - self.lo) / (self.hi - self.lo)
    }

    fn frac_raw(&self, axis_coord: f64) -> f64 {
        (axis_coord - self.lo) / (self.hi - self.lo)
    }
}

/// An SVG document being written: `<svg>` with a title and a description for screen readers.
pub struct Svg {
    out: String,
}

impl Svg {
    pub fn new(id: &str, width: f64, height: f64, title: &str, desc: &str) -> Svg {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{id}\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" font-family=\"sans-serif\" font-size=\"12\">\n<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
            n(width), n(height), n(width), n(height), esc(title), esc(desc)
        );
        Svg { out }
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }

    pub fn text(&mut self, x: f64, y: f64, anchor: &str, extra: &str, text: &str) {
        let _ = writeln!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\"{extra}>{}</text>",
            n(x),
            n(y),
            esc(text)
        );
    }

    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, extra: &str) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\"{extra}/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, extra: &str) {
        let _ =
            writeln!(self.out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{extra}/>", n(x), n(y), n(w), n(h));
    }

    pub fn polyline(&mut self, points: &[(f64, f64)], style: Style, width: f64) {
        if points.len() < 2 {
            return;
        }
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{},{}", n(*x), n(*y))).collect();
        let dash = style.dash.map(|d| format!(" stroke-dasharray=\"{d}\"")).unwrap_or_default();
        let _ = writeln!(
            self.out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"round\"{dash}/>",
            pts.join(" "),
            style.color,
            n(width)
        );
    }

    /// A marker centred on (x, y); hollow draws the outline only (excluded points).
    pub fn marker(&mut self, (x, y): (f64, f64), style: Style, hollow: bool) {
        let fill = if hollow { "#ffffff".to_string() } else { style.color.to_string() };
        let paint = format!(" fill=\"{fill}\" stroke=\"{}\" stroke-width=\"1.5\"", style.color);
        let r = 4.0;
        let _ = match style.marker {
            Marker::Circle => writeln!(self.out, "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{paint}/>", n(x), n(y), n(r)),
            Marker::Square => writeln!(
                self.out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{paint}/>",
                n(x - r),
                n(y - r),
                n(2.0 * r),
                n(2.0 * r)
            ),
            Marker::Triangle => writeln!(
                self.out,
                "<path d=\"M{},{} L{},{} L{},{} Z\"{paint}/>",
                n(x),
                n(y - r - 1.0),
                n(x + r + 0.5),
                n(y + r - 0.5),
                n(x - r - 0.5),
                n(y + r - 0.5)
            ),
            Marker::Diamond => writeln!(
                self.out,
                "<path d=\"M{},{} L{},{} L{},{} L{},{} Z\"{paint}/>",
                n(x),
                n(y - r - 1.0),
                n(x + r + 1.0),
                n(y),
                n(x),
                n(y + r + 1.0),
                n(x - r - 1.0),
                n(y)
            ),
            Marker::Cross => writeln!(
                self.out,
                "<path d=\"M{},{} L{},{} M{},{} L{},{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>",
                n(x - r),
                n(y - r),
                n(x + r),
                n(y + r),
                n(x - r),
                n(y + r),
                n(x + r),
                n(y - r),
                style.color
            ),
        };
    }

    /// A legend row: a line sample with its marker, then the words.
    pub fn legend_row(&mut self, x: f64, y: f64, style: Style, width: f64, text: &str) {
        self.polyline(&[(x, y), (x + 36.0, y)], style, width);
        self.marker((x + 18.0, y), style, false);
        self.text(x + 44.0, y + 4.0, "start", "", text);
    }

    /// Axes, grid and tick labels of a plot area; returns the data-to-canvas mapping.
    pub fn axes(&mut self, f: Frame, x: &Axis, y: &Axis, title: &str, x_label: &str, y_label: &str) -> Plot {
        self.rect(f.x, f.y, f.w, f.h, " fill=\"none\" stroke=\"#555555\"");
        let plot = Plot { f, x: x.clone(), y: y.clone() };
        for (v, label) in &y.ticks {
            let cy = plot.cy_raw(*v);
            self.line((f.x, cy), (f.x + f.w, cy), "#dddddd", "");
            self.text(f.x - 6.0, cy + 4.0, "end", "", label);
        }
        for (v, label) in &x.ticks {
            let cx = plot.cx_raw(*v);
            self.line((cx, f.y), (cx, f.y + f.h), "#eeeeee", "");
            self.text(cx, f.y + f.h + 16.0, "middle", "", label);
        }
        self.text(f.x + f.w / 2.0, f.y - 8.0, "middle", " font-weight=\"bold\"", title);
        self.text(f.x + f.w / 2.0, f.y + f.h + 32.0, "middle", "", x_label);
        let (lx, ly) = (f.x - 44.0, f.y + f.h / 2.0);
        self.text(lx, ly, "middle", &format!(" transform=\"rotate(-90 {} {})\"", n(lx), n(ly)), y_label);
        plot
    }
}

/// The mapping from data to canvas of one plot area.
#[derive(Clone, Debug)]
pub struct Plot {
    pub f: Frame,
    pub x: Axis,
    pub y: Axis,
}

impl Plot {
    pub fn cx(&self, v: f64) -> f64 {
        self.f.x + self.x.frac(v) * self.f.w
    }
    pub fn cy(&self, v: f64) -> f64 {
        self.f.y + self.f.h - self.y.frac(v) * self.f.h
    }
    fn cx_raw(&self, a: f64) -> f64 {
        self.f.x + self.x.frac_raw(a) * self.f.w
    }
    fn cy_raw(&self, a: f64) -> f64 {
        self.f.y + self.f.h - self.y.frac_raw(a) * self.f.h
    }
    pub fn top(&self) -> f64 {
        self.f.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_range() {
        let a = Axis::linear(0.0, 2.7);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"]);
        let b = Axis::linear(-12.0, 31.0);
        assert!(b.lo <= -12.0 && b.hi >= 31.0, "{b:?}");
        assert!(b.ticks.iter().any(|t| t.1 == "0"), "{b:?}");
    }

    #[test]
    fn log2_ticks_are_powers_of_two() {
        let a = Axis::log2(&[4, 8, 16, 64, 256]);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["4", "8", "16", "32", "64", "128", "256"]);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
