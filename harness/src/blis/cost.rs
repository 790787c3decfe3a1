//! What points cost: the cost model checked against the times cache entries recorded, and the
//! shard plan's balance (`cargo xtask bench shards`). Nothing here reaches a figure.

use super::shard::{makespan_over_ideal, Plan};
use super::{estimated_cost, PointSpec, RunOptions};
use crate::inputs::{InputKind, Inputs};
use crate::task::TaskError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A point's estimated simulation cost, in arbitrary units:
/// `N (isl + osl) (min(N, max_num_seqs) + 16) (tp + 4)`.
///
/// `N (isl + osl)` is the tokens its `12N` requests carry (up to the constant); the simulator's
/// work per token also grows with the batch it shares a step with (`min(N, max_num_seqs) + 16`)
/// and with the tensor-parallel degree the scenario states (`tp + 4`). Fitted to the CPU time
/// of the 41 points two real releases model (inference-sim f90a1e3a and v0.7.13, N 4 to 64):
/// the time grows about as N^1.55 and tp^0.4 at fixed tokens, and up to N = 256 at least as
/// fast; docs/speed-gate.md says how well this predicts. Only scheduling and shard plans read it.
pub fn estimate(point: &PointSpec, tp: u64) -> u64 {
    let n = u64::from(point.concurrency);
    let tokens = u64::from(point.isl) + u64::from(point.osl);
    // The engine never runs more than max_num_seqs requests in one step.
    let batch = n.min(u64::from(point.engine.max_num_seqs.max(1)));
    n.saturating_mul(tokens).saturating_mul(batch + 16).saturating_mul(tp.saturating_add(4))
}

/// The tensor-parallel degree a scenario file states (`pools[0].parallel.tp` of its Deployment
/// document), 1 when it states none or cannot be read: the estimate only orders work, and the
/// run reports the file's real problem. Read once per file and process.
pub fn scenario_tp(scenario_file: &Path) -> u64 {
    static SEEN: std::sync::Mutex<BTreeMap<std::path::PathBuf, u64>> = std::sync::Mutex::new(BTreeMap::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    *seen
        .entry(scenario_file.to_path_buf())
        .or_insert_with(|| crate::read::text(scenario_file).ok().and_then(|text| stated_tp(&text)).unwrap_or(1))
}

fn stated_tp(text: &str) -> Option<u64> {
    let docs = super::variant::parse_documents(text).ok()?;
    let deployment = docs.iter().find(|d| d.get("kind").and_then(serde_yaml::Value::as_str) == Some("Deployment"))?;
    let pool = deployment.get("pools")?.as_sequence()?.first()?;
    pool.get("parallel")?.get("tp")?.as_u64().filter(|&tp| tp > 0)
}

/// Spearman's rank correlation of two equally long samples (ties take their mean rank);
/// `None` under 3 pairs or when either sample is constant.
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() || xs.len() < 3 {
        return None;
    }
    let (rx, ry) = (ranks(xs), ranks(ys));
    let n = rx.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// 1-based ranks, ties sharing their mean rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// The q-quantile (0..=1) of sorted values, by the nearest rank below.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).floor() as usize]
}

/// How well a model's costs predict recorded times: rank correlation, and the spread of
/// time / estimate around its median (p10, p90, min, max, each over the median).
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub points: usize,
    pub spearman: Option<f64>,
    pub spread: Option<[f64; 4]>,
}

pub fn fit(estimates: &[f64], times: &[f64]) -> Fit {
    let mut ratios: Vec<f64> = estimates.iter().zip(times).filter(|(e, _)| **e > 0.0).map(|(e, t)| t / e).collect();
    ratios.sort_by(f64::total_cmp);
    let spread = (!ratios.is_empty()).then(|| {
        let median = quantile(&ratios, 0.5);
        let over = |x: f64| if median > 0.0 { x / median } else { f64::NAN };
        [over(quantile(&ratios, 0.1)), over(quantile(&ratios, 0.9)), over(ratios[0]), over(ratios[ratios.len() - 1])]
    });
    Fit { points: estimates.len(), spearman: spearman(estimates, times), spread }
}

impl Fit {
    pub fn render(&self) -> String {
        let rho = self.spearman.map_or("-".to_string(), |r| format!("{r:.3}"));
        let spread = self.spread.map_or("-".to_string(), |[p10, p90, lo, hi]| {
            format!("p10 {p10:.2}x, p90 {p90:.2}x, min {lo:.2}x, max {hi:.2}x of the median")
        });
        format!("Spearman {rho} over {} points; time/estimate {spread}", self.points)
    }
}

/// One named set of planned points and, where a binary was given, their content keys.
struct PointSet {
    name: &'static str,
    points: Vec<PointSpec>,
}

