//! `run_points`: every point planned, served from the cache or simulated on the pool, with
//! the gate's second rendering re-running its determinism sample outside the cache.

use super::prepare::{failure, prepare, PrepareError};
use super::progress::Progress;
use super::simulate::{simulate, summarize_record, Launch};
use super::*;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    pub points: usize,
    pub ran: usize,
    pub cached: usize,
    pub failed: usize,
    pub other_shard: usize,
    /// Points the release cannot model (`FailureKind::NotModelled`), not counted as failed.
    pub not_modelled: usize,
    /// Corrupt cache entries found and recomputed.
    pub recomputed_corrupt: usize,
    /// Entries of an earlier cache format found and recomputed.
    pub recomputed_old_format: usize,
    /// Computed points the cache could not store (their values are kept and used).
    pub not_stored: usize,
    pub wall: Duration,
    /// Sum of the per-point run times (what one worker would have spent).
    pub busy: Duration,
}

impl RunSummary {
    /// One line, with times: for the terminal, never for a snapshot.
    pub fn render(&self) -> String {
        let mut line = format!(
            "blis: {} points in {:.2}s ({:.2}s of runs): {} run, {} from cache, {} failed",
            self.points,
            self.wall.as_secs_f64(),
            self.busy.as_secs_f64(),
            self.ran,
            self.cached,
            self.failed
        );
        if self.not_modelled > 0 {
            line += &format!(", {} not modelled by this release", self.not_modelled);
        }
        if self.other_shard > 0 {
            line += &format!(", {} left to other shards", self.other_shard);
        }
        if self.recomputed_corrupt > 0 {
            line += &format!(", {} corrupt cache entries recomputed", self.recomputed_corrupt);
        }
        if self.recomputed_old_format > 0 {
            line += &format!(", {} old-format cache entries recomputed", self.recomputed_old_format);
        }
        if self.not_stored > 0 {
            line += &format!(", {} computed points not stored in the cache", self.not_stored);
        }
        line
    }
}

#[derive(Clone, Debug)]
pub struct RunReport {
    /// One per point, in the order given.
    pub outcomes: Vec<PointOutcome>,
    pub summary: RunSummary,
    /// SHA-256 of the binary as it ran (the sealed copy's): what a report or lock check names.
    pub binary_sha256: String,
    /// The dialect the run found in the binary's help (and for the flag dialect its release).
    pub target: Target,
}

/// Runs every point (or this shard's share), serving what the cache holds. SIGINT and SIGTERM
/// are caught for the whole run, the `--help` probe included: on one, every child's group is
/// killed, every temporary directory (points, probe, the private copy) removed, and the process
/// exits 130.
pub fn run_points(points: &[PointSpec], opts: &RunOptions) -> Result<RunReport, TaskError> {
    let binary = binary::validate(&opts.binary, "running BLIS points")?;
    // The bytes hashed are the bytes run: a binary rebuilt or a release file edited during the
    // run changes nothing this run reads.
    let sealed = seal::Sealed::of(&binary, &opts.blis_root)?;
    run_points_sealed(points, opts, sealed)
}

/// `run_points` in a seal the caller made (the history finds a release's identity from the
/// seal its points then run in). The seal is removed when the run ends, interrupted or not.
pub fn run_points_sealed(
    points: &[PointSpec],
    opts: &RunOptions,
    sealed: seal::Sealed,
) -> Result<RunReport, TaskError> {
    let result = pool::interruptible(|| run_points_caught(points, opts, sealed));
    if pool::interrupted() {
        // Every child's group is killed and every temporary directory removed by now (they
        // are dropped when `run_points_caught` returns); the cache holds only complete entries.
        let _ = writeln!(
            std::io::stderr(),
            "blis: interrupted; running points stopped, their temporary directories removed"
        );
        std::process::exit(130);
    }
    result
}

