//! The intervals beside the scorer's means: which sweeps they pool, what they refuse, and how a
//! cell prints them.

use super::*;
use crate::score::ArmErrors;
use oracles::tiers::Tier;

/// A sweep whose arm `i` has TPOT shape errors `arms[i]` (`None`: not run).
fn sweep(name: &str, arms: &[Option<&[f64]>]) -> ScoredSweep {
    let errors = arms
        .iter()
        .map(|a| {
            a.map(|e| ArmErrors {
                tpot_shape: e.iter().enumerate().map(|(i, &x)| (2 << i, x)).collect(),
                ..Default::default()
            })
        })
        .collect();
    ScoredSweep {
        scenario: name.into(),
        label: "1k1k".into(),
        model: "m".into(),
        gpu: "h100".into(),
        framework: "vllm".into(),
        tier: Tier::All,
        monotone: true,
        comparisons: Default::default(),
        errors,
    }
}

const SHAPE: ErrorMetric = ErrorMetric::TpotShape;

#[test]
fn totals_are_each_sweeps_sum_of_abs_and_count_and_a_non_finite_error_is_refused_by_name() {
    let a = [sweep("a.yaml", &[Some(&[1.0, -2.0])]), sweep("b.yaml", &[Some(&[])])];
    let t = totals(&a.iter().collect::<Vec<_>>(), 0, SHAPE).unwrap().unwrap();
    assert_eq!(t, [SweepTotal { sum_abs: 3.0, n: 2 }, SweepTotal { sum_abs: 0.0, n: 0 }]);
    let bad = [sweep("a.yaml", &[Some(&[1.0])]), sweep("b.yaml", &[Some(&[1.0, f64::NAN])])];
    assert_eq!(
        totals(&bad.iter().collect::<Vec<_>>(), 0, SHAPE),
        Some(Err("refused: sweep b.yaml 1k1k has a non-finite TPOT shape error at c=4".into()))
    );
    let not_run = [sweep("a.yaml", &[Some(&[1.0]), None])];
    assert_eq!(totals(&not_run.iter().collect::<Vec<_>>(), 1, SHAPE), None);
    assert_eq!(totals(&not_run.iter().collect::<Vec<_>>(), 2, SHAPE), None);
}

#[test]
fn a_cell_pools_only_sweeps_with_comparisons() {
    // Two sweeps, one without comparisons: one sweep, so no interval.
    let one = [sweep("a.yaml", &[Some(&[4.0])]), sweep("b.yaml", &[Some(&[])])];
    assert_eq!(cell(&one.iter().collect::<Vec<_>>(), 0, SHAPE, 100), Some(Err("not defined: 1 sweep".into())));
    // Equal sweeps: every resample has the same mean.
    let two =
        [sweep("a.yaml", &[Some(&[4.0, -2.0])]), sweep("b.yaml", &[Some(&[])]), sweep("c.yaml", &[Some(&[3.0, 3.0])])];
    assert_eq!(cell(&two.iter().collect::<Vec<_>>(), 0, SHAPE, 100), Some(Ok(Interval { low: 3.0, high: 3.0 })));
    assert_eq!(cell(&two.iter().collect::<Vec<_>>(), 1, SHAPE, 100), None);
    let refused = cell(&two.iter().collect::<Vec<_>>(), 0, SHAPE, 0).unwrap().unwrap_err();
    assert_eq!(refused, NotDefined::Resamples { resamples: 0 }.to_string());
}

#[test]
fn paired_difference_pools_each_arms_errors_over_the_sweeps_both_compared() {
    // a: 10 | 20, 30 | (none); b: 1 | 1, 1 | 7. The third sweep has no comparison for a, so
    // it leaves both sides: a pools 60 / 3 = 20, b 3 / 3 = 1 (not the mean of sweep means).
    let s = [
        sweep("a.yaml", &[Some(&[10.0]), Some(&[1.0])]),
        sweep("b.yaml", &[Some(&[20.0, -30.0]), Some(&[1.0, -1.0])]),
        sweep("c.yaml", &[Some(&[]), Some(&[7.0])]),
    ];
    let s: Vec<&ScoredSweep> = s.iter().collect();
    let p = paired(&s, 0, 1, SHAPE, 100).unwrap().unwrap();
    assert_eq!(p.diff, 19.0);
    let pairs = [
        (SweepTotal { sum_abs: 10.0, n: 1 }, SweepTotal { sum_abs: 1.0, n: 1 }),
        (SweepTotal { sum_abs: 50.0, n: 2 }, SweepTotal { sum_abs: 2.0, n: 2 }),
    ];
    let drawn = Resamples::draw(2, 100, bootstrap::SEED).unwrap();
    assert_eq!(p.ci, Ok(bootstrap::paired_interval_with(&pairs, &drawn)));
    assert_eq!(paired(&s, 1, 0, SHAPE, 100).unwrap().unwrap().diff, -19.0);
    // One sweep compared: a difference, no interval.
    let p = paired(&s[..1], 0, 1, SHAPE, 100).unwrap().unwrap();
    assert_eq!((p.diff, p.ci), (9.0, Err("not defined: 1 sweep".into())));
}

