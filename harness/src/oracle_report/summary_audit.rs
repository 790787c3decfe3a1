//! The audit of `aisimulate_summary.json` (PUBLISHED-FIGURES.md section 1): every published
//! total, and every sub-level figure (model, workload, GPU, topology), recomputed from the
//! snapshot's own rounded per-point data under each definition of docs/upstream.md §4
//! (AIS scripts/e2e_accuracy/build_e2e_accuracy_overview.py), with how far input rounding could
//! move each one. The task functions that read the file are in the parent module.

use super::render::{self, GateCheck};
use super::LAST_DIGIT;
use crate::corpus::aisimulate;
use crate::task::TaskOutput;
use oracles::accuracy::{shape_comparisons, Comparison, Metric, Pooled, PublishedArm, ShapeDefinition, ShapePoint};
use std::fmt::Write as _;

/// Comparisons behind the published 10.05% (PUBLISHED-FIGURES.md section 1). The snapshot
/// does not carry n, so this is the one expectation the file cannot supply.
pub const PUBLISHED_TPOT_SHAPE_N: usize = 878;

/// `*_relative` values are published rounded to 6 decimals, `*_error_pct` to 2.
const RELATIVE_HALF_UNIT: f64 = 5e-7;
const ERROR_PCT_HALF_UNIT: f64 = 0.005;

/// What a line of the audit computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Definition {
    Shape(ShapeDefinition),
    /// Plain mean of the published per-point `*_error_pct` (rounded to 2).
    Mape,
    /// The same APE recomputed from the relatives (rounded to 6): both relatives share the
    /// measured anchor, so |pred_rel - meas_rel| / meas_rel is the raw APE.
    MapeFromRelatives,
}

impl Definition {
    pub const ALL: [Definition; 5] = [
        Definition::Shape(ShapeDefinition::AnchorExcluded),
        Definition::Shape(ShapeDefinition::AnchorIncluded),
        Definition::Shape(ShapeDefinition::SharedMeasuredAnchor),
        Definition::Mape,
        Definition::MapeFromRelatives,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Definition::Shape(d) => d.key(),
            Definition::Mape => "mape",
            Definition::MapeFromRelatives => "mape_from_relatives",
        }
    }

    /// The published figure this line is compared with: AISimulate's shape error for every
    /// shape variant (so the wrong ones visibly fail), the MAPE for both MAPEs.
    fn published(self, figures: &aisimulate::ArmFigures, metric: Metric) -> Option<f64> {
        match self {
            Definition::Shape(_) => figures.shape_error_pct(metric),
            Definition::Mape | Definition::MapeFromRelatives => figures.mape_pct(metric),
        }
    }

    /// Only AISimulate's own definitions are claimed to reproduce the published figure.
    fn is_publishers(self) -> bool {
        !matches!(self, Definition::Shape(ShapeDefinition::AnchorIncluded | ShapeDefinition::SharedMeasuredAnchor))
    }

    fn input_rounding(self) -> &'static str {
        match self {
            Definition::Mape => "rounding error_pct to 2 decimals",
            _ => "rounding relatives to 6 decimals",
        }
    }
}

/// One recomputed figure, with what it is compared against.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub arm: PublishedArm,
    pub metric: Metric,
    pub definition: Definition,
    pub pooled: Pooled,
    pub published: Option<f64>,
    /// The most the mean can move if every rounded input is anywhere in its rounding interval.
    pub input_bound: f64,
}

impl Line {
    pub fn key(&self) -> String {
        format!("{}.{}.{}", self.arm, self.metric, self.definition.key())
    }

    pub fn diff(&self) -> Option<f64> {
        Some((self.pooled.mean? - self.published?).abs())
    }

    pub fn reproduces(&self) -> Option<bool> {
        self.diff().map(|d| d <= LAST_DIGIT)
    }

    /// Distance from the unrounded mean to the nearest point where round(x, 2) changes.
    pub fn margin(&self) -> Option<f64> {
        let hundredths = self.pooled.mean? * 100.0;
        Some(((hundredths - hundredths.floor()) - 0.5).abs() / 100.0)
    }

    /// True when every value consistent with the rounded inputs rounds the same way.
    pub fn determined_by_rounded_inputs(&self) -> Option<bool> {
        Some(self.input_bound < self.margin()?)
    }

