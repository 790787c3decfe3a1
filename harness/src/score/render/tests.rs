//! The report's sections over the hand-built score (`score::hand_built`), whose figures follow
//! from the definitions by hand.

use super::*;
use crate::score::hand_built::{block, cells, row, scored};
use crate::score::Selection;

const NOT_RUN: &str = "not run: needs --blis PATH";

#[test]
fn header_names_the_corpus_selection_arms_and_every_tracked_setting_counted() {
    let expected = "# Corpus score: aisimulate_e2e.json (test corpus)\n\
                    release r1; framework vllm; config tier measured\n\
                    arms: BLIS (not run: needs --blis PATH), AISimulate, AIC\n\
                    points with prefix caching (scored sweeps): 3\n\
                    setting provenance (points of the scored sweeps):\n  \
                    max_num_seqs: scenario 6\n  \
                    block_size: measured 4, resolved 2\n\
                    run settings the scenario schema cannot express: a-key, b-key\n";
    assert_eq!(header(&scored()), expected);
    let mut bare = scored();
    bare.selection = Selection::vllm(None);
    bare.provenance_counts.clear();
    bare.inexpressible_keys.clear();
    bare.arms[0].2 = None;
    let expected = "# Corpus score: aisimulate_e2e.json (test corpus)\n\
                    release r1; framework vllm; config tier all (measured and resolved)\n\
                    arms: BLIS, AISimulate, AIC\n\
                    points with prefix caching (scored sweeps): 3\n";
    assert_eq!(header(&bare), expected);
}

#[test]
fn table_pads_each_column_to_its_widest_cell_two_spaces_apart_without_trailing_space() {
    let rows = [row(&["a", "bbb", "c"]), row(&["cc", "d"]), row(&[])];
    assert_eq!(table(&rows), "  a   bbb  c\n  cc  d\n  \n");
}

#[test]
fn headline_gives_each_tier_its_counts_and_each_arm_its_mean_with_interval() {
    let text = headline(&scored());
    assert!(text.starts_with(
        "## Headline: mean |e| in %, per tier (n is TPOT-shape n / mape n)\n\
         [95% percentile bootstrap over sweeps: 200 resamples, numpy MT19937 seed 20261201]\n"
    ));
    let one = "[not defined: 1 sweep]";
    let strict = [
        row(&["arm", "TPOT shape", "TPOT mape", "TTFT shape", "TTFT mape"]),
        row(&["BLIS", NOT_RUN, NOT_RUN, NOT_RUN, NOT_RUN]),
        row(&["AISimulate", &format!("15.00 {one}"), &format!("2.00 {one}"), "--", &format!("4.00 {one}")]),
        row(&["AIC", &format!("5.00 {one}"), &format!("1.00 {one}"), "--", &format!("2.00 {one}")]),
    ];
    assert_eq!(cells(block(&text, "STRICT: 1 sweeps, n 2 / 3, TTFT n 0 / 1")), strict);
    assert_eq!(cells(block(&text, "MEASURED-OR-RESOLVED: 1 sweeps, n 2 / 3, TTFT n 0 / 1")), strict);
    let all = [
        row(&["arm", "TPOT shape", "TPOT mape", "TTFT shape", "TTFT mape"]),
        row(&["BLIS", NOT_RUN, NOT_RUN, NOT_RUN, NOT_RUN]),
        row(&["AISimulate", "15.00 [15.00, 15.00]", "2.00 [2.00, 2.00]", "--", "4.00 [4.00, 4.00]"]),
        row(&["AIC", "5.00 [5.00, 5.00]", "1.00 [1.00, 1.00]", "--", "2.00 [2.00, 2.00]"]),
    ];
    assert_eq!(cells(block(&text, "ALL (approximate): 2 sweeps, n 4 / 6, TTFT n 0 / 2")), all);

    let mut none = scored();
    none.sweeps.clear();
    assert!(headline(&none).contains("\nSTRICT: 0 sweeps, n 0 / 0, TTFT n 0 / 0\n  (no sweeps: every cell --)\n"));
}