/// The headline's planned vLLM points and the sensitivity table's (every row over the monotone
/// sweeps), as `score` and `blis sensitivity` plan them, in the default form.
fn point_sets(inputs: &Inputs, needed_for: &str) -> Result<Vec<PointSet>, TaskError> {
    use crate::score::{resolve, Selection};
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
    let (corpora, scenarios) = crate::score::load_inputs(inputs)?;
    let fixtures = super::FixtureSet::committed()?;
    let selection = Selection::vllm(None);
    let resolved = resolve::resolve(&corpora, &scenarios, Some(&catalog), &selection);
    let plan = super::arm::plan(&resolved.sweeps, &scenarios_dir, &fixtures, 0);
    let headline: Vec<PointSpec> = plan.points.iter().map(|(_, p)| p.clone()).collect();
    let monotone: std::collections::BTreeSet<(String, String)> = corpora
        .e2e
        .sweeps
        .iter()
        .filter(|s| s.framework == selection.framework && super::arm::is_monotone(s))
        .map(|s| (s.scenario.clone(), s.label.clone()))
        .collect();
    let base: Vec<PointSpec> = plan
        .points
        .iter()
        .filter(|(k, _)| monotone.contains(&(k.scenario.clone(), k.label.clone())))
        .map(|(_, p)| p.clone())
        .collect();
    let reseed = |p: &PointSpec, seed: u64| fixtures.reseed(p, seed).map(|r| PointSpec { form: p.form, ..r });
    let mut sensitivity = Vec::new();
    for variant in super::sensitivity::variants() {
        sensitivity.extend(super::sensitivity::row_points(variant, &base, &reseed).map_err(TaskError::Failed)?);
    }
    Ok(vec![PointSet { name: "headline", points: headline }, PointSet { name: "sensitivity", points: sensitivity }])
}

/// A stand-in content key without a binary: the point's own text (two equal specs are one
/// point under any release; a release may also merge specs that differ only in settings it has
/// no flag for, which only a binary's keys see).
fn spec_key(p: &PointSpec) -> String {
    use sha2::Digest;
    let text = serde_json::to_string(p).expect("a point always serialises");
    super::binary::hex(&sha2::Sha256::digest(text.as_bytes()))
}

/// The old assignment, for comparison: a key's first 16 hex digits modulo N.
fn key_hash_loads(keyed: &[(String, u64)], n: u32) -> Vec<f64> {
    let distinct: BTreeMap<&str, u64> = keyed.iter().map(|(k, c)| (k.as_str(), *c)).collect();
    let mut loads = vec![0.0; n as usize];
    for (key, cost) in distinct {
        let prefix = u64::from_str_radix(&key[..16], 16).unwrap_or(0);
        loads[(prefix % u64::from(n)) as usize] += cost as f64;
    }
    loads
}