    fn verdict(&self) -> String {
        match (self.reproduces(), self.diff()) {
            (Some(true), Some(d)) => format!("reproduces (|diff| {d:.4})"),
            (Some(false), Some(d)) => format!("does not reproduce (|diff| {d:.4})"),
            _ => match (self.pooled.mean, self.published) {
                (None, None) => "both empty".to_string(),
                (None, Some(_)) => "nothing to pool, but a figure is published".to_string(),
                _ => "nothing published".to_string(),
            },
        }
    }
}

/// The worst change of a shape comparison's error when each of its four inputs moves by up
/// to `half` (it is monotone in each input, so the corners bound it).
fn comparison_bound(c: &Comparison, half: f64) -> f64 {
    let base = c.error();
    let mut worst: f64 = 0.0;
    for corner in 0..16u32 {
        let nudge = |v: f64, bit: u32| if corner & (1 << bit) != 0 { v + half } else { v - half };
        let moved = Comparison {
            measured: nudge(c.measured, 0),
            predicted: nudge(c.predicted, 1),
            measured_anchor: nudge(c.measured_anchor, 2),
            predicted_anchor: nudge(c.predicted_anchor, 3),
        };
        worst = worst.max((moved.error() - base).abs());
    }
    worst
}

fn ape_bound(predicted: f64, measured: f64, half: f64) -> f64 {
    let ape = |p: f64, m: f64| (p - m).abs() / m * 100.0;
    let base = ape(predicted, measured);
    [(-half, -half), (-half, half), (half, -half), (half, half)]
        .iter()
        .map(|(dp, dm)| (ape(predicted + dp, measured + dm) - base).abs())
        .fold(0.0, f64::max)
}

fn mean_of(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The shape inputs of one topology for one arm and metric, from the published relatives.
fn shape_points(topology: &aisimulate::Topology, arm: PublishedArm, metric: Metric) -> Vec<ShapePoint> {
    topology
        .points
        .iter()
        .map(|p| ShapePoint {
            concurrency: p.concurrency as f64,
            measured: Some(p.measured.relative(metric)),
            predicted: p.arm(arm).relative(metric),
        })
        .collect()
}

/// One line over any set of topologies (the whole snapshot, or one node of it).
fn compute_line(
    topologies: &[&aisimulate::Topology],
    arm: PublishedArm,
    metric: Metric,
    definition: Definition,
    published: Option<f64>,
) -> Line {
    let (values, bounds): (Vec<f64>, Vec<f64>) = match definition {
        Definition::Shape(shape) => topologies
            .iter()
            .flat_map(|t| shape_comparisons(&shape_points(t, arm, metric), shape))
            .map(|c| (c.error(), comparison_bound(&c, RELATIVE_HALF_UNIT)))
            .unzip(),
        Definition::Mape | Definition::MapeFromRelatives => topologies
            .iter()
            .flat_map(|t| t.points.iter())
            .filter(|p| p.arm(arm).complete())
            .map(|p| {
                let predicted = p.arm(arm);
                if definition == Definition::Mape {
                    (predicted.error_pct(metric).expect("complete"), ERROR_PCT_HALF_UNIT)
                } else {
                    let (q, m) = (predicted.relative(metric).expect("complete"), p.measured.relative(metric));
                    ((q - m).abs() / m * 100.0, ape_bound(q, m, RELATIVE_HALF_UNIT))
                }
            })
            .unzip(),
    };
    Line { arm, metric, definition, pooled: Pooled::of(&values), published, input_bound: mean_of(&bounds) }
}

/// How the published figures of one level (models, workloads, gpus, topologies) fare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelTally {
    pub compared: usize,
    pub matched: usize,
    /// Differ in the last digit, but by no more than the input rounding allows.
    pub within_input_rounding: usize,
    /// Paths of figures that differ by more than input rounding explains.
    pub unexplained: Vec<String>,
}

pub const LEVELS: [&str; 4] = ["models", "workloads", "gpus", "topologies"];

