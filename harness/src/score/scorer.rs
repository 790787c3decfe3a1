//! The scorer: each selected sweep scored whole or dropped for every arm, by the definitions
//! of `oracles::scoring` applied to every arm alike.

use super::arms::{corpus_arms, headline_arms, Arm, ArmKind, ArmRun, PointKey};
use super::metric::{ArmErrors, ErrorMetric};
use super::scored::{Dropped, Excursion, Scored, ScoredSweep, Selection};
use super::{render, resolve, settings, Corpora, ABSOLUTES_FILE};
use crate::corpus::e2e::{Status, Sweep};
use crate::corpus::scenario::ScenarioSet;
use oracles::scoring;
use oracles::tiers::{self, Tier};
use std::collections::{BTreeMap, BTreeSet};

/// Scores `arms` on the sweeps `selection` picks (resolved here; see [`score_resolved`] to
/// score sweeps already resolved for the BLIS arm).
pub fn score(corpora: &Corpora, scenarios: &ScenarioSet, arms: &[Arm], selection: &Selection) -> Scored {
    score_resolved(&resolve::resolve(corpora, scenarios, None, selection), arms)
}

/// A selection scored with a BLIS column, two ways (issue 23): the corpus arms over every sweep
/// of the selection, as they were published, whatever the binary models; and every arm over the
/// sweeps the BLIS column has values for (the comparison a release's own figures make).
pub struct SplitScore {
    pub corpus: Scored,
    pub with_blis: Scored,
}

pub fn score_split(resolved: &resolve::Resolved, blis: Arm) -> SplitScore {
    let e2e = &resolved.corpora.e2e;
    SplitScore {
        corpus: score_resolved(resolved, &corpus_arms(e2e)),
        with_blis: score_resolved(resolved, &headline_arms(e2e, Some(blis))),
    }
}

impl SplitScore {
    /// The corpus report (every table, the corpus arms over the whole selection), then the
    /// headline of every arm over the sweeps with a BLIS value, each tier with its own n.
    pub fn report(&self) -> String {
        let all = self.with_blis.aggregate(self.with_blis.sweeps.iter());
        format!(
            "{}
## BLIS and the comparison arms over the {} sweeps with a BLIS value (not the published selection)

{}",
            render::report(&self.corpus),
            all.sweeps,
            render::headline(&self.with_blis)
        )
    }
}

/// Scores `arms` on the sweeps of `resolved` (`resolve::resolve`).
pub fn score_resolved(resolved: &resolve::Resolved, arms: &[Arm]) -> Scored {
    let (corpora, scenarios, selection) = (resolved.corpora, resolved.scenarios, &resolved.selection);
    let expressible = crate::corpus::scenario::expressible_keys(scenarios);
    let mut scored = Scored {
        corpus_source: corpora.e2e.source.clone(),
        release: corpora.release(),
        selection: selection.clone(),
        arms: arms
            .iter()
            .map(|a| {
                (
                    a.name.clone(),
                    a.key.clone(),
                    match &a.run {
                        ArmRun::NotRun(why) => Some(why.clone()),
                        ArmRun::Ran(_) => None,
                    },
                )
            })
            .collect(),
        sweeps: Vec::new(),
        dropped: Vec::new(),
        excursions: Vec::new(),
        prefix_caching_points: 0,
        provenance_counts: BTreeMap::new(),
        inexpressible_keys: BTreeSet::new(),
        resamples: oracles::bootstrap::DEFAULT_RESAMPLES,
    };

    for r in &resolved.sweeps {
        let (sweep, record) = (r.sweep, r.record);
        let points = r.sweep_points();
        let evidence = settings::sweep_evidence(sweep, &points, record);
        let tier = tiers::sweep_tier(&evidence, &expressible).unwrap_or(Tier::All);
        scored.inexpressible_keys.extend(evidence.inexpressible(&expressible));

        match score_sweep(sweep, &points, arms, r.absolutes) {
            Err(reason) => {
                scored.dropped.push(Dropped { scenario: sweep.scenario.clone(), label: sweep.label.clone(), reason })
            }
            Ok((errors, excursions, monotone)) => {
                let points_n = points.len();
                let ttft_n = points_n - excursions.len();
                let comparisons = BTreeMap::from([
                    (ErrorMetric::TpotShape, points_n - 1),
                    (ErrorMetric::TpotMape, points_n),
                    (ErrorMetric::TtftShape, ttft_n - 1),
                    (ErrorMetric::TtftMape, ttft_n),
                ]);
                scored.prefix_caching_points += settings::prefix_caching_points(sweep, &points, record);
                for setting in r.points.iter().flat_map(|p| &p.settings) {
                    *scored.provenance_counts.entry((setting.field, setting.provenance)).or_default() += 1;
                }
                scored.excursions.extend(excursions);
                scored.sweeps.push(ScoredSweep {
                    scenario: sweep.scenario.clone(),
                    label: sweep.label.clone(),
                    model: sweep.model.clone(),
                    gpu: sweep.gpu.clone(),
                    framework: sweep.framework.clone(),
                    tier,
                    monotone,
                    comparisons,
                    errors,
                });
            }
        }
    }
    scored
}