pub(crate) fn run_points_caught(
    points: &[PointSpec],
    opts: &RunOptions,
    mut sealed: seal::Sealed,
) -> Result<RunReport, TaskError> {
    let started = Instant::now();
    let env = opts.child_environment();
    let target = Target::detect(opts, &sealed, needs_replay(points, opts))?;
    if pool::interrupted() {
        return Err(TaskError::Failed(anyhow::anyhow!("interrupted")));
    }
    let dialect = target.dialect();
    let (files, run_opts) = target.seal_run(opts, &mut sealed)?;
    let launch = Launch { sealed: &sealed, env: &env };
    let base = cache::KeyInputs {
        binary_sha256: sealed.binary_sha256().to_string(),
        env: env.clone(),
        files,
        ..cache::KeyInputs::default()
    };
    let cache = match &opts.cache {
        CacheMode::Off => None,
        CacheMode::ReadWrite(dir) | CacheMode::ReadOnly(dir) => Some(Cache::new(dir)),
    };
    // The first cache problem, said once with the count of points it concerned.
    let store_problem: Mutex<Option<String>> = Mutex::new(None);
    let not_stored = AtomicUsize::new(0);
    if let CacheMode::ReadWrite(dir) = &opts.cache {
        // Even a shard that owns no point leaves a (empty) cache for `cache merge` to find.
        if let Err(e) = std::fs::create_dir_all(dir) {
            *store_problem.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("creating {}: {e}", dir.display()));
        }
    }
    let read_only = matches!(opts.cache, CacheMode::ReadOnly(_));
    let progress = Progress::new(opts.progress, points.len());
    let corrupt = AtomicUsize::new(0);
    let old_format = AtomicUsize::new(0);
    // The gate's second rendering serves what its first rendering stored (cache off: the
    // caller asked for fresh runs, which are then all re-runs).
    let second = match rendering::current() {
        Some(rendering::Rendering::Second { store, determinism }) => Some((store.as_path(), *determinism)),
        _ => None,
    };
    let serve_from_store = second.filter(|_| opts.cache != CacheMode::Off).map(|(store, _)| store);
    let order = longest_first(points);
    // Every shard job computes the same plan from the same points (docs/blis-arm.md, Shards).
    let shard_plan = opts.shard.map(|shard| {
        let keyed: Vec<(String, u64)> = keyed_costs(points, opts, &base, &target).into_iter().flatten().collect();
        let plan = shard::Plan::new(&keyed, shard.count);
        if progress.mode != ProgressMode::Silent {
            progress.line(&plan.share_line(shard));
        }
        (shard, plan)
    });
    let mut outcomes = crate::parallel::parallel_map_in_order(points, &order, opts.workers, |_, point| {
        let point = &*in_form(point, opts);
        let label = point.label();
        let prepared = match prepare(point, &base, &target, opts.latency_model.as_deref()) {
            Ok(p) => p,
            Err(e) => {
                let (kind, reason) = match e {
                    PrepareError::NotModelled(why) => {
                        (FailureKind::NotModelled, format!("not modelled by this release: {why}"))
                    }
                    PrepareError::Input(e) => (FailureKind::Input, format!("{e:#}")),
                };
                let outcome = PointOutcome {
                    key: String::new(),
                    label,
                    result: Err(failure(kind, reason)),
                    cached: false,
                    elapsed: Duration::ZERO,
                    cost: None,
                    run: None,
                    cwd: opts.blis_root.clone(),
                    key_files: Vec::new(),
                };
                progress.finished(&outcome);
                return outcome;
            }
        };
        let record = prepared.record(opts, point.seed, dialect);
        let outcome = |result, cached, elapsed| PointOutcome {
            key: prepared.key.clone(),
            label: label.clone(),
            result,
            cached,
            elapsed,
            cost: None,
            run: Some(record.clone()),
            cwd: opts.blis_root.clone(),
            key_files: prepared.key_files.clone(),
        };
        if pool::interrupted() {
            return outcome(Err(failure(FailureKind::Exit, "interrupted before it started")), false, Duration::ZERO);
        }
        if let Some((shard, _)) = shard_plan.as_ref().filter(|(s, plan)| !plan.owns(*s, &prepared.key)) {
            let reason = format!("belongs to another shard than {}/{}", shard.index, shard.count);
            return outcome(Err(failure(FailureKind::OtherShard, reason)), false, Duration::ZERO);
        }
        if let Some(result) = serve_from_store.and_then(|store| rendering::lookup(store, &prepared.key)) {
            let o = outcome(result, true, Duration::ZERO);
            progress.finished(&o);
            return o;
        }
        if let Some(cache) = &cache {
            let say = |text: String| {
                if progress.mode != ProgressMode::Silent {
                    progress.line(&text);
                }
            };
            match cache.get(&prepared.key) {
                // The record is summarized now, by the current summarizer. A record it cannot
                // summarize was never stored by a run (only successes are), so it is not trusted.
                cache::Lookup::Hit(record) => match summarize_record(&record, point, &prepared, opts) {
                    Ok(metrics) => {
                        let o = PointOutcome { cost: record.cost, ..outcome(Ok(metrics), true, Duration::ZERO) };
                        progress.finished(&o);
                        return o;
                    }
                    Err(e) => {
                        corrupt.fetch_add(1, Ordering::Relaxed);
                        say(format!(
                            "blis: cache entry {} does not summarize ({e:#}), recomputing",
                            cache.entry_path(&prepared.key).display()
                        ));
                    }
                },
                cache::Lookup::Corrupt(why) => {
                    corrupt.fetch_add(1, Ordering::Relaxed);
                    say(format!("blis: corrupt cache entry, recomputing: {why}"));
                }
                cache::Lookup::OldFormat(_) => {
                    old_format.fetch_add(1, Ordering::Relaxed);
                }
                cache::Lookup::Miss => {}
            }
            if read_only {
                let o = outcome(
                    Err(failure(FailureKind::NotCached, "not in the cache (read-only)")),
                    false,
                    Duration::ZERO,
                );
                progress.finished(&o);
                return o;
            }
        }
        progress.running(&label);
        let t = Instant::now();
        let result = simulate(&prepared, point, &run_opts, &launch).map_err(|f| unsealed(f, &sealed));
        let elapsed = t.elapsed();
        let mut cost = None;
        let result = match result {
            Ok((metrics, record)) => {
                cost = record.cost;
                if let Some(cache) = cache.as_ref().filter(|_| !read_only) {
                    // A cache that cannot take the entry costs the next run a recomputation,
                    // never this run its value.
                    if let Err(e) = cache.store(&prepared.key, &record) {
                        not_stored.fetch_add(1, Ordering::Relaxed);
                        store_problem.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(format!("{e:#}"));
                    }
                }
                Ok(metrics)
            }
            Err(f) => Err(f),
        };
        let o = PointOutcome { cost, ..outcome(result, false, elapsed) };
        progress.finished(&o);
        o
    });
    if let Some((store, determinism)) = second {
        rerun_outside_the_cache(points, &mut outcomes, store, determinism, &run_opts, &base, &target, &launch);
    }
    if pool::interrupted() {
        return Err(TaskError::Failed(anyhow::anyhow!("interrupted")));
    }
    let mut summary = RunSummary { points: points.len(), wall: started.elapsed(), ..RunSummary::default() };
    summary.recomputed_corrupt = corrupt.into_inner();
    summary.recomputed_old_format = old_format.into_inner();
    summary.not_stored = not_stored.into_inner();
    for o in &outcomes {
        summary.busy += o.elapsed;
        match &o.result {
            Ok(_) if o.cached => summary.cached += 1,
            Ok(_) => summary.ran += 1,
            Err(f) if f.kind == FailureKind::OtherShard => summary.other_shard += 1,
            Err(f) if f.kind == FailureKind::NotModelled => summary.not_modelled += 1,
            Err(_) => {
                summary.failed += 1;
                if !o.key.is_empty() && !matches!(o.result, Err(PointFailure { kind: FailureKind::NotCached, .. })) {
                    summary.ran += 1;
                }
            }
        }
    }
    if let Some(problem) = store_problem.into_inner().unwrap_or_else(|e| e.into_inner()) {
        // Said once, whatever the mode: the next run will recompute these points.
        let _ = writeln!(
            std::io::stderr(),
            "blis: the cache {} could not store {} computed point(s) (their values are used): {problem}",
            cache.as_ref().map(|c| c.dir().display().to_string()).unwrap_or_default(),
            summary.not_stored
        );
    }
    if progress.mode != ProgressMode::Silent {
        progress.line(&summary.render());
    }
    if let Some(rendering::Rendering::First { store }) = rendering::current() {
        rendering::record(store, &outcomes)
            .map_err(|e| TaskError::Failed(e.context("recording the gate's run store")))?;
    }
    let binary_sha256 = sealed.binary_sha256().to_string();
    drop(sealed);
    Ok(RunReport { outcomes, summary, binary_sha256, target })
}

