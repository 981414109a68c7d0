//! The Landlock ruleset of a [`Plan`]: every file access right the kernel knows is handled
//! (denied unless a rule grants it), with best-effort ABI negotiation, so an older kernel
//! enforces what it can; TCP bind and connect are handled too when the network is off.

use super::Plan;
use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};
use std::io;
use std::path::Path;

/// The newest ABI whose rights this code asks for; the crate drops what the kernel lacks.
const TARGET: ABI = ABI::V6;

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("landlock: {e}"))
}

/// Rights to read a hierarchy: read and run files, list folders.
pub(super) fn read_rights() -> BitFlags<AccessFs> {
    AccessFs::from_read(TARGET)
}

/// Rights to write a hierarchy: everything that is not reading.
pub(super) fn write_rights() -> BitFlags<AccessFs> {
    AccessFs::from_write(TARGET)
}

/// Rights on a single writable file such as `/dev/null`.
pub(super) fn write_file_rights() -> BitFlags<AccessFs> {
    AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev
}

/// Adds a rule for `path` with `rights`, narrowed to the file rights when it is not a folder
/// (the kernel refuses folder rights on a file). A missing path is skipped.
fn add(
    ruleset: RulesetCreated,
    path: &Path,
    rights: BitFlags<AccessFs>,
) -> io::Result<RulesetCreated> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(ruleset);
    };
    let rights = if meta.is_dir() {
        rights
    } else {
        rights & AccessFs::from_file(TARGET)
    };
    if rights.is_empty() {
        return Ok(ruleset);
    }
    let fd = PathFd::new(path).map_err(io_err)?;
    ruleset
        .add_rule(PathBeneath::new(fd, rights))
        .map_err(io_err)
}

/// The ruleset, created in the parent; `None` when the kernel has no Landlock at all.
pub(super) fn ruleset(plan: &Plan) -> io::Result<Option<RulesetCreated>> {
    let mut base = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .map_err(io_err)?
        // Signals and abstract Unix sockets stay within the sandbox (agentwire is outside).
        .scope(Scope::Signal | Scope::AbstractUnixSocket)
        .map_err(io_err)?;
    if !plan.network {
        base = base
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(io_err)?;
    }
    let mut ruleset = base.create().map_err(io_err)?;
    for path in &plan.read {
        ruleset = add(ruleset, path, read_rights())?;
    }
    for path in &plan.list_only {
        ruleset = add(ruleset, path, AccessFs::ReadDir.into())?;
    }
    for path in &plan.write {
        ruleset = add(ruleset, path, write_rights())?;
    }
    for path in &plan.write_files {
        ruleset = add(ruleset, path, write_file_rights())?;
    }
    if !plan.network {
        for &port in &plan.tcp_ports {
            ruleset = ruleset
                .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
                .map_err(io_err)?;
        }
    }
    Ok(Some(ruleset))
}
