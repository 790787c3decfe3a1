//! The input flags shared by every task that reads third-party data.

use std::path::PathBuf;

/// The data inputs: the corpora and the three trees (`lock verify` takes exactly these).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct DataArgs {
    /// Folder of the measurement corpora [env: BLIS_MEASUREMENTS; default: testdata/measurements
    /// once `cargo xtask vendor --fetch` has fetched it]
    #[arg(long, value_name = "DIR")]
    pub measurements: Option<PathBuf>,
    /// blis-catalog tree [env: BLIS_CATALOG; default: testdata/catalog]
    #[arg(long, value_name = "DIR")]
    pub catalog: Option<PathBuf>,
    /// blis-registry tree [env: BLIS_REGISTRY; default: testdata/registry]
    #[arg(long, value_name = "DIR")]
    pub registry: Option<PathBuf>,
    /// Scenario files [env: BLIS_SCENARIOS; default: testdata/scenarios]
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
}

/// Every input flag: the data inputs and the `blis` binary.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct InputArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// The `blis` binary [env: BLIS_BIN]
    #[arg(long, value_name = "PATH")]
    pub blis: Option<PathBuf>,
    /// A folder of BLIS releases: one sub-folder per release, named by its tag, each holding
    /// `blis` and the files it reads from its working directory, as
    /// ../shared/blis-releases/unpack.sh lays them out (`cargo xtask history`, the gate's
    /// blis-release/<tag>/ figures) [env: BLIS_RELEASES_DIR]
    #[arg(long, value_name = "DIR")]
    pub releases: Option<PathBuf>,
}

impl InputArgs {
    /// The inputs, resolved. An explicitly given flag or variable that does not hold what it
    /// must ends the command here, before any work: exit 1, naming it (README, exit codes).
    pub fn resolve(&self) -> harness::inputs::Inputs {
        let inputs = self.resolve_unchecked();
        if let Err(e) = inputs.check_supplied() {
            eprintln!("error: {e}");
            std::process::exit(harness::task::exit::FAILED.into());
        }
        inputs
    }

    fn resolve_unchecked(&self) -> harness::inputs::Inputs {
        harness::inputs::Inputs::from_process(&self.flags())
    }

    /// Every input flag given, as harness takes them.
    pub fn flags(&self) -> harness::inputs::Flags {
        harness::inputs::Flags { releases: self.releases.clone(), ..self.data.flags(self.blis.clone()) }
    }
}

impl DataArgs {
    /// The flags as harness takes them, with `blis` as given.
    pub fn flags(&self, blis: Option<PathBuf>) -> harness::inputs::Flags {
        harness::inputs::Flags {
            measurements: self.measurements.clone(),
            catalog: self.catalog.clone(),
            registry: self.registry.clone(),
            scenarios: self.scenarios.clone(),
            blis,
            releases: None,
        }
    }
}
