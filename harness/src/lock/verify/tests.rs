//! The lock's comparison, verdicts and reports on trees made here. Every digest below is what
//! `printf a | sha256sum` (and `b`, `c`) prints, and every expected line is the report's
//! documented wording: no expected value is read back from this module.

use super::*;
use crate::stand_in::git;
use std::path::PathBuf;

const C: &str = "747a2213e13030ae675f9872c3e2a76b6b770d50";
/// sha256 of the one-byte files "a", "b" and "c".
const A: &str = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";
const B: &str = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d";
const X: &str = "2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6";
const PIN: &str = "github.com/inference-sim/x@747a2213e130";

fn digest(hex: &str) -> oracles::hashing::Sha256Digest {
    oracles::hashing::Sha256Digest::from_hex(hex).unwrap()
}

/// A lock of four sections at commit `C`, each locking `a.yaml` ("a"); scenarios also `b.yaml` ("b").
fn lock() -> Lock {
    let section = |kind: &str, extra: &str| {
        format!(
            "[{kind}]\nrepo = https://github.com/inference-sim/x\ncommit = {C}\npath = .\nglob = *.yaml\n\
             file = {A}  a.yaml\n{extra}"
        )
    };
    let text = [
        section("catalog", ""),
        section("registry", ""),
        section("scenarios", &format!("file = {B}  b.yaml\n")),
        section("measurements", ""),
    ]
    .join("\n");
    super::super::file::parse(&text).unwrap()
}

fn scenarios() -> Upstream {
    lock().get(InputKind::Scenarios).clone()
}

/// A folder holding `files` (name, contents).
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// The scenarios tree as `vendor` leaves it: both files and both stamps.
fn vendored_scenarios() -> tempfile::TempDir {
    let manifest = format!("{A}  a.yaml\n{B}  b.yaml\n");
    tree(&[("a.yaml", "a"), ("b.yaml", "b"), (COMMIT_STAMP, &format!("{C}\n")), (MANIFEST_STAMP, &manifest)])
}

fn checked(comparison: Comparison) -> Outcome {
    Outcome::Checked { mode: Mode::Vendored, comparison }
}

fn check(outcome: Outcome) -> TreeCheck {
    TreeCheck {
        kind: InputKind::Scenarios,
        label: "testdata/scenarios".into(),
        repo: "https://github.com/inference-sim/x".into(),
        commit: C.into(),
        partial: None,
        outcome,
    }
}

fn of_kind(kind: InputKind, outcome: Outcome) -> TreeCheck {
    TreeCheck { kind, label: kind.name().into(), ..check(outcome) }
}

fn changed(path: &str) -> Changed {
    Changed { path: path.into(), locked: B.into(), found: X.into(), not_utf8: false }
}

fn input(kind: InputKind, path: &Path, origin: Origin) -> InputPath {
    InputPath { kind, path: path.to_path_buf(), origin }
}

/// A git checkout with one commit, and that commit's id (read by git itself).
fn git_checkout() -> (tempfile::TempDir, String) {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b")]);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "x"]);
    let head = git(dir.path(), &["rev-parse", "HEAD"]);
    (dir, head)
}

#[test]
fn a_comparison_is_ok_only_while_every_kind_of_fault_is_absent_and_a_note_is_not_one() {
    let ok = Comparison::default();
    assert!(ok.ok());
    assert!(Comparison { notes: vec!["n".into()], ..ok.clone() }.ok());
    let faults = [
        Comparison { changed: vec![changed("a.yaml")], ..ok.clone() },
        Comparison { missing: vec!["a.yaml".into()], ..ok.clone() },
        Comparison { extra: vec!["c.yaml".into()], ..ok.clone() },
        Comparison { refused: vec![("c.yaml".into(), "a FIFO".into())], ..ok.clone() },
        Comparison { stamp: vec!["s".into()], ..ok.clone() },
    ];
    for c in faults {
        assert!(!c.ok(), "{c:?}");
    }
}

