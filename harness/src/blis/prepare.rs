//! A point stated to the binary in the dialect its help describes: its folder's files, its
//! command line and its content key, or why this release cannot model it.

use super::*;

/// Which command line the binary takes, and for the flag dialect what its release ships.
#[derive(Clone, Debug)]
pub enum Target {
    Scenario,
    Flags(dialect::Release),
}

impl Target {
    pub fn dialect(&self) -> dialect::Dialect {
        match self {
            Target::Scenario => dialect::Dialect::Scenario,
            Target::Flags(_) => dialect::Dialect::Flags,
        }
    }

    /// Reads the dialect from `blis run --help` of the sealed copy, run in the sealed root, and
    /// for the flag dialect the release files of that root. `blis replay --help` is probed only
    /// when `needs_replay` (a point in a replayed form): the uniform form never asks.
    pub fn detect(opts: &RunOptions, sealed: &seal::Sealed, needs_replay: bool) -> Result<Target, TaskError> {
        let env = opts.child_environment();
        let (program, root, digest) = (sealed.program(), sealed.root(), sealed.binary_sha256());
        let help = dialect::detect_help(program, digest, root, &env)
            .map_err(|e| TaskError::Failed(anyhow::anyhow!(sealed.unseal(&e))))?;
        Ok(match help.dialect {
            dialect::Dialect::Scenario => Target::Scenario,
            dialect::Dialect::Flags => Target::Flags(
                dialect::Release::load(
                    root,
                    &help,
                    needs_replay
                        && dialect::replay_supported(program, digest, root, &env, opts.timeout)
                            .map_err(|e| TaskError::Failed(anyhow::anyhow!(sealed.unseal(&e))))?,
                    dialect::workload_spec_gap(program, digest)?,
                )
                .map_err(|e| anyhow::anyhow!(sealed.unseal(&format!("{e:#}"))))
                .with_context(|| format!("{} takes the flag dialect; its release files", opts.binary.display()))?,
            ),
        })
    }

    /// The folders every point of this target reads beyond the release files, sealed: the
    /// catalog and registry trees (scenario dialect; keyed by the copy's manifest hash, a
    /// vendored tree's lock hash). Returns their key entries and the options the points run
    /// with (the sealed root, and the sealed trees in place of the originals).
    pub(crate) fn seal_run(
        &self,
        opts: &RunOptions,
        sealed: &mut seal::Sealed,
    ) -> Result<(Vec<cache::KeyedFile>, RunOptions), TaskError> {
        let mut files = sealed.files().to_vec();
        let mut run = RunOptions { blis_root: sealed.root().to_path_buf(), ..opts.clone() };
        if let Target::Scenario = self {
            let (catalog, path) = sealed.tree("catalog", &opts.catalog)?;
            files.push(catalog);
            run.catalog = path;
            let (registry, path) = sealed.tree("registry", &opts.registry)?;
            files.push(registry);
            run.registry = path;
        }
        Ok((files, run))
    }
}

/// The files one point's run needs, built before anything runs.
pub(crate) struct Prepared {
    pub(crate) key: String,
    /// The files and trees in the key beyond the point's own text.
    pub(crate) key_files: Vec<cache::KeyedFile>,
    pub(crate) scenario_name: String,
    /// The scenario variant (scenario dialect) or nothing (flag dialect).
    pub(crate) variant: Option<String>,
    /// The deployment flags (flag dialect).
    pub(crate) flags: Vec<String>,
    /// The TraceV2 header and data (vectors form: `blis replay`).
    pub(crate) trace: Option<(String, String)>,
    pub(crate) unexpressed: Vec<String>,
    pub(crate) expressed: Vec<String>,
    /// The model config the point writes (`<point-dir>/model-config/config.json`), and the
    /// SHA-256 of the one the run reads.
    pub(crate) model_config: Option<String>,
    pub(crate) model_config_sha256: Option<String>,
    pub(crate) workload: String,
    pub(crate) expected_requests: u64,
    pub(crate) form: workload::LengthForm,
    /// The metrics file flag and whether `--timeout -1` is passed (what the help lists).
    pub(crate) metrics_flag: &'static str,
    pub(crate) timeout: bool,
}

