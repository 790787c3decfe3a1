//! `cargo xtask oracle error-definition [--measurements DIR | --summary FILE]`: recompute
//! AISimulate's published totals under each error definition and gate on the one that decides
//! whether the comparison measures what it claims (harness::oracle_report).
//!
//! Exit: 0 the gate passed; 1 a gate condition failed or an input is malformed;
//! 2 no corpus was supplied (harness::task::exit::REFUSED).

use anyhow::Result;
use harness::oracle_report;
use harness::task::{exit, TaskError, TaskOutput, Value};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Folder of the measurement corpora: audits aisimulate_summary.json and aisimulate_e2e.json
    /// [env: BLIS_MEASUREMENTS]
    #[arg(long, value_name = "DIR", conflicts_with = "summary")]
    measurements: Option<PathBuf>,
    /// Audit this aisimulate_summary.json only (no e2e audit)
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let results = match &args.summary {
        Some(file) => vec![oracle_report::error_definition_of_file(file)],
        None => {
            let inputs = crate::inputs::InputArgs { measurements: args.measurements.clone(), ..Default::default() }.resolve();
            vec![oracle_report::task_error_definition(&inputs), oracle_report::task_e2e_audit(&inputs)]
        }
    };
    let mut code = exit::OK;
    for (i, result) in results.into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        match result {
            Ok(output) => {
                print!("{}", output.report);
                if !passed(&output) {
                    code = code.max(exit::FAILED);
                }
            }
            Err(TaskError::Refused(refusal)) => {
                eprintln!("refused: {refusal}");
                return Ok(exit::REFUSED);
            }
            Err(TaskError::Failed(err)) => {
                eprintln!("error: {err:#}");
                code = code.max(exit::FAILED);
            }
        }
    }
    Ok(code)
}

fn passed(output: &TaskOutput) -> bool {
    output.values.get("gate.passed") == Some(&Value::Check(true))
}