#[test]
fn paired_differences_are_a_minus_b_with_their_interval_and_what_it_shows() {
    let text = paired(&scored());
    assert!(text.starts_with(
        "## Paired differences: mean |e| of A minus B in points over the same sweeps, 95% paired bootstrap \
         over sweeps (200 resamples, seed 20261201)\n  \
         BLIS - AISimulate: BLIS not run (needs --blis PATH)\n  \
         BLIS - AIC: BLIS not run (needs --blis PATH)\n\nSTRICT: 1 sweeps\n"
    ));
    let pair = "AISimulate - AIC";
    let (one, none) = ("[not defined: 1 sweep]", "no interval");
    assert_eq!(
        cells(block(&text, "STRICT: 1 sweeps")),
        [
            row(&[pair, "TPOT shape", "+10.00", one, none]),
            row(&[pair, "TPOT mape", "+1.00", one, none]),
            row(&[pair, "TTFT shape", "--", "no comparison"]),
            row(&[pair, "TTFT mape", "+2.00", one, none]),
        ]
    );
    let shown = "excludes zero: a difference";
    assert_eq!(
        cells(block(&text, "ALL (approximate): 2 sweeps")),
        [
            row(&[pair, "TPOT shape", "+10.00", "[10.00, 10.00]", shown]),
            row(&[pair, "TPOT mape", "+1.00", "[1.00, 1.00]", shown]),
            row(&[pair, "TTFT shape", "--", "no comparison"]),
            row(&[pair, "TTFT mape", "+2.00", "[2.00, 2.00]", shown]),
        ]
    );
    let mut none = scored();
    none.sweeps.clear();
    assert!(paired(&none).contains("\nSTRICT: 0 sweeps\n  (no sweeps)\n"));
}

#[test]
fn excursions_and_dropped_sweeps_are_listed_one_line_each() {
    assert_eq!(
        excursions(&scored()),
        "## TTFT excursions: 1 point(s) excluded from TTFT shape and TTFT mape for every arm (TPOT keeps them)\n  \
         a.yaml 1k1k c=4: measured TTFT relative 25.500000 > 10 x max(1.250000, 2.000000)\n"
    );
    assert_eq!(
        dropped(&scored()),
        "## Dropped sweeps: 1 (a sweep is scored whole or not at all, for every arm)\n  c.yaml 8k1k: point c=8 failed\n"
    );
}

#[test]
fn chip_family_is_the_first_family_named_in_the_gpu_whatever_its_case() {
    for (gpu, family) in
        [("NVIDIA-H100-SXM", "h100"), ("h200", "h200"), ("B200", "b200"), ("gb300", "b300"), ("mi300x", "other")]
    {
        assert_eq!(chip_family(gpu), family, "{gpu}");
    }
}

#[test]
fn breakdowns_group_all_sweeps_by_chip_model_and_framework() {
    let text = breakdowns(&scored());
    assert!(text.starts_with("## Breakdowns over ALL: mean |e| in %\n[95% percentile bootstrap"));
    let one = |v: &str| format!("{v} [not defined: 1 sweep]");
    let head = |by: &str| row(&[by, "sweeps", "n", "arm", "TPOT shape", "TPOT mape", "TTFT shape", "TTFT mape"]);
    fn blis(lead: &[&str]) -> Vec<String> {
        row(&[lead, &["BLIS", NOT_RUN, NOT_RUN, NOT_RUN, NOT_RUN]].concat())
    }
    let single = |group: &str| {
        vec![
            blis(&[group, "1", "2 / 3"]),
            row(&["AISimulate", &one("15.00"), &one("2.00"), "--", &one("4.00")]),
            row(&["AIC", &one("5.00"), &one("1.00"), "--", &one("2.00")]),
        ]
    };
    let grouped = |by: &str, groups: &[&str]| {
        let mut rows = vec![head(by)];
        rows.extend(groups.iter().flat_map(|g| single(g)));
        rows
    };
    assert_eq!(cells(block(&text, "by chip family")), grouped("chip family", &["b200", "h100"]));
    assert_eq!(cells(block(&text, "by model")), grouped("model", &["m1", "m2"]));
    assert_eq!(
        cells(block(&text, "by framework")),
        [
            head("framework"),
            blis(&["vllm", "2", "4 / 6"]),
            row(&["AISimulate", "15.00 [15.00, 15.00]", "2.00 [2.00, 2.00]", "--", "4.00 [4.00, 4.00]"]),
            row(&["AIC", "5.00 [5.00, 5.00]", "1.00 [1.00, 1.00]", "--", "2.00 [2.00, 2.00]"]),
        ]
    );
}