pub(crate) enum PrepareError {
    NotModelled(String),
    Input(anyhow::Error),
}

pub(crate) fn prepare(
    point: &PointSpec,
    base: &cache::KeyInputs,
    target: &Target,
    latency_model: Option<&str>,
) -> Result<Prepared, PrepareError> {
    let input = PrepareError::Input;
    // A pin the binary cannot take fails before anything else is read: it is the run's input.
    let latency_flags = match target {
        Target::Scenario => match latency_model {
            Some(name) => {
                return Err(input(anyhow::anyhow!(
                    "latency model `{name}` is pinned, but the scenario dialect has no --latency-model \
                     (the scenario's coefficients choose it)"
                )))
            }
            None => Vec::new(),
        },
        Target::Flags(release) => release.latency_model_flags(latency_model).map_err(|e| input(anyhow::anyhow!(e)))?,
    };
    // Bounded and never blocking: a scenario swapped for a FIFO or a device is an error.
    let text = crate::read::text(&point.scenario_file)
        .with_context(|| format!("reading scenario {}", point.scenario_file.display()))
        .map_err(input)?;
    let trace = match (point.form, target) {
        (workload::LengthForm::Uniform, _) => None,
        (_, Target::Flags(release)) if release.replay => Some(workload::trace_v2(point).map_err(input)?),
        (_, _) => {
            return Err(PrepareError::NotModelled(
                "per-request length vectors need TraceV2 replay (`blis replay --trace-header --trace-data \
                 --session-mode`), which this binary does not offer"
                    .into(),
            ))
        }
    };
    let workload = match &trace {
        Some((header, data)) => format!("{header}{data}"),
        None => workload::workload_spec(point).map_err(input)?,
    };
    let scenario_name = point.scenario_name();
    let mut inputs = cache::KeyInputs {
        scenario_name: scenario_name.clone(),
        workload: workload.clone(),
        seed: point.seed,
        ..base.clone()
    };
    let mut model_config = None;
    let mut model_config_sha256 = None;
    let mut expressed = Vec::new();
    let (variant, flags, unexpressed) = match target {
        Target::Scenario => {
            let variant = variant::scenario_variant(&text, &point.engine)
                .with_context(|| format!("scenario {}", point.scenario_file.display()))
                .map_err(input)?;
            inputs.deployment = variant.clone();
            (Some(variant), Vec::new(), Vec::new())
        }
        Target::Flags(release) => match dialect::flag_deployment(&text, &point.engine, release) {
            Ok(d) => {
                let mut flags = d.flags(&point.engine);
                flags.extend(latency_flags);
                inputs.deployment = flags.join(" ");
                // The model config the run reads (shipped or written per point) is among them.
                inputs.files.extend(d.key_files);
                model_config = d.model_config;
                model_config_sha256 = Some(d.model_config_sha256);
                expressed = d.expressed;
                (None, flags, d.unexpressed)
            }
            Err(Ok(dialect::NotModelled(why))) => return Err(PrepareError::NotModelled(why)),
            Err(Err(e)) => return Err(input(e.context(format!("scenario {}", point.scenario_file.display())))),
        },
    };
    let key = inputs.key();
    let expected_requests = point.form.requests(point.concurrency);
    let key_files = inputs.files;
    let (metrics_flag, timeout) = match target {
        Target::Scenario => ("--metrics-path", true),
        Target::Flags(release) => (release.metrics_flag, release.timeout),
    };
    Ok(Prepared {
        key,
        key_files,
        scenario_name,
        variant,
        flags,
        trace,
        unexpressed,
        expressed,
        model_config,
        model_config_sha256,
        workload,
        expected_requests,
        form: point.form,
        metrics_flag,
        timeout,
    })
}

