//! The per-point table (`--points FILE`, docs/points.md): one row per point x arm, built from
//! the same `Scored` the headline aggregates, so every headline cell is the plain mean of |e|
//! over a selection of its rows (tier column, arm, metric column not empty) and cannot
//! disagree with the printed figure.

use super::arms::{Arm, ArmKind, ArmRun, PointKey};
use super::metric::ErrorMetric;
use super::resolve::Resolved;
use super::scored::Scored;
use super::settings;
use oracles::tiers::{self, Tier};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the BLIS arm knows about each of its points (`blis::arm` fills it in).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlisPoints {
    pub binary_sha256: String,
    /// `LengthForm::name` of the column.
    pub form: String,
    pub points: BTreeMap<PointKey, BlisPoint>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BlisPoint {
    /// The point's content key in the cache (empty when its inputs could not be read).
    pub cache_key: String,
    /// False when the release refused the point as not modelled.
    pub modelled: bool,
}

/// One point of one arm: a row of the table. Floats are `None` where there is no value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PointRow {
    pub arm: String,
    pub scenario: String,
    pub label: String,
    pub framework: String,
    pub gpu: String,
    pub model: String,
    pub parallelism: String,
    pub concurrency: u32,
    pub anchor: bool,
    /// Tier membership; all false for a dropped sweep (it enters no figure).
    pub strict: bool,
    pub measured_or_resolved: bool,
    pub all: bool,
    /// Kept by `--config-tier measured` (a settings record at the anchor).
    pub measured_tier: bool,
    /// The provenance of each of `tiers::TRACKED_SETTINGS`, in that order.
    pub provenance: Vec<String>,
    pub prefix_caching: bool,
    pub ttft_excursion: bool,
    pub measured_tpot_rel: Option<f64>,
    pub measured_ttft_rel: Option<f64>,
    pub measured_tpot_us: Option<f64>,
    pub measured_ttft_us: Option<f64>,
    pub predicted_tpot_rel: Option<f64>,
    pub predicted_ttft_rel: Option<f64>,
    pub predicted_tpot_ms: Option<f64>,
    pub predicted_ttft_ms: Option<f64>,
    /// Signed % entering each headline figure, in `ErrorMetric::ALL` order.
    pub errors: [Option<f64>; 4],
    /// Why an error column is empty (`; `-separated), empty when the point enters all four.
    pub not_entered: String,
    pub blis: Option<BlisRow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlisRow {
    pub binary_sha256: String,
    pub form: String,
    pub cache_key: String,
    pub modelled: Option<bool>,
}

/// The rows of every run arm of `scored` (arm by arm, sweeps in corpus order, points by
/// concurrency), over the sweeps of `resolved`. `blis` adds the BLIS columns to the `blis` rows.
pub fn rows(resolved: &Resolved, scored: &Scored, arms: &[Arm], blis: Option<&BlisPoints>) -> Vec<PointRow> {
    let mut out = Vec::new();
    for arm in arms {
        let ArmRun::Ran(values) = &arm.run else { continue };
        let Some(index) = scored.arms.iter().position(|(_, key, _)| *key == arm.key) else { continue };
        for r in &resolved.sweeps {
            let sweep = r.sweep;
            let scored_sweep = scored.sweeps.iter().find(|s| s.scenario == sweep.scenario && s.label == sweep.label);
            let dropped = scored.dropped.iter().find(|d| d.scenario == sweep.scenario && d.label == sweep.label);
            let points = r.sweep_points();
            let anchor = points.first().map(|p| p.concurrency);
            let measured_tier = anchor.is_some_and(|c| r.record.is_some_and(|rec| rec.by_concurrency.get(c).is_some()));
            for p in &points {
                let c = p.concurrency;
                let key = PointKey::new(&sweep.scenario, &sweep.label, c);
                let predicted = values.get(&key).copied().unwrap_or_default();
                let (rel, ms) = match arm.kind {
                    ArmKind::Published => (predicted, Default::default()),
                    ArmKind::Simulated => (Default::default(), predicted),
                };
                let excursion = scored
                    .excursions
                    .iter()
                    .any(|e| e.scenario == sweep.scenario && e.label == sweep.label && e.concurrency == c);
                let mut errors = [None; 4];
                let mut why = Vec::new();
                match (scored_sweep, dropped) {
                    (Some(s), _) => {
                        if let Some(Some(e)) = s.errors.get(index) {
                            for (i, m) in ErrorMetric::ALL.iter().enumerate() {
                                errors[i] = e.get(*m).iter().find(|(at, _)| *at == c).map(|x| x.1);
                            }
                        }
                        if Some(c) == anchor {
                            why.push("anchor: no shape error".to_string());
                        }
                        if excursion {
                            why.push("TTFT excursion: no TTFT error".to_string());
                        }
                    }
                    (None, Some(d)) => why.push(format!("sweep dropped: {}", d.reason)),
                    (None, None) => why.push("sweep not scored".to_string()),
                }
                let tier = scored_sweep.map(|s| s.tier);
                let member = |t: Tier| tier.is_some_and(|best| tiers::in_tier(best, t));
                let provenance = r
                    .points
                    .iter()
                    .find(|rp| rp.point.concurrency == c)
                    .map(|rp| rp.settings.iter().map(|s| s.provenance.to_string()).collect())
                    .unwrap_or_default();
                let absolutes = r.absolutes;
                out.push(PointRow {
                    arm: arm.key.clone(),
                    scenario: sweep.scenario.clone(),
                    label: sweep.label.clone(),
                    framework: sweep.framework.clone(),
                    gpu: sweep.gpu.clone(),
                    model: sweep.model.clone(),
                    parallelism: parallelism(&sweep.parallelism),
                    concurrency: c,
                    anchor: Some(c) == anchor,
                    strict: member(Tier::Strict),
                    measured_or_resolved: member(Tier::MeasuredOrResolved),
                    all: member(Tier::All),
                    measured_tier,
                    provenance,
                    prefix_caching: settings::prefix_caching_on(sweep, c, r.record),
                    ttft_excursion: excursion,
                    measured_tpot_rel: p.measured_tpot_relative,
                    measured_ttft_rel: p.measured_ttft_relative,
                    measured_tpot_us: absolutes.and_then(|a| a.tpot_us(c)),
                    measured_ttft_us: absolutes.and_then(|a| a.ttft_us(c)),
                    predicted_tpot_rel: rel.tpot,
                    predicted_ttft_rel: rel.ttft,
                    predicted_tpot_ms: ms.tpot,
                    predicted_ttft_ms: ms.ttft,
                    errors,
                    not_entered: why.join("; "),
                    blis: blis.filter(|_| arm.key == "blis").map(|b| {
                        let point = b.points.get(&key);
                        BlisRow {
                            binary_sha256: b.binary_sha256.clone(),
                            form: b.form.clone(),
                            cache_key: point.map(|p| p.cache_key.clone()).unwrap_or_default(),
                            modelled: point.map(|p| p.modelled),
                        }
                    }),
                });
            }
        }
    }
    out
}

/// `tp=1 pp=1 dp=1 moe_ep=- moe_tp=-`: the sweep's parallelism as the corpus gives it.
fn parallelism(p: &crate::corpus::e2e::Parallelism) -> String {
    let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    format!(
        "tp={} pp={} dp={} moe_ep={} moe_tp={}",
        p.tp_size,
        p.pp_size,
        p.attention_dp_size,
        opt(p.moe_ep_size),
        opt(p.moe_tp_size)
    )
}

/// The header, in column order (docs/points.md documents each).
pub fn header() -> Vec<String> {
    let mut h: Vec<String> = [
        "arm",
        "scenario",
        "label",
        "framework",
        "gpu",
        "model",
        "parallelism",
        "concurrency",
        "anchor",
        "strict",
        "measured_or_resolved",
        "all",
        "measured_tier",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    h.extend(tiers::TRACKED_SETTINGS.iter().map(|f| format!("{f}_provenance")));
    h.extend(
        [
            "prefix_caching",
            "ttft_excursion",
            "measured_tpot_rel",
            "measured_ttft_rel",
            "measured_tpot_us",
            "measured_ttft_us",
            "predicted_tpot_rel",
            "predicted_ttft_rel",
            "predicted_tpot_ms",
            "predicted_ttft_ms",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    h.extend(ErrorMetric::ALL.iter().map(|m| column(*m).to_string()));
    h.extend(
        ["not_entered", "blis_binary_sha256", "blis_form", "blis_cache_key", "blis_modelled"]
            .iter()
            .map(|s| s.to_string()),
    );
    h
}

/// The error column a metric's figure is the mean |e| of.
pub fn column(m: ErrorMetric) -> &'static str {
    match m {
        ErrorMetric::TpotShape => "tpot_shape_error",
        ErrorMetric::TpotMape => "tpot_ape",
        ErrorMetric::TtftShape => "ttft_shape_error",
        ErrorMetric::TtftMape => "ttft_ape",
    }
}

/// The table as CSV: the header, then one line per row. Floats are printed in full (the
/// shortest text that reads back to the same binary value), booleans as 1 and 0, no value empty.
pub fn csv(rows: &[PointRow]) -> String {
    let mut out = header().join(",");
    out.push('\n');
    let num = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    for r in rows {
        let mut cells = vec![
            r.arm.clone(),
            r.scenario.clone(),
            r.label.clone(),
            r.framework.clone(),
            r.gpu.clone(),
            r.model.clone(),
            r.parallelism.clone(),
            r.concurrency.to_string(),
            flag(r.anchor),
            flag(r.strict),
            flag(r.measured_or_resolved),
            flag(r.all),
            flag(r.measured_tier),
        ];
        for i in 0..tiers::TRACKED_SETTINGS.len() {
            cells.push(r.provenance.get(i).cloned().unwrap_or_default());
        }
        cells.extend([flag(r.prefix_caching), flag(r.ttft_excursion)]);
        cells.extend(
            [
                r.measured_tpot_rel,
                r.measured_ttft_rel,
                r.measured_tpot_us,
                r.measured_ttft_us,
                r.predicted_tpot_rel,
                r.predicted_ttft_rel,
                r.predicted_tpot_ms,
                r.predicted_ttft_ms,
            ]
            .map(num),
        );
        cells.extend(r.errors.map(num));
        cells.push(r.not_entered.clone());
        match &r.blis {
            Some(b) => cells.extend([
                b.binary_sha256.clone(),
                b.form.clone(),
                b.cache_key.clone(),
                b.modelled.map_or(String::new(), flag),
            ]),
            None => cells.extend([String::new(), String::new(), String::new(), String::new()]),
        }
        let quoted: Vec<String> = cells.iter().map(|c| quote(c)).collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}

/// RFC 4180 quoting, only where a cell needs it.
fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

/// The rows as a task hands them to the gate (`TaskOutput::points`).
pub fn to_values(rows: &[PointRow]) -> Vec<serde_json::Value> {
    rows.iter().map(|r| serde_json::to_value(r).expect("a point row always serialises")).collect()
}

/// The rows back from a task's output; an error names the row that is not one.
pub fn from_values(values: &[serde_json::Value]) -> anyhow::Result<Vec<PointRow>> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| serde_json::from_value(v.clone()).map_err(|e| anyhow::anyhow!("point row {i}: {e}")))
        .collect()
}

/// The table of a score: the corpus arms' rows from `corpus` (every sweep of the selection),
/// and with a BLIS column its rows from `with_blis` (the sweeps with a BLIS value), as the
/// report prints the two (`SplitScore`).
pub fn table(
    resolved: &Resolved,
    corpus: &Scored,
    corpus_arms: &[Arm],
    blis: Option<(&Scored, &Arm, &BlisPoints)>,
) -> Vec<PointRow> {
    let mut out = rows(resolved, corpus, corpus_arms, None);
    if let Some((with_blis, arm, info)) = blis {
        out.extend(rows(resolved, with_blis, std::slice::from_ref(arm), Some(info)));
    }
    out
}

/// One sweep's part of a headline cell: its row count and sum of |e|, and its share of the
/// cell's mean (sum of |e| over the cell's n), from the rows. What `explain` ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct Contribution {
    pub scenario: String,
    pub label: String,
    pub n: usize,
    pub sum_abs: f64,
    /// Points of mean: `sum_abs / n_cell`.
    pub share: f64,
    /// The point of the sweep with the largest |e|, the first in the cell's order on a tie:
    /// (concurrency, signed error).
    pub worst: (u32, f64),
}

/// The rows a headline cell is the mean |e| of: `tier`'s column set, `arm`, metric `m` not empty.
pub fn cell_rows<'a>(rows: &'a [PointRow], tier: Tier, arm: &str, m: ErrorMetric) -> Vec<(&'a PointRow, f64)> {
    let index = ErrorMetric::ALL.iter().position(|x| *x == m).expect("a metric of ALL");
    rows.iter()
        .filter(|r| r.arm == arm)
        .filter(|r| match tier {
            Tier::Strict => r.strict,
            Tier::MeasuredOrResolved => r.measured_or_resolved,
            Tier::All => r.all,
        })
        .filter_map(|r| r.errors[index].map(|e| (r, e)))
        .collect()
}

