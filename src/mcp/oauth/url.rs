//! Just enough URL handling for OAuth discovery: split an absolute `http(s)` URL into origin,
//! path and query, build well-known URLs, and read query parameters.

use super::encoding::percent_decode;

/// An absolute URL split into its parts (no normalisation beyond dropping the fragment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitUrl {
    /// `scheme://authority`, such as `https://example.com:8443`.
    pub origin: String,
    /// The path, `""` or starting with `/`.
    pub path: String,
    /// The query without its `?`, if any.
    pub query: Option<String>,
}

impl SplitUrl {
    /// Splits `url`; `None` unless it is an absolute `http://` or `https://` URL.
    pub fn parse(url: &str) -> Option<SplitUrl> {
        let url = url.split('#').next().unwrap_or(url);
        let scheme_end = url.find("://")?;
        let scheme = url[..scheme_end].to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        let rest = &url[scheme_end + 3..];
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if authority.is_empty() {
            return None;
        }
        let tail = &rest[authority_end..];
        let (path, query) = match tail.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (tail, None),
        };
        Some(SplitUrl {
            origin: format!("{scheme}://{authority}"),
            path: path.to_owned(),
            query,
        })
    }

    /// The path without a trailing `/` (`""` for the root).
    pub fn trimmed_path(&self) -> &str {
        self.path.trim_end_matches('/')
    }

    /// `origin + /.well-known/<name> + path` (RFC 8414 §3.1 / RFC 9728 §3.1 insertion).
    pub fn well_known(&self, name: &str) -> String {
        format!("{}/.well-known/{name}{}", self.origin, self.trimmed_path())
    }

    /// The decoded value of query parameter `name`.
    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query.as_deref()?.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key) == name).then(|| percent_decode(value))
        })
    }
}

/// `url` with `query` appended (after `?`, or `&` when it has a query already).
pub fn with_query(url: &str, query: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{query}")
}
