//! `"sandbox"` in the user config file (`$XDG_CONFIG_HOME/agentwire/config.json`, else
//! `~/.config/agentwire/config.json`): the mode, the network and more deny-list paths a run
//! uses when the command line says nothing. Other keys of the file are not read here.
//!
//! Either `"sandbox": "read-only"` or
//! `"sandbox": {"mode": "workspace-write", "network": false, "deny": ["~/secrets"],
//! "allow": ["localhost:5432"]}`.

use crate::os::sandbox::{HostPort, Mode};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What the user config file says about the sandbox (everything `None`/empty when silent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserSandbox {
    /// `"mode"` (or the string form).
    pub mode: Option<Mode>,
    /// `"network"`.
    pub network: Option<bool>,
    /// `"deny"`: more paths kept unreadable (`~/` is the home folder).
    pub deny: Vec<PathBuf>,
    /// `"allow"`: `host:port` TCP destinations reachable with the network off.
    pub allow: Vec<HostPort>,
}

/// The user config file for these variables.
pub fn user_config_path(lookup: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let var = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_CONFIG_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".config")))
        .map(|dir| dir.join("agentwire/config.json"))
}

/// Reads `"sandbox"` from the file at `path` (none: [`UserSandbox::default`]). An unreadable
/// file or a wrong value is an error naming the file: a sandbox the user asked for is never
/// dropped silently.
pub fn load(path: &Path, home: Option<&Path>) -> Result<UserSandbox, String> {
    let Some(text) = crate::os::private_file::read(path, "the user config file")? else {
        return Ok(UserSandbox::default());
    };
    let fail = |why: String| format!("{}: {why}", path.display());
    let value: Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    parse(value.get("sandbox"), home).map_err(|why| fail(format!("\"sandbox\": {why}")))
}

/// The `"sandbox"` value, if any.
fn parse(value: Option<&Value>, home: Option<&Path>) -> Result<UserSandbox, String> {
    let mode = |v: &Value| match v.as_str() {
        Some(name) => Mode::parse(name).map(Some),
        None => Err("the mode must be a string".to_owned()),
    };
    match value {
        None | Some(Value::Null) => Ok(UserSandbox::default()),
        Some(v @ Value::String(_)) => Ok(UserSandbox {
            mode: mode(v)?,
            ..UserSandbox::default()
        }),
        Some(Value::Object(map)) => {
            if let Some(key) = map
                .keys()
                .find(|k| !["mode", "network", "deny", "allow"].contains(&k.as_str()))
            {
                return Err(format!(
                    "unknown key {key:?} (expected mode, network, deny, allow)"
                ));
            }
            let allow = match map.get("allow") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item.as_str() {
                        Some(entry) => HostPort::parse(entry),
                        None => Err("\"allow\" must list host:port entries".to_owned()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("\"allow\" must list host:port entries".into()),
            };
            let network = match map.get("network") {
                None => None,
                Some(Value::Bool(on)) => Some(*on),
                Some(_) => return Err("\"network\" must be true or false".into()),
            };
            let deny = match map.get("deny") {
                None => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item.as_str() {
                        Some(path) => Ok(expand_home(path, home)),
                        None => Err("\"deny\" must list paths".to_owned()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("\"deny\" must list paths".into()),
            };
            Ok(UserSandbox {
                mode: map.get("mode").map(mode).transpose()?.flatten(),
                network,
                deny,
                allow,
            })
        }
        Some(_) => Err("expected a mode name or an object".into()),
    }
}

fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(value: Value) -> Result<UserSandbox, String> {
        parse(Some(&value), Some(Path::new("/home/u")))
    }

    #[test]
    fn a_name_or_an_object_sets_the_mode_the_network_and_more_denied_paths() {
        assert_eq!(
            parsed(json!("read-only")).unwrap().mode,
            Some(Mode::ReadOnly)
        );
        let full = parsed(
            json!({"mode": "off", "network": true, "deny": ["~/k", "/etc/x"],
            "allow": ["localhost:5432"]}),
        );
        assert_eq!(
            full.unwrap(),
            UserSandbox {
                mode: Some(Mode::Off),
                network: Some(true),
                deny: vec![PathBuf::from("/home/u/k"), PathBuf::from("/etc/x")],
                allow: vec![HostPort::parse("localhost:5432").unwrap()],
            }
        );
        assert_eq!(parse(None, None).unwrap(), UserSandbox::default());
    }

    #[test]
    fn a_wrong_value_is_an_error_naming_what_is_wrong() {
        for (value, says) in [
            (json!("loose"), "unknown sandbox mode"),
            (json!(3), "expected a mode name"),
            (json!({"mode": 1}), "must be a string"),
            (json!({"network": "yes"}), "true or false"),
            (json!({"deny": "~/k"}), "must list paths"),
            (json!({"deny": [1]}), "must list paths"),
            (json!({"networks": true}), "unknown key \"networks\""),
            (json!({"allow": "h:1"}), "host:port entries"),
            (json!({"allow": ["h"]}), "expected host:port"),
        ] {
            let error = parsed(value.clone()).unwrap_err();
            assert!(error.contains(says), "{value}: {error}");
        }
    }

    #[test]
    fn the_file_is_found_under_the_config_home_and_a_bad_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let lookup = |name: &str| match name {
            "XDG_CONFIG_HOME" => Some(dir.path().as_os_str().to_owned()),
            _ => None,
        };
        let path = user_config_path(&lookup).unwrap();
        assert_eq!(path, dir.path().join("agentwire/config.json"));
        assert_eq!(load(&path, None).unwrap(), UserSandbox::default());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"other": 1, "sandbox": "read-only"}"#).unwrap();
        assert_eq!(load(&path, None).unwrap().mode, Some(Mode::ReadOnly));
        std::fs::write(&path, "{not json").unwrap();
        let error = load(&path, None).unwrap_err();
        assert!(error.contains("config.json"), "{error}");
    }
}