/// The mean |e| of a cell recomputed from its rows (summed in row order, as the scorer does).
pub fn cell_mean(rows: &[PointRow], tier: Tier, arm: &str, m: ErrorMetric) -> Option<f64> {
    let errors: Vec<f64> = cell_rows(rows, tier, arm, m).into_iter().map(|(_, e)| e).collect();
    oracles::scoring::mean_abs(&errors)
}

/// Each sweep's contribution to a cell's mean, largest first (ties by sweep), from the rows.
pub fn contributions(rows: &[PointRow], tier: Tier, arm: &str, m: ErrorMetric) -> Vec<Contribution> {
    let cell = cell_rows(rows, tier, arm, m);
    rank(cell.into_iter().map(|(r, e)| (r.scenario.as_str(), r.label.as_str(), r.concurrency, e)))
}

/// [`contributions`] from the scored sweeps themselves (arm by its index in `scored.arms`): the
/// same errors the rows carry, for a page that has the scorer's results and no table.
pub fn scored_contributions(scored: &Scored, tier: Tier, arm: usize, m: ErrorMetric) -> Vec<Contribution> {
    rank(scored.in_tier(tier).flat_map(|s| {
        let errors = s.errors.get(arm).and_then(|e| e.as_ref()).map_or(&[][..], |e| e.get(m));
        errors.iter().map(move |(c, e)| (s.scenario.as_str(), s.label.as_str(), *c, *e))
    }))
}

