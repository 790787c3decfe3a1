//! The one mapping from a task's end to the process's exit code (README, "Exit codes"): every
//! command that can be refused goes through here, so a refusal reads and exits the same way
//! whichever command met it.

use harness::inputs::Refusal;
use harness::task::{exit, TaskError};

/// Says why on stderr and gives the refusal's exit code (2).
pub fn refused(refusal: &Refusal) -> u8 {
    eprintln!("refused: {refusal}");
    exit::REFUSED
}

/// The command's own code, a refusal's (2), or the failure handed to `main` (exit 1).
pub fn exit_code(result: Result<u8, TaskError>) -> anyhow::Result<u8> {
    match result {
        Ok(code) => Ok(code),
        Err(TaskError::Refused(r)) => Ok(refused(&r)),
        Err(TaskError::Failed(e)) => Err(e),
    }
}
