//! What the charts draw, taken from the scorer's results: one [`SweepView`] per scored sweep
//! (its measured curve and every arm the scorer scored on it), and one [`ArmView`] per arm that
//! ran (its signed TPOT shape errors by chip family and by concurrency).
//!
//! An arm's curve on a sweep is drawn only when the scorer gave that arm errors on that sweep
//! (`ScoredSweep::errors`), so a BLIS arm appears exactly where the scorer scored it, whatever
//! ran it.

use crate::score::render::chip_family;
use crate::score::{Arm, ArmRun, Corpora, PointKey, Scored, ScoredSweep};
use oracles::scoring;
use oracles::tiers::Tier;
use std::collections::{BTreeMap, BTreeSet};

/// One arm's curve on one sweep, each side relative to its own anchor (the value at the lowest
/// concurrency), which is what the shape error compares.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmCurve {
    pub name: String,
    pub key: String,
    pub tpot: Vec<f64>,
    pub ttft: Vec<f64>,
    /// Mean |e| of the sweep's TPOT and TTFT shape errors, in percent.
    pub tpot_shape: Option<f64>,
    pub ttft_shape: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SweepView {
    /// Stable anchor id: `sweep-<scenario without .yaml>-<label>`.
    pub id: String,
    pub scenario: String,
    pub label: String,
    pub model: String,
    pub gpu: String,
    pub precision: String,
    pub parallelism: String,
    /// `1k1k (1024:1024)`.
    pub workload: String,
    pub tier: Tier,
    pub concurrency: Vec<u32>,
    pub measured_tpot: Vec<f64>,
    pub measured_ttft: Vec<f64>,
    /// TTFT excursions: excluded from TTFT metrics for every arm.
    pub excluded: Vec<bool>,
    pub arms: Vec<ArmCurve>,
}

impl SweepView {
    pub fn title(&self) -> String {
        format!("{} on {}, {}, {}, workload {}", self.model, self.gpu, self.precision, self.parallelism, self.workload)
    }
}

/// Lower-case letters, digits and dashes only: ids that survive a URL fragment unescaped.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        let c = ch.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

pub fn sweep_id(scenario: &str, label: &str) -> String {
    format!("sweep-{}", slug(&format!("{}-{label}", scenario.trim_end_matches(".yaml"))))
}

/// The scored sweeps, grouped by tier, then model, then GPU, then scenario and label.
pub fn sweep_views(scored: &Scored, corpora: &Corpora, arms: &[Arm]) -> Vec<SweepView> {
    let corpus: BTreeMap<(&str, &str), &crate::corpus::e2e::Sweep> =
        corpora.e2e.sweeps.iter().map(|s| ((s.scenario.as_str(), s.label.as_str()), s)).collect();
    let excluded: BTreeSet<(&str, &str, u32)> =
        scored.excursions.iter().map(|e| (e.scenario.as_str(), e.label.as_str(), e.concurrency)).collect();
    let mut views: Vec<SweepView> = scored
        .sweeps
        .iter()
        .filter_map(|s| corpus.get(&(s.scenario.as_str(), s.label.as_str())).map(|c| view(s, c, arms, &excluded)))
        .collect();
    views.sort_by(|a, b| {
        (a.tier, &a.model, &a.gpu, &a.scenario, &a.label).cmp(&(b.tier, &b.model, &b.gpu, &b.scenario, &b.label))
    });
    unique_ids(views.iter_mut().map(|v| &mut v.id));
    views
}

/// Two sweeps whose names differ only in case or punctuation slug alike: the later ones (in the
/// stable order given) get `-2`, `-3`, ..., so every anchor names one sweep.
pub fn unique_ids<'a>(ids: impl Iterator<Item = &'a mut String>) {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for id in ids {
        if !taken.insert(id.clone()) {
            let mut n = 2;
            while taken.contains(&format!("{id}-{n}")) {
                n += 1;
            }
            *id = format!("{id}-{n}");
            taken.insert(id.clone());
        }
    }
}