/// A failure's reason and stderr with the seal's paths put back as the user named them.
fn unsealed(mut f: PointFailure, sealed: &seal::Sealed) -> PointFailure {
    f.reason = sealed.unseal(&f.reason);
    for line in &mut f.stderr_tail {
        *line = sealed.unseal(line);
    }
    f
}

/// The files a point's directory holds when its command starts, as (path relative to
/// `<point-dir>`, text): the scenario variant or the point's own model config, and the
/// workload. What someone re-running the recorded command by hand writes there first.
pub fn point_files(point: &PointSpec, opts: &RunOptions) -> Result<Vec<(String, String)>, TaskError> {
    let binary = binary::validate(&opts.binary, "running BLIS points")?;
    // Kept to the end: the flag dialect reads the release's files from the seal.
    let sealed = seal::Sealed::of(&binary, &opts.blis_root)?;
    let target = Target::detect(opts, &sealed, needs_replay(std::slice::from_ref(point), opts))?;
    // Only the files are wanted here, not the key.
    let prepared = match prepare(point, &cache::KeyInputs::default(), &target, opts.latency_model.as_deref()) {
        Ok(p) => p,
        Err(PrepareError::NotModelled(why)) => return Err(TaskError::Failed(anyhow::anyhow!("not modelled: {why}"))),
        Err(PrepareError::Input(e)) => return Err(TaskError::Failed(e)),
    };
    let mut files = Vec::new();
    if let Some(variant) = &prepared.variant {
        files.push((prepared.scenario_name.clone(), variant.clone()));
    }
    if let Some(config) = &prepared.model_config {
        files.push(("model-config/config.json".to_string(), config.clone()));
    }
    match &prepared.trace {
        Some((header, data)) => {
            files.push(("trace.yaml".to_string(), header.clone()));
            files.push(("trace.csv".to_string(), data.clone()));
        }
        None => files.push(("workload.yaml".to_string(), prepared.workload.clone())),
    }
    Ok(files)
}

