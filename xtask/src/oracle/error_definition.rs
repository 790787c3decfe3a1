//! `cargo xtask oracle error-definition [--measurements DIR | --summary FILE]`: recompute
//! AISimulate's published totals under each error definition and gate on the one that decides
//! whether the comparison measures what it claims (harness::oracle_report).
//!
//! Exit: 0 the gate passed; 1 a gate condition failed or an input is malformed;
//! 2 no corpus was supplied (harness::task::exit::REFUSED).

use crate::inputs::Reads as _;
use anyhow::Result;
use harness::oracle_report;
use harness::task::{exit, TaskError, TaskOutput, Value};
use std::path::PathBuf;

crate::inputs::reads! {
    /// The corpora: audits aisimulate_summary.json and aisimulate_e2e.json.
    pub struct Corpora { measurements }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    corpora: Corpora,
    /// Audit this aisimulate_summary.json only (no e2e audit)
    #[arg(long, value_name = "FILE", conflicts_with = "measurements")]
    summary: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let (summary, e2e) = match &args.summary {
        Some(file) => (oracle_report::error_definition_of_file(file), None),
        None => {
            let inputs = args.corpora.resolve();
            let summary = oracle_report::task_error_definition(&inputs);
            // Without the folder there is nothing more to say than the one refusal line.
            if let Err(TaskError::Refused(refusal)) = &summary {
                return Ok(crate::outcome::refused(refusal));
            }
            (summary, Some(oracle_report::task_e2e_audit(&inputs)))
        }
    };
    // A failed reproduction outranks a refusal: it is the news.
    let mut failed = false;
    let mut refused = false;
    for (i, result) in std::iter::once(summary).chain(e2e).enumerate() {
        match result {
            Ok(output) => {
                if i > 0 {
                    println!();
                }
                print!("{}", output.report);
                failed |= !passed(&output);
            }
            Err(TaskError::Refused(refusal)) => {
                crate::outcome::refused(&refusal);
                refused = true;
            }
            Err(TaskError::Failed(err)) => {
                eprintln!("error: {err:#}");
                failed = true;
            }
        }
    }
    Ok(if failed {
        exit::FAILED
    } else if refused {
        exit::REFUSED
    } else {
        exit::OK
    })
}

fn passed(output: &TaskOutput) -> bool {
    output.values.get("gate.passed") == Some(&Value::Check(true))
}
