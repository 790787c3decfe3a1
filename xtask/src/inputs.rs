//! The input flags, declared per command. Each command names the inputs it reads with
//! [`reads!`], and that one list is its flag set (its `--help` offers those flags, clap rejects
//! any other with exit 64) and everything resolution sees: only those kinds are resolved and
//! checked, so a variable set for an input the command does not read neither fails nor feeds it.

use harness::inputs::{Flags, InputKind, Inputs};

/// `reads! { pub struct Name { measurements, scenarios } }`: a clap `Args` struct with one flag
/// per input named (the field names of `harness::inputs::Flags`), implementing [`Reads`].
macro_rules! reads {
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($kind:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(clap::Args, Clone, Debug, Default)]
        $vis struct $name {
            $(
                #[arg(
                    long,
                    value_name = $crate::inputs::value_name(stringify!($kind)),
                    help = $crate::inputs::help(stringify!($kind)),
                )]
                pub $kind: Option<std::path::PathBuf>,
            )+
        }

        impl $crate::inputs::Reads for $name {
            fn flags(&self) -> harness::inputs::Flags {
                // Field by field, not `..Default::default()`: with every input declared, that
                // update would be empty (a clippy warning).
                let mut flags = harness::inputs::Flags::default();
                $(flags.$kind = self.$kind.clone();)+
                flags
            }

            fn kinds(&self) -> Vec<harness::inputs::InputKind> {
                vec![$($crate::inputs::kind(stringify!($kind))),+]
            }
        }
    };
}
pub(crate) use reads;

/// A command's declared inputs (made by [`reads!`]).
pub trait Reads {
    /// The flags given, as harness takes them (the undeclared ones `None`).
    fn flags(&self) -> Flags;

    /// The inputs the command reads.
    fn kinds(&self) -> Vec<InputKind>;

    /// The declared inputs resolved (flag, then variable, then vendored default), every other
    /// input left unresolved. A declared input given explicitly that does not hold what it
    /// must ends the command here, before any work: exit 1, naming it (README, exit codes).
    fn resolve(&self) -> Inputs {
        let inputs = self.resolve_unchecked();
        if let Err(e) = inputs.check_supplied() {
            eprintln!("error: {e}");
            std::process::exit(harness::task::exit::FAILED.into());
        }
        inputs
    }

    /// The declared inputs resolved, without checking them (`lock verify` reports on them).
    fn resolve_unchecked(&self) -> Inputs {
        let (flags, kinds) = (self.flags(), self.kinds());
        warn_deprecated(&flags, &kinds);
        Inputs::from_process(&flags).only(&kinds)
    }
}

/// A variable read under its old name says so, so scripts move to the new one (nothing is said
/// where a flag or the new variable wins over it).
fn warn_deprecated(flags: &Flags, kinds: &[InputKind]) {
    for &kind in kinds {
        let Some(old) = kind.deprecated_env_var() else { continue };
        let flagged = flags.given().any(|(k, _)| k == kind);
        if !flagged && std::env::var_os(kind.env_var()).is_none() && std::env::var_os(old).is_some() {
            let new = kind.env_var();
            eprintln!(
                "warning: {old} is read as {new}, its new name; set {new} instead (the old name will be removed)"
            );
        }
    }
}

/// The input a [`reads!`] field names.
pub fn kind(field: &str) -> InputKind {
    InputKind::from_name(field).unwrap_or_else(|| panic!("reads!: `{field}` is not an input"))
}

pub fn value_name(field: &str) -> &'static str {
    match kind(field) {
        InputKind::Blis => "PATH",
        _ => "DIR",
    }
}

pub fn help(field: &str) -> &'static str {
    match kind(field) {
        InputKind::Measurements => {
            "Folder of the measurement corpora [env: BLIS_MEASUREMENTS; default: testdata/measurements once \
             `cargo xtask vendor --fetch` has fetched it]"
        }
        InputKind::Catalog => "blis-catalog tree [env: BLIS_CATALOG; default: testdata/catalog]",
        InputKind::Registry => "blis-registry tree [env: BLIS_REGISTRY; default: testdata/registry]",
        InputKind::Scenarios => "Scenario files [env: BLIS_SCENARIOS; default: testdata/scenarios]",
        InputKind::Blis => "The `blis` binary [env: BLIS_BIN]",
        InputKind::Releases => {
            "A folder of BLIS releases: one sub-folder per release, named by its tag, each holding `blis` and \
             the files it reads from its working directory \
             (`cargo xtask history`, the gate's blis-release/<tag>/ figures) [env: BLIS_RELEASES]"
        }
    }
}