#[test]
fn paired_is_none_without_a_comparison_or_a_run_arm_and_refused_when_either_arm_is() {
    let none = [sweep("a.yaml", &[Some(&[]), Some(&[1.0])]), sweep("b.yaml", &[Some(&[2.0]), Some(&[])])];
    assert_eq!(paired(&none.iter().collect::<Vec<_>>(), 0, 1, SHAPE, 100), None);
    let not_run = [sweep("a.yaml", &[Some(&[1.0]), None])];
    assert_eq!(paired(&not_run.iter().collect::<Vec<_>>(), 0, 1, SHAPE, 100), None);
    assert_eq!(paired(&not_run.iter().collect::<Vec<_>>(), 1, 0, SHAPE, 100), None);
    let why = "refused: sweep a.yaml 1k1k has a non-finite TPOT shape error at c=2";
    for arms in [[Some(&[f64::INFINITY][..]), Some(&[1.0][..])], [Some(&[1.0][..]), Some(&[f64::INFINITY][..])]] {
        let s = [sweep("a.yaml", &arms)];
        assert_eq!(paired(&s.iter().collect::<Vec<_>>(), 0, 1, SHAPE, 100), Some(Err(why.into())));
    }
}

#[test]
fn cells_print_two_decimals_and_never_a_negative_zero() {
    let i = Interval { low: 8.9, high: 10.414 };
    assert_eq!(with_interval(9.644, None), "9.64");
    assert_eq!(with_interval(9.646, Some(&Ok(i))), "9.65 [8.90, 10.41]");
    assert_eq!(with_interval(9.64, Some(&Err("not defined: 1 sweep".into()))), "9.64 [not defined: 1 sweep]");
    assert_eq!(bracket(&Interval { low: -0.004, high: 0.006 }), "[0.00, 0.01]");
    for (v, text) in [(-0.004, "0.00"), (-0.006, "-0.01"), (1.5, "1.50"), (0.0, "0.00")] {
        assert_eq!(pct(v), text, "{v}");
    }
    for (v, text) in [(0.13, "+0.13"), (-1.2, "-1.20"), (0.004, "0.00"), (-0.004, "0.00"), (0.0, "0.00")] {
        assert_eq!(signed(v), text, "{v}");
    }
}

#[test]
fn the_words_after_a_paired_interval_say_whether_it_excludes_zero() {
    assert_eq!(zero_line(&Ok(Interval { low: 0.1, high: 2.0 })), "excludes zero: a difference");
    assert_eq!(zero_line(&Ok(Interval { low: -2.0, high: -0.1 })), "excludes zero: a difference");
    assert_eq!(zero_line(&Ok(Interval { low: -0.1, high: 2.0 })), "includes zero: no difference shown");
    assert_eq!(zero_line(&Err("x".into())), "no interval");
}

#[test]
fn a_short_reason_names_too_few_sweeps_briefly_and_other_reasons_in_full() {
    assert_eq!(short(&NotDefined::TooFewSweeps { sweeps: 1 }), "not defined: 1 sweep");
    let other = NotDefined::NonFinite { sweep: 2 };
    assert_eq!(short(&other), other.to_string());
}

#[test]
fn forgetting_the_tables_drops_each_drawn_one() {
    // A size no other test draws, so tests running beside this one cannot refill it.
    let key = (7, 123);
    table(key.0, key.1).unwrap();
    assert!(TABLES.lock().unwrap().contains_key(&key));
    forget_tables();
    assert!(!TABLES.lock().unwrap().contains_key(&key));
}
