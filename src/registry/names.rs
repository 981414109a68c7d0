//! Tool names as model APIs accept them: `[A-Za-z0-9_-]`, at most 64 characters.
//!
//! MCP tools are named `mcp__<server>__<tool>`. The server part is squeezed so that it never
//! contains `__` and never starts or ends with `_`: the first `__` after `mcp__` then always ends
//! the server part, and a permission pattern `mcp__github` cannot match a server called
//! `github__evil`. It is also capped at [`MAX_SERVER_PART_CHARS`] so that a name cut for length
//! always keeps its whole `mcp__<server>__` prefix.

use crate::json::quoted;

/// Longest tool name model APIs accept.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// Longest server part kept in `mcp__<server>__<tool>` names.
pub const MAX_SERVER_PART_CHARS: usize = 32;

/// Length of the hash suffix: `_` and eight hex digits.
const SUFFIX_CHARS: usize = 9;

/// 32-bit FNV-1a: tiny, deterministic on every platform, good enough to tell names apart.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// Eight lowercase hex digits identifying `(server, tool)`; the same on every platform and run.
pub fn stable_hash(server: &str, tool: &str) -> String {
    // A NUL separator keeps ("ab", "c") and ("a", "bc") apart.
    let mut bytes = Vec::with_capacity(server.len() + tool.len() + 1);
    bytes.extend_from_slice(server.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(tool.as_bytes());
    format!("{:08x}", fnv1a32(&bytes))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Whether `name` is acceptable to model APIs as it is.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_TOOL_NAME_CHARS && name.chars().all(is_name_char)
}

/// Why `name` is not a valid tool name, or `None` when it is.
pub fn tool_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    if let Some(c) = name.chars().find(|&c| !is_name_char(c)) {
        return Some(format!(
            "character {} is not allowed (only A-Z, a-z, 0-9, '_' and '-')",
            quoted(c.encode_utf8(&mut [0; 4]))
        ));
    }
    if name.len() > MAX_TOOL_NAME_CHARS {
        return Some(format!(
            "{} characters is longer than the limit of {MAX_TOOL_NAME_CHARS}",
            name.len()
        ));
    }
    None
}

/// Replaces every character models do not accept with `_` (one `_` per character, not byte).
pub fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .collect()
}

/// `server` sanitised with no `__` and no edge `_`, at any length (`""` when nothing is left).
fn squeeze_server(server: &str) -> String {
    let mut out = String::with_capacity(server.len());
    for c in sanitize(server).chars() {
        if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
            out.push(c);
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// The server part of MCP tool names: sanitised, no `__`, no edge `_`, at most 32 characters.
pub fn server_part(server: &str) -> String {
    let mut out = squeeze_server(server);
    // Only ASCII remains, so byte truncation is character truncation.
    out.truncate(MAX_SERVER_PART_CHARS);
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("server");
    }
    out
}

/// `mcp__<server part>`: the prefix every tool of `server` starts with (then `__`).
pub fn mcp_server_prefix(server: &str) -> String {
    format!("mcp__{}", server_part(server))
}

/// `mcp__<server>__<tool>` with the tool's original name, uncut and unsanitised: the second name
/// permission rules match, so a rule written with a tool's real name holds even when the
/// model-facing name got a hash suffix (a clash, or a name over 64 characters).
///
/// The server part is squeezed like [`server_part`] (so `mcp__github` never covers a server
/// called `github__evil`) but not cut, so a long server name can be written out in full.
pub fn full_mcp_name(server: &str, tool: &str) -> String {
    let mut server = squeeze_server(server);
    if server.is_empty() {
        server.push_str("server");
    }
    format!("mcp__{server}__{tool}")
}

/// `base` cut so that `_<hash>` fits within the 64-character limit, then `_<hash>` appended.
pub fn with_hash_suffix(base: &str, server: &str, tool: &str) -> String {
    let mut name = base.to_owned();
    name.truncate(MAX_TOOL_NAME_CHARS - SUFFIX_CHARS);
    format!("{name}_{}", stable_hash(server, tool))
}

/// The model-facing name of MCP tool `tool` on `server`, before any clash handling.
///
/// Names over 64 characters are cut and get a hash suffix of the original server and tool names,
/// so two long names sharing a prefix stay distinct and stable across runs.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    let base = format!("{}__{}", mcp_server_prefix(server), sanitize(tool));
    if base.len() > MAX_TOOL_NAME_CHARS {
        with_hash_suffix(&base, server, tool)
    } else {
        base
    }
}