#[test]
fn each_locked_file_is_matched_changed_or_missing_and_an_unlocked_one_is_extra() {
    let mut scan = Scan::default();
    scan.files.insert("a.yaml".into(), digest(A));
    scan.files.insert("b.yaml".into(), digest(X));
    scan.files.insert("c.yaml".into(), digest(A));
    scan.not_utf8.insert("b.yaml".into());
    let c = compare(&scenarios(), &scan);
    let expected = Comparison {
        locked: 2,
        matched: 1,
        changed: vec![Changed { not_utf8: true, ..changed("b.yaml") }],
        extra: vec!["c.yaml".into()],
        ..Comparison::default()
    };
    assert_eq!(c, expected);
    scan.files.remove("b.yaml");
    scan.not_utf8.clear();
    let c = compare(&scenarios(), &scan);
    assert_eq!((c.matched, c.changed.len(), c.missing), (1, 0, vec!["b.yaml".to_string()]));
}

#[test]
fn a_locked_file_that_could_not_be_read_is_refused_there_not_also_missing() {
    let mut scan = Scan::default();
    scan.files.insert("a.yaml".into(), digest(A));
    scan.problems.insert("b.yaml".into(), "a symlink".into());
    let c = compare(&scenarios(), &scan);
    assert_eq!((c.matched, c.missing.len()), (1, 0));
    assert_eq!(c.refused, [("b.yaml".to_string(), "a symlink".to_string())]);
    let scan = Scan { problems: Default::default(), ..scan };
    assert_eq!(compare(&scenarios(), &scan).missing, ["b.yaml"]);
}

#[test]
fn a_vendored_tree_as_vendor_writes_it_matches_and_a_stray_file_in_it_is_extra() {
    let dir = vendored_scenarios();
    let c = check_vendored(&scenarios(), dir.path()).unwrap();
    assert_eq!(c, Comparison { locked: 2, matched: 2, ..Comparison::default() });
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    assert_eq!(check_vendored(&scenarios(), dir.path()).unwrap().extra, ["notes.txt"]);
}

/// A vendored tree without `stamp` has one stamp fault, saying it is unreadable.
fn assert_unreadable_without(stamp: &str) {
    let dir = vendored_scenarios();
    std::fs::remove_file(dir.path().join(stamp)).unwrap();
    let c = check_vendored(&scenarios(), dir.path()).unwrap();
    assert_eq!(c.stamp.len(), 1);
    assert!(c.stamp[0].starts_with(&format!("{stamp} unreadable: ")), "{:?}", c.stamp);
}

#[test]
fn a_vendored_tree_names_the_commit_stamp_that_differs_or_is_absent() {
    let dir = vendored_scenarios();
    for (text, says) in [("0123\n", "0123"), (C, C)] {
        std::fs::write(dir.path().join(COMMIT_STAMP), text).unwrap();
        let c = check_vendored(&scenarios(), dir.path()).unwrap();
        assert_eq!(c.stamp, [format!("{COMMIT_STAMP} says {says:?}, the lock says {C}")]);
    }
    assert_unreadable_without(COMMIT_STAMP);
}

#[test]
fn a_vendored_tree_names_the_first_manifest_line_that_differs_from_the_lock() {
    let dir = vendored_scenarios();
    let stamp = |manifest: &str| {
        std::fs::write(dir.path().join(MANIFEST_STAMP), manifest).unwrap();
        check_vendored(&scenarios(), dir.path()).unwrap().stamp
    };
    let line = |n: usize| vec![format!("{MANIFEST_STAMP} differs from the lock from its line {n}")];
    assert_eq!(stamp(&format!("{A}  a.yaml\n{X}  b.yaml\n")), line(2));
    assert_eq!(stamp(&format!("{X}  a.yaml\n{B}  b.yaml\n")), line(1));
    // One a prefix of the other: the first line one has and the other lacks.
    assert_eq!(stamp(&format!("{A}  a.yaml\n")), line(2));
    assert_eq!(stamp(&format!("{A}  a.yaml\n{B}  b.yaml\n{X}  c.yaml\n")), line(3));
    assert_unreadable_without(MANIFEST_STAMP);
}

