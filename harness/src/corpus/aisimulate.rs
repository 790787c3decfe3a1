//! Strict reader for `aisimulate_summary.json`, AISimulate's whole public accuracy snapshot
//! (docs/upstream.md §5; produced by AIS `scripts/e2e_accuracy/build_e2e_accuracy_overview.py`).
//!
//! Three passes, each naming the path inside the document on failure:
//! 1. the JSON itself: syntax, duplicate keys anywhere, NaN/Infinity (not JSON);
//! 2. the types: every field present, no unknown field, counts non-negative integers,
//!    statuses one of success | unsupported | failed (serde_path_to_error gives the path);
//! 3. consistency: row counts add up at every level, status_counts sum to rows and to the
//!    children's, `aisimulate.points == status_counts.success`, `aic.points` adds up,
//!    `coverage_pct` is success / rows, only success rows carry AISimulate values.

use super::strict::NoDuplicates;
use oracles::accuracy::{Metric, PublishedArm, Status, StatusCounts};
use serde::de::Deserializer;
use serde::Deserialize;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

pub const FILE: &str = "aisimulate_summary.json";

/// What went wrong, where: `file: path: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusError {
    pub file: String,
    /// Path inside the document, e.g. `models[3].workloads[0].rows`; `.` for the document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.path, self.message)
    }
}

impl std::error::Error for CorpusError {}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub schema_version: u64,
    pub title: String,
    /// Provenance of the run (hashes, dates, campaign counts); kept as read.
    pub snapshot: serde_json::Map<String, serde_json::Value>,
    pub scope: Scope,
    pub totals: Totals,
    pub models: Vec<Model>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    pub claim: String,
    pub excluded_multinode_rows: u64,
    pub latency_scope: String,
    pub measurement_scope: String,
    pub metrics: Vec<String>,
    pub multinode: String,
    pub published_rows: u64,
    pub raw_rows: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub aic: ArmFigures,
    pub aisimulate: ArmFigures,
    pub frameworks: Vec<String>,
    pub gpu_skus: Vec<String>,
    pub models: u64,
    pub precisions: Vec<String>,
    pub rows: u64,
    pub workloads: Vec<String>,
}

/// One arm's published figures at one level. `status_counts` and `coverage_pct` are
/// AISimulate's only (coverage is not published per topology).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmFigures {
    pub points: u64,
    #[serde(deserialize_with = "nullable")]
    pub tpot_mape_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub tpot_shape_error_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ttft_mape_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ttft_shape_error_pct: Option<f64>,
    #[serde(default, deserialize_with = "super::strict::opt_status_counts")]
    pub status_counts: Option<StatusCounts>,
    #[serde(default)]
    pub coverage_pct: Option<f64>,
}