/// Everything the summary audit found.
#[derive(Clone, Debug)]
pub struct SummaryAudit {
    pub release_tag: String,
    pub rows: u64,
    pub topologies: usize,
    pub aisimulate_points: u64,
    /// Topologies AISimulate's default rule would exclude (GPUs = tp x pp x attention dp),
    /// and topologies on a GPU family the rule does not name.
    pub multi_node_topologies: usize,
    pub unnamed_gpu_topologies: usize,
    pub scope_multinode: String,
    pub lines: Vec<Line>,
    /// Per (arm, metric, definition in {shape_anchor_excluded, mape}), one tally per level.
    pub levels: Vec<(PublishedArm, Metric, Definition, [LevelTally; 4])>,
}

impl SummaryAudit {
    pub fn line(&self, arm: PublishedArm, metric: Metric, definition: Definition) -> &Line {
        self.lines
            .iter()
            .find(|l| l.arm == arm && l.metric == metric && l.definition == definition)
            .expect("every arm, metric and definition has a line")
    }

    /// AISimulate TPOT shape: its own definition reproduces, with the published n; the
    /// anchor-inclusive variant does not.
    pub fn gate(&self) -> Vec<GateCheck> {
        let own = self.line(PublishedArm::Aisimulate, Metric::Tpot, Definition::Shape(ShapeDefinition::AnchorExcluded));
        let wrong =
            self.line(PublishedArm::Aisimulate, Metric::Tpot, Definition::Shape(ShapeDefinition::AnchorIncluded));
        let published = own.published.map_or("null".to_string(), |p| p.to_string());
        let mean = |l: &Line| l.pooled.mean.map_or("none".to_string(), |m| format!("{m:.4}"));
        vec![
            GateCheck {
                key: "gate.tpot_shape_reproduces",
                ok: own.reproduces() == Some(true),
                what: format!(
                    "aisimulate tpot shape_anchor_excluded ({}) is within {LAST_DIGIT} of the published totals.aisimulate.tpot_shape_error_pct {published}",
                    mean(own)
                ),
            },
            GateCheck {
                key: "gate.tpot_shape_n",
                ok: own.pooled.n == PUBLISHED_TPOT_SHAPE_N,
                what: format!(
                    "aisimulate tpot shape_anchor_excluded pools n={} comparisons, published n={PUBLISHED_TPOT_SHAPE_N} (PUBLISHED-FIGURES.md section 1)",
                    own.pooled.n
                ),
            },
            GateCheck {
                key: "gate.anchor_inclusive_differs",
                ok: wrong.diff().is_some_and(|d| d > LAST_DIGIT),
                what: format!(
                    "aisimulate tpot shape_anchor_included ({}) differs from the published {published} by more than {LAST_DIGIT}",
                    mean(wrong)
                ),
            },
        ]
    }

    pub fn passed(&self) -> bool {
        render::passed(&self.gate())
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "error-definition audit: {}", aisimulate::FILE);
        let _ = writeln!(
            out,
            "snapshot: release {}, {} rows, {} topologies, {} successful AISimulate points",
            self.release_tag, self.rows, self.topologies, self.aisimulate_points
        );
        let _ = writeln!(
            out,
            "multi-node rule: {} topologies over one node (GPUs = tp x pp x attention dp), {} on a GPU family the rule does not name; scope.multinode: {}",
            self.multi_node_topologies, self.unnamed_gpu_topologies, self.scope_multinode
        );
        let _ =
            writeln!(out, "tolerance: {LAST_DIGIT}, half a unit in the last place of a total published to 2 decimals");
        let _ =
            writeln!(out, "definitions: docs/upstream.md §4 (AIS scripts/e2e_accuracy/build_e2e_accuracy_overview.py)");
        out.push('\n');
        for line in &self.lines {
            let value = line.pooled.published().map_or("-".to_string(), |v| format!("{v:.2}"));
            let published = line.published.map_or("-".to_string(), |p| format!("{p:.2}"));
            let _ = writeln!(
                out,
                "{:<10} {:<4} {:<28} {:>7}  {:<7} published {:>6}  {}",
                line.arm.key(),
                line.metric.key(),
                line.definition.key(),
                value,
                format!("n={}", line.pooled.n),
                published,
                line.verdict()
            );
        }
        render::write_gate(&mut out, &self.gate());

