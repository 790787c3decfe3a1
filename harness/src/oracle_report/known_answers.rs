//! Every figure AISimulate's test (AIS `tests/test_e2e_accuracy_overview.py`) expects from
//! its four rows, recomputed under our definitions, next to what the anchor-inclusive
//! variant would give. Vectors: `testdata/aisimulate-test-rows/rows.json`.
//!
//! AISimulate's own test rows (docs/upstream.md §4), as a figure of the release gate
//! (`definition-known-answers`); it reads no corpus, only the committed vectors.

use crate::task::{TaskOutput, TaskResult};
use anyhow::Context;
use oracles::accuracy::{
    arm_figures, gpu_count, published_error_pct, published_rows, relatives, Latencies, Metric, PublishedArm, Row,
    ShapeDefinition, Status, StatusCounts,
};
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Vectors {
    #[allow(dead_code)]
    about: String,
    rows: Vec<VectorRow>,
    expected: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VectorRow {
    #[allow(dead_code)]
    row: u32,
    model: String,
    config: u32,
    gpu: String,
    #[allow(dead_code)]
    framework: String,
    #[allow(dead_code)]
    precision: String,
    #[allow(dead_code)]
    workload: String,
    tp: u64,
    pp: u64,
    dp: u64,
    concurrency: u32,
    measured: Ms,
    aic: Ms,
    aisimulate: Option<Ms>,
    status: String,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct Ms {
    ttft_ms: f64,
    tpot_ms: f64,
}

impl From<Ms> for Latencies {
    fn from(m: Ms) -> Self {
        Latencies { ttft: Some(m.ttft_ms), tpot: Some(m.tpot_ms) }
    }
}

/// One checked figure: what AISimulate's test expects, what we get, and (for shapes) what
/// the anchor-inclusive variant would give.
pub struct Check {
    pub figure: String,
    pub expected: f64,
    pub ours: Option<f64>,
    /// `Some(v)` for a shape figure: the wrong definition's value.
    pub anchor_inclusive: Option<f64>,
    /// A discriminator: the figure is the WRONG definition's and ours must differ from it.
    pub must_differ: bool,
}

impl Check {
    pub fn ok(&self) -> bool {
        (self.ours == Some(self.expected)) != self.must_differ
    }
}

pub const VECTORS: &str = "testdata/aisimulate-test-rows/rows.json";

pub fn checks() -> anyhow::Result<Vec<Check>> {
    let path = crate::paths::workspace_root().join(VECTORS);
    let text = crate::read::text(&path)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let vectors: Vectors = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| anyhow::anyhow!("{VECTORS}: {}: {}", e.path(), e.inner()))?;
    let expected = |pointer: &str| -> anyhow::Result<f64> {
        vectors
            .expected
            .pointer(pointer)
            .and_then(Value::as_f64)
            .with_context(|| format!("{VECTORS}: expected{pointer} missing"))
    };
    let rows: Vec<Row> = vectors
        .rows
        .iter()
        .map(|r| -> anyhow::Result<Row> {
            Ok(Row {
                topology: format!("{}/{}", r.model, r.config),
                gpu: r.gpu.clone(),
                gpus: gpu_count(r.tp, r.pp, r.dp),
                concurrency: r.concurrency as f64,
                status: Status::parse(&r.status)
                    .with_context(|| format!("{VECTORS}: unknown status {:?}", r.status))?,
                measured: r.measured.into(),
                aic: r.aic.into(),
                aisimulate: r.aisimulate.map(Latencies::from).unwrap_or_default(),
            })
        })
        .collect::<anyhow::Result<_>>()?;

    let mut checks = Vec::new();
    let mut push =
        |figure: String, expected: f64, ours: Option<f64>, anchor_inclusive: Option<f64>, must_differ: bool| {
            checks.push(Check { figure, expected, ours, anchor_inclusive, must_differ });
        };
    let published = published_rows(&rows);
    push("published rows".into(), expected("/published_rows")?, Some(published.len() as f64), None, false);
    for arm in PublishedArm::ALL {
        let totals = arm_figures(&published, arm, ShapeDefinition::AnchorExcluded);
        push(
            format!("totals.{arm}.points"),
            expected(&format!("/totals/{arm}/points"))?,
            Some(totals.points as f64),
            None,
            false,
        );
    }
    let aic = arm_figures(&published, PublishedArm::Aic, ShapeDefinition::AnchorExcluded);
    for metric in Metric::ALL {
        push(
            format!("totals.aic.{metric}_mape_pct"),
            expected(&format!("/totals/aic/{metric}_mape_pct"))?,
            aic.mape(metric).published(),
            None,
            false,
        );
    }
    let counts = StatusCounts::of(published.iter().map(|r| r.status));
    push(
        "totals.aisimulate.coverage_pct".into(),
        expected("/totals/aisimulate/coverage_pct")?,
        counts.coverage_pct(),
        None,
        false,
    );
    for (key, value) in [
        ("success", counts.success),
        ("unsupported", counts.unsupported),
        ("failed", counts.failed),
        ("unknown", counts.unknown),
    ] {
        push(
            format!("totals.aisimulate.status_counts.{key}"),
            expected(&format!("/totals/aisimulate/status_counts/{key}"))?,
            Some(value as f64),
            None,
            false,
        );
    }
    let alpha: Vec<&Row> = rows.iter().filter(|r| r.topology.starts_with("Alpha/")).collect();
    for arm in PublishedArm::ALL {
        let own = arm_figures(&alpha, arm, ShapeDefinition::AnchorExcluded);
        let inclusive = arm_figures(&alpha, arm, ShapeDefinition::AnchorIncluded);
        for metric in Metric::ALL {
            push(
                format!("Alpha.{arm}.{metric}_mape_pct"),
                expected(&format!("/models/Alpha/{arm}/{metric}_mape_pct"))?,
                own.mape(metric).published(),
                None,
                false,
            );
            push(
                format!("Alpha.{arm}.{metric}_shape_error_pct"),
                expected(&format!("/models/Alpha/{arm}/{metric}_shape_error_pct"))?,
                own.shape(metric).published(),
                inclusive.shape(metric).published(),
                false,
            );
        }
    }
    for (arm, metric) in [(PublishedArm::Aic, Metric::Tpot), (PublishedArm::Aisimulate, Metric::Ttft)] {
        let own = arm_figures(&alpha, arm, ShapeDefinition::AnchorExcluded);
        let inclusive = arm_figures(&alpha, arm, ShapeDefinition::AnchorIncluded);
        push(
            format!("discriminator Alpha.{arm}.{metric}_shape_error_pct"),
            expected(&format!("/anchor_inclusive_discriminators/Alpha/{arm}/{metric}_shape_error_pct"))?,
            own.shape(metric).published(),
            inclusive.shape(metric).published(),
            true,
        );
    }

    // Row 1's AISimulate replay fails: relatives stay anchored on the measured value.
    let mut failed: Vec<Row> = alpha.iter().map(|r| (*r).clone()).collect();
    failed[1].status = Status::Failed;
    failed[1].aisimulate = Latencies::default();
    let at = |values: &[Option<f64>], concurrency: f64| {
        failed.iter().position(|r| r.concurrency == concurrency).and_then(|i| values[i])
    };
    let measured = relatives(&failed, None, Metric::Ttft);
    let ais = relatives(&failed, Some(PublishedArm::Aisimulate), Metric::Ttft);
    let aic_rel = relatives(&failed, Some(PublishedArm::Aic), Metric::Ttft);
    let e = "/row_1_aisimulate_failed";
    push(
        "failed replay: measured ttft_relative @1".into(),
        expected(&format!("{e}/measured_ttft_relative/1"))?,
        at(&measured, 1.0),
        None,
        false,
    );
    push(
        "failed replay: measured ttft_relative @2".into(),
        expected(&format!("{e}/measured_ttft_relative/2"))?,
        at(&measured, 2.0),
        None,
        false,
    );
    push(
        "failed replay: aisimulate ttft_relative @1".into(),
        expected(&format!("{e}/aisimulate_ttft_relative/1"))?,
        at(&ais, 1.0),
        None,
        false,
    );
    let ape = failed[0]
        .arm(PublishedArm::Aisimulate)
        .ttft
        .zip(failed[0].measured.ttft)
        .and_then(|(p, m)| published_error_pct(p, m));
    push(
        "failed replay: aisimulate ttft_error_pct @1".into(),
        expected(&format!("{e}/aisimulate_ttft_error_pct/1"))?,
        ape,
        None,
        false,
    );
    push(
        "failed replay: aic ttft_relative @2".into(),
        expected(&format!("{e}/aic_ttft_relative/2"))?,
        at(&aic_rel, 2.0),
        None,
        false,
    );
    Ok(checks)
}

pub fn render(checks: &[Check]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "AISimulate's own test rows: {VECTORS}");
    let _ = writeln!(out, "source: AIS tests/test_e2e_accuracy_overview.py, as recorded in docs/upstream.md §4\n");
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
    for c in checks {
        let rule = if c.must_differ { "must differ from" } else { "expected" };
        let mut line = format!(
            "{} {:<52} {rule} {:<6} ours {:<6}",
            if c.ok() { "ok    " } else { "FAILED" },
            c.figure,
            c.expected,
            show(c.ours)
        );
        if let Some(wrong) = c.anchor_inclusive {
            let verdict = if c.must_differ {
                if Some(wrong) == Some(c.expected) {
                    "the wrong definition gives it"
                } else {
                    "the wrong definition does not give it either"
                }
            } else if wrong == c.expected {
                "passes under anchor-inclusive too"
            } else {
                "would FAIL under anchor-inclusive"
            };
            let _ = write!(line, " anchor-inclusive {wrong} ({verdict})");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "\nresult: {}", if checks.iter().all(Check::ok) { "all match" } else { "MISMATCH" });
    out
}

/// For the release gate (`definition-known-answers`): needs no input beyond the committed
/// vectors.
pub fn task() -> TaskResult {
    let checks = checks()?;
    let mut output = TaskOutput { report: render(&checks), ..TaskOutput::default() };
    output.check("all_match", checks.iter().all(Check::ok));
    output.check(
        "anchor_inclusive_would_fail",
        checks.iter().any(|c| !c.must_differ && c.anchor_inclusive.is_some_and(|w| w != c.expected)),
    );
    output.count("figures", checks.len() as u64);
    Ok(output)
}
