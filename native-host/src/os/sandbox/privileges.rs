//! Dropping every capability before `exec`: a command run by root would otherwise get them
//! all back at `exec`, and with them read agentwire's `/proc/<pid>/environ` and memory (where
//! the model key is), which neither Landlock nor agentwire being non-dumpable stops for root
//! on this kernel. Without capabilities, root's command is an ordinary process of uid 0.

use nix::libc;
use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// What to drop, found in the parent: the highest capability number this kernel knows.
#[derive(Clone, Copy, Debug)]
pub(super) struct DropAll {
    last_cap: libc::c_int,
}

impl DropAll {
    /// Reads `/proc/sys/kernel/cap_last_cap` (63, the most the bounding set can hold, when it
    /// cannot be read: dropping an unknown number is harmless).
    pub(super) fn new() -> DropAll {
        let last_cap = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(63);
        DropAll { last_cap }
    }

    /// In the child: empties the bounding set (so `exec` grants nothing back, even to root),
    /// the ambient set, and the effective, permitted and inheritable sets. Only system calls.
    pub(super) fn apply(&self) -> io::Result<()> {
        for cap in 0..=self.last_cap {
            // SAFETY: PR_CAPBSET_DROP takes a capability number; it only changes this thread.
            let dropped = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
            // EINVAL: the kernel has no such capability. EPERM: no CAP_SETPCAP, so the
            // bounding set is not ours to change (a process that is not root gains nothing at
            // `exec` anyway, with no_new_privs set).
            if failed(dropped, errno(), &[libc::EINVAL, libc::EPERM]) {
                return Err(io::Error::last_os_error());
            }
        }
        // SAFETY: clears the ambient set of this thread; no pointers.
        let cleared = unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            )
        };
        // EINVAL: a kernel without ambient capabilities (before 4.3) has none to clear.
        if failed(cleared, errno(), &[libc::EINVAL]) {
            return Err(io::Error::last_os_error());
        }
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        // SAFETY: capset reads one header and two data words we own; lowering every set is
        // always allowed.
        let set = unsafe {
            libc::syscall(
                libc::SYS_capset,
                &mut header as *mut CapHeader,
                data.as_ptr(),
            )
        };
        if set != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Whether a call that returned `result` with `errno` failed in a way that matters: not when
/// it succeeded (0), nor when `errno` is one of the harmless `tolerated` ones.
fn failed(result: libc::c_int, errno: libc::c_int, tolerated: &[libc::c_int]) -> bool {
    result != 0 && !tolerated.contains(&errno)
}

fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    /// The `Cap*:` lines of `/proc/self/status` of a `grep` started after `before` and `apply`.
    fn caps_after(before: fn() -> io::Result<()>) -> io::Result<String> {
        let drop_all = DropAll::new();
        let mut grep = Command::new("grep");
        grep.args(["^Cap", "/proc/self/status"]);
        // SAFETY: both closures only make system calls.
        unsafe {
            grep.pre_exec(move || {
                before()?;
                drop_all.apply()
            });
        }
        let out = grep.output()?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// `CAP_NET_RAW`, which the tests raise as an ambient capability.
    const CAP_NET_RAW: u32 = 13;

    fn nothing() -> io::Result<()> {
        Ok(())
    }

    #[test]
    fn only_success_and_the_tolerated_errors_pass() {
        assert!(!failed(0, 0, &[]));
        assert!(!failed(0, libc::EPERM, &[]));
        assert!(failed(-1, libc::EPERM, &[]));
        assert!(failed(-1, libc::EFAULT, &[libc::EINVAL, libc::EPERM]));
        assert!(!failed(-1, libc::EPERM, &[libc::EINVAL, libc::EPERM]));
        assert!(!failed(-1, libc::EINVAL, &[libc::EINVAL]));
    }

    #[test]
    fn root_s_command_keeps_no_capability_in_any_set() {
        assert_eq!(unsafe { libc::geteuid() }, 0, "this test runs as root");
        // An ambient capability raised first (inheritable, then ambient) is cleared too.
        fn raise_ambient() -> io::Result<()> {
            let mut header = CapHeader {
                version: CAPABILITY_VERSION_3,
                pid: 0,
            };
            let mut data = [CapData {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            }; 2];
            // SAFETY: capget and capset read and write one header and two data words we own.
            unsafe {
                if libc::syscall(
                    libc::SYS_capget,
                    &mut header as *mut CapHeader,
                    data.as_mut_ptr(),
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                data[0].inheritable |= 1 << CAP_NET_RAW;
                if libc::syscall(
                    libc::SYS_capset,
                    &mut header as *mut CapHeader,
                    data.as_ptr(),
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                let raise = libc::PR_CAP_AMBIENT_RAISE as libc::c_ulong;
                if libc::prctl(
                    libc::PR_CAP_AMBIENT,
                    raise,
                    CAP_NET_RAW as libc::c_ulong,
                    0,
                    0,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        }
        for status in [
            caps_after(nothing).unwrap(),
            caps_after(raise_ambient).unwrap(),
        ] {
            let lines: Vec<&str> = status.lines().collect();
            assert_eq!(lines.len(), 5, "{status}");
            for line in lines {
                assert!(line.ends_with("\t0000000000000000"), "{status}");
            }
        }
    }

    #[test]
    fn a_process_that_may_not_drop_its_bounding_set_still_starts() {
        // As `nobody` the bounding set is not ours to change (EPERM, tolerated); the command
        // runs, with no capability in its effective and permitted sets.
        fn become_nobody() -> io::Result<()> {
            // SAFETY: plain system calls on this (child) process.
            if unsafe { libc::setgid(65534) } != 0 || unsafe { libc::setuid(65534) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }
        let status = caps_after(become_nobody).unwrap();
        assert!(status.contains("CapEff:\t0000000000000000"), "{status}");
        assert!(status.contains("CapPrm:\t0000000000000000"), "{status}");
        assert!(!status.contains("CapBnd:\t0000000000000000"), "{status}");
    }
}
