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
            if dropped != 0 && !matches!(errno(), libc::EINVAL | libc::EPERM) {
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
        if cleared != 0 && errno() != libc::EINVAL {
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

fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