/// Whether a point runs in a replayed form (per-request vectors): only then is `blis replay`
/// probed.
fn needs_replay(points: &[PointSpec], opts: &RunOptions) -> bool {
    points.iter().any(|p| in_form(p, opts).form != workload::LengthForm::Uniform)
}

/// The point as it runs: in `--form`'s form where one is given.
pub(crate) fn in_form<'a>(point: &'a PointSpec, opts: &RunOptions) -> std::borrow::Cow<'a, PointSpec> {
    match opts.form {
        Some(form) if form != point.form => std::borrow::Cow::Owned(PointSpec { form, ..point.clone() }),
        _ => std::borrow::Cow::Borrowed(point),
    }
}

/// A point's cost estimate (`cost::estimate`), for scheduling and shard plans: a long point
/// never starts last, and shards get equal work.
pub fn estimated_cost(point: &PointSpec) -> u64 {
    cost::estimate(point, cost::scenario_tp(&point.scenario_file))
}

/// Each point's content key and estimated cost as it would run under `opts` (`None` where its
/// inputs cannot be read or the release cannot model it: no shard runs it).
pub(crate) fn keyed_costs(
    points: &[PointSpec],
    opts: &RunOptions,
    base: &cache::KeyInputs,
    target: &Target,
) -> Vec<Option<(String, u64)>> {
    points
        .iter()
        .map(|p| {
            let p = &*in_form(p, opts);
            prepare(p, base, target, opts.latency_model.as_deref())
                .ok()
                .map(|prepared| (prepared.key, estimated_cost(p)))
        })
        .collect()
}