impl Prepared {
    /// The deployment flags with `<point-dir>` (a point's own model config) made `dir`.
    pub(crate) fn flags_in(&self, dir: &Path) -> Vec<String> {
        let dir = dir.display().to_string();
        self.flags
            .iter()
            .map(|f| f.strip_prefix(POINT_DIR).map_or_else(|| f.clone(), |rest| dir.clone() + rest))
            .collect()
    }

    pub(crate) fn command(&self, dir: &Path, opts: &RunOptions, seed: u64) -> Vec<String> {
        match &self.variant {
            Some(_) => command_line(&self.scenario_name, dir, opts, seed),
            None if self.trace.is_some() => {
                // `blis replay` has no --workload-spec and no --timeout (follow-up rounds get a
                // fixed 300 s deadline: see workload::TRACE_CAVEAT). Its horizon defaults to twice the latest
                // trace arrival, 600 s when all are zero (`cmd/replay.go`,
                // computeHorizonFromMaxArrival): long points need the largest tick instead.
                let d = |name: &str| dir.join(name).display().to_string();
                let mut args = vec!["replay".to_string(), "--trace-header".into(), d("trace.yaml")];
                args.extend(["--trace-data".into(), d("trace.csv"), "--session-mode".into(), "closed-loop".into()]);
                args.extend(self.flags_in(dir));
                args.extend(["--horizon".into(), i64::MAX.to_string()]);
                args.extend(["--seed".into(), seed.to_string(), "--metrics-path".into(), d("metrics.json")]);
                args.extend(["--log".into(), "error".into()]);
                args
            }
            None => {
                let mut args = vec!["run".to_string()];
                args.extend(self.flags_in(dir));
                args.extend(common_flags(dir, seed, self.metrics_flag, self.timeout));
                args
            }
        }
    }

    pub(crate) fn record(&self, opts: &RunOptions, seed: u64, dialect: dialect::Dialect) -> PointRun {
        use sha2::Digest;
        // Absolute: the command runs from the blis root, not from where the user gave the path.
        let binary = std::path::absolute(&opts.binary).unwrap_or_else(|_| opts.binary.clone());
        let mut command = vec![binary.display().to_string()];
        command.extend(self.command(Path::new(POINT_DIR), opts, seed));
        PointRun {
            dialect: dialect.name(),
            form: self.form.name(),
            command,
            workload_sha256: binary::hex(&sha2::Sha256::digest(self.workload.as_bytes())),
            unexpressed: self.unexpressed.clone(),
            expressed: self.expressed.clone(),
            model_config_sha256: self.model_config_sha256.clone(),
        }
    }
}

/// `--workload-spec ... --timeout -1 --log error`: the flags both dialects share. The metrics
/// file is named by the flag the binary lists (`--metrics-path`, or `--results-path` before
/// v0.7.0); `--timeout -1` (no per-request deadline) only where the help lists `--timeout`:
/// releases before v0.7.10 have no deadline at all, which is what -1 asks for.
pub(crate) fn common_flags(dir: &Path, seed: u64, metrics_flag: &str, timeout: bool) -> Vec<String> {
    let d = |p: &Path| p.display().to_string();
    let mut args = vec![
        "--workload-spec".into(),
        d(&dir.join("workload.yaml")),
        "--seed".into(),
        seed.to_string(),
        metrics_flag.into(),
        d(&dir.join("metrics.json")),
    ];
    if timeout {
        args.extend(["--timeout".into(), "-1".into()]);
    }
    args.extend(["--log".into(), "error".into()]);
    args
}

pub(crate) fn failure(kind: FailureKind, reason: impl Into<String>) -> PointFailure {
    PointFailure { kind, reason: reason.into(), stderr_tail: Vec::new() }
}