/// Prefix of JS plugin tools: `plugin__<plugin>__<tool>`.
pub const PLUGIN_PREFIX: &str = "plugin__";

/// Names the core itself owns: the skill tools and the deferred-loading bridge.
pub const CORE_TOOL_NAMES: [&str; 4] = [
    "activate_skill",
    "read_skill_file",
    "tool_search",
    "call_tool",
];

/// A plugin's name as it enters tool and server names: lowercase `[a-z0-9-]`, no edge `-`, at
/// most 32 characters, `plugin` when nothing is left. With no `_` in it, `plugin__<p>__` and
/// `plugin_<p>_<server>` always split where they should.
pub fn plugin_part(plugin: &str) -> String {
    let mut out = String::new();
    for c in plugin.chars() {
        let c = c.to_ascii_lowercase();
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if !(c == '-' && (out.is_empty() || out.ends_with('-')))
            && out.len() < MAX_SERVER_PART_CHARS
        {
            out.push(c);
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("plugin");
    }
    out
}

/// `plugin__<plugin>__<tool>`, the name of a JS plugin's tool (see [`plugin_part`]).
pub fn plugin_tool_name(plugin: &str, tool: &str) -> String {
    format!("{PLUGIN_PREFIX}{}__{}", plugin_part(plugin), sanitize(tool))
}

/// `plugin_<plugin>_<server>`, the agentwire name of a plugin's MCP server (Claude Code's).
pub fn plugin_server_name(plugin: &str, server: &str) -> String {
    format!("plugin_{}_{}", plugin_part(plugin), sanitize(server))
}

/// Who owns the namespace `name` falls in, when that is not the host: MCP servers own
/// `mcp__…`, plugin `p` owns `plugin__p__…`, the core owns its own tool names. A host's
/// built-in tool may not take such a name.
pub fn reserved_owner(name: &str) -> Option<String> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let server = rest.split("__").next().unwrap_or(rest);
        return Some(format!(
            "MCP server {} (the mcp__ namespace)",
            quoted(server)
        ));
    }
    if let Some(rest) = name.strip_prefix(PLUGIN_PREFIX) {
        let plugin = rest.split("__").next().unwrap_or(rest);
        return Some(format!(
            "plugin {} (the plugin__ namespace)",
            quoted(plugin)
        ));
    }
    if CORE_TOOL_NAMES.contains(&name) {
        return Some("the agentwire core".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_reference_vectors() {
        // Published FNV-1a 32-bit test vectors.
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn stable_hash_separates_server_and_tool() {
        assert_eq!(stable_hash("s", "t"), stable_hash("s", "t"));
        assert_ne!(stable_hash("ab", "c"), stable_hash("a", "bc"));
        assert_eq!(stable_hash("s", "t").len(), 8);
    }

    #[test]
    fn plain_names_pass_through() {
        assert_eq!(
            mcp_tool_name("github", "get_issue"),
            "mcp__github__get_issue"
        );
        assert_eq!(mcp_tool_name("my-srv", "do-it"), "mcp__my-srv__do-it");
    }

    #[test]
    fn unicode_and_punctuation_become_underscores_per_character() {
        assert_eq!(mcp_tool_name("files", "read.file"), "mcp__files__read_file");
        // "é" is two bytes but one character: one underscore.
        assert_eq!(mcp_tool_name("srv", "café"), "mcp__srv__caf_");
        assert_eq!(mcp_tool_name("srv", "数据"), "mcp__srv____");
        assert!(is_valid_tool_name(&mcp_tool_name("srv", "数据")));
    }

    #[test]
    fn server_part_has_no_double_underscore_or_edges() {
        assert_eq!(server_part("github__evil"), "github_evil");
        assert_eq!(server_part("..weird..name.."), "weird_name");
        assert_eq!(server_part("???"), "server");
        assert_eq!(server_part(&"s".repeat(50)).len(), MAX_SERVER_PART_CHARS);
        assert_eq!(mcp_server_prefix("my.server"), "mcp__my_server");
    }

    #[test]
    fn full_names_keep_the_original_tool_and_whole_server() {
        assert_eq!(
            full_mcp_name("clash", "delete.repo"),
            "mcp__clash__delete.repo"
        );
        assert_eq!(full_mcp_name("github__evil", "x"), "mcp__github_evil__x");
        assert_eq!(full_mcp_name("..a..", "x"), "mcp__a__x");
        assert_eq!(full_mcp_name("???", "x"), "mcp__server__x");
        let long = "s".repeat(50);
        assert_eq!(full_mcp_name(&long, "t"), format!("mcp__{long}__t"));
        assert_eq!(server_part(&long), "s".repeat(MAX_SERVER_PART_CHARS));
        // Cutting to 32 characters can leave an edge `_`, which goes.
        let edge = format!("{}_b", "a".repeat(MAX_SERVER_PART_CHARS - 1));
        assert_eq!(server_part(&edge), "a".repeat(MAX_SERVER_PART_CHARS - 1));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash_suffix() {
        let tool = "a_really_long_tool_name_that_goes_on_and_on_and_on_forever";
        let name = mcp_tool_name("github", tool);
        assert_eq!(name.len(), MAX_TOOL_NAME_CHARS);
        assert!(name.starts_with("mcp__github__a_really_long"));
        assert!(name.ends_with(&format!("_{}", stable_hash("github", tool))));
        assert_eq!(name, mcp_tool_name("github", tool), "deterministic");
        let other = mcp_tool_name("github", &format!("{tool}_2"));
        assert_ne!(name, other, "same prefix, different hash");
        assert!(is_valid_tool_name(&name) && is_valid_tool_name(&other));
        // A very long server name still leaves the prefix whole.
        let long_server = "x".repeat(100);
        let name = mcp_tool_name(&long_server, tool);
        assert!(name.starts_with(&format!("{}__", mcp_server_prefix(&long_server))));
        assert!(is_valid_tool_name(&name));
    }

    #[test]
    fn plugin_parts_are_lowercase_words_with_no_underscore_and_capped() {
        assert_eq!(plugin_part("Commit Commands"), "commit-commands");
        assert_eq!(plugin_part("__evil__good__"), "evil-good");
        assert_eq!(plugin_part("数据"), "plugin");
        let long = "a".repeat(40);
        assert_eq!(plugin_part(&long), "a".repeat(MAX_SERVER_PART_CHARS));
        assert_eq!(
            plugin_part(&"a".repeat(MAX_SERVER_PART_CHARS)).len(),
            MAX_SERVER_PART_CHARS
        );
        assert_eq!(
            plugin_tool_name("My Plugin", "do.it"),
            "plugin__my-plugin__do_it"
        );
        assert_eq!(plugin_server_name("p", "s.v"), "plugin_p_s_v");
    }

    #[test]
    fn problems_are_named() {
        assert!(tool_name_problem("ok_name-1").is_none());
        assert!(tool_name_problem("").unwrap().contains("empty"));
        assert!(tool_name_problem("a b")
            .unwrap()
            .contains("character \" \""));
        assert!(tool_name_problem(&"a".repeat(65)).unwrap().contains("65"));
    }
}
