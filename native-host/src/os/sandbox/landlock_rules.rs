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

#[cfg(test)]
mod tests {
    //! Each part of a plan, applied by the kernel to a real `bash`: what it may read, list,
    //! write and connect to, and that its signals stay inside.
    use super::*;
    use crate::os::sandbox::Mode;
    use crate::tools::sandbox_policy::{plan, SandboxSettings};
    use crate::tools::Workspace;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// Runs `script` in `bash` under `plan`'s ruleset; returns its stdout.
    fn confined(plan: &Plan, script: &str) -> String {
        assert!(
            crate::os::sandbox::Capabilities::probe().landlock_abi >= 6,
            "these tests need Landlock ABI 6 or later"
        );
        let mut rules = ruleset(plan).expect("the ruleset");
        assert!(
            rules.is_some(),
            "no ruleset although the kernel has Landlock"
        );
        let mut bash = Command::new("/bin/bash");
        bash.arg("-c").arg(script);
        // SAFETY: restrict_self only makes system calls on the ruleset made above.
        unsafe {
            bash.pre_exec(move || match rules.take() {
                Some(r) => r
                    .restrict_self()
                    .map(drop)
                    .map_err(|e| io::Error::other(e.to_string())),
                None => Ok(()),
            });
        }
        let out = bash.output().expect("bash runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A read-only plan with `outside/secret` denied (so `outside` is split, its files get
    /// rules of their own), plus `extra`'s changes.
    fn base(outside: &Path, ws: &Path, extra: impl FnOnce(&mut Plan)) -> Plan {
        let settings = SandboxSettings {
            mode: Mode::ReadOnly,
            network: false,
            deny_read: vec![outside.join("secret")],
            grants: Vec::new(),
            allow: Vec::new(),
        };
        let workspace = Workspace::new(ws).unwrap();
        let mut plan = plan(&settings, &workspace, &outside.join("tmp"));
        extra(&mut plan);
        plan
    }

    /// `name=0` or `name=1` (failed) per check.
    fn checks(pairs: &[(&str, &str)]) -> String {
        pairs
            .iter()
            .map(|(name, cmd)| format!("{{ {cmd}; }} 2>/dev/null; echo {name}=$?; "))
            .collect()
    }

    #[test]
    fn reads_lists_writes_and_single_files_are_what_the_plan_grants() {
        let outside = tempfile::tempdir().unwrap();
        let outside = outside.path().canonicalize().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path().canonicalize().unwrap();
        std::fs::create_dir_all(outside.join("secret")).unwrap();
        std::fs::create_dir_all(outside.join("tmp")).unwrap();
        std::fs::write(outside.join("secret/k"), "KEY").unwrap();
        std::fs::write(outside.join("public.txt"), "PUBLIC").unwrap();
        std::fs::write(outside.join("log.txt"), "old").unwrap();
        let plan = base(&outside, &ws, |p| {
            p.write.push(ws.clone());
            p.write_files.push(outside.join("log.txt"));
        });
        let (o, w) = (outside.display(), ws.display());
        let script = checks(&[
            ("read_file", &format!("grep -q PUBLIC {o}/public.txt")),
            ("read_denied", &format!("cat {o}/secret/k")),
            ("list_split", &format!("ls {o} > /dev/null")),
            // Listing is inherited down from the split folder: names, never contents.
            ("list_denied", &format!("ls {o}/secret > /dev/null")),
            ("run", "/bin/true"),
            ("write_ws", &format!("mkdir {w}/d && echo x > {w}/d/f")),
            ("write_tmp", &format!("echo x > {o}/tmp/f")),
            ("write_out", &format!("echo x > {o}/new")),
            ("write_file", &format!("echo new > {o}/log.txt")),
            ("make_beside_file", &format!("echo x > {o}/log2.txt")),
            ("dev_null", "echo x > /dev/null"),
        ]);
        let out = confined(&plan, &script);
        let want = "read_file=0 read_denied=1 list_split=0 list_denied=0 run=0 write_ws=0 \
                    write_tmp=0 write_out=1 write_file=0 make_beside_file=1 dev_null=0";
        let got: Vec<&str> = out.lines().filter(|l| l.contains('=')).collect();
        assert_eq!(got.join(" "), want, "{out}");
        assert!(!out.contains("KEY"), "{out}");
        assert_eq!(
            std::fs::read_to_string(outside.join("log.txt")).unwrap(),
            "new\n"
        );
        assert!(!outside.join("new").exists());
    }

    #[test]
    fn tcp_is_refused_with_the_network_off_but_for_the_allowed_ports() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let allowed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let (a, b) = (
            allowed.local_addr().unwrap().port(),
            other.local_addr().unwrap().port(),
        );
        let script = checks(&[
            ("allowed", &format!("exec 3<>/dev/tcp/127.0.0.1/{a}")),
            ("other", &format!("exec 4<>/dev/tcp/127.0.0.1/{b}")),
        ]);
        let run = |network: bool, ports: Vec<u16>| {
            let plan = base(outside.path(), ws.path(), |p| {
                p.network = network;
                p.tcp_ports = ports;
            });
            let out = confined(&plan, &script);
            out.lines().collect::<Vec<_>>().join(" ")
        };
        assert_eq!(run(false, vec![a]), "allowed=0 other=1");
        assert_eq!(run(false, Vec::new()), "allowed=1 other=1");
        // With the network on nothing is checked, whatever the list says.
        assert_eq!(run(true, Vec::new()), "allowed=0 other=0");
        assert_eq!(run(true, vec![a]), "allowed=0 other=0");
    }

    #[test]
    fn signals_reach_only_processes_inside_the_sandbox() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
        let plan = base(outside.path(), ws.path(), |_| {});
        let script = checks(&[
            ("outside", &format!("kill -0 {}", sleeper.id())),
            ("inside", "sleep 5 & kill $!"),
        ]);
        let out = confined(&plan, &script);
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        assert_eq!(
            out.lines().collect::<Vec<_>>().join(" "),
            "outside=1 inside=0"
        );
    }
}