/// Ranks a cell's (scenario, label, concurrency, signed error) by sweep: each sweep's share of
/// the cell's mean |e|, largest first, ties by sweep.
fn rank<'a>(cell: impl IntoIterator<Item = (&'a str, &'a str, u32, f64)>) -> Vec<Contribution> {
    let cell: Vec<(&str, &str, u32, f64)> = cell.into_iter().collect();
    let n_cell = cell.len() as f64;
    let mut by_sweep: Vec<Contribution> = Vec::new();
    for (scenario, label, concurrency, e) in cell {
        let at = match by_sweep.iter().position(|c| c.scenario == scenario && c.label == label) {
            Some(i) => i,
            None => {
                by_sweep.push(Contribution {
                    scenario: scenario.to_string(),
                    label: label.to_string(),
                    n: 0,
                    sum_abs: 0.0,
                    share: 0.0,
                    worst: (concurrency, e),
                });
                by_sweep.len() - 1
            }
        };
        let c = &mut by_sweep[at];
        c.n += 1;
        c.sum_abs += e.abs();
        c.share = c.sum_abs / n_cell;
        if e.abs() > c.worst.1.abs() {
            c.worst = (concurrency, e);
        }
    }
    by_sweep.sort_by(|a, b| {
        b.share.total_cmp(&a.share).then_with(|| (&a.scenario, &a.label).cmp(&(&b.scenario, &b.label)))
    });
    by_sweep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_cell_and_rank_largest_first() {
        let cell = [("a.yaml", "1k1k", 2, 10.0), ("b.yaml", "1k1k", 2, -30.0), ("a.yaml", "1k1k", 4, -20.0)];
        let ranked = rank(cell);
        let mean = oracles::scoring::mean_abs(&[10.0, -30.0, -20.0]).unwrap();
        assert_eq!(ranked.iter().map(|c| c.share).sum::<f64>(), mean);
        assert_eq!((ranked[0].scenario.as_str(), ranked[0].n, ranked[0].worst), ("a.yaml", 2, (4, -20.0)));
        assert_eq!((ranked[1].scenario.as_str(), ranked[1].share), ("b.yaml", 10.0));
    }

    #[test]
    fn a_sweeps_worst_point_is_the_first_of_its_largest_error() {
        let ranked = rank([("a.yaml", "1k1k", 2, 10.0), ("a.yaml", "1k1k", 4, -10.0), ("a.yaml", "1k1k", 8, 5.0)]);
        assert_eq!(ranked[0].worst, (2, 10.0));
    }

    #[test]
    fn a_cell_is_quoted_only_when_it_must_be() {
        assert_eq!(quote("sweep dropped: c=4 status failed"), "sweep dropped: c=4 status failed");
        assert_eq!(quote("a, b"), "\"a, b\"");
        assert_eq!(quote("say \"x\""), "\"say \"\"x\"\"\"");
    }

    /// One sweep of the scorer's fixture with a settings record (max_num_seqs at c=1 and 2, not
    /// at 4), absolutes and a TTFT excursion at c=2, scored with a BLIS column; two more sweeps
    /// of the same scenario dropped for different reasons.
    #[test]
    fn rows_carry_each_points_tiers_settings_values_and_errors_from_the_definitions() {
        use crate::score::tests::{absolutes, record, sweep, Fixture};
        use crate::score::{corpus_arms, resolve, score_split, ArmPoint, Selection};
        use serde_json::json;
        let mut f = Fixture::new();
        let mut failed = sweep("m-h100.yaml", "8k1k", "8192:1024");
        failed["points"][0]["status"] = json!("failed");
        failed["parallelism"]["moe_ep_size"] = json!(8);
        failed["parallelism"]["moe_tp_size"] = json!(1);
        f.sweeps.push(failed);
        let mut missing = sweep("m-h100.yaml", "1k8k", "1024:8192");
        missing["points"][2].as_object_mut().unwrap().remove("measured_tpot_relative");
        f.sweeps.push(missing);
        f.sweeps[0]["points"][1]["measured_ttft_relative"] = json!(50.0);
        let mut rec = record("m-h100.yaml", "1k1k", json!({"max_num_seqs": 64}));
        rec["by_concurrency"]["4"]["passed"] = json!({});
        f.settings.push(rec);
        f.anchors.push(absolutes());
        let (c, s) = f.load().unwrap();
        let resolved = resolve::resolve(&c, &s, None, &Selection::vllm(None));
        let ms: BTreeMap<PointKey, ArmPoint> = [(1, 11.0), (2, 23.0), (4, 50.0)]
            .into_iter()
            .map(|(c, t)| (PointKey::new("m-h100.yaml", "1k1k", c), ArmPoint { tpot: Some(t), ttft: Some(t * 10.0) }))
            .collect();
        let blis = Arm::simulated("BLIS", "blis", ms);
        let split = score_split(&resolved, blis.clone());
        let info = BlisPoints {
            binary_sha256: "abc".into(),
            form: "f".into(),
            points: [(PointKey::new("m-h100.yaml", "1k1k", 1), BlisPoint { cache_key: "k1".into(), modelled: true })]
                .into(),
        };
        let rows = table(&resolved, &split.corpus, &corpus_arms(&c.e2e), Some((&split.with_blis, &blis, &info)));
        let order: Vec<(&str, &str, u32)> =
            rows.iter().map(|r| (r.arm.as_str(), r.label.as_str(), r.concurrency)).collect();
        let sweeps = |arm| {
            ["1k1k", "8k1k", "1k8k"].into_iter().flat_map(move |l| [1, 2, 4].map(|c| (arm, l, c))).collect::<Vec<_>>()
        };
        assert_eq!(order, [sweeps("aisimulate"), sweeps("aic"), sweeps("blis")].concat());

        // AIC: relative 1 at c=1, then 1.5 x measured (2, 4): shape and level +50% off the anchor;
        // its TTFT relatives equal the measured ones, but c=2 is an excursion (50 > 10 x max(1, 4)).
        let aic: Vec<&PointRow> = rows.iter().filter(|r| r.arm == "aic" && r.label == "1k1k").collect();
        let errors: Vec<[Option<f64>; 4]> = aic.iter().map(|r| r.errors).collect();
        assert_eq!(
            errors,
            [
                [None, Some(0.0), None, Some(0.0)],
                [Some(50.0), Some(50.0), None, None],
                [Some(50.0), Some(50.0), Some(0.0), Some(0.0)]
            ]
        );
        let anchor = aic[0];
        assert_eq!(
            csv(std::slice::from_ref(anchor)).lines().nth(1).unwrap(),
            "aic,m-h100.yaml,1k1k,vllm,h100,m,tp=2 pp=1 dp=1 moe_ep=- moe_tp=-,1,1,0,1,1,1,\
             measured,resolved,resolved,resolved,1,0,1,1,10000,100000,1,1,,,,0,,0,anchor: no shape error,,,,"
        );
        assert_eq!(
            (aic[1].anchor, aic[1].not_entered.as_str(), aic[1].predicted_tpot_rel),
            (false, "TTFT excursion: no TTFT error", Some(3.0))
        );
        let excursion: Vec<(&str, u32, bool)> = rows
            .iter()
            .filter(|r| r.arm == "aic")
            .map(|r| (r.label.as_str(), r.concurrency, r.ttft_excursion))
            .collect();
        assert_eq!(excursion.iter().filter(|x| x.2).collect::<Vec<_>>(), [&("1k1k", 2, true)]);
        assert_eq!((aic[2].not_entered.as_str(), aic[1].provenance[0].as_str()), ("", "measured"));
        assert_eq!(aic[2].provenance, ["resolved"; 4]);
        assert_eq!(
            (aic[2].measured_tpot_us, aic[2].measured_ttft_rel, aic[2].predicted_ttft_ms),
            (Some(40000.0), Some(4.0), None)
        );

        // The dropped sweep: in no tier, no errors, the reason; its parallelism as given.
        let dropped = rows.iter().find(|r| r.arm == "aic" && r.label == "8k1k" && r.concurrency == 2).unwrap();
        assert_eq!(
            (dropped.strict, dropped.measured_or_resolved, dropped.all, dropped.measured_tier),
            (false, false, false, false)
        );
        assert_eq!((dropped.errors, dropped.not_entered.as_str()), ([None; 4], "sweep dropped: c=1 status failed"));
        assert_eq!(dropped.parallelism, "tp=2 pp=1 dp=1 moe_ep=8 moe_tp=1");
        assert_eq!((dropped.measured_tpot_us, dropped.provenance.len()), (None, 4));
        let other = rows.iter().find(|r| r.arm == "aic" && r.label == "1k8k" && r.concurrency == 1).unwrap();
        assert_eq!(other.not_entered, "sweep dropped: measured TPOT relative at c=4 is missing");

        // BLIS: milliseconds, not relatives, and its own columns where the arm knows the point.
        let b: Vec<&PointRow> = rows.iter().filter(|r| r.arm == "blis" && r.label == "1k1k").collect();
        assert_eq!(
            (b[1].predicted_tpot_ms, b[1].predicted_ttft_ms, b[1].predicted_tpot_rel),
            (Some(23.0), Some(230.0), None)
        );
        let row =
            BlisRow { binary_sha256: "abc".into(), form: "f".into(), cache_key: "k1".into(), modelled: Some(true) };
        assert_eq!(b[0].blis, Some(row));
        let unknown =
            BlisRow { binary_sha256: "abc".into(), form: "f".into(), cache_key: String::new(), modelled: None };
        assert_eq!(b[2].blis, Some(unknown));
        assert!(csv(std::slice::from_ref(b[0])).ends_with(",abc,f,k1,1\n"));
        assert!(rows.iter().filter(|r| r.arm != "blis").all(|r| r.blis.is_none()));

        // A cell is the mean |e| of its rows; BLIS TPOT level 10, 15, 25 (11, 23, 50 ms against 10, 20, 40).
        assert_eq!(cell_mean(&rows, Tier::MeasuredOrResolved, "aic", ErrorMetric::TpotShape), Some(50.0));
        assert_eq!(cell_mean(&rows, Tier::Strict, "aic", ErrorMetric::TpotShape), None);
        let blis_level = cell_mean(&rows, Tier::All, "blis", ErrorMetric::TpotMape).unwrap();
        assert!((blis_level - 50.0 / 3.0).abs() < 1e-9, "{blis_level}");
        let ttft_level = cell_rows(&rows, Tier::All, "aisimulate", ErrorMetric::TtftMape);
        assert_eq!(ttft_level.iter().map(|(r, _)| r.concurrency).collect::<Vec<_>>(), [1, 4]);
        let from_rows = contributions(&rows, Tier::All, "aic", ErrorMetric::TpotShape);
        assert_eq!((from_rows.len(), from_rows[0].share, from_rows[0].n), (1, 50.0, 2));
        assert_eq!(scored_contributions(&split.corpus, Tier::All, 1, ErrorMetric::TpotShape), from_rows);

        assert_eq!(from_values(&to_values(&rows)).unwrap(), rows);
        let e = from_values(&[to_values(&rows)[0].clone(), json!({"arm": 1})]).unwrap_err().to_string();
        assert!(e.starts_with("point row 1: "), "{e}");
    }

    #[test]
    fn each_metric_reads_its_error_column() {
        let columns: Vec<&str> = ErrorMetric::ALL.iter().map(|&m| column(m)).collect();
        assert_eq!(columns, ["tpot_shape_error", "tpot_ape", "ttft_shape_error", "ttft_ape"]);
        let h = header();
        assert_eq!(h[h.len() - 9..h.len() - 5], columns);
    }

    #[test]
    fn every_row_has_one_cell_per_header_column() {
        let row =
            PointRow { blis: Some(BlisRow::default()), provenance: vec!["measured".into(); 4], ..Default::default() };
        let text = csv(&[row, PointRow::default()]);
        let widths: Vec<usize> = text.lines().map(|l| l.split(',').count()).collect();
        assert_eq!(widths, vec![header().len(); 3], "{text}");
    }
}
