//! DPoP (RFC 9449; MCP's DPoP extension, SEP-1932): access tokens bound to a key the client
//! holds, so that a token that leaks is useless without the key.
//!
//! The split, as for client assertions: the core decides when a proof is needed and what it
//! says (its header and claims, below), the host holds the EC P-256 key and signs. When the
//! authorization server lists `ES256` in `dpop_signing_alg_values_supported` and the host can
//! sign ([`OAuthConfig::dpop`](super::OAuthConfig::dpop)), every token request goes out as an
//! [`OAuthStep::ProofRequest`]; a `use_dpop_nonce` answer is
//! retried once with the server's nonce (RFC 9449 §8), and a `token_type` of `DPoP` marks the
//! token as bound ([`OAuthToken::dpop`](super::OAuthToken::dpop)). The Streamable HTTP machine
//! then sends it as `Authorization: DPoP <token>`, and the host adds a fresh proof to each such
//! request, retrying once when the MCP server asks for a nonce
//! ([`resource_nonce_challenge`], RFC 9449 §9).

use super::encoding::{base64url, sha256};
use super::flow::{OAuthFlow, Phase};
use super::types::OAuthStep;
use serde_json::{json, Value};

/// The proof algorithm a host signs with (its key is EC P-256).
pub const DPOP_ALGORITHM: &str = "ES256";
/// The request header that carries a proof.
pub const DPOP_HEADER: &str = "DPoP";
/// The response header a server hands its nonce in.
pub const DPOP_NONCE_HEADER: &str = "DPoP-Nonce";
/// The `Authorization` scheme of a bound token (RFC 9449 §7.1).
pub const DPOP_SCHEME: &str = "DPoP";
/// The error a server answers when a proof lacks its nonce.
const USE_DPOP_NONCE: &str = "use_dpop_nonce";
/// Longest nonce taken from a server (a nonce is an opaque token of a few dozen bytes; a
/// longer one would travel in every proof).
pub const MAX_NONCE_BYTES: usize = 1024;

/// A proof's `htu`: the request's URL without its query and fragment (RFC 9449 §4.2).
pub fn target_uri(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

/// What one proof is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofFor<'a> {
    /// The request's method (`htm`).
    pub method: &'a str,
    /// The request's URL (`htu`, without query and fragment).
    pub url: &'a str,
    /// The bound token the request presents (its hash is `ath`).
    pub access_token: Option<&'a str>,
    /// The nonce the server asked proofs to carry.
    pub nonce: Option<&'a str>,
}

/// A proof's signing input, `base64url(header).base64url(claims)`: the header names
/// [`DPOP_ALGORITHM`] and carries `public_jwk`; the claims are `jti`, `htm`, `htu` (see
/// [`target_uri`]), `iat` = `issued_at` (Unix seconds), `ath` (the base64url SHA-256 of the
/// access token, when the request presents one) and `nonce`, when the server gave one. The
/// host appends `.` and the base64url ES256 signature (r || s) of these bytes. A private part
/// in `public_jwk` (`d`) is never copied into the header.
pub fn proof_signing_input(
    public_jwk: &Value,
    proof: &ProofFor<'_>,
    issued_at: u64,
    jti: &str,
) -> String {
    let ProofFor {
        method,
        url,
        access_token,
        nonce,
    } = *proof;
    let mut jwk = public_jwk.clone();
    if let Some(key) = jwk.as_object_mut() {
        key.remove("d");
    }
    let header = json!({"typ": "dpop+jwt", "alg": DPOP_ALGORITHM, "jwk": jwk});
    let mut claims = json!({"jti": jti, "htm": method, "htu": target_uri(url), "iat": issued_at});
    if let Some(token) = access_token {
        claims["ath"] = base64url(&sha256(token.as_bytes())).into();
    }
    if let Some(nonce) = nonce {
        claims["nonce"] = nonce.into();
    }
    let encode = |value: &Value| base64url(crate::json::to_text(value).as_bytes());
    format!("{}.{}", encode(&header), encode(&claims))
}

/// The nonce an MCP server asks proofs to carry: a `401` whose `WWW-Authenticate` says
/// `error="use_dpop_nonce"` and which hands a `DPoP-Nonce` (RFC 9449 §9). `None` for any other
/// answer, and for a nonce that is empty, longer than [`MAX_NONCE_BYTES`] or not visible ASCII.
pub fn resource_nonce_challenge(status: u16, headers: &[(String, String)]) -> Option<String> {
    if status != 401 {
        return None;
    }
    let asks = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("www-authenticate")
            && super::BearerChallenge::parse(value).error.as_deref() == Some(USE_DPOP_NONCE)
    });
    if !asks {
        return None;
    }
    nonce_of(headers)
}

/// The `DPoP-Nonce` a response hands, if it is a usable one.
pub fn nonce_of(headers: &[(String, String)]) -> Option<String> {
    let (_, value) = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(DPOP_NONCE_HEADER))?;
    let value = value.trim();
    let usable = !value.is_empty()
        && value.len() <= MAX_NONCE_BYTES
        && value.bytes().all(|b| b.is_ascii_graphic());
    usable.then(|| value.to_owned())
}

/// Whether authorization server metadata lists [`DPOP_ALGORITHM`] among
/// `dpop_signing_alg_values_supported`.
pub(super) fn supports_dpop(metadata: &Value) -> bool {
    metadata
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|a| a.as_str() == Some(DPOP_ALGORITHM)))
}