/// `keyed_costs` for the binary `opts` names, without running a point: what the shard plan
/// of a run of `points` is made from (`cargo xtask bench shards`).
pub fn planned_keys(points: &[PointSpec], opts: &RunOptions) -> Result<Vec<Option<(String, u64)>>, TaskError> {
    let binary = binary::validate(&opts.binary, "planning BLIS shards")?;
    let mut sealed = seal::Sealed::of(&binary, &opts.blis_root)?;
    let target = Target::detect(opts, &sealed, needs_replay(points, opts))?;
    let (files, _) = target.seal_run(opts, &mut sealed)?;
    let base = cache::KeyInputs {
        binary_sha256: sealed.binary_sha256().to_string(),
        env: opts.child_environment(),
        files,
        ..cache::KeyInputs::default()
    };
    Ok(keyed_costs(points, opts, &base, &target))
}

/// The indices of `points`, most expensive first (ties in the given order).
pub(crate) fn longest_first(points: &[PointSpec]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_cached_key(|&i| std::cmp::Reverse(estimated_cost(&points[i])));
    order
}

/// The second rendering's determinism check: the chosen points (`rendering::chosen`) are run
/// again outside the cache and their fresh results replace the stored ones, so a simulator
/// that answers differently makes the two renderings differ. With the cache off every point
/// already ran fresh: each is only compared and noted.
pub(crate) fn rerun_outside_the_cache(
    points: &[PointSpec],
    outcomes: &mut [PointOutcome],
    store: &Path,
    determinism: rendering::Determinism,
    opts: &RunOptions,
    base: &cache::KeyInputs,
    target: &Target,
    launch: &Launch,
) {
    let already_fresh = opts.cache == CacheMode::Off;
    let chosen = if already_fresh {
        outcomes.iter().enumerate().filter(|(_, o)| !o.key.is_empty() && !o.cached).map(|(i, _)| i).collect()
    } else {
        rendering::chosen(points, outcomes, determinism)
    };
    let mut order: Vec<usize> = (0..chosen.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(estimated_cost(&points[chosen[j]])));
    let keys: Vec<&str> = outcomes.iter().map(|o| o.key.as_str()).collect();
    type Fresh = Option<(Result<PointMetrics, PointFailure>, Duration, bool)>;
    let fresh: Vec<Fresh> = pool::interruptible(|| {
        crate::parallel::parallel_map_in_order(&chosen, &order, opts.workers, |_, &i| {
            if already_fresh {
                return None;
            }
            // Re-run by an earlier task of this gate run: once per point and run is enough.
            if let Some(result) = rendering::earlier_rerun(store, keys[i]) {
                return Some((result, Duration::ZERO, true));
            }
            if pool::interrupted() {
                return Some((Err(failure(FailureKind::Exit, "interrupted before it started")), Duration::ZERO, false));
            }
            let point = &*in_form(&points[i], opts);
            let prepared = prepare(point, base, target, opts.latency_model.as_deref()).ok()?;
            let t = Instant::now();
            let result = simulate(&prepared, point, opts, launch).map(|(metrics, _record)| metrics);
            Some((result, t.elapsed(), false))
        })
    });
    for (&i, fresh) in chosen.iter().zip(fresh) {
        let o = &mut outcomes[i];
        let stored = rendering::lookup(store, &o.key);
        let mut earlier = false;
        if let Some((result, elapsed, reused)) = fresh {
            o.result = result;
            o.cached = false;
            o.elapsed = elapsed;
            earlier = reused;
            if !reused {
                // Losing this only costs a later task a second re-run.
                let _ = rendering::keep_rerun(store, o);
            }
        }
        rendering::note_rerun(&o.key, &o.label, stored.as_ref(), &o.result, earlier);
    }
}
