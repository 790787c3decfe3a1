//! Point specs from the committed numpy fixtures (`testdata/inferencex-workloads/seed<k>.json`,
//! `harness::fixtures`): the length vectors of a point are the fixture's `input_lens` and
//! `output_lens` for its (isl, osl, concurrency) at the chosen seed (0 for the benchmark's
//! own workload, 1..4 for the sensitivity rows).

use super::{EngineSettings, PointSpec};
use crate::fixtures::file::{self, Fixture};
use anyhow::{anyhow, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The fixtures of the seeds asked for, loaded once.
pub struct FixtureSet {
    dir: PathBuf,
    by_seed: BTreeMap<u64, Fixture>,
}

impl FixtureSet {
    pub fn load(dir: &Path, seeds: &[u32]) -> Result<FixtureSet> {
        let mut by_seed = BTreeMap::new();
        for &seed in seeds {
            let path = dir.join(file::file_name(seed));
            let fixture = file::load(&path).map_err(|e| anyhow!("{e}"))?;
            by_seed.insert(u64::from(seed), fixture);
        }
        Ok(FixtureSet { dir: dir.to_path_buf(), by_seed })
    }

    /// Seeds 0..4 from `testdata/inferencex-workloads`.
    pub fn committed() -> Result<FixtureSet> {
        FixtureSet::load(&crate::fixtures::default_dir(), &crate::fixtures::SEEDS)
    }

    /// The (input, output) vectors of one point at one seed.
    pub fn lengths(&self, seed: u64, isl: u32, osl: u32, concurrency: u32) -> Result<(Vec<u32>, Vec<u32>)> {
        let fixture = self
            .by_seed
            .get(&seed)
            .ok_or_else(|| anyhow!("seed {seed} fixture not loaded from {}", crate::paths::display(&self.dir)))?;
        let p = fixture
            .points
            .iter()
            .find(|p| p.point.isl == isl && p.point.osl == osl && p.point.concurrency == concurrency)
            .ok_or_else(|| {
                anyhow!(
                    "{}: no point {isl}:{osl} at concurrency {concurrency}",
                    crate::paths::display(&self.dir.join(file::file_name(seed as u32)))
                )
            })?;
        let narrow = |v: &[i64], what: &str| -> Result<Vec<u32>> {
            v.iter().map(|&l| u32::try_from(l).with_context(|| format!("{what} length {l} out of range"))).collect()
        };
        Ok((narrow(&p.input_lens, "input")?, narrow(&p.output_lens, "output")?))
    }

    pub fn point(
        &self,
        scenario_file: PathBuf,
        engine: EngineSettings,
        isl: u32,
        osl: u32,
        concurrency: u32,
        seed: u64,
    ) -> Result<PointSpec> {
        let (input_lens, output_lens) = self.lengths(seed, isl, osl, concurrency)?;
        Ok(PointSpec {
            scenario_file,
            engine,
            isl,
            osl,
            concurrency,
            seed,
            input_lens,
            output_lens,
            form: Default::default(),
        })
    }

    /// The same point with the vectors (and seed) of another numpy seed: the sensitivity
    /// table's `reseed`.
    pub fn reseed(&self, point: &PointSpec, seed: u64) -> Result<PointSpec> {
        self.point(point.scenario_file.clone(), point.engine, point.isl, point.osl, point.concurrency, seed)
    }
}