type SweepScore = (Vec<Option<ArmErrors>>, Vec<Excursion>, bool);

/// One sweep, whole or not at all: the reason it is dropped, or every run arm's errors.
fn score_sweep(
    sweep: &Sweep,
    points: &[&crate::corpus::e2e::SweepPoint],
    arms: &[Arm],
    absolutes: Option<&crate::corpus::inferencex::Anchor>,
) -> Result<SweepScore, String> {
    if points.len() < 2 {
        return Err(format!("{} point(s): a shape needs an anchor and one more", points.len()));
    }
    if let Some(p) = points.iter().find(|p| p.status != Status::Success) {
        return Err(format!("c={} status {}", p.concurrency, p.status));
    }
    let conc: Vec<u32> = points.iter().map(|p| p.concurrency).collect();
    let positive = |what: &str, values: &[Option<f64>]| -> Result<Vec<f64>, String> {
        match scoring::first_non_positive(values) {
            None => Ok(values.iter().map(|v| v.unwrap()).collect()),
            Some(i) => Err(match values[i] {
                None => format!("{what} at c={} is missing", conc[i]),
                Some(v) => format!("{what} at c={} is not positive ({v})", conc[i]),
            }),
        }
    };
    let m_tpot =
        positive("measured TPOT relative", &points.iter().map(|p| p.measured_tpot_relative).collect::<Vec<_>>())?;
    let m_ttft =
        positive("measured TTFT relative", &points.iter().map(|p| p.measured_ttft_relative).collect::<Vec<_>>())?;

    // Check every run arm before scoring any: the sweep is dropped for all if one fails.
    let mut arm_values = Vec::new();
    for arm in arms {
        let ArmRun::Ran(values) = &arm.run else {
            arm_values.push(None);
            continue;
        };
        let at = |c: u32| values.get(&PointKey::new(&sweep.scenario, &sweep.label, c)).copied().unwrap_or_default();
        let tpot = positive(&format!("{} TPOT", arm.name), &conc.iter().map(|&c| at(c).tpot).collect::<Vec<_>>())?;
        let ttft = positive(&format!("{} TTFT", arm.name), &conc.iter().map(|&c| at(c).ttft).collect::<Vec<_>>())?;
        let measured_level = match arm.kind {
            ArmKind::Published => None,
            ArmKind::Simulated => {
                let a = absolutes;
                let tpot_us = positive(
                    &format!("measured absolute TPOT ({ABSOLUTES_FILE})"),
                    &conc.iter().map(|&c| a.and_then(|a| a.tpot_us(c))).collect::<Vec<_>>(),
                )?;
                let ttft_us = positive(
                    &format!("measured absolute TTFT ({ABSOLUTES_FILE})"),
                    &conc.iter().map(|&c| a.and_then(|a| a.ttft_us(c))).collect::<Vec<_>>(),
                )?;
                Some((tpot_us, ttft_us))
            }
        };
        arm_values.push(Some((tpot, ttft, measured_level)));
    }

    let flagged = scoring::ttft_excursions(&m_ttft);
    let excursions = flagged
        .iter()
        .enumerate()
        .filter(|(_, &f)| f)
        .map(|(i, _)| Excursion {
            scenario: sweep.scenario.clone(),
            label: sweep.label.clone(),
            concurrency: conc[i],
            measured_ttft_rel: m_ttft[i],
            neighbours: (m_ttft[i - 1], m_ttft[i + 1]),
        })
        .collect();
    let ttft_conc: Vec<u32> = scoring::without_flagged(&conc.iter().map(|&c| c as f64).collect::<Vec<_>>(), &flagged)
        .into_iter()
        .map(|c| c as u32)
        .collect();
    let m_ttft_kept = scoring::without_flagged(&m_ttft, &flagged);

    let label = |cs: &[u32], e: Vec<f64>| -> Vec<(u32, f64)> { cs.iter().copied().zip(e).collect() };
    let errors = arm_values
        .into_iter()
        .map(|v| {
            v.map(|(tpot, ttft, measured_level)| {
                let ttft_kept = scoring::without_flagged(&ttft, &flagged);
                let (tpot_mape, ttft_mape) = match measured_level {
                    None => (scoring::level_errors(&m_tpot, &tpot), scoring::level_errors(&m_ttft_kept, &ttft_kept)),
                    Some((tpot_us, ttft_us)) => {
                        let ms_to_us = |v: &[f64]| v.iter().map(|x| x * 1000.0).collect::<Vec<_>>();
                        (
                            scoring::level_errors(&tpot_us, &ms_to_us(&tpot)),
                            scoring::level_errors(&scoring::without_flagged(&ttft_us, &flagged), &ms_to_us(&ttft_kept)),
                        )
                    }
                };
                ArmErrors {
                    tpot_shape: label(&conc[1..], scoring::shape_errors(&m_tpot, &tpot)),
                    tpot_mape: label(&conc, tpot_mape),
                    ttft_shape: label(&ttft_conc[1..], scoring::shape_errors(&m_ttft_kept, &ttft_kept)),
                    ttft_mape: label(&ttft_conc, ttft_mape),
                }
            })
        })
        .collect();
    Ok((errors, excursions, scoring::strictly_increasing(&m_tpot)))
}
