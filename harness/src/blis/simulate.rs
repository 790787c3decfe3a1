//! One point's run of the child and the metrics file it leaves, read strictly.

use super::prepare::{failure, release_cannot_model, Prepared};
use super::*;

/// Runs one prepared point in a fresh temporary directory (removed afterwards).
/// The bound on a metrics file: a real point's file is kilobytes to a few megabytes (about 300
/// bytes per request, 12N requests); anything larger is refused, never read into memory.
pub const MAX_METRICS_BYTES: u64 = 64 << 20;

/// The point's figures from its record, with the record's metrics hash.
pub(crate) fn summarize_record(
    record: &cache::Record,
    point: &PointSpec,
    prepared: &Prepared,
    opts: &RunOptions,
) -> Result<PointMetrics> {
    let mut summary = (opts.summarize)(&record.file, point.form.warmup(point.concurrency), prepared.expected_requests)?;
    summary.metrics_sha256 = record.metrics_sha256.clone();
    Ok(summary)
}

/// What one run of a point needs besides its options: the private copy of the binary and
/// release files (the program started, and checked before and after every run) and the child's
/// whole environment.
pub(crate) struct Launch<'a> {
    pub(crate) sealed: &'a super::seal::Sealed,
    pub(crate) env: &'a [(String, String)],
}

pub(crate) fn simulate(
    prepared: &Prepared,
    point: &PointSpec,
    opts: &RunOptions,
    launch: &Launch,
) -> Result<(PointMetrics, cache::Record), PointFailure> {
    // A copy changed by an earlier run is not what the key names: nothing more runs on it.
    launch.sealed.check().map_err(|why| failure(FailureKind::SealChanged, format!("not run: {why}")))?;
    let io = |e: std::io::Error| failure(FailureKind::Exit, format!("preparing the run directory: {e}"));
    let dir = tempfile::Builder::new().prefix("blis-point-").tempdir().map_err(io)?;
    if let Some(variant) = &prepared.variant {
        std::fs::write(dir.path().join(&prepared.scenario_name), variant).map_err(io)?;
    }
    if let Some(config) = &prepared.model_config {
        let folder = dir.path().join("model-config");
        std::fs::create_dir_all(&folder).map_err(io)?;
        std::fs::write(folder.join("config.json"), config).map_err(io)?;
    }
    match &prepared.trace {
        Some((header, data)) => {
            std::fs::write(dir.path().join("trace.yaml"), header).map_err(io)?;
            std::fs::write(dir.path().join("trace.csv"), data).map_err(io)?;
        }
        None => std::fs::write(dir.path().join("workload.yaml"), &prepared.workload).map_err(io)?,
    }
    let stderr_path = dir.path().join("stderr.txt");
    let run = pool::ChildRun {
        program: launch.sealed.program(),
        args: prepared.command(dir.path(), opts, point.seed),
        cwd: &opts.blis_root,
        env: launch.env,
        timeout: opts.timeout,
        stderr_path: stderr_path.clone(),
        stdout_path: None,
    };
    // `blis run` or `blis replay`: what the point's command line asked of the binary.
    let subcommand = format!("blis {}", run.args.first().map_or("run", String::as_str));
    let started = std::time::Instant::now();
    let (end, cost) = pool::run_child_measured(&run)
        .map_err(|e| failure(FailureKind::Exit, format!("starting {}: {e}", opts.binary.display())))?;
    ledger::note(&prepared.key, started.elapsed(), &point.label());
    let tail = || pool::tail_lines(&stderr_path, 10);
    let with_tail = |kind, reason: String| PointFailure { kind, reason, stderr_tail: tail() };
    // Whatever the child did, its result is the sealed bytes' only if they are unchanged now
    // (a release that writes its own files would otherwise be cached under the original key).
    if !matches!(end, pool::ChildEnd::Interrupted) {
        launch.sealed.check().map_err(|why| {
            with_tail(FailureKind::SealChanged, format!("{why}: this point's value is not used or cached"))
        })?;
    }
    match end {
        pool::ChildEnd::TimedOut => {
            return Err(with_tail(FailureKind::Timeout, format!("killed after the {:?} timeout", opts.timeout)))
        }
        pool::ChildEnd::Interrupted => return Err(with_tail(FailureKind::Exit, "interrupted".into())),
        pool::ChildEnd::Exited(status) if !status.success() => {
            let tail = tail();
            if let Some(why) = tail.iter().find_map(|l| release_cannot_model(l)) {
                let reason = format!("not modelled by this release: {why} (its own words, exit {status})");
                return Err(PointFailure { kind: FailureKind::NotModelled, reason, stderr_tail: tail });
            }
            return Err(PointFailure {
                kind: FailureKind::Exit,
                reason: format!("{subcommand} exited with {status}"),
                stderr_tail: tail,
            });
        }
        pool::ChildEnd::Exited(_) => {}
    }
    // Never a blocking open or an unbounded read: the child may leave a FIFO, a device or a
    // huge file at the path.
    let bytes = crate::read::regular_file_bounded(&dir.path().join("metrics.json"), MAX_METRICS_BYTES)
        .map_err(|e| with_tail(FailureKind::Metrics, format!("{subcommand} wrote no readable metrics file: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| with_tail(FailureKind::Metrics, format!("the metrics file is not UTF-8: {e}")))?;
    let file = metrics::parse(&text).map_err(|e| with_tail(FailureKind::Metrics, format!("{e:#}")))?;
    let record = cache::Record {
        file,
        cost: cost.map(cache::PointCost::of),
        metrics_sha256: {
            use sha2::Digest;
            binary::hex(&sha2::Sha256::digest(text.as_bytes()))
        },
    };
    let summary = summarize_record(&record, point, prepared, opts)
        .map_err(|e| with_tail(FailureKind::Incomplete, format!("{e:#}")))?;
    Ok((summary, record))
}
