//! Reading extension files (SKILL.md, commands, plugin manifests, `.mcp.json`, `hooks.json`,
//! bundled skill files): confined to a root, regular files only, bounded in size, lossy in
//! encoding, every problem naming the file.
//!
//! The same discipline as the file tools' `safe_open`: the path is resolved (symlinks followed)
//! and must stay under its [`Bound`]; the resolved path is then opened component by component
//! from `/` with `O_NOFOLLOW`, so a symlink swapped in after the check fails the open instead
//! of leading out; the file is opened `O_NONBLOCK` and checked with `fstat`, so a FIFO or a
//! device is refused without ever blocking the runtime's thread.

use nix::errno::Errno;
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::{fstat, FileStat, Mode, SFlag};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

/// The largest SKILL.md, command or manifest file read (1 MiB); bigger files are refused.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A file's text and what the user should hear about how it was read.
#[derive(Debug)]
pub struct FileText {
    /// The text (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
    /// Warnings naming the file (for example "not valid UTF-8").
    pub warnings: Vec<String>,
}

/// A folder extension files must stay inside (the project, a plugin's root, a user's skill
/// folder), by its real path, with the words that name it in a refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    real: PathBuf,
    label: String,
}

impl Bound {
    /// The folder `dir` (resolved now), named `label` in refusals ("the project").
    pub fn new(dir: &Path, label: &str) -> Result<Bound, String> {
        let real = std::fs::canonicalize(dir)
            .map_err(|e| format!("{}: cannot be resolved: {e}", dir.display()))?;
        Ok(Bound::at_real(real, label))
    }

    /// A folder already resolved (`real` has no symlink in it), not resolved again: a folder
    /// swapped for a symlink since makes every read under it fail instead of following it.
    pub fn at_real(real: PathBuf, label: &str) -> Bound {
        Bound {
            real,
            label: label.to_owned(),
        }
    }

    /// The folder's real path.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// Where `path` really is (symlinks followed), if that is inside the bound; otherwise a
    /// refusal naming `path`, the bound and where it leads.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, String> {
        let shown = path.display();
        let real = std::fs::canonicalize(path)
            .map_err(|e| format!("{shown}: cannot be resolved ({e}); not loaded"))?;
        if real.starts_with(&self.real) {
            return Ok(real);
        }
        Err(format!(
            "{shown} leads outside {} (to {}); refused",
            self.label,
            real.display()
        ))
    }

    /// Whether `path` resolves inside the bound (a missing path does not).
    pub fn contains(&self, path: &Path) -> bool {
        self.resolve(path).is_ok()
    }

    /// Reads `path` as text if it resolves inside the bound and is a regular file of at most
    /// [`MAX_FILE_BYTES`]; invalid UTF-8 is replaced with a warning. Errors name `path`.
    pub fn read(&self, path: &Path) -> Result<FileText, String> {
        let real = self.resolve(path)?;
        let shown = path.display();
        let (file, stat) = open_regular(&real).map_err(|why| format!("{shown}: {why}"))?;
        read_bounded(file, stat, path)
    }
}

/// Reads the file at `real`, a path [`Bound::resolve`] returned (so not resolved again), as
/// [`Bound::read`] does: opened from `/` without following links, regular files only,
/// bounded. Errors name `shown`.
pub fn read_resolved(real: &Path, shown: &Path) -> Result<FileText, String> {
    let (file, stat) = open_regular(real).map_err(|why| format!("{}: {why}", shown.display()))?;
    read_bounded(file, stat, shown)
}

/// Reads `relative` of the skill folder `real_dir` (resolved at discovery, not again: a folder
/// swapped for a link since is refused), for `read_skill_file`.
pub fn read_skill_file(real_dir: &Path, relative: &str) -> Result<FileText, String> {
    let bound = Bound::at_real(real_dir.to_path_buf(), "the skill folder");
    bound.read(&real_dir.join(relative))
}

/// The kind of a file that is not a regular one, in words, for a refusal.
fn kind(stat: &FileStat) -> &'static str {
    match SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT {
        SFlag::S_IFDIR => "a directory",
        SFlag::S_IFIFO => "a FIFO (named pipe)",
        SFlag::S_IFSOCK => "a socket",
        SFlag::S_IFCHR | SFlag::S_IFBLK => "a device",
        // A symlink swapped in after the walk cannot be opened; anything else is odd.
        _ => "not a regular file",
    }
}