impl ArmFigures {
    pub fn mape_pct(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Tpot => self.tpot_mape_pct,
            Metric::Ttft => self.ttft_mape_pct,
        }
    }
    pub fn shape_error_pct(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Tpot => self.tpot_shape_error_pct,
            Metric::Ttft => self.ttft_shape_error_pct,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub aic: ArmFigures,
    pub aisimulate: ArmFigures,
    pub frameworks: Vec<String>,
    pub gpu_skus: Vec<String>,
    pub hf_model_paths: Vec<String>,
    pub model: String,
    pub precisions: Vec<String>,
    pub rows: u64,
    pub workloads: Vec<Workload>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub aic: ArmFigures,
    pub aisimulate: ArmFigures,
    pub gpu_skus: Vec<String>,
    pub gpus: Vec<Gpu>,
    /// "isl:osl", e.g. "1024:1024".
    pub identity: String,
    pub label: String,
    pub precisions: Vec<String>,
    pub rows: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub aic: ArmFigures,
    pub aisimulate: ArmFigures,
    pub gpu: String,
    pub precisions: Vec<String>,
    pub rows: u64,
    pub topologies: Vec<Topology>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub aic: ArmFigures,
    pub aisimulate: ArmFigures,
    pub framework: String,
    pub id: String,
    pub parallelism: Parallelism,
    pub points: Vec<SummaryPoint>,
    pub precision: String,
    pub rows: u64,
    pub serving: String,
    pub spec_method: String,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parallelism {
    pub attention_dp_size: u64,
    /// Null for dense models.
    #[serde(deserialize_with = "nullable_count")]
    pub moe_ep_size: Option<u64>,
    #[serde(deserialize_with = "nullable_count")]
    pub moe_tp_size: Option<u64>,
    pub pp_size: u64,
    pub tp_size: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryPoint {
    pub aic: PredictedPoint,
    pub aisimulate: PredictedPoint,
    pub concurrency: u64,
    pub measured: MeasuredPoint,
    #[serde(deserialize_with = "super::strict::status")]
    pub status: Status,
}

impl SummaryPoint {
    pub fn arm(&self, arm: PublishedArm) -> &PredictedPoint {
        match arm {
            PublishedArm::Aisimulate => &self.aisimulate,
            PublishedArm::Aic => &self.aic,
        }
    }
}

/// A predictor's published values at one point: relatives (rounded to 6) and error
/// percentages (rounded to 2). Null when the predictor has no value there.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PredictedPoint {
    #[serde(deserialize_with = "nullable")]
    pub tpot_error_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub tpot_relative: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ttft_error_pct: Option<f64>,
    #[serde(deserialize_with = "nullable")]
    pub ttft_relative: Option<f64>,
}

impl PredictedPoint {
    pub fn relative(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Tpot => self.tpot_relative,
            Metric::Ttft => self.ttft_relative,
        }
    }
    pub fn error_pct(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Tpot => self.tpot_error_pct,
            Metric::Ttft => self.ttft_error_pct,
        }
    }
    fn fields(&self) -> [(&'static str, Option<f64>); 4] {
        [
            ("tpot_error_pct", self.tpot_error_pct),
            ("tpot_relative", self.tpot_relative),
            ("ttft_error_pct", self.ttft_error_pct),
            ("ttft_relative", self.ttft_relative),
        ]
    }
    /// Every value present: the point counts in this arm's MAPE and `points`.
    pub fn complete(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_some())
    }
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredPoint {
    pub tpot_relative: f64,
    pub ttft_relative: f64,
}

impl MeasuredPoint {
    pub fn relative(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Tpot => self.tpot_relative,
            Metric::Ttft => self.ttft_relative,
        }
    }
}

/// A required key whose value may be null (serde would otherwise let a missing key through).
fn nullable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Option::<f64>::deserialize(d)
}

fn nullable_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Option::<u64>::deserialize(d)
}

/// One topology with where it sits in the document.
pub struct TopologyRef<'a> {
    /// `models[i].workloads[j].gpus[k].topologies[l]`
    pub path: String,
    pub model: &'a Model,
    pub workload: &'a Workload,
    pub gpu: &'a Gpu,
    pub topology: &'a Topology,
}

impl Summary {
    /// Every topology in document order.
    pub fn topologies(&self) -> Vec<TopologyRef<'_>> {
        let mut out = Vec::new();
        for (mi, model) in self.models.iter().enumerate() {
            for (wi, workload) in model.workloads.iter().enumerate() {
                for (gi, gpu) in workload.gpus.iter().enumerate() {
                    for (ti, topology) in gpu.topologies.iter().enumerate() {
                        out.push(TopologyRef {
                            path: format!("models[{mi}].workloads[{wi}].gpus[{gi}].topologies[{ti}]"),
                            model,
                            workload,
                            gpu,
                            topology,
                        });
                    }
                }
            }
        }
        out
    }

    pub fn totals(&self, arm: PublishedArm) -> &ArmFigures {
        match arm {
            PublishedArm::Aisimulate => &self.totals.aisimulate,
            PublishedArm::Aic => &self.totals.aic,
        }
    }
}

/// Reads and checks `path`. The error names the file (as given) and the path inside it.
pub fn load(path: &Path) -> anyhow::Result<Summary> {
    let label = crate::paths::display(path);
    let text = crate::read::text(path)?;
    Ok(parse(&text, &label)?)
}

/// Parses and checks a document; `file` is only used in messages.
pub fn parse(text: &str, file: &str) -> Result<Summary, CorpusError> {
    let fail = |path: String, message: String| CorpusError { file: file.to_string(), path, message };
    if text.trim().is_empty() {
        return Err(fail(".".into(), "the file is empty; expected AISimulate's summary JSON object".into()));
    }
    check_json(text).map_err(|(path, message)| fail(path, message))?;
    let mut de = serde_json::Deserializer::from_str(text);
    let summary: Summary =
        serde_path_to_error::deserialize(&mut de).map_err(|e| fail(path_text(e.path()), e.inner().to_string()))?;
    check_consistency(&summary).map_err(|(path, message)| fail(path, message))?;
    Ok(summary)
}

fn path_text(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text.is_empty() {
        ".".to_string()
    } else {
        text
    }
}

