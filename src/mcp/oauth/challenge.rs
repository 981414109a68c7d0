//! `WWW-Authenticate: Bearer ...` challenges (RFC 6750 §3, RFC 9728 §5.1), and `DPoP ...` ones
//! (RFC 9449 §7.1), which carry the same parameters.

/// The parameters of a `Bearer` challenge that matter to a client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// `resource_metadata`: where the Protected Resource Metadata lives.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs.
    pub scope: Option<String>,
    /// `error`, such as `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
}

impl BearerChallenge {
    /// Reads the `Bearer` (or `DPoP`) challenge from a `WWW-Authenticate` value; an absent or foreign
    /// scheme gives an empty challenge (discovery then falls back to well-known URLs).
    pub fn parse(header: &str) -> BearerChallenge {
        let mut challenge = BearerChallenge::default();
        let trimmed = header.trim_start();
        let Some(scheme_end) = trimmed.find(|c: char| c.is_ascii_whitespace()) else {
            return challenge;
        };
        // A DPoP challenge (RFC 9449 §7.1) carries the same parameters.
        let scheme = &trimmed[..scheme_end];
        if !scheme.eq_ignore_ascii_case("bearer") && !scheme.eq_ignore_ascii_case("dpop") {
            return challenge;
        }
        for (name, value) in parse_params(&trimmed[scheme_end..]) {
            let slot = match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => &mut challenge.resource_metadata,
                "scope" => &mut challenge.scope,
                "error" => &mut challenge.error,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        challenge
    }

    /// Whether the server asks for more scope (`error="insufficient_scope"`, a step-up).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// `name=value` or `name="quoted \" value"` pairs separated by commas.
fn parse_params(text: &str) -> Vec<(String, String)> {
    let mut params = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars
            .peek()
            .is_some_and(|c| c.is_ascii_whitespace() || *c == ',')
        {
            chars.next();
        }
        let name: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ','))
            .collect::<String>()
            .trim()
            .to_owned();
        if name.is_empty() && chars.peek().is_none() {
            return params;
        }
        if chars.next_if_eq(&'=').is_none() {
            continue;
        }
        while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'"').is_some() {
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    other => value.push(other),
                }
            }
        } else {
            value = std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                .collect::<String>()
                .trim()
                .to_owned();
        }
        if !name.is_empty() {
            params.push((name, value));
        }
    }
}