/// The command line of the scenario dialect (the latency-kernel contract).
pub fn command_line(scenario_name: &str, dir: &Path, opts: &RunOptions, seed: u64) -> Vec<String> {
    let d = |p: &Path| p.display().to_string();
    let mut args = vec![
        "run".into(),
        "--scenario".into(),
        scenario_name.into(),
        "--scenarios".into(),
        d(dir),
        "--catalog".into(),
        d(&opts.catalog),
        "--registry".into(),
        d(&opts.registry),
    ];
    args.extend(common_flags(dir, seed, "--metrics-path", true));
    args
}

/// A release's own fatal line saying it has no configuration for the point's GPU or model
/// (inference-sim `cmd/root.go` @ f90a1e3a: `logrus.Fatalf("Failed to load hardware config: %v")`
/// and `"Failed to load model config: %v"`), as logrus prints it (`time="..." level=fatal
/// msg="..."`): the message, unquoted.
pub(crate) fn release_cannot_model(line: &str) -> Option<String> {
    let (_, msg) = line.split_once("level=fatal msg=")?;
    let msg = msg.strip_prefix('"').and_then(|m| m.strip_suffix('"')).unwrap_or(msg).replace("\\\"", "\"");
    let no_config =
        ["Failed to load hardware config: ", "Failed to load model config: "].iter().any(|p| msg.starts_with(p));
    // A release whose spec structs lack a field the arm writes (`concurrency` before v0.7.0):
    // the reader's own words, `field X not found in type workload.ClientSpec`.
    let no_field = msg.starts_with("Failed to load workload spec: ")
        && msg.contains("field ")
        && msg.contains(" not found in type workload.");
    (no_config || no_field).then_some(msg)
}