#[test]
fn a_live_tree_whose_commit_stamp_differs_from_the_lock_says_so_and_an_equal_one_does_not() {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b"), (COMMIT_STAMP, &format!("{C}\n"))]);
    let c = check_live(&scenarios(), dir.path()).unwrap();
    assert_eq!(c, Comparison { locked: 2, matched: 2, ..Comparison::default() });
    std::fs::write(dir.path().join(COMMIT_STAMP), "0123\n").unwrap();
    let c = check_live(&scenarios(), dir.path()).unwrap();
    assert_eq!(c.stamp, [format!("{COMMIT_STAMP} says \"0123\", the lock says {C}")]);
}

#[test]
fn a_live_tree_with_neither_stamp_nor_git_is_checked_by_hash_and_says_so() {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b"), ("other.txt", "not globbed")]);
    let c = check_live(&scenarios(), dir.path()).unwrap();
    let note = "no commit stamp and not a git checkout: checked by hash only".to_string();
    assert_eq!(c, Comparison { locked: 2, matched: 2, notes: vec![note], ..Comparison::default() });
    assert_eq!(diff(&scenarios(), dir.path()).unwrap(), c);
}

#[test]
fn a_live_git_checkout_is_held_to_the_locked_commit_by_its_head() {
    let (dir, head) = git_checkout();
    let mut at_head = scenarios();
    at_head.commit = head.clone();
    let c = check_live(&at_head, dir.path()).unwrap();
    assert_eq!((c.stamp.clone(), c.notes.clone()), (vec![], vec![format!("checkout HEAD is {}", &head[..12])]));
    assert!(c.ok());
    let c = check_live(&scenarios(), dir.path()).unwrap();
    assert_eq!(c.stamp, [format!("checkout HEAD is {head}, the lock says {C}")]);
    assert!(c.notes.is_empty() && !c.ok());
}

#[test]
fn a_git_folder_without_a_commit_is_a_stamp_fault_not_a_pass() {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b")]);
    git(dir.path(), &["init", "-q"]);
    let c = check_live(&scenarios(), dir.path()).unwrap();
    assert_eq!(c.stamp.len(), 1, "{c:?}");
    assert!(c.stamp[0].starts_with("cannot read the checkout's HEAD: "), "{:?}", c.stamp);
}

#[test]
fn the_checkout_is_found_exactly_as_many_folders_up_as_the_locked_path_is_deep() {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("a/b");
    std::fs::create_dir_all(&root).unwrap();
    assert_eq!(checkout_root(&root, "a/b"), None);
    std::fs::create_dir(top.path().join(".git")).unwrap();
    assert_eq!(checkout_root(&root, "a/b"), Some(top.path().to_path_buf()));
    assert_eq!(checkout_root(&root, "b"), None);
    assert_eq!(checkout_root(&root, "."), None);
    std::fs::create_dir(root.join(".git")).unwrap();
    assert_eq!(checkout_root(&root, "."), Some(root.clone()));
    assert_eq!(checkout_root(Path::new("/"), "a"), None);
}

#[test]
fn a_section_passes_when_it_matched_or_nobody_supplied_it_and_fails_when_absent_or_unreadable() {
    let matched = Comparison { locked: 2, matched: 2, ..Comparison::default() };
    let off = Comparison { missing: vec!["b.yaml".into()], ..matched.clone() };
    assert!(check(checked(matched.clone())).ok());
    assert!(!check(checked(off)).ok());
    assert!(check(Outcome::NotSupplied).ok());
    assert!(!check(Outcome::Absent).ok());
    assert!(!check(Outcome::BadDir("x".into())).ok());
    assert_eq!(check(checked(Comparison { matched: 7, ..matched })).files_matched(), 7);
    assert_eq!(check(Outcome::Absent).files_matched(), 0);
}

