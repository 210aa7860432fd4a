//! What a worker's death says to the model: the limit it stands for, where one does, else that
//! the script's worker died and how.

use super::process::Death;
use crate::call::{ToolErrorKind, ToolResult};

/// The result of a script whose worker died under it, the parent having killed nothing.
pub(super) fn result(death: &Death, cpu_seconds: u64, max_memory_bytes: usize) -> ToolResult {
    let why = match (death.signal(), &death.protocol) {
        (_, Some(protocol)) => {
            format!("the script's worker broke the protocol ({protocol}) and was stopped")
        }
        (Some(nix::libc::SIGXCPU), _) => {
            format!("the script reached its CPU time budget of {cpu_seconds} s and was stopped")
        }
        (Some(nix::libc::SIGSYS), _) => {
            "the script's worker made a system call its filter refuses \
             (files, network and programs are out of a script's reach) and was stopped"
                .to_owned()
        }
        (Some(nix::libc::SIGABRT), _) => format!(
            "the script's worker died (aborted): most likely it ran out of memory; the script's \
             memory limit is {} MiB",
            max_memory_bytes >> 20
        ),
        (Some(nix::libc::SIGKILL), _) => format!(
            "the script's worker was killed (by the OS: its CPU time budget of {cpu_seconds} s, or memory)"
        ),
        (Some(signal), _) => format!("the script's worker died (signal {signal})"),
        (None, None) => match death.status.and_then(|status| status.code()) {
            Some(code) => format!("the script's worker died (exit status {code})"),
            None => "the script's worker died".to_owned(),
        },
    };
    ToolResult::error(ToolErrorKind::ToolFailed, format!("Error: {why}."))
}