fn is_regular(stat: &FileStat) -> bool {
    SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
}

/// Why the walk failed, in words: a symlink met on the way is a swap after the check.
fn walk_error(errno: Errno) -> String {
    match errno {
        Errno::ELOOP | Errno::ENOTDIR => {
            "changed while it was being opened (a symlink appeared on the way); refused".into()
        }
        other => format!("cannot read: {}", other.desc()),
    }
}

/// Flags of every directory on the way: never follow a symlink, never leak into children.
const DIR_FLAGS: OFlag = OFlag::O_DIRECTORY
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_CLOEXEC);

/// Flags of the final open: read-only, never following a symlink, never blocking on a FIFO
/// (the `fstat` then refuses it), never leaking into children, never a controlling terminal.
const FILE_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_NOFOLLOW)
    .union(OFlag::O_NONBLOCK)
    .union(OFlag::O_CLOEXEC)
    .union(OFlag::O_NOCTTY);

/// Opens the absolute, resolved path `real` from `/`, one component at a time without following
/// symlinks, and returns it only if it is a regular file.
fn open_regular(real: &Path) -> Result<(File, FileStat), String> {
    let mut names: Vec<&Path> = Vec::new();
    for component in real.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(name) => names.push(Path::new(name)),
            // A resolved path has none of these; refuse rather than interpret them.
            _ => return Err("cannot be opened safely".into()),
        }
    }
    let Some(file_name) = names.pop() else {
        return Err("is a directory, not a file".into());
    };
    let mut dir: OwnedFd =
        nix::fcntl::open(Path::new("/"), DIR_FLAGS, Mode::empty()).map_err(walk_error)?;
    for name in names {
        dir = openat(&dir, name, DIR_FLAGS, Mode::empty()).map_err(walk_error)?;
    }
    let fd = openat(&dir, file_name, FILE_FLAGS, Mode::empty()).map_err(walk_error)?;
    let stat = fstat(&fd).map_err(walk_error)?;
    if !is_regular(&stat) {
        return Err(format!(
            "is {}, not a regular file; not loaded",
            kind(&stat)
        ));
    }
    Ok((File::from(fd), stat))
}