        out.push_str("\nfindings: is each published total reproducible from the rounded per-point data?\n");
        for line in self.lines.iter().filter(|l| l.definition.is_publishers()) {
            let (Some(mean), Some(margin)) = (line.pooled.mean, line.margin()) else { continue };
            let settled = match line.determined_by_rounded_inputs() {
                Some(true) => "determined by the rounded data",
                _ => "NOT determined by the rounded data alone: input rounding could cross the boundary",
            };
            let _ = writeln!(
                out,
                "  {} {} {}: {}; unrounded {mean:.4}, {margin:.4} from a rounding boundary; {} moves it by at most {:.4}: {settled}",
                line.arm,
                line.metric,
                line.definition.key(),
                if line.reproduces() == Some(true) { "reproduces" } else { "does not reproduce" },
                line.definition.input_rounding(),
                line.input_bound,
            );
        }
        out.push_str(
            "  why: the snapshot holds no absolute latency; relatives (6 decimals) bound the shape and relative-MAPE inputs \
             to about 1e-6 relative, while error_pct (2 decimals) can move a MAPE by up to 0.005, which can exceed \
             the distance to a rounding boundary.\n",
        );

        out.push_str("\nsub-levels (each node's published figure recomputed from its own points; matched/compared):\n");
        for (arm, metric, definition, tallies) in &self.levels {
            let mut text = format!("  {:<10} {:<4} {:<22}", arm.key(), metric.key(), definition.key());
            for (level, tally) in LEVELS.iter().zip(tallies) {
                let _ = write!(text, " {level} {}/{}", tally.matched, tally.compared);
            }
            let within: usize = tallies.iter().map(|t| t.within_input_rounding).sum();
            let unexplained: Vec<&String> = tallies.iter().flat_map(|t| &t.unexplained).collect();
            let _ = write!(
                text,
                "; last digit differs within input rounding: {within}; unexplained: {}",
                unexplained.len()
            );
            let _ = writeln!(out, "{text}");
            for path in unexplained {
                let _ = writeln!(out, "    unexplained: {path}");
            }
        }
        out.push_str(
            "  why: a small node pools few values; a mean of 2-decimal error_pct over n values can land exactly on, \
             or within 0.005 of, a rounding boundary, where the unrounded inputs decide the last digit.\n",
        );
        out
    }

    pub fn to_output(&self) -> TaskOutput {
        let mut output = TaskOutput { report: self.render(), ..TaskOutput::default() };
        for line in &self.lines {
            if let Some(mean) = line.pooled.mean {
                output.number(line.key(), mean);
            }
            output.count(format!("{}.n", line.key()), line.pooled.n as u64);
            if let Some(ok) = line.reproduces() {
                output.check(format!("{}.reproduces", line.key()), ok);
            }
        }
        render::record_gate(&mut output, &self.gate());
        for line in &self.lines {
            let kind = match line.definition {
                Definition::Shape(ShapeDefinition::AnchorExcluded) => "shape",
                Definition::Mape => "mape",
                _ => continue,
            };
            if let Some(published) = line.published {
                output.number(format!("published.{}.{}.{kind}", line.arm, line.metric), published);
            }
        }
        output.count("published.rows", self.rows);
        output.count("published.aisimulate.points", self.aisimulate_points);
        output
    }
}

/// The summary audit over an already-checked snapshot.
pub fn audit_summary(summary: &aisimulate::Summary) -> SummaryAudit {
    let all: Vec<&aisimulate::Topology> = summary.topologies().iter().map(|t| t.topology).collect();
    let multi_node: Vec<Option<bool>> = summary
        .topologies()
        .iter()
        .map(|t| {
            let p = t.topology.parallelism;
            oracles::accuracy::is_multi_node(
                &t.gpu.gpu,
                oracles::accuracy::gpu_count(p.tp_size, p.pp_size, p.attention_dp_size),
            )
        })
        .collect();
    let mut lines = Vec::new();
    for arm in PublishedArm::ALL {
        for metric in Metric::ALL {
            for definition in Definition::ALL {
                let published = definition.published(summary.totals(arm), metric);
                lines.push(compute_line(&all, arm, metric, definition, published));
            }
        }
    }
    let mut levels = Vec::new();
    for arm in PublishedArm::ALL {
        for metric in Metric::ALL {
            for definition in [Definition::Shape(ShapeDefinition::AnchorExcluded), Definition::Mape] {
                levels.push((arm, metric, definition, tally_levels(summary, arm, metric, definition)));
            }
        }
    }
    SummaryAudit {
        release_tag: summary.snapshot.get("release_tag").and_then(|v| v.as_str()).unwrap_or("(none)").to_string(),
        rows: summary.totals.rows,
        topologies: all.len(),
        aisimulate_points: summary.totals.aisimulate.points,
        multi_node_topologies: multi_node.iter().filter(|m| **m == Some(true)).count(),
        unnamed_gpu_topologies: multi_node.iter().filter(|m| m.is_none()).count(),
        scope_multinode: format!(
            "{} (excluded_multinode_rows {})",
            summary.scope.multinode, summary.scope.excluded_multinode_rows
        ),
        lines,
        levels,
    }
}

