//! Starting another process of this very build (the gate's renderings, the warm bench).
//!
//! `std::env::current_exe` names the file this process was started from. A `cargo build` while
//! a long gate runs replaces that file: the path then names the new build (so the second
//! rendering would run other code than the first) or nothing (Linux reports it as
//! `PATH (deleted)`, and the gate fails an hour in). On Linux `/proc/self/exe` is the running
//! image itself, whatever became of the file, so the child runs exactly what is running here.

use std::process::Command;

/// A command that runs this build, with `argv[0]` the path it was started from, so the child's
/// usage lines and messages name the program as the user knows it.
pub fn command() -> std::io::Result<Command> {
    let started_as = std::env::current_exe()?;
    let running = std::path::Path::new("/proc/self/exe");
    if cfg!(target_os = "linux") && running.exists() {
        let mut cmd = Command::new(running);
        std::os::unix::process::CommandExt::arg0(&mut cmd, started_as);
        return Ok(cmd);
    }
    Ok(Command::new(started_as))
}

#[cfg(test)]
mod tests {
    /// The child is this process's image, not the file it was started from: a copy of a
    /// program started, then deleted, still starts itself.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_deleted_program_still_starts_its_own_image() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("sh");
        std::fs::copy("/bin/sh", &copy).unwrap();
        // The copy deletes itself, then starts `/proc/self/exe` as `command` would.
        let out = std::process::Command::new(&copy)
            .arg("-c")
            .arg(r#"rm "$0" && exec /proc/self/exe -c 'echo started'"#)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n", "{out:?}");
        assert!(!copy.exists());
        let cmd = super::command().unwrap();
        assert_eq!(cmd.get_program(), "/proc/self/exe");
    }
}