#[cfg(test)]
mod release_words {
    #[test]
    fn a_release_saying_it_has_no_config_is_not_modelled() {
        // The line inference-sim f90a1e3a prints for `--hardware FOO` (run by hand).
        let real = r#"time="2026-12-01T21:44:13Z" level=fatal msg="Failed to load hardware config: GPU \"FOO\" not found in hardware config (available: [A100-80 A100-SXM H100 L40S])""#;
        assert_eq!(
            super::release_cannot_model(real).as_deref(),
            Some(
                r#"Failed to load hardware config: GPU "FOO" not found in hardware config (available: [A100-80 A100-SXM H100 L40S])"#
            )
        );
        assert!(
            super::release_cannot_model(r#"level=fatal msg="Failed to load model config: no config.json""#).is_some()
        );
        assert_eq!(super::release_cannot_model(r#"level=fatal msg="workload spec: unknown field""#), None);
        assert_eq!(super::release_cannot_model("Failed to load hardware config: GPU"), None);
    }
}

#[cfg(test)]
mod latency_pin {
    use super::*;

    /// A flag-dialect release folder (one GPU, one model) and its help, written for the test.
    fn release(dir: &Path, latency_line: &str) -> Target {
        std::fs::write(dir.join("hardware_config.json"), r#"{"H100": {}}"#).unwrap();
        std::fs::write(dir.join("defaults.yaml"), "defaults: {}\n").unwrap();
        let model = dir.join("model_configs/synthetic-model");
        std::fs::create_dir_all(&model).unwrap();
        let config =
            r#"{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "torch_dtype": "bfloat16"}"#;
        std::fs::write(model.join("config.json"), config).unwrap();
        let help = format!(
            "  --workload-spec string\n  --seed int\n  --results-path string\n  --log string\n  --model string\n  \
             --hardware string\n  --tp int\n  --model-config-folder string\n  --max-num-running-reqs int\n  \
             --max-num-scheduled-tokens int\n  --block-size-in-tokens int\n{latency_line}"
        );
        let help = dialect::help_facts(&help).unwrap();
        Target::Flags(dialect::Release::load(dir, &help, false, None).unwrap())
    }

    fn point(dir: &Path) -> PointSpec {
        let scenario = dir.join("s.yaml");
        std::fs::write(&scenario, double::SYNTHETIC_SCENARIO).unwrap();
        PointSpec {
            scenario_file: scenario,
            engine: EngineSettings {
                max_num_seqs: 8,
                max_num_batched_tokens: 512,
                block_size: 16,
                enable_prefix_caching: false,
            },
            isl: 64,
            osl: 16,
            concurrency: 1,
            seed: 0,
            input_lens: vec![60; 10],
            output_lens: vec![15; 10],
            form: workload::LengthForm::Uniform,
        }
    }

    #[test]
    fn a_pinned_latency_model_is_passed_and_keyed() {
        let dir = tempfile::tempdir().unwrap();
        let target = release(
            dir.path(),
            "  --latency-model string   Latency model backend: roofline (default), trained-physics (default \"roofline\")\n",
        );
        let p = point(dir.path());
        let base = cache::KeyInputs::default();
        let prepared = |pin: Option<&str>| prepare(&p, &base, &target, pin);
        let Ok(none) = prepared(None) else { panic!("no pin must prepare") };
        let Ok(roofline) = prepared(Some("roofline")) else { panic!("a listed pin must prepare") };
        let Ok(physics) = prepared(Some("trained-physics")) else { panic!("a listed pin must prepare") };
        assert!(!none.flags.iter().any(|f| f == "--latency-model"));
        let pair = |p: &Prepared| p.flags.windows(2).find(|w| w[0] == "--latency-model").map(|w| w[1].clone());
        assert_eq!(pair(&roofline).as_deref(), Some("roofline"));
        // Each pin is its own key; the default pinned explicitly is not the unpinned key either
        // (a later release may change its default: v0.7.13).
        let keys = [&none.key, &roofline.key, &physics.key];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // The command names the release's metrics flag and passes no --timeout (none listed).
        let command = roofline.command(Path::new(POINT_DIR), &RunOptions::new("b".into(), "c".into(), "r".into()), 0);
        assert!(command.iter().any(|a| a == "--results-path"), "{command:?}");
        assert!(!command.iter().any(|a| a == "--timeout" || a == "--metrics-path"), "{command:?}");
        match prepared(Some("blackbox")) {
            Err(PrepareError::Input(e)) => {
                let e = format!("{e:#}");
                assert!(e.contains("blackbox") && e.contains("roofline, trained-physics"), "{e}");
            }
            _ => panic!("a pin the release does not list is an input error"),
        }
    }

    #[test]
    fn a_pin_on_a_release_without_the_flag_is_an_input_error() {
        let dir = tempfile::tempdir().unwrap();
        let target = release(dir.path(), "");
        let Target::Flags(r) = &target else { unreachable!() };
        assert_eq!(r.latency_model_run(None), dialect::BUILT_IN_LATENCY_MODEL);
        let p = point(dir.path());
        match prepare(&p, &cache::KeyInputs::default(), &target, Some("roofline")) {
            Err(PrepareError::Input(e)) => assert!(format!("{e}").contains("lists no --latency-model"), "{e}"),
            _ => panic!("expected an input error"),
        }
        assert!(prepare(&p, &cache::KeyInputs::default(), &target, None).is_ok());
    }

    #[test]
    fn a_release_without_the_spec_fields_models_no_point() {
        let dir = tempfile::tempdir().unwrap();
        let Target::Flags(mut r) = release(dir.path(), "") else { unreachable!() };
        r.spec_gap = dialect::spec_gap_of(br#"yaml:"version" yaml:"clients""#);
        let target = Target::Flags(r);
        match prepare(&point(dir.path()), &cache::KeyInputs::default(), &target, None) {
            Err(PrepareError::NotModelled(why)) => assert!(why.contains("`concurrency`"), "{why}"),
            _ => panic!("expected not modelled"),
        }
    }

    #[test]
    fn the_release_words_for_a_spec_field_it_lacks() {
        let line = r#"time="x" level=fatal msg="Failed to load workload spec: parsing workload spec: yaml: unmarshal errors:\n  line 7: field concurrency not found in type workload.ClientSpec""#;
        assert!(release_cannot_model(line).is_some_and(|m| m.contains("field concurrency not found")));
    }
}
