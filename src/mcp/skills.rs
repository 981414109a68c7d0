//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), off by default
//! ([`SessionConfig::skills`]): a modern server that declares it answers `skills/list` with
//! entries `{uri, frontmatter, resources}`, whose `resources` is the complete manifest of the
//! skill's files, each `{uri, digest: "sha256:<hex>", size}` (or `"dynamic"`). The session lists
//! them like any paginated list ([`ListKind::Skills`](super::ListKind::Skills), bounded by
//! [`SessionConfig::max_tool_pages`]); this module reads the entries ([`parse_skill_list`]),
//! refusing what the extension says a host must not load, and checks the bytes a
//! `resources/read` of a listed file returned against its entry ([`ServerSkill::verify`]).
//! Pure data: nothing here sends, and nothing is read before the host asks for it.
//!
//! [`SessionConfig::skills`]: super::SessionConfig::skills
//! [`SessionConfig::max_tool_pages`]: super::SessionConfig::max_tool_pages

use crate::mcp::oauth::encoding::sha256;
use serde_json::{Map, Value};

/// The extension's name in `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// Most files of one skill (the extension's per-skill limit, `SKILL.md` included).
pub const MAX_SKILL_FILES: usize = 512;
/// Most bytes of one skill's files together (the extension's per-skill limit, 16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// Most skills taken from one server's listing; the rest are dropped with one warning (the
/// extension allows any number, but every one costs catalog space in every request).
pub const MAX_SERVER_SKILLS: usize = 256;
/// Longest skill name (the Agent Skills naming rules).
pub const MAX_SKILL_NAME: usize = 64;
/// Longest description kept from an entry (the Agent Skills limit).
pub const MAX_SKILL_DESCRIPTION: usize = 1024;

/// One file of a server skill, as its entry describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    /// The resource URI to read it with `resources/read`.
    pub uri: String,
    /// Its path relative to the skill's root (`SKILL.md`, `templates/invoice.md`).
    pub path: String,
    /// The SHA-256 digest of its raw bytes.
    pub digest: [u8; 32],
    /// Its length in bytes.
    pub size: u64,
}

/// One skill a server serves, read from its `skills/list` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSkill {
    /// The URI of its `SKILL.md` (its identity within the server).
    pub uri: String,
    /// The skill's root: `uri` without `/SKILL.md`.
    pub root: String,
    /// `frontmatter.name` (the last segment of the root).
    pub name: String,
    /// `frontmatter.description`.
    pub description: String,
    /// The frontmatter, verbatim.
    pub frontmatter: Map<String, Value>,
    /// Every file, `SKILL.md` first, then the others in the server's order.
    pub files: Vec<SkillFile>,
}

impl ServerSkill {
    /// The `SKILL.md` entry (always present in a parsed skill).
    pub fn skill_md(&self) -> &SkillFile {
        &self.files[0]
    }

    /// The listed file at `path` (relative to the skill's root), if any.
    pub fn file_at(&self, path: &str) -> Option<&SkillFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Paths of the files other than `SKILL.md`, in the server's order.
    pub fn bundled_paths(&self) -> Vec<String> {
        self.files[1..].iter().map(|f| f.path.clone()).collect()
    }

    /// What its frontmatter's `allowed-tools` asks for (never granted: a server is not a
    /// trusted source; shown so the user can see what was asked).
    pub fn allowed_tools(&self) -> Vec<String> {
        match self.frontmatter.get("allowed-tools") {
            Some(Value::String(text)) => text.split_whitespace().map(str::to_owned).collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Checks `bytes`, read from `file`, against its entry: the size first (a cheap refusal
    /// of an oversized answer), then the SHA-256 digest. The error names the file.
    pub fn verify(&self, file: &SkillFile, bytes: &[u8]) -> Result<(), String> {
        if bytes.len() as u64 != file.size {
            return Err(format!(
                "{} is {} bytes, but the skill's entry says {}",
                file.uri,
                bytes.len(),
                file.size
            ));
        }
        if sha256(bytes) != file.digest {
            return Err(format!(
                "{} does not match its SHA-256 digest sha256:{}",
                file.uri,
                hex(&file.digest)
            ));
        }
        Ok(())
    }
}

impl super::ClientSession {
    /// Whether the Skills extension is in use with this server: asked for in the config, the
    /// modern era, and declared by the server in its `extensions`. Only then is `skills/list`
    /// offered ([`ClientSession::offers`](super::ClientSession::offers)).
    pub fn skills_negotiated(&self) -> bool {
        self.negotiated_extensions().contains(&SKILLS_EXTENSION)
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 15)] as char);
    }
    text
}

/// `sha256:` and 64 lowercase hex digits, as bytes.
fn parse_digest(text: &str) -> Option<[u8; 32]> {
    let hex = text.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, pair) in hex.as_bytes().chunks(2).enumerate() {
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        digest[i] = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(digest)
}