fn view(
    s: &ScoredSweep,
    sweep: &crate::corpus::e2e::Sweep,
    arms: &[Arm],
    excluded: &BTreeSet<(&str, &str, u32)>,
) -> SweepView {
    let mut points: Vec<&crate::corpus::e2e::SweepPoint> = sweep.points.iter().collect();
    points.sort_by_key(|p| p.concurrency);
    let concurrency: Vec<u32> = points.iter().map(|p| p.concurrency).collect();
    // A scored sweep has every measured relative (the scorer drops it otherwise).
    let measured_tpot = points.iter().map(|p| p.measured_tpot_relative.unwrap_or(f64::NAN)).collect();
    let measured_ttft = points.iter().map(|p| p.measured_ttft_relative.unwrap_or(f64::NAN)).collect();
    let mut curves = Vec::new();
    for (i, arm) in arms.iter().enumerate() {
        let (Some(Some(errors)), ArmRun::Ran(values)) = (s.errors.get(i), &arm.run) else { continue };
        let at = |c: u32| values.get(&PointKey::new(&s.scenario, &s.label, c)).copied().unwrap_or_default();
        let relative = |v: Vec<f64>| -> Vec<f64> {
            let anchor = v.first().copied().unwrap_or(f64::NAN);
            v.iter().map(|x| x / anchor).collect()
        };
        let tpot: Vec<f64> = concurrency.iter().map(|&c| at(c).tpot.unwrap_or(f64::NAN)).collect();
        // TTFT's anchor is the first point kept, which is the lowest concurrency: the
        // excursion rule never flags the first point.
        let ttft: Vec<f64> = concurrency.iter().map(|&c| at(c).ttft.unwrap_or(f64::NAN)).collect();
        let shape = |e: &[(u32, f64)]| scoring::mean_abs(&e.iter().map(|x| x.1).collect::<Vec<_>>());
        curves.push(ArmCurve {
            name: arm.name.clone(),
            key: arm.key.clone(),
            tpot: relative(tpot),
            ttft: relative(ttft),
            tpot_shape: shape(&errors.tpot_shape),
            ttft_shape: shape(&errors.ttft_shape),
        });
    }
    let p = &sweep.parallelism;
    let mut parallelism = format!("TP{}", p.tp_size);
    if p.pp_size > 1 {
        parallelism.push_str(&format!(" PP{}", p.pp_size));
    }
    if p.attention_dp_size > 1 {
        parallelism.push_str(&format!(" DP{}", p.attention_dp_size));
    }
    if let Some(ep) = p.moe_ep_size.filter(|&e| e > 1) {
        parallelism.push_str(&format!(" EP{ep}"));
    }
    SweepView {
        id: sweep_id(&s.scenario, &s.label),
        scenario: s.scenario.clone(),
        label: s.label.clone(),
        model: s.model.clone(),
        gpu: s.gpu.clone(),
        precision: sweep.precision.clone(),
        parallelism,
        workload: format!("{} ({})", s.label, sweep.workload),
        tier: s.tier,
        excluded: concurrency.iter().map(|&c| excluded.contains(&(s.scenario.as_str(), s.label.as_str(), c))).collect(),
        concurrency,
        measured_tpot,
        measured_ttft,
        arms: curves,
    }
}

/// Summary statistics of a set of signed errors for a box: p10, p25, median, p75, p90, mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub n: usize,
    pub p10: f64,
    pub p25: f64,
    pub median: f64,
    pub p75: f64,
    pub p90: f64,
    pub mean: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Option<Spread> {
        let q = |p| scoring::percentile_linear(values, p);
        Some(Spread {
            n: values.len(),
            p10: q(10.0)?,
            p25: q(25.0)?,
            median: q(50.0)?,
            p75: q(75.0)?,
            p90: q(90.0)?,
            mean: values.iter().sum::<f64>() / values.len() as f64,
        })
    }
}

/// One arm over ALL: signed TPOT shape errors by chip family and by concurrency (the
/// kernelscore tables of the text report).
#[derive(Clone, Debug, PartialEq)]
pub struct ArmView {
    pub name: String,
    pub key: String,
    pub id: String,
    pub by_chip: Vec<(String, Spread)>,
    pub by_concurrency: Vec<(u32, Spread)>,
}

/// One view per arm that ran, in arm order; the not-run arms with why.
pub fn arm_views(scored: &Scored) -> (Vec<ArmView>, Vec<(String, String)>) {
    let mut views = Vec::new();
    let mut not_run = Vec::new();
    for (i, (name, key, why)) in scored.arms.iter().enumerate() {
        if let Some(why) = why {
            not_run.push((name.clone(), why.clone()));
            continue;
        }
        let mut chip: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        let mut conc: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for sweep in scored.in_tier(Tier::All) {
            let Some(errors) = sweep.errors.get(i).and_then(Option::as_ref) else { continue };
            for &(c, e) in &errors.tpot_shape {
                chip.entry(chip_family(&sweep.gpu)).or_default().push(e);
                conc.entry(c).or_default().push(e);
            }
        }
        let order = ["h100", "h200", "b200", "b300", "other"];
        let by_chip =
            order.iter().filter_map(|f| chip.get(f).and_then(|v| Spread::of(v)).map(|s| (f.to_string(), s))).collect();
        let by_concurrency = conc.iter().filter_map(|(c, v)| Spread::of(v).map(|s| (*c, s))).collect();
        views.push(ArmView {
            name: name.clone(),
            key: key.clone(),
            id: format!("arm-{}", slug(key)),
            by_chip,
            by_concurrency,
        });
    }
    (views, not_run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_url_safe_and_stable() {
        assert_eq!(
            sweep_id("gpt-oss-120b-h200-fp4-vllm-tp1.yaml", "1k8k"),
            "sweep-gpt-oss-120b-h200-fp4-vllm-tp1-1k8k"
        );
        assert_eq!(slug("A b/C..d"), "a-b-c-d");
        // Names differing in case or `.`/`-` slug alike; each anchor still names one sweep.
        let mut ids =
            vec![sweep_id("Model.x.yaml", "1k1k"), sweep_id("model-x.yaml", "1k1k"), sweep_id("MODEL-X.yaml", "1k1k")];
        assert_eq!(ids[0], ids[1]);
        unique_ids(ids.iter_mut());
        assert_eq!(ids, ["sweep-model-x-1k1k", "sweep-model-x-1k1k-2", "sweep-model-x-1k1k-3"]);
    }

    #[test]
    fn spread_orders_its_quantiles() {
        let s = Spread::of(&[-10.0, 0.0, 5.0, 20.0, 40.0]).unwrap();
        assert!(s.p10 <= s.p25 && s.p25 <= s.median && s.median <= s.p75 && s.p75 <= s.p90, "{s:?}");
        assert_eq!(s.median, 5.0);
        assert!(Spread::of(&[]).is_none());
    }
}
