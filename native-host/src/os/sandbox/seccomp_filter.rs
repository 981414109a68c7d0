//! The seccomp filters: what Landlock does not cover (socket families, `ptrace`, namespaces and
//! mounts, keyrings, BPF, io_uring, another process's memory). Syscall numbers come from
//! `libc`; the BPF is built by `seccompiler`.

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;
use std::io;
use std::sync::OnceLock;

/// Calls refused outright (with `EPERM`, an ordinary permission error).
const DENIED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    // Kernel code and reboots (root's command has no capability for them anyway).
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    // io_uring performs socket and file operations the other rules would not see.
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
];

/// `clone` flags that would make a new namespace.
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// Socket families allowed when the network is: local ones and IP (netlink for the address
/// lookups of the C library).
const NETWORK_FAMILIES: &[libc::c_int] = &[
    libc::AF_UNIX,
    libc::AF_INET,
    libc::AF_INET6,
    libc::AF_NETLINK,
];

/// Which sockets a command may make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sockets {
    /// None at all (`socketpair` stays).
    None,
    /// TCP over IPv4 and IPv6 only: the network is off but some ports are allowed, which
    /// Landlock checks at `connect`.
    TcpOnly,
    /// IP, Unix and netlink.
    Network,
}

impl Sockets {
    /// The sockets `plan` allows.
    pub(super) fn of(plan: &super::Plan) -> Sockets {
        if plan.network {
            Sockets::Network
        } else if plan.tcp_ports.is_empty() {
            Sockets::None
        } else {
            Sockets::TcpOnly
        }
    }
}

/// The families a TCP-only sandbox may use.
const TCP_FAMILIES: &[libc::c_int] = &[libc::AF_INET, libc::AF_INET6];

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("seccomp filter: {e}"))
}

fn arch() -> io::Result<seccompiler::TargetArch> {
    std::env::consts::ARCH.try_into().map_err(io_err)
}

/// The rules of the main filter: each key is a syscall, refused when one of its rules matches
/// (a rule with no condition always matches).
pub(super) fn denied_rules(sockets: Sockets) -> io::Result<BTreeMap<i64, Vec<SeccompRule>>> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|&nr| (nr, Vec::new())).collect();
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = flag as u64;
            let cond = SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )
            .map_err(io_err)?;
            SeccompRule::new(vec![cond]).map_err(io_err)
        })
        .collect::<io::Result<Vec<_>>>()?;
    rules.insert(libc::SYS_clone, clone_rules);
    let socket_rules = match sockets {
        // Refused when the family is none of the allowed ones.
        Sockets::Network => vec![family_not_in(NETWORK_FAMILIES)?],
        // Also refused: any type but a stream (UDP, raw, ...: Landlock sees TCP only) and any
        // protocol but TCP (0 picks it for a stream).
        Sockets::TcpOnly => {
            let mut rules = vec![family_not_in(TCP_FAMILIES)?];
            for kind in (0..16u64).filter(|&k| k != libc::SOCK_STREAM as u64) {
                let cond = SeccompCondition::new(
                    1,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(0xf),
                    kind,
                )
                .map_err(io_err)?;
                rules.push(SeccompRule::new(vec![cond]).map_err(io_err)?);
            }
            let conds = [0, libc::IPPROTO_TCP as u64]
                .into_iter()
                .map(|protocol| {
                    SeccompCondition::new(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, protocol)
                        .map_err(io_err)
                })
                .collect::<io::Result<Vec<_>>>()?;
            rules.push(SeccompRule::new(conds).map_err(io_err)?);
            rules
        }
        // Every family, Unix included: a Unix socket outside the workspace (an agent, a
        // daemon's control socket) is a way out too. `socketpair` stays allowed.
        Sockets::None => Vec::new(),
    };
    rules.insert(libc::SYS_socket, socket_rules);
    Ok(rules)
}

/// A rule matching a `socket()` whose family is none of `families`.
fn family_not_in(families: &[libc::c_int]) -> io::Result<SeccompRule> {
    let conds = families
        .iter()
        .map(|&family| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family as u64)
                .map_err(io_err)
        })
        .collect::<io::Result<Vec<_>>>()?;
    SeccompRule::new(conds).map_err(io_err)
}

/// The compiled filters for `sockets`, built once per process (they depend on nothing else):
/// every sandboxed call of a session installs the same programs.
pub(super) fn filters(sockets: Sockets) -> io::Result<&'static [BpfProgram]> {
    static BUILT: [OnceLock<Result<Vec<BpfProgram>, String>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = match sockets {
        Sockets::None => 0,
        Sockets::TcpOnly => 1,
        Sockets::Network => 2,
    };
    match BUILT[slot].get_or_init(|| build(sockets).map_err(|e| e.to_string())) {
        Ok(programs) => Ok(programs),
        Err(e) => Err(io::Error::other(e.clone())),
    }
}

/// The compiled filters: the main one, and one making `clone3` unavailable (`ENOSYS`, so the C
/// library falls back to `clone`, whose flags the main filter can see).
fn build(sockets: Sockets) -> io::Result<Vec<BpfProgram>> {
    let main = SeccompFilter::new(
        denied_rules(sockets)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(io_err)?;
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch()?,
    )
    .map_err(io_err)?;
    [main, clone3]
        .into_iter()
        .map(|f| BpfProgram::try_from(f).map_err(io_err))
        .collect()
}
