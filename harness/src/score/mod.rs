//! The corpus scorer behind `cargo xtask score` and the headline figures of
//! PUBLISHED-FIGURES.md section 3 (upstream: IS `cmd/metricscore`, `cmd/kernelscore`).
//!
//! Arms are data. Each [`Arm`] is a name and a map from (scenario, label, concurrency) to the
//! arm's TPOT and TTFT at that point: relatives for a published arm (AISimulate and AIC, read
//! from `aisimulate_e2e.json`), milliseconds for a simulated arm (BLIS, from
//! `harness::blis`). The scorer has no code path per arm: it selects sweeps, assigns tiers,
//! drops sweeps an arm cannot score whole, and applies the definitions of
//! `oracles::scoring` to every arm the same way. An arm that was not run is
//! [`Arm::not_run`] and its cells say why.
//!
//! Plugging the BLIS arm in:
//! ```no_run
//! # use std::collections::BTreeMap;
//! # use harness::score::*;
//! # fn f(corpora: &Corpora, scenarios: &harness::corpus::scenario::ScenarioSet) {
//! let mut blis_ms: BTreeMap<PointKey, ArmPoint> = BTreeMap::new();
//! blis_ms.insert(PointKey::new("x.yaml", "1k1k", 4), ArmPoint { tpot: Some(12.5), ttft: Some(80.0) });
//! let arms = headline_arms(&corpora.e2e, Some(Arm::simulated("BLIS", "blis", blis_ms)));
//! let scored = score(corpora, scenarios, &arms, &Selection::vllm(None));
//! # }
//! ```

pub mod aggregate;
pub mod arms;
pub mod gaps;
pub mod headline;
pub mod intervals;
pub mod metric;
pub mod points;
pub mod render;
pub mod resolve;
pub mod scored;
pub mod scorer;
pub mod settings;

pub use aggregate::Aggregate;
pub use arms::{corpus_arms, headline_arms, Arm, ArmKind, ArmPoint, ArmRun, PointKey};
pub use headline::{headline_output, task_headline, BlisColumn, BlisSource, RefusedCells};
pub use metric::{ArmErrors, ErrorMetric};
pub use scored::{Dropped, Excursion, Scored, ScoredSweep, Selection};
pub use scorer::{score, score_resolved, score_split, SplitScore};

pub use crate::corpus::corpora::{
    load_inputs, load_scoreable, Corpora, ScoreableRow, ABSOLUTES_FILE, E2E_FILE, SCOREABLE_FILE, SETTINGS_FILE,
};

#[cfg(test)]
pub(crate) mod hand_built;
#[cfg(test)]
pub(crate) mod tests;