#[test]
fn measurements_nobody_supplied_are_not_checked() {
    assert!(!check(Outcome::NotSupplied).checked());
    assert!(check(Outcome::Absent).checked());
    assert!(check(Outcome::BadDir("x".into())).checked());
    assert!(check(checked(Comparison::default())).checked());
}

#[test]
fn a_matching_section_prints_one_line_with_its_count_and_pin() {
    let c = Comparison { locked: 2, matched: 2, notes: vec!["checked by hash".into()], ..Comparison::default() };
    assert_eq!(
        check(checked(c)).render(),
        format!("testdata/scenarios: 2 files match {PIN}\n  note: checked by hash\n")
    );
}

/// One of each fault and a note: 1 of 3 locked files matched, two changed (one not UTF-8).
fn every_fault() -> Comparison {
    Comparison {
        locked: 3,
        matched: 1,
        changed: vec![changed("a.yaml"), Changed { not_utf8: true, ..changed("b.yaml") }],
        missing: vec!["m.yaml".into()],
        extra: vec!["e.yaml".into()],
        refused: vec![("r.yaml".into(), "a FIFO".into())],
        stamp: vec!["stamp text".into()],
        notes: vec!["note text".into()],
    }
}

#[test]
fn a_failing_section_prints_every_fault_under_its_count() {
    let c = every_fault();
    let expected = format!(
        "testdata/scenarios: FAILED: 1 of 3 locked files match {PIN}\n\
         \x20 changed: a.yaml (locked 3e23e8160039, found 2e7d2c03a950)\n\
         \x20 changed: b.yaml (locked 3e23e8160039, found 2e7d2c03a950; not valid UTF-8)\n\
         \x20 missing: m.yaml\n\
         \x20 extra: e.yaml\n\
         \x20 refused: r.yaml: a FIFO\n\
         \x20 stamp: stamp text\n\
         \x20 note: note text\n"
    );
    assert_eq!(check(checked(c)).render(), expected);
}

#[test]
fn a_section_not_checked_absent_or_unreadable_says_what_to_do_and_only_a_checked_one_its_partial_copy() {
    let partial = |outcome| TreeCheck { partial: Some("5 of 9 descriptors".into()), ..check(outcome) };
    assert_eq!(
        partial(Outcome::NotSupplied).render(),
        "testdata/scenarios: not checked (pass --measurements DIR or set BLIS_MEASUREMENTS)\n"
    );
    let absent = partial(Outcome::Absent).render();
    assert!(absent.starts_with("testdata/scenarios: FAILED: the vendored tree is absent; run `cargo xtask vendor"));
    assert!(absent.ends_with("\n  partial copy: 5 of 9 descriptors\n"), "{absent}");
    assert_eq!(
        partial(Outcome::BadDir("x is not a directory".into())).render(),
        "testdata/scenarios: FAILED: x is not a directory\n  partial copy: 5 of 9 descriptors\n"
    );
}

#[test]
fn the_report_passes_only_when_every_section_does_and_names_the_ones_that_failed() {
    let ok = Comparison { locked: 1, matched: 1, ..Comparison::default() };
    let all_ok = VerifyReport {
        checks: vec![
            of_kind(InputKind::Catalog, checked(ok.clone())),
            of_kind(InputKind::Measurements, Outcome::NotSupplied),
        ],
    };
    assert!(all_ok.ok());
    assert!(all_ok.failed().is_empty());
    assert!(all_ok.render().ends_with("\nlock: OK\n"), "{}", all_ok.render());
    let two_fail = VerifyReport {
        checks: vec![
            of_kind(InputKind::Catalog, Outcome::Absent),
            of_kind(InputKind::Registry, checked(ok)),
            of_kind(InputKind::Measurements, Outcome::BadDir("x".into())),
        ],
    };
    assert!(!two_fail.ok());
    assert_eq!(two_fail.failed(), [InputKind::Catalog, InputKind::Measurements]);
    assert!(two_fail.render().ends_with("\nlock: FAILED (catalog, measurements)\n"), "{}", two_fail.render());
    assert_eq!(two_fail.check(InputKind::Registry).map(|c| c.files_matched()), Some(1));
    assert_eq!(two_fail.check(InputKind::Scenarios), None);
}