/// `cargo xtask bench shards`: for each point set and each N, makespan / ideal of the balanced
/// plan from the cost model (and of key hashing, the assignment it replaced); with a binary
/// (`opts`) and a cache holding recorded times, the same plan's makespan / ideal in recorded
/// wall and CPU time, and how well the model ranks those times.
pub fn bench_shards(
    inputs: &Inputs,
    counts: &[u32],
    opts: Option<&RunOptions>,
    cache_dir: &Path,
) -> Result<String, TaskError> {
    let mut out = String::new();
    let cache = super::Cache::new(cache_dir);
    for set in point_sets(inputs, "the shard bench")? {
        let keyed: Vec<Option<(String, u64)>> = match opts {
            Some(opts) => super::planned_keys(&set.points, opts)?,
            None => set.points.iter().map(|p| Some((spec_key(p), estimated_cost(p)))).collect(),
        };
        let planned: Vec<(String, u64)> = keyed.iter().flatten().cloned().collect();
        let distinct: BTreeMap<&str, u64> = planned.iter().map(|(k, c)| (k.as_str(), *c)).collect();
        let keys_from = if opts.is_some() { "the binary's content keys" } else { "point texts as keys (no --blis)" };
        let _ = writeln!(
            out,
            "{}: {} points, {} planned ({} distinct, {keys_from}); cost model N (isl + osl) (min(N, max_num_seqs) + 16) (tp + 4)",
            set.name,
            set.points.len(),
            planned.len(),
            distinct.len()
        );
        let total: u128 = distinct.values().map(|&c| u128::from(c)).sum();
        if let Some((i, (_, c))) =
            keyed.iter().enumerate().filter_map(|(i, k)| k.as_ref().map(|k| (i, k))).max_by_key(|(_, (_, c))| *c)
        {
            let share = if total == 0 { 0.0 } else { *c as f64 / total as f64 };
            let _ = writeln!(
                out,
                "  largest point: {} ({:.1}% of the estimated work: no plan over N > {:.0} shards reaches 1.0)",
                set.points[i].label(),
                100.0 * share,
                if share > 0.0 { (1.0 / share).floor() } else { f64::INFINITY }
            );
        }
        // Recorded times of the distinct planned points, where the cache holds them.
        let mut recorded: BTreeMap<&str, super::cache::PointCost> = BTreeMap::new();
        if opts.is_some() {
            for key in distinct.keys() {
                if let super::cache::Lookup::Hit(record) = cache.get(key) {
                    if let Some(cost) = record.cost {
                        recorded.insert(key, cost);
                    }
                }
            }
        }
        let _ = writeln!(out, "  N   model: balanced  key hash   recorded wall: balanced  recorded CPU: balanced");
        for &n in counts {
            let plan = Plan::new(&planned, n);
            let hashed = makespan_over_ideal(&key_hash_loads(&planned, n));
            let by_recorded = |time: &dyn Fn(&super::cache::PointCost) -> Option<f64>| {
                let mut loads = vec![0.0; n as usize];
                for (key, cost) in &recorded {
                    if let (Some(s), Some(t)) = (plan.shard_of(key), time(cost)) {
                        loads[s as usize] += t;
                    }
                }
                if recorded.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.3}", makespan_over_ideal(&loads))
                }
            };
            let _ = writeln!(
                out,
                "  {n:<3} {:>15.3}  {hashed:>8.3}   {:>22}  {:>21}",
                plan.makespan_over_ideal(),
                by_recorded(&|c| Some(c.wall_s)),
                by_recorded(&|c| c.cpu_s)
            );
        }
        if opts.is_some() {
            let _ = writeln!(
                out,
                "  recorded times: {} of the {} distinct planned points (in {})",
                recorded.len(),
                distinct.len(),
                crate::paths::display(cache_dir)
            );
        }
        if !recorded.is_empty() {
            let estimates: Vec<f64> = recorded.keys().map(|k| distinct[k] as f64).collect();
            let wall: Vec<f64> = recorded.values().map(|c| c.wall_s).collect();
            let _ = writeln!(out, "  model against wall time: {}", fit(&estimates, &wall).render());
            let with_cpu: Vec<(f64, f64)> =
                recorded.iter().filter_map(|(k, c)| c.cpu_s.map(|t| (distinct[k] as f64, t))).collect();
            let (e, t): (Vec<f64>, Vec<f64>) = with_cpu.into_iter().unzip();
            let _ = writeln!(out, "  model against CPU time:  {}", fit(&e, &t).render());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_known_samples() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        // Monotone but not linear: ranks agree.
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 8.0, 1000.0]), Some(1.0));
        // Ranks [1, 2, 3, 4] against [1, 3, 2, 4]: 1 - 6 * 2 / (4 * 15) = 0.8.
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((rho - 0.8).abs() < 1e-12, "{rho}");
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn the_estimate_grows_with_load_tokens_and_tp_and_reads_tp_from_the_deployment() {
        let text = "kind: Scenario\nname: s\n---\nkind: Deployment\npools:\n  - parallel:\n      tp: 8\n";
        assert_eq!(stated_tp(text), Some(8));
        assert_eq!(stated_tp("kind: Deployment\npools:\n  - engine: {}\n"), None);
        assert_eq!(stated_tp(": not yaml ["), None);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.yaml");
        std::fs::write(&file, text).unwrap();
        assert_eq!(scenario_tp(&file), 8);
        assert_eq!(scenario_tp(&dir.path().join("missing.yaml")), 1);
        let p = |n: u32, max_num_seqs: u32| PointSpec {
            scenario_file: file.clone(),
            engine: super::super::EngineSettings {
                max_num_seqs,
                max_num_batched_tokens: 512,
                block_size: 16,
                enable_prefix_caching: false,
            },
            isl: 1024,
            osl: 1024,
            concurrency: n,
            seed: 0,
            input_lens: Vec::new(),
            output_lens: Vec::new(),
            form: Default::default(),
        };
        assert_eq!(estimate(&p(4, 256), 4), 4 * 2048 * 20 * 8);
        // Twice the requests cost more than twice: the batch each token shares a step with grows,
        // up to max_num_seqs, beyond which the cost is linear in the requests.
        assert!(estimate(&p(64, 256), 4) > 2 * estimate(&p(32, 256), 4));
        assert_eq!(estimate(&p(64, 8), 4), 2 * estimate(&p(32, 8), 4));
        assert!(estimate(&p(4, 256), 8) > estimate(&p(4, 256), 4));
        assert_eq!(estimated_cost(&p(4, 256)), estimate(&p(4, 256), 8));
    }

    #[test]
    fn ties_share_their_mean_rank() {
        assert_eq!(ranks(&[5.0, 1.0, 5.0, 3.0]), vec![3.5, 1.0, 3.5, 2.0]);
    }

    #[test]
    fn the_spread_is_relative_to_the_median_ratio() {
        let f = fit(&[1.0, 2.0, 4.0], &[2.0, 4.0, 16.0]);
        // Ratios 2, 2, 4: median 2.
        assert_eq!(f.spread, Some([1.0, 1.0, 1.0, 2.0]));
        assert!(f.render().contains("max 2.00x"), "{}", f.render());
    }
}