fn tally_levels(
    summary: &aisimulate::Summary,
    arm: PublishedArm,
    metric: Metric,
    definition: Definition,
) -> [LevelTally; 4] {
    let mut tallies: [LevelTally; 4] = Default::default();
    let mut tally = |level: usize,
                     path: String,
                     node: (&aisimulate::ArmFigures, &aisimulate::ArmFigures),
                     topologies: Vec<&aisimulate::Topology>| {
        let figures = match arm {
            PublishedArm::Aisimulate => node.0,
            PublishedArm::Aic => node.1,
        };
        let line = compute_line(&topologies, arm, metric, definition, definition.published(figures, metric));
        let t = &mut tallies[level];
        t.compared += 1;
        match (line.pooled.published(), line.published) {
            (a, b) if a == b => t.matched += 1,
            (Some(_), Some(_)) if line.diff().is_some_and(|d| d <= LAST_DIGIT + line.input_bound) => {
                t.within_input_rounding += 1
            }
            _ => t.unexplained.push(format!(
                "{path}.{arm}.{metric}_{}",
                match definition {
                    Definition::Mape => "mape_pct",
                    _ => "shape_error_pct",
                }
            )),
        }
    };
    for (mi, model) in summary.models.iter().enumerate() {
        let mpath = format!("models[{mi}]");
        let mt: Vec<_> = model.workloads.iter().flat_map(|w| &w.gpus).flat_map(|g| &g.topologies).collect();
        tally(0, mpath.clone(), (&model.aisimulate, &model.aic), mt);
        for (wi, workload) in model.workloads.iter().enumerate() {
            let wpath = format!("{mpath}.workloads[{wi}]");
            let wt: Vec<_> = workload.gpus.iter().flat_map(|g| &g.topologies).collect();
            tally(1, wpath.clone(), (&workload.aisimulate, &workload.aic), wt);
            for (gi, gpu) in workload.gpus.iter().enumerate() {
                let gpath = format!("{wpath}.gpus[{gi}]");
                tally(2, gpath.clone(), (&gpu.aisimulate, &gpu.aic), gpu.topologies.iter().collect());
                for (ti, topology) in gpu.topologies.iter().enumerate() {
                    tally(
                        3,
                        format!("{gpath}.topologies[{ti}]"),
                        (&topology.aisimulate, &topology.aic),
                        vec![topology],
                    );
                }
            }
        }
    }
    tallies
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_is_the_distance_to_the_next_rounding_boundary() {
        let line = |mean: f64| Line {
            arm: PublishedArm::Aisimulate,
            metric: Metric::Tpot,
            definition: Definition::Mape,
            pooled: Pooled { mean: Some(mean), n: 1 },
            published: Some(10.05),
            input_bound: 0.001,
        };
        assert!((line(10.047).margin().unwrap() - 0.002).abs() < 1e-9);
        assert_eq!(line(10.047).determined_by_rounded_inputs(), Some(true));
        assert_eq!(line(10.0545).determined_by_rounded_inputs(), Some(false));
        assert_eq!(line(10.0545).reproduces(), Some(true));
        assert_eq!(line(10.0551).reproduces(), Some(false));
    }

    #[test]
    fn comparison_bound_covers_a_nudged_input() {
        let c = Comparison { measured: 2.0, predicted: 3.0, measured_anchor: 1.0, predicted_anchor: 1.0 };
        let bound = comparison_bound(&c, 5e-7);
        let nudged = Comparison { predicted: 3.0 + 5e-7, ..c };
        assert!((nudged.error() - c.error()).abs() <= bound + 1e-15);
        assert!(bound > 0.0 && bound < 1e-3, "{bound}");
    }
}