#[test]
fn kernelscore_signed_statistics_follow_the_definitions_on_each_subset() {
    let text = kernelscore(&scored());
    assert!(text.starts_with(
        "## kernelscore: TPOT shape over ALL, signed % (e > 0: the arm's curve rises faster)\n  \
         BLIS: not run: needs --blis PATH\n"
    ));
    let head = |lead: &str| row(&["arm", lead, "n", "mean", "median", "mean |e|", "% over 0", "p10", "p90"]);
    // numpy's linear percentile: rank p/100 (n - 1) between the sorted values.
    // AISimulate over ALL: 10, -20, 20, -10; on the monotone (h100) sweep: 10, -20.
    let ais_h100 = ["2", "-5.00", "-5.00", "15.00", "50.00", "-17.00", "7.00"];
    let ais_b200 = ["2", "5.00", "5.00", "15.00", "50.00", "-7.00", "17.00"];
    let aic_one = ["2", "5.00", "5.00", "5.00", "100.00", "5.00", "5.00"];
    let lead = |arm: &str, what: &str, stats: &[&str]| row(&[&[arm, what], stats].concat());
    assert_eq!(
        cells(block(&text, "signed statistics")),
        [
            head("subset"),
            lead("AISimulate", "all", &["4", "0.00", "0.00", "15.00", "50.00", "-17.00", "17.00"]),
            lead("AISimulate", "monotone", &ais_h100),
            lead("AIC", "all", &["4", "5.00", "5.00", "5.00", "100.00", "5.00", "5.00"]),
            lead("AIC", "monotone", &aic_one),
        ]
    );
    assert_eq!(
        cells(block(&text, "per chip family")),
        [
            head("chip"),
            lead("AISimulate", "h100", &ais_h100),
            lead("AISimulate", "b200", &ais_b200),
            lead("AIC", "h100", &aic_one),
            lead("AIC", "b200", &aic_one),
        ]
    );
    assert_eq!(
        cells(block(&text, "by concurrency")),
        [
            head("c"),
            lead("AISimulate", "2", &["2", "15.00", "15.00", "15.00", "100.00", "11.00", "19.00"]),
            lead("AISimulate", "4", &["2", "-15.00", "-15.00", "15.00", "0.00", "-19.00", "-11.00"]),
            lead("AIC", "2", &aic_one),
            lead("AIC", "4", &aic_one),
        ]
    );
    // x = ln(1 + e/100); sd with n - 1; bias = 100 (exp(mean x) - 1).
    let x: Vec<f64> = [1.1f64, 0.8, 1.2, 0.9].iter().map(|v| v.ln()).collect();
    let mean = x.iter().sum::<f64>() / 4.0;
    let sd = (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 3.0).sqrt();
    let ais = [
        "AISimulate".to_string(),
        "4".into(),
        "0".into(),
        format!("{mean:.4}"),
        format!("{sd:.4}"),
        format!("{:.2}", 100.0 * (mean.exp() - 1.0)),
    ];
    let aic = row(&["AIC", "4", "0", &format!("{:.4}", 1.05f64.ln()), "0.0000", "5.00"]);
    let log = block(&text, "log space: x = ln(1 + e/100), e <= -100 dropped; bias = 100 (exp(mean x) - 1)");
    assert_eq!(cells(log), [row(&["arm", "n", "dropped", "mean x", "sd x", "bias %"]), ais.to_vec(), aic]);
}

#[test]
fn report_is_the_sections_in_order_one_blank_line_apart() {
    let s = scored();
    let parts = [header(&s), headline(&s), paired(&s), excursions(&s), breakdowns(&s), kernelscore(&s), dropped(&s)];
    assert_eq!(report(&s), parts.join("\n"));
    assert!(parts.iter().all(|p| !p.is_empty()));
}