/// Pass 1: walks the whole document once; duplicate keys are an error at any depth (serde
/// would keep the last one silently inside `snapshot` and reject it only in typed structs).
fn check_json(text: &str) -> Result<(), (String, String)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let result: Result<NoDuplicates, _> = serde_path_to_error::deserialize(&mut de);
    match result {
        Ok(_) => de.end().map_err(|e| (".".to_string(), e.to_string())),
        Err(e) => {
            let path = path_text(e.path());
            let inner = e.inner();
            let message = if looks_like_non_finite(text, inner) {
                format!("NaN or infinite number ({inner}); expected a finite JSON number")
            } else {
                inner.to_string()
            };
            Err((path, message))
        }
    }
}

/// serde_json reports `NaN` as "expected value": say what it is.
fn looks_like_non_finite(text: &str, err: &serde_json::Error) -> bool {
    if err.classify() != serde_json::error::Category::Syntax || err.line() == 0 {
        return false;
    }
    let Some(line) = text.lines().nth(err.line() - 1) else { return false };
    // The column points at the offending character: the N of NaN, or the I of -Infinity.
    let start = err.column().saturating_sub(1).min(line.len());
    let rest = line.get(start..).unwrap_or("");
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    ["NaN", "Infinity"].iter().any(|word| rest.starts_with(word))
}

type Check = Result<(), (String, String)>;

/// Pass 3. Each level's counts are checked against its children's, never trusted.
fn check_consistency(s: &Summary) -> Check {
    if s.schema_version != 1 {
        return Err(("schema_version".into(), format!("is {}, expected 1", s.schema_version)));
    }
    let mut rows = 0;
    let mut counts = StatusCounts::default();
    let mut aic_points = 0;
    for (mi, model) in s.models.iter().enumerate() {
        let path = format!("models[{mi}]");
        let (r, c, a) = check_model(&path, model)?;
        rows += r;
        counts = counts.add(&c);
        aic_points += a;
    }
    check_level("totals", "models", s.totals.rows, &s.totals.aic, &s.totals.aisimulate, rows, counts, aic_points)?;
    expect_eq("totals.models", s.totals.models, s.models.len() as u64, "the models list has")?;
    expect_eq("scope.published_rows", s.scope.published_rows, s.totals.rows, "totals.rows is")?;
    expect_eq(
        "scope.published_rows",
        s.scope.published_rows,
        s.scope.raw_rows.saturating_sub(s.scope.excluded_multinode_rows),
        "scope.raw_rows - scope.excluded_multinode_rows is",
    )?;
    Ok(())
}

fn check_model(path: &str, model: &Model) -> Result<(u64, StatusCounts, u64), (String, String)> {
    let mut sum = (0, StatusCounts::default(), 0);
    for (wi, workload) in model.workloads.iter().enumerate() {
        let wpath = format!("{path}.workloads[{wi}]");
        let mut wsum = (0, StatusCounts::default(), 0);
        for (gi, gpu) in workload.gpus.iter().enumerate() {
            let gpath = format!("{wpath}.gpus[{gi}]");
            let mut gsum = (0, StatusCounts::default(), 0);
            for (ti, topology) in gpu.topologies.iter().enumerate() {
                let tpath = format!("{gpath}.topologies[{ti}]");
                let t = check_topology(&tpath, topology)?;
                gsum = (gsum.0 + t.0, gsum.1.add(&t.1), gsum.2 + t.2);
            }
            check_level(&gpath, "topologies", gpu.rows, &gpu.aic, &gpu.aisimulate, gsum.0, gsum.1, gsum.2)?;
            wsum = (wsum.0 + gsum.0, wsum.1.add(&gsum.1), wsum.2 + gsum.2);
        }
        check_level(&wpath, "gpus", workload.rows, &workload.aic, &workload.aisimulate, wsum.0, wsum.1, wsum.2)?;
        sum = (sum.0 + wsum.0, sum.1.add(&wsum.1), sum.2 + wsum.2);
    }
    check_level(path, "workloads", model.rows, &model.aic, &model.aisimulate, sum.0, sum.1, sum.2)?;
    Ok(sum)
}

