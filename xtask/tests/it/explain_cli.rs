//! `cargo xtask explain ID` as a user runs it, without the team's corpora: a figure that needs
//! none, a group, an unknown id, and a figure refused for the input it lacks.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::xtask_without_corpora as xtask;

#[test]
fn a_figure_needing_no_input_is_explained_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["explain", "fixtures/numpy-seed0-randint"])
        .assert()
        .code(0)
        .stdout(contains("(published in PUBLISHED-FIGURES.md §2)"))
        .stdout(contains("computed    991 866 936 1011 886  ok"))
        .stdout(contains("definition  docs/fixtures.md\n            oracles::numpy::RandomState::randint"));
}

#[test]
fn a_group_lists_the_ids_under_it() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["explain", "headline/all/aic/"])
        .assert()
        .code(0)
        .stdout(contains("headline/all/aic/ttft-shape").and(contains("headline/all/aic/tpot-mape")));
}

#[test]
fn an_unknown_id_exits_64_naming_the_nearest() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["explain", "headline/all/aic/ttft-shap"])
        .assert()
        .code(64)
        .stdout("")
        .stderr(contains("nearest ids: headline/all/aic/ttft-shape"));
}

#[test]
fn a_figure_without_its_corpora_is_refused_naming_the_input_and_exits_two() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["explain", "headline/all/aic/ttft-shape"])
        .assert()
        .code(2)
        .stdout(contains("expected    30.12 (published in PUBLISHED-FIGURES.md §3)"))
        .stdout(contains("computed    refused:").and(contains("--measurements")))
        .stdout(contains("snapshot    snapshots/headline__vllm_all_tiers.snap"));
}

#[test]
fn a_published_blis_cell_without_a_binary_says_what_supplies_it() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["explain", "headline/all/blis/ttft-shape"])
        .assert()
        .code(2)
        .stdout(contains("blis         NOT GIVEN").and(contains("--blis PATH")));
}