/// Reads at most [`MAX_FILE_BYTES`] of the open regular `file` (a larger one is an error, read
/// no further) as text. Errors name `path`.
fn read_bounded(file: File, stat: FileStat, path: &Path) -> Result<FileText, String> {
    let shown = path.display();
    let too_large = || {
        format!(
            "{shown}: larger than {} KiB; not loaded",
            MAX_FILE_BYTES / 1024
        )
    };
    if u64::try_from(stat.st_size).unwrap_or(u64::MAX) > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    // One byte more than the limit tells "exactly at the limit" from "over it" for a file
    // that grew since the `fstat`.
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut warnings = Vec::new();
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            warnings.push(format!(
                "{shown}: not valid UTF-8; invalid bytes shown as \u{fffd}"
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    Ok(FileText { text, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn bound(dir: &Path) -> Bound {
        Bound::new(dir, "the project").unwrap()
    }

    /// Runs `f` on a thread and fails (instead of hanging the suite) if it blocks.
    fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(f()));
        receive
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the read blocked")
    }

    #[test]
    fn a_file_over_the_limit_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        std::fs::write(&path, vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let error = bound(dir.path()).read(&path).unwrap_err();
        assert!(
            error.contains("SKILL.md") && error.contains("larger than"),
            "{error}"
        );
        std::fs::write(&path, vec![b'a'; MAX_FILE_BYTES as usize]).unwrap();
        assert_eq!(
            bound(dir.path()).read(&path).unwrap().text.len(),
            MAX_FILE_BYTES as usize
        );
    }

    #[test]
    fn a_file_that_grew_past_the_limit_after_the_fstat_is_still_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        std::fs::write(&path, vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let (file, mut stat) = open_regular(&std::fs::canonicalize(&path).unwrap()).unwrap();
        // What `fstat` said before the file grew.
        stat.st_size = 10;
        let error = read_bounded(file, stat, &path).unwrap_err();
        assert!(error.contains("larger than"), "{error}");
    }

    #[test]
    fn invalid_utf8_is_replaced_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        std::fs::write(&path, b"ok \xff done").unwrap();
        let read = bound(dir.path()).read(&path).unwrap();
        assert_eq!(read.text, "ok \u{fffd} done");
        assert!(read.warnings[0].contains("x.md"), "{:?}", read.warnings);
        std::fs::write(&path, "fine").unwrap();
        assert!(bound(dir.path()).read(&path).unwrap().warnings.is_empty());
    }

    #[test]
    fn a_missing_file_names_itself() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope/SKILL.md");
        let error = bound(dir.path()).read(&missing).unwrap_err();
        assert!(error.starts_with(&missing.display().to_string()), "{error}");
        assert!(!bound(dir.path()).contains(&missing));
    }

    #[test]
    fn a_symlink_out_of_the_bound_is_refused_and_one_inside_is_followed() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "SECRET").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.md"), "inside").unwrap();
        symlink(outside.path().join("secret"), dir.path().join("out.md")).unwrap();
        symlink(dir.path().join("real.md"), dir.path().join("in.md")).unwrap();
        symlink(outside.path(), dir.path().join("sub")).unwrap();
        let bound = bound(dir.path());
        for escape in ["out.md", "sub/secret"] {
            let error = bound.read(&dir.path().join(escape)).unwrap_err();
            assert!(
                error.contains("leads outside the project") && error.contains(escape),
                "{error}"
            );
            assert!(!error.contains("SECRET"), "{error}");
            assert!(!bound.contains(&dir.path().join(escape)));
        }
        assert_eq!(
            bound.read(&dir.path().join("in.md")).unwrap().text,
            "inside"
        );
        assert!(bound.contains(&dir.path().join("in.md")));
        // A sibling whose name starts like the bound's is outside it.
        let sibling = PathBuf::from(format!("{}-x", dir.path().display()));
        std::fs::create_dir_all(&sibling).unwrap();
        std::fs::write(sibling.join("f"), "x").unwrap();
        assert!(bound.read(&sibling.join("f")).is_err());
        std::fs::remove_dir_all(&sibling).unwrap();
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("SKILL.md");
        nix::unistd::mkfifo(&fifo, Mode::from_bits_truncate(0o600)).unwrap();
        let bound = bound(dir.path());
        let error = within_seconds(move || bound.read(&fifo)).unwrap_err();
        assert!(
            error.contains("SKILL.md") && error.contains("a FIFO"),
            "{error}"
        );
    }

    #[test]
    fn directories_and_devices_are_refused_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let error = bound(dir.path()).read(&dir.path().join("d")).unwrap_err();
        assert!(error.contains("is a directory"), "{error}");
        let error = bound(Path::new("/dev"))
            .read(Path::new("/dev/null"))
            .unwrap_err();
        assert!(error.contains("is a device"), "{error}");
        let error = open_regular(Path::new("/")).unwrap_err();
        assert!(error.contains("is a directory"), "{error}");
        assert!(open_regular(Path::new("relative/x")).is_err());
    }

    #[test]
    fn a_folder_swapped_for_a_symlink_after_discovery_is_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("f.md"), "SECRET").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("skill");
        std::fs::create_dir(&skill).unwrap();
        std::fs::write(skill.join("f.md"), "mine").unwrap();
        let bound = Bound::at_real(std::fs::canonicalize(&skill).unwrap(), "the skill folder");
        assert_eq!(bound.read(&skill.join("f.md")).unwrap().text, "mine");
        std::fs::remove_dir_all(&skill).unwrap();
        symlink(outside.path(), &skill).unwrap();
        let error = bound.read(&skill.join("f.md")).unwrap_err();
        assert!(error.contains("leads outside the skill folder"), "{error}");
        // The walk itself refuses a symlink on the way, even where the check passed.
        let error = open_regular(&skill.join("f.md")).unwrap_err();
        assert!(error.contains("a symlink appeared"), "{error}");
    }

    /// The races these flags close are too narrow to hit reliably in a test, so the flags
    /// are checked too.
    #[test]
    fn every_open_never_follows_never_blocks_and_never_leaks() {
        assert_eq!(
            DIR_FLAGS,
            OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
        );
        assert_eq!(
            FILE_FLAGS,
            OFlag::O_RDONLY
                | OFlag::O_NOFOLLOW
                | OFlag::O_NONBLOCK
                | OFlag::O_CLOEXEC
                | OFlag::O_NOCTTY
        );
    }
}