impl OAuthFlow {
    /// Whether token requests carry proofs: the host can sign and the server takes ES256.
    pub(super) fn uses_dpop(&self) -> bool {
        self.config.dpop && self.server.dpop
    }

    /// The token request `step` as a request with a proof, kept for a nonce retry.
    pub(super) fn with_proof(&mut self, step: OAuthStep) -> OAuthStep {
        match step {
            OAuthStep::Request(request) if self.uses_dpop() => {
                self.proof_request = Some(request.clone());
                self.nonce_retried = false;
                OAuthStep::ProofRequest {
                    request,
                    nonce: self.token_nonce.clone(),
                }
            }
            other => other,
        }
    }

    /// A token endpoint's `use_dpop_nonce` answer (`400`, with a `DPoP-Nonce`): the same
    /// request again with the nonce, once (RFC 9449 §8). `None` for any other answer, which is
    /// read as usual; a second such answer is a refusal like any other.
    pub(super) fn nonce_retry(
        &mut self,
        status: u16,
        headers: &[(String, String)],
        json: Option<&Value>,
    ) -> Option<OAuthStep> {
        if !matches!(self.phase, Phase::Token | Phase::Refreshing) || self.nonce_retried {
            return None;
        }
        let asked = json.and_then(|j| j.get("error")).and_then(Value::as_str);
        if status != 400 || asked != Some(USE_DPOP_NONCE) {
            return None;
        }
        let nonce = nonce_of(headers)?;
        let mut request = self.proof_request.clone()?;
        request.id = super::super::http::HttpRequestId(self.next_id);
        self.next_id += 1;
        self.nonce_retried = true;
        self.token_nonce = Some(nonce.clone());
        Some(OAuthStep::ProofRequest {
            request,
            nonce: Some(nonce),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(input: &str, at: usize) -> Value {
        let text = input.split('.').nth(at).unwrap();
        serde_json::from_slice(&crate::base64::decode(text).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_names_the_request_without_query_or_fragment_and_hashes_the_token() {
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": "AAA", "y": "BBB", "d": "secret"});
        let proof = ProofFor {
            method: "POST",
            url: "https://mcp.example/mcp?session=1#frag",
            access_token: Some("tok"),
            nonce: Some("n-1"),
        };
        let input = proof_signing_input(&jwk, &proof, 1_700_000_000, "id-1");
        assert_eq!(input.split('.').count(), 2, "{input}");
        let header = part(&input, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(
            header["jwk"],
            json!({"kty": "EC", "crv": "P-256", "x": "AAA", "y": "BBB"})
        );
        let claims = part(&input, 1);
        assert_eq!(claims["jti"], "id-1");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["iat"], 1_700_000_000);
        // base64url(SHA-256("tok")), unpadded.
        assert_eq!(claims["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        assert_eq!(claims["nonce"], "n-1");
        let get = ProofFor {
            method: "GET",
            url: "https://a/b",
            access_token: None,
            nonce: None,
        };
        let bare = proof_signing_input(&jwk, &get, 1, "j");
        let claims = part(&bare, 1);
        assert!(claims.get("ath").is_none() && claims.get("nonce").is_none());
        assert_eq!(claims["htu"], "https://a/b");
        assert_eq!(target_uri("https://a/b#x?y"), "https://a/b");
    }

    #[test]
    fn only_a_401_asking_for_a_nonce_with_a_usable_one_is_a_nonce_challenge() {
        let headers = |www: &str, nonce: &str| {
            vec![
                ("WWW-Authenticate".to_owned(), www.to_owned()),
                ("dpop-nonce".to_owned(), nonce.to_owned()),
            ]
        };
        let asks = r#"DPoP error="use_dpop_nonce", resource_metadata="https://m/x""#;
        assert_eq!(
            resource_nonce_challenge(401, &headers(asks, " n-2 ")),
            Some("n-2".to_owned())
        );
        assert_eq!(resource_nonce_challenge(403, &headers(asks, "n")), None);
        assert_eq!(resource_nonce_challenge(400, &headers(asks, "n")), None);
        let other = r#"DPoP error="invalid_token""#;
        assert_eq!(resource_nonce_challenge(401, &headers(other, "n")), None);
        assert_eq!(resource_nonce_challenge(401, &headers(asks, "")), None);
        assert_eq!(resource_nonce_challenge(401, &headers(asks, "a b")), None);
        let long = "n".repeat(MAX_NONCE_BYTES + 1);
        assert_eq!(resource_nonce_challenge(401, &headers(asks, &long)), None);
        let longest = "n".repeat(MAX_NONCE_BYTES);
        assert_eq!(
            resource_nonce_challenge(401, &headers(asks, &longest)),
            Some(longest)
        );
        let no_nonce = vec![("WWW-Authenticate".to_owned(), asks.to_owned())];
        assert_eq!(resource_nonce_challenge(401, &no_nonce), None);
    }

    #[test]
    fn metadata_supports_dpop_only_when_it_lists_es256() {
        assert!(supports_dpop(
            &json!({"dpop_signing_alg_values_supported": ["RS256", "ES256"]})
        ));
        assert!(!supports_dpop(
            &json!({"dpop_signing_alg_values_supported": ["RS256"]})
        ));
        assert!(!supports_dpop(
            &json!({"dpop_signing_alg_values_supported": "ES256"})
        ));
        assert!(!supports_dpop(&json!({})));
    }
}
