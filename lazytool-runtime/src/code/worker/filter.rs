//! The system call filter a worker installs on itself before it reads a script: what is left
//! is memory (never executable), reading its input, writing its output and error, and ending.
//! Any other call (opening a file, a socket, starting a program, a signal to another process)
//! kills the worker, which the parent reports as the filter's doing.

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Installs the filter on the calling thread (a worker has no other), with no new privileges.
pub(super) fn install() -> Result<(), String> {
    let program = program().map_err(|error| format!("its filter could not be built: {error}"))?;
    nix::sys::prctl::set_no_new_privs()
        .map_err(|error| format!("no new privileges could not be set: {error}"))?;
    seccompiler::apply_filter(&program)
        .map_err(|error| format!("its filter could not be installed: {error}"))
}

fn program() -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let filter = SeccompFilter::new(
        rules()?,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        arch,
    )?;
    Ok(filter.try_into()?)
}

fn rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, seccompiler::Error> {
    let argument =
        |index, op, value| SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value);
    let not_executable = || argument(2, SeccompCmpOp::MaskedEq(libc::PROT_EXEC as u64), 0);
    let mut rules = BTreeMap::new();
    // Always allowed: memory that is not executable, futexes (the engine's locks), time,
    // randomness (a hash map's keys), signal returns and masks (an abort), and ending.
    for call in [
        libc::SYS_brk,
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_madvise,
        libc::SYS_futex,
        libc::SYS_clock_gettime,
        libc::SYS_gettimeofday,
        libc::SYS_getrandom,
        libc::SYS_sched_yield,
        libc::SYS_rt_sigreturn,
        libc::SYS_rt_sigprocmask,
        libc::SYS_sigaltstack,
        libc::SYS_getpid,
        libc::SYS_gettid,
        libc::SYS_close,
        libc::SYS_exit,
        libc::SYS_exit_group,
        libc::SYS_restart_syscall,
        // Waiting for the parent's next frame (after a short spin).
        libc::SYS_ppoll,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_poll,
    ] {
        rules.insert(call, Vec::new());
    }
    rules.insert(
        libc::SYS_read,
        vec![SeccompRule::new(vec![argument(0, SeccompCmpOp::Eq, 0)?])?],
    );
    rules.insert(
        libc::SYS_write,
        vec![
            SeccompRule::new(vec![argument(0, SeccompCmpOp::Eq, 1)?])?,
            SeccompRule::new(vec![argument(0, SeccompCmpOp::Eq, 2)?])?,
        ],
    );
    // Anonymous mappings only (no file's descriptor), never executable.
    rules.insert(
        libc::SYS_mmap,
        vec![SeccompRule::new(vec![
            not_executable()?,
            argument(4, SeccompCmpOp::Eq, u64::from(u32::MAX))?,
        ])?],
    );
    rules.insert(
        libc::SYS_mprotect,
        vec![SeccompRule::new(vec![not_executable()?])?],
    );
    // An abort signals the worker's own thread: to itself only.
    rules.insert(
        libc::SYS_tgkill,
        vec![SeccompRule::new(vec![argument(
            0,
            SeccompCmpOp::Eq,
            u64::from(std::process::id()),
        )?])?],
    );
    Ok(rules)
}