#[test]
fn the_gate_records_counts_and_a_verdict_for_each_checked_section_and_why_it_failed() {
    use crate::task::Value::{Check, Count, Text};
    let ok = Comparison { locked: 3, matched: 3, ..Comparison::default() };
    let report = VerifyReport {
        checks: vec![
            of_kind(InputKind::Catalog, checked(ok)),
            of_kind(InputKind::Registry, Outcome::Absent),
            of_kind(InputKind::Measurements, Outcome::NotSupplied),
        ],
    };
    let out = report.to_task_output();
    assert_eq!(out.report, report.render());
    let values: Vec<(&str, &crate::task::Value)> = out.values.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let why = Text("1 fault(s): registry: the vendored tree is absent".into());
    assert_eq!(
        values,
        [
            ("catalog.files_locked", &Count(3)),
            ("catalog.files_matched", &Count(3)),
            ("catalog.ok", &Check(true)),
            ("registry.files_matched", &Count(0)),
            ("registry.ok", &Check(false)),
            ("verified", &Check(false)),
            ("verified.why", &why),
        ]
    );
    let passing = VerifyReport { checks: vec![of_kind(InputKind::Catalog, Outcome::NotSupplied)] };
    let values = passing.to_task_output().values;
    assert_eq!(values.into_iter().collect::<Vec<_>>(), [("verified".to_string(), Check(true))]);
}

#[test]
fn the_gate_line_counts_every_offender_and_names_the_first_three() {
    let missing = |names: &[&str]| {
        checked(Comparison { missing: names.iter().map(|n| n.to_string()).collect(), ..Comparison::default() })
    };
    let three = VerifyReport { checks: vec![check(missing(&["a", "b", "c"]))] };
    assert_eq!(
        three.offenders_summary(),
        "3 fault(s): scenarios/a (missing), scenarios/b (missing), scenarios/c (missing)"
    );
    let bad = VerifyReport {
        checks: vec![check(missing(&["a", "b", "c"])), check(Outcome::BadDir("not a directory".into()))],
    };
    assert_eq!(
        bad.offenders_summary(),
        "4 fault(s): scenarios/a (missing), scenarios/b (missing), scenarios/c (missing), and 1 more"
    );
    let every_kind = Comparison {
        changed: vec![changed("c")],
        extra: vec!["e".into()],
        refused: vec![("r".into(), "a FIFO".into())],
        stamp: vec!["s".into()],
        ..Comparison::default()
    };
    let report = VerifyReport { checks: vec![check(checked(every_kind)), check(Outcome::BadDir("gone".into()))] };
    assert_eq!(
        report.offenders_summary(),
        "5 fault(s): scenarios/c (changed), scenarios/e (not in the lock), scenarios/r (a FIFO), and 2 more"
    );
    let stamp_and_dir = VerifyReport {
        checks: vec![
            check(checked(Comparison { stamp: vec!["s".into()], ..Comparison::default() })),
            check(Outcome::BadDir("gone".into())),
        ],
    };
    assert_eq!(stamp_and_dir.offenders_summary(), "2 fault(s): scenarios stamp: s, scenarios: gone");
}

#[test]
fn a_section_nobody_supplied_is_not_checked_and_keeps_its_name_as_label() {
    let c = check_section(&scenarios(), None);
    assert_eq!((c.label.as_str(), &c.outcome), ("scenarios", &Outcome::NotSupplied));
    assert_eq!((c.repo.as_str(), c.commit.as_str()), ("https://github.com/inference-sim/x", C));
}