/// The Agent Skills naming rules: 1 to 64 of `a-z`, `0-9` and `-`, no `-` at either end and
/// no two in a row.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_SKILL_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A relative path inside a skill: no empty, `.` or `..` segment, no backslash, no control
/// character (it may not name anything outside the skill's root).
fn valid_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// Reads one `skills/list` (or `skills/get`) entry; the error says what makes it one a host
/// must not load.
pub fn parse_skill_entry(entry: &Value) -> Result<ServerSkill, String> {
    let uri = entry
        .get("uri")
        .and_then(Value::as_str)
        .ok_or("an entry without a \"uri\" string")?;
    let root = uri
        .strip_suffix("/SKILL.md")
        .filter(|root| root.contains("://") && !root.ends_with("://"))
        .ok_or_else(|| format!("{uri}: not the URI of a SKILL.md"))?;
    let frontmatter = entry
        .get("frontmatter")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{uri}: no \"frontmatter\" object"))?;
    let name = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| valid_name(name))
        .ok_or_else(|| format!("{uri}: frontmatter \"name\" is not a valid skill name"))?;
    if root.rsplit('/').next() != Some(name) {
        return Err(format!(
            "{uri}: the skill's path does not end in its name {name}"
        ));
    }
    let description = frontmatter
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty() && d.len() <= MAX_SKILL_DESCRIPTION)
        .ok_or_else(|| format!("{uri}: frontmatter \"description\" is missing or too long"))?;
    let listed = match entry.get("resources") {
        Some(Value::Array(listed)) => listed,
        Some(Value::String(kind)) if kind == "dynamic" => {
            return Err(format!(
                "{uri}: its content is \"dynamic\" (no digests), which agentwire does not load"
            ))
        }
        _ => {
            return Err(format!(
                "{uri}: \"resources\" is neither a list nor \"dynamic\""
            ))
        }
    };
    if listed.len() > MAX_SKILL_FILES {
        return Err(format!(
            "{uri}: {} files, more than the {MAX_SKILL_FILES} a skill may have",
            listed.len()
        ));
    }
    let mut files: Vec<SkillFile> = Vec::new();
    let mut total: u64 = 0;
    let prefix = format!("{root}/");
    for file in listed {
        let file_uri = file.get("uri").and_then(Value::as_str).unwrap_or_default();
        let path = file_uri
            .strip_prefix(prefix.as_str())
            .filter(|path| valid_path(path))
            .ok_or_else(|| format!("{uri}: file {file_uri:?} is not inside the skill"))?;
        let digest = file
            .get("digest")
            .and_then(Value::as_str)
            .and_then(parse_digest)
            .ok_or_else(|| format!("{uri}: file {file_uri} has no sha256:<64 hex> digest"))?;
        let size = file
            .get("size")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("{uri}: file {file_uri} has no size"))?;
        if files.iter().any(|f| f.path == path) {
            return Err(format!("{uri}: file {file_uri} is listed twice"));
        }
        total = total.saturating_add(size);
        if total > MAX_SKILL_BYTES {
            return Err(format!(
                "{uri}: its files are more than the {MAX_SKILL_BYTES} bytes a skill may have"
            ));
        }
        let file = SkillFile {
            uri: file_uri.to_owned(),
            path: path.to_owned(),
            digest,
            size,
        };
        // `SKILL.md` first, so that `skill_md` needs no search.
        if path == "SKILL.md" {
            files.insert(0, file);
        } else {
            files.push(file);
        }
    }
    if files.first().is_none_or(|f| f.path != "SKILL.md") {
        return Err(format!("{uri}: its files do not list SKILL.md itself"));
    }
    Ok(ServerSkill {
        uri: uri.to_owned(),
        root: root.to_owned(),
        name: name.to_owned(),
        description: description.to_owned(),
        frontmatter: frontmatter.clone(),
        files,
    })
}

/// Reads a whole listing: the skills to offer, and one warning per entry left out (each
/// names the entry and why), at most [`MAX_SERVER_SKILLS`] kept. Two entries with one URI
/// keep the first.
pub fn parse_skill_list(items: &[Value]) -> (Vec<ServerSkill>, Vec<String>) {
    let mut skills: Vec<ServerSkill> = Vec::new();
    let mut warnings = Vec::new();
    for item in items {
        if skills.len() == MAX_SERVER_SKILLS {
            warnings.push(format!(
                "{} more skills left out: at most {MAX_SERVER_SKILLS} are taken from one server",
                items.len() - MAX_SERVER_SKILLS
            ));
            break;
        }
        match parse_skill_entry(item) {
            Ok(skill) if skills.iter().any(|s| s.uri == skill.uri) => {
                warnings.push(format!("{}: listed twice; the first kept", skill.uri));
            }
            Ok(skill) => skills.push(skill),
            Err(why) => warnings.push(why),
        }
    }
    (skills, warnings)
}

/// The raw bytes of `uri` in a `resources/read` result: its `text` as UTF-8, or its `blob`
/// decoded from base64. The error says what the result lacks.
pub fn read_bytes(result: &Value, uri: &str) -> Result<Vec<u8>, String> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or("a resources/read result without \"contents\"")?;
    let content = contents
        .iter()
        .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
        .ok_or_else(|| format!("the resources/read result has no contents for {uri}"))?;
    if let Some(text) = content.get("text").and_then(Value::as_str) {
        return Ok(text.as_bytes().to_vec());
    }
    match content.get("blob").and_then(Value::as_str) {
        Some(blob) => crate::base64::decode(blob).map_err(|why| format!("{uri}: {why}")),
        None => Err(format!("the contents of {uri} have neither text nor blob")),
    }
}

#[cfg(test)]
mod tests;