fn check_topology(path: &str, t: &Topology) -> Result<(u64, StatusCounts, u64), (String, String)> {
    let mut seen = HashSet::new();
    for (pi, point) in t.points.iter().enumerate() {
        let ppath = format!("{path}.points[{pi}]");
        if !seen.insert(point.concurrency) {
            return Err((
                format!("{ppath}.concurrency"),
                format!("{} appears twice in this topology; expected one point per concurrency", point.concurrency),
            ));
        }
        for (name, value) in
            [("tpot_relative", point.measured.tpot_relative), ("ttft_relative", point.measured.ttft_relative)]
        {
            if value < 0.0 {
                return Err((
                    format!("{ppath}.measured.{name}"),
                    format!("is {value}, expected a non-negative relative"),
                ));
            }
        }
        let success = point.status == Status::Success;
        for arm in PublishedArm::ALL {
            for (name, value) in point.arm(arm).fields() {
                let field = format!("{ppath}.{arm}.{name}");
                match value {
                    Some(v) if v < 0.0 => {
                        return Err((field, format!("is {v}, expected a non-negative value")));
                    }
                    None if arm == PublishedArm::Aisimulate && success => {
                        return Err((field, "is null on a success point; expected a number".into()));
                    }
                    Some(_) if arm == PublishedArm::Aisimulate && !success => {
                        return Err((
                            field,
                            format!(
                                "is a number on a {} point; only success points carry AISimulate values",
                                point.status.key()
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
    }
    let counts = StatusCounts::of(t.points.iter().map(|p| p.status));
    let aic_points = t.points.iter().filter(|p| p.aic.complete()).count() as u64;
    check_level(path, "points", t.rows, &t.aic, &t.aisimulate, t.points.len() as u64, counts, aic_points)?;
    Ok((t.points.len() as u64, counts, aic_points))
}

/// The rules every level shares. `children` names what the sums were taken over.
#[allow(clippy::too_many_arguments)]
fn check_level(
    path: &str,
    children: &str,
    rows: u64,
    aic: &ArmFigures,
    aisimulate: &ArmFigures,
    child_rows: u64,
    child_counts: StatusCounts,
    child_aic_points: u64,
) -> Check {
    expect_eq(&format!("{path}.rows"), rows, child_rows, &format!("the rows of its {children} add up to"))?;
    let Some(published) = aisimulate.status_counts else {
        return Err((
            format!("{path}.aisimulate.status_counts"),
            "is missing; expected success, unsupported, failed, unknown counts".into(),
        ));
    };
    let published_counts = published;
    if published_counts.rows() != rows {
        return Err((
            format!("{path}.aisimulate.status_counts"),
            format!("sums to {} but rows is {rows}", published_counts.rows()),
        ));
    }
    for (key, got, want) in [
        ("success", published.success, child_counts.success),
        ("unsupported", published.unsupported, child_counts.unsupported),
        ("failed", published.failed, child_counts.failed),
        ("unknown", published.unknown, child_counts.unknown),
    ] {
        expect_eq(
            &format!("{path}.aisimulate.status_counts.{key}"),
            got,
            want,
            &format!("the {key} counts of its {children} add up to"),
        )?;
    }
    expect_eq(
        &format!("{path}.aisimulate.points"),
        aisimulate.points,
        published.success,
        "aisimulate.status_counts.success is",
    )?;
    expect_eq(
        &format!("{path}.aic.points"),
        aic.points,
        child_aic_points,
        &format!("the AIC points of its {children} add up to"),
    )?;
    if aic.status_counts.is_some() || aic.coverage_pct.is_some() {
        return Err((format!("{path}.aic"), "carries status_counts or coverage_pct; only aisimulate has them".into()));
    }
    if let Some(coverage) = aisimulate.coverage_pct {
        let expected = published_counts.coverage_pct();
        if expected != Some(coverage) {
            return Err((
                format!("{path}.aisimulate.coverage_pct"),
                format!(
                    "is {coverage} but success / rows x 100 rounded to 2 is {}",
                    expected.map_or("undefined".into(), |v| v.to_string())
                ),
            ));
        }
    }
    for (arm, figures) in [(PublishedArm::Aisimulate, aisimulate), (PublishedArm::Aic, aic)] {
        for metric in Metric::ALL {
            for (name, value) in
                [("mape_pct", figures.mape_pct(metric)), ("shape_error_pct", figures.shape_error_pct(metric))]
            {
                if let Some(v) = value.filter(|v| *v < 0.0) {
                    return Err((
                        format!("{path}.{arm}.{metric}_{name}"),
                        format!("is {v}, expected a non-negative percentage"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn expect_eq(path: &str, got: u64, want: u64, what: &str) -> Check {
    if got == want {
        Ok(())
    } else {
        Err((path.to_string(), format!("is {got} but {what} {want}")))
    }
}
