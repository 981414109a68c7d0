//! `host:port` entries of the sandbox's network allow-list (`--sandbox-allow`).

use std::fmt;

/// One allowed TCP destination. The kernel enforces the port only (Landlock's network rules
/// name ports, not addresses); the host is what the user meant, shown at start.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    /// A name (`localhost`, `db.internal`) or an address (`127.0.0.1`, `::1`).
    pub host: String,
    /// The TCP port.
    pub port: u16,
}

impl HostPort {
    /// Parses `host:port` or `[v6 address]:port`; the error names the entry.
    pub fn parse(text: &str) -> Result<HostPort, String> {
        let fail =
            |why: &str| format!("sandbox allow-list entry {text:?}: {why} (expected host:port)");
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, port) = rest.split_once("]:").ok_or_else(|| fail("no ]:port"))?;
            (host, port)
        } else {
            text.rsplit_once(':').ok_or_else(|| fail("no port"))?
        };
        if host.is_empty() || host.contains(['*', '/', ' ']) {
            return Err(fail("a host is a name or an address, not a pattern"));
        }
        if !text.starts_with('[') && host.contains(':') {
            return Err(fail("write an IPv6 address in brackets"));
        }
        let port: u16 = port
            .parse()
            .map_err(|_| fail("the port is not a number from 1 to 65535"))?;
        if port == 0 {
            return Err(fail("the port is not a number from 1 to 65535"));
        }
        Ok(HostPort {
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_addresses_and_bracketed_v6_parse_and_print_back() {
        for (text, host, port) in [
            ("localhost:8080", "localhost", 8080),
            ("127.0.0.1:5432", "127.0.0.1", 5432),
            ("[::1]:443", "::1", 443),
            ("DB.Internal:1", "db.internal", 1),
        ] {
            let entry = HostPort::parse(text).unwrap();
            assert_eq!((entry.host.as_str(), entry.port), (host, port), "{text}");
            assert_eq!(entry.to_string(), text.to_ascii_lowercase());
        }
    }

    #[test]
    fn bad_entries_are_refused_by_name() {
        for text in [
            "localhost",
            ":80",
            "*:80",
            "h:0",
            "h:65536",
            "h:x",
            "::1:80",
            "[::1]80",
        ] {
            let error = HostPort::parse(text).unwrap_err();
            assert!(error.contains(&format!("{text:?}")), "{text}: {error}");
        }
    }
}
