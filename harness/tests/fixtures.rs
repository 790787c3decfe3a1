//! The committed InferenceX workload fixtures, one trial per seed and point
//! (`fixtures/seed0/1k1k-c64`), so `cargo test -p harness --test fixtures -- 8k1k` runs a group.
//! Every file that cannot be collected becomes a failing trial of its own, so all collection
//! errors show in one run.

use harness::fixtures::{self, check, file, points};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use oracles::workload::{Params, WorkloadPoint};
use std::path::PathBuf;
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, trials()).exit();
}

fn trials() -> Vec<Trial> {
    let dir = fixtures::default_dir();
    let mut trials = vec![derivation_trial()];
    let list = match points::load(&dir.join(points::FILE_NAME)) {
        Ok(list) => list,
        Err(err) => {
            let message = format!("{err:#}");
            trials.push(Trial::test("fixtures/points", move || Err(message.into())));
            return trials;
        }
    };
    let listed = Arc::new(list.points());
    for seed in fixtures::SEEDS {
        let path = dir.join(file::file_name(seed));
        let fixture = match file::load(&path) {
            Ok(fixture) => Arc::new(fixture),
            Err(err) => {
                let message = err.to_string();
                trials.push(Trial::test(format!("fixtures/seed{seed}"), move || Err(message.into())));
                continue;
            }
        };
        for point in listed.iter().copied() {
            let fixture = Arc::clone(&fixture);
            trials.push(Trial::test(format!("fixtures/seed{seed}/{}", point.label()), move || {
                point_matches_numpy_draw(&fixture, seed, point)
            }));
        }
        let listed = Arc::clone(&listed);
        trials.push(Trial::test(format!("fixtures/seed{seed}/canonical"), move || {
            file_is_what_generate_writes(path, seed, &listed)
        }));
    }
    trials
}

fn point_matches_numpy_draw(fixture: &file::Fixture, seed: u32, point: WorkloadPoint) -> Result<(), Failed> {
    let found = fixture
        .points
        .iter()
        .find(|p| p.point == point)
        .ok_or_else(|| format!("seed {seed}: point {point} is in points.json but not in the file"))?;
    let expected = check::generate(Params::inferencex(seed), &[point]).map_err(|e| format!("{e:#}"))?;
    let found = file::Fixture { params: fixture.params, points: vec![found.clone()] };
    let differences = check::compare(&expected, &found);
    if differences.is_empty() {
        Ok(())
    } else {
        Err(differences.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n").into())
    }
}

/// The whole file: header, point set and order as points.json, and byte-identical to `generate`.
fn file_is_what_generate_writes(path: PathBuf, seed: u32, listed: &[WorkloadPoint]) -> Result<(), Failed> {
    let result = check::check_seed(path.parent().unwrap(), seed, listed).map_err(|e| format!("{e:#}"))?;
    if result.ok() {
        Ok(())
    } else {
        let mut lines = vec![result.summary()];
        lines.extend(result.differences.iter().map(ToString::to_string));
        Err(lines.join("\n").into())
    }
}

/// With the corpus, the committed point list must still equal the derivation.
fn derivation_trial() -> Trial {
    Trial::ignorable_test("fixtures/points/derivation", || {
        let Some(dir) = std::env::var_os("BLIS_MEASUREMENTS").filter(|v| !v.is_empty()) else {
            return Ok(Completion::ignored_with("needs BLIS_MEASUREMENTS"));
        };
        let derived = points::derive(&PathBuf::from(dir)).map_err(|e| format!("{e:#}"))?;
        let committed = points::load(&fixtures::default_dir().join(points::FILE_NAME)).map_err(|e| format!("{e:#}"))?;
        let diffs = points::differences(&committed, &derived.list);
        if !diffs.is_empty() {
            return Err(diffs.join("\n").into());
        }
        // docs/upstream.md §2: 29 over every framework, 28 from vLLM alone.
        let (all, vllm) = (derived.list.points.len(), derived.list.count_for("vllm"));
        if (all, vllm) != (29, 28) {
            return Err(format!("derived {all} points ({vllm} vllm), upstream printed 29 (28 vllm)").into());
        }
        Ok(Completion::Completed)
    })
}
