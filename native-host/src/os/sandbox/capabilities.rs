//! What this kernel can enforce, for the line at start and `agentwire doctor`.

use nix::libc;

/// The confinement features this kernel and process offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The Landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// Whether a private mount namespace can be made (read-only bind mounts of protected paths).
    pub mount_namespace: bool,
}

impl Capabilities {
    /// Probes the running kernel (no child is started).
    pub fn probe() -> Capabilities {
        // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only
        // returns the ABI version; it creates nothing.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<libc::c_void>(),
                0usize,
                1u32,
            )
        };
        // SAFETY: PR_GET_SECCOMP reads this thread's seccomp mode.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
        Capabilities {
            landlock_abi: i32::try_from(abi).unwrap_or(0).max(0),
            seccomp,
            // SAFETY: geteuid cannot fail. Root is what `unshare(CLONE_NEWNS)` needs here.
            mount_namespace: unsafe { libc::geteuid() } == 0,
        }
    }

    /// Whether files are confined at all.
    pub fn files(&self) -> bool {
        self.landlock_abi >= 1
    }

    /// Whether Landlock can refuse TCP bind and connect (ABI 4).
    pub fn tcp(&self) -> bool {
        self.landlock_abi >= 4
    }

    /// What is missing, one phrase each, empty when everything is enforced.
    pub fn gaps(&self) -> Vec<&'static str> {
        let mut gaps = Vec::new();
        if !self.files() {
            gaps.push("no Landlock: bash's file access is not confined");
        } else if self.landlock_abi < 3 {
            gaps.push("Landlock ABI < 3: truncating files is not confined");
        }
        if !self.tcp() {
            gaps.push("Landlock ABI < 4: TCP is refused by the seccomp filter only");
        }
        if !self.seccomp {
            gaps.push("no seccomp: sockets, ptrace, namespaces and mounts are not filtered");
        }
        if !self.mount_namespace {
            gaps.push(
                "no mount namespace (not root): .git/hooks, .mcp.json, .claude and .agentwire \
                 are not kept read-only",
            );
        }
        gaps
    }

    /// One line for the start and `agentwire doctor`.
    pub fn summary(&self) -> String {
        let gaps = self.gaps();
        let head = format!(
            "sandbox: Landlock ABI {}, seccomp {}, mount namespace {}",
            self.landlock_abi,
            if self.seccomp { "yes" } else { "no" },
            if self.mount_namespace { "yes" } else { "no" }
        );
        if gaps.is_empty() {
            head
        } else {
            format!("{head}; {}", gaps.join("; "))
        }
    }
}