#[test]
fn an_override_is_read_as_a_live_checkout_and_labelled_by_what_set_it() {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b"), ("other.txt", "x")]);
    let up = scenarios();
    for (origin, label) in [
        (Origin::Flag, "scenarios (override --scenarios, not the vendored tree)"),
        (Origin::Env, "scenarios (override BLIS_SCENARIOS, not the vendored tree)"),
    ] {
        let c = check_section(&up, Some(&input(InputKind::Scenarios, dir.path(), origin)));
        assert_eq!(c.label, label);
        let Outcome::Checked { mode, comparison } = &c.outcome else { panic!("{c:?}") };
        assert_eq!((*mode, comparison.matched, comparison.extra.len()), (Mode::Live, 2, 0));
    }
}

#[test]
fn the_vendored_tree_is_read_whole_with_its_stamps_and_labelled_by_its_path() {
    let dir = vendored_scenarios();
    let c = check_section(&scenarios(), Some(&input(InputKind::Scenarios, dir.path(), Origin::Vendored)));
    assert_eq!(c.label, dir.path().display().to_string());
    let expected = Comparison { locked: 2, matched: 2, ..Comparison::default() };
    assert_eq!(c.outcome, Outcome::Checked { mode: Mode::Vendored, comparison: expected });
}

#[test]
fn an_absent_vendored_tree_asks_for_vendor_and_any_other_non_folder_is_refused() {
    let top = tempfile::tempdir().unwrap();
    let gone = top.path().join("gone");
    let file = top.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let up = scenarios();
    let outcome = |path: &PathBuf, origin| check_section(&up, Some(&input(InputKind::Scenarios, path, origin))).outcome;
    assert_eq!(outcome(&gone, Origin::Vendored), Outcome::Absent);
    assert_eq!(outcome(&file, Origin::Vendored), Outcome::BadDir(format!("{} is not a directory", file.display())));
    assert_eq!(outcome(&gone, Origin::Flag), Outcome::BadDir(format!("{} is not a directory", gone.display())));
}

#[test]
fn measurements_are_labelled_by_the_flag_or_variable_that_gave_them() {
    let dir = tree(&[("a.yaml", "a")]);
    let up = lock().get(InputKind::Measurements).clone();
    let label = |origin| check_section(&up, Some(&input(InputKind::Measurements, dir.path(), origin))).label;
    assert_eq!(label(Origin::Flag), "measurements (--measurements)");
    assert_eq!(label(Origin::Env), "measurements (BLIS_MEASUREMENTS)");
    assert_eq!(label(Origin::Vendored), dir.path().display().to_string());
}

#[test]
fn verify_checks_every_locked_section_in_lock_order_against_what_was_supplied() {
    let dir = tree(&[("a.yaml", "a"), ("b.yaml", "b")]);
    let inputs = Inputs {
        measurements: None,
        catalog: None,
        registry: None,
        scenarios: Some(input(InputKind::Scenarios, dir.path(), Origin::Flag)),
        blis: None,
        releases: None,
    };
    let report = verify(&lock(), &inputs);
    let kinds: Vec<InputKind> = report.checks.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios, InputKind::Measurements]);
    let supplied: Vec<bool> = report.checks.iter().map(TreeCheck::checked).collect();
    assert_eq!(supplied, [false, false, true, false]);
    assert_eq!(report.check(InputKind::Scenarios).unwrap().files_matched(), 2);
}

#[test]
fn lock_diff_marks_changed_missing_extra_refused_and_commit_lines() {
    let c = every_fault();
    let expected = format!(
        "scenarios: 1 of 3 locked files match {PIN}; 2 changed, 1 missing, 1 extra, 1 refused\n\
         ~ a.yaml  3e23e8160039 -> 2e7d2c03a950\n\
         ~ b.yaml  3e23e8160039 -> 2e7d2c03a950\n\
         - m.yaml\n\
         + e.yaml\n\
         ! r.yaml: a FIFO\n\
         ! commit: stamp text\n\
         \x20 note: note text\n"
    );
    assert_eq!(render_diff(&scenarios(), &c), expected);
}
