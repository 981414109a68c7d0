//! Reading extension files: bounded in size, lossy in encoding, every problem naming the file.

use std::io::Read;
use std::path::Path;

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

/// Reads `path` as text: at most [`MAX_FILE_BYTES`] (a larger file is an error, read no
/// further), invalid UTF-8 replaced with a warning. Errors name the file.
pub fn read_text(path: &Path) -> Result<FileText, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let mut bytes = Vec::new();
    // One byte more than the limit tells "exactly at the limit" from "over it".
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{shown}: larger than {} KiB; not loaded",
            MAX_FILE_BYTES / 1024
        ));
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

    #[test]
    fn a_file_over_the_limit_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        std::fs::write(&path, vec![b'a'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let error = read_text(&path).unwrap_err();
        assert!(
            error.contains("SKILL.md") && error.contains("larger than"),
            "{error}"
        );
        std::fs::write(&path, vec![b'a'; MAX_FILE_BYTES as usize]).unwrap();
        assert_eq!(
            read_text(&path).unwrap().text.len(),
            MAX_FILE_BYTES as usize
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        std::fs::write(&path, b"ok \xff done").unwrap();
        let read = read_text(&path).unwrap();
        assert_eq!(read.text, "ok \u{fffd} done");
        assert!(read.warnings[0].contains("x.md"), "{:?}", read.warnings);
    }

    #[test]
    fn a_missing_file_names_itself() {
        let error = read_text(Path::new("/nonexistent/agentwire/SKILL.md")).unwrap_err();
        assert!(
            error.starts_with("/nonexistent/agentwire/SKILL.md"),
            "{error}"
        );
    }
}
