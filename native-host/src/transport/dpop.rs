//! The host's DPoP key (RFC 9449): an EC P-256 key made for this process, which signs the
//! proofs the core describes (`agentwire::mcp::oauth::dpop`). Tokens bound to it die with it,
//! so they are never written to the token store.

use agentwire::mcp::http::HttpRequest;
use agentwire::mcp::oauth::dpop::{proof_signing_input, ProofFor, DPOP_HEADER, DPOP_SCHEME};
use agentwire::mcp::oauth::encoding::base64url;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{json, Value};
use std::fmt;
use std::sync::Mutex;

/// A DPoP key and the nonce the MCP server last handed out for it.
pub struct DpopKey {
    key: SigningKey,
    /// The public half as a JWK (`kty`, `crv`, `x`, `y`: never `d`).
    public_jwk: Value,
    /// The MCP server's latest `DPoP-Nonce`, carried by later proofs.
    nonce: Mutex<Option<String>>,
}

impl fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key.
        f.write_str("DpopKey(<redacted>)")
    }
}

impl DpopKey {
    /// A fresh key from the system's randomness.
    pub fn generate() -> Result<DpopKey, String> {
        // A random 32-byte string is a valid P-256 scalar but for odds of about 2^-32; draw
        // again then.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for DPoP: {e}"))?;
            if let Ok(key) = SigningKey::from_bytes(&bytes.into()) {
                return Ok(DpopKey::from_key(key));
            }
        }
        Err("no valid DPoP key could be drawn".to_owned())
    }

    fn from_key(key: SigningKey) -> DpopKey {
        let point = key.verifying_key().to_encoded_point(false);
        let coordinate = |c: Option<&p256::FieldBytes>| c.map(|c| base64url(c)).unwrap_or_default();
        let public_jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coordinate(point.x()),
            "y": coordinate(point.y()),
        });
        DpopKey {
            key,
            public_jwk,
            nonce: Mutex::new(None),
        }
    }

    /// The public key as a JWK.
    pub fn public_jwk(&self) -> &Value {
        &self.public_jwk
    }

    /// The proof `proof` at `issued_at` with `jti`: the compact JWS `header.claims.signature`.
    pub fn proof_at(&self, proof: &ProofFor<'_>, issued_at: u64, jti: &str) -> String {
        let input = proof_signing_input(&self.public_jwk, proof, issued_at, jti);
        // RFC 7518 §3.4: the signature is r || s, 32 bytes each (not DER).
        let signature: Signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", base64url(&signature.to_bytes()))
    }

    /// [`proof_at`](Self::proof_at) now, with a fresh random `jti`.
    pub fn proof(&self, proof: &ProofFor<'_>) -> Result<String, String> {
        let (jti, now) = crate::transport::jwt::fresh_id_and_now()?;
        Ok(self.proof_at(proof, now, &jti))
    }

    /// Keeps the MCP server's latest nonce for the proofs that follow.
    pub fn set_nonce(&self, nonce: String) {
        if let Ok(mut slot) = self.nonce.lock() {
            *slot = Some(nonce);
        }
    }

    /// `request` with a fresh proof in its `DPoP` header when it presents a DPoP-bound token
    /// (`Authorization: DPoP <token>`, which the proof's `ath` then names), carrying the latest
    /// nonce; any other request is left as it is.
    pub fn add_proof(&self, mut request: HttpRequest) -> Result<HttpRequest, String> {
        let prefix = format!("{DPOP_SCHEME} ");
        let token = request.headers.iter().find_map(|(name, value)| {
            (name.eq_ignore_ascii_case("authorization") && value.starts_with(&prefix))
                .then(|| value[prefix.len()..].to_owned())
        });
        let Some(token) = token else {
            return Ok(request);
        };
        let nonce = self.nonce.lock().ok().and_then(|n| n.clone());
        let proof = self.proof(&ProofFor {
            method: request.method.as_str(),
            url: &request.url,
            access_token: Some(&token),
            nonce: nonce.as_deref(),
        })?;
        request
            .headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case(DPOP_HEADER));
        request.headers.push((DPOP_HEADER.to_owned(), proof));
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::mcp::http::{HttpMethod, HttpRequestId};
    use agentwire::mcp::oauth::encoding::base64url_decode;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;

    fn decode(part: &str) -> Vec<u8> {
        base64url_decode(part).expect("base64url")
    }

    fn json_part(part: &str) -> Value {
        serde_json::from_slice(&decode(part)).unwrap()
    }

    /// The verifying key a JWK describes (uncompressed SEC1: 0x04 || x || y).
    fn key_of(jwk: &Value) -> VerifyingKey {
        let mut sec1 = vec![4u8];
        sec1.extend(decode(jwk["x"].as_str().unwrap()));
        sec1.extend(decode(jwk["y"].as_str().unwrap()));
        VerifyingKey::from_sec1_bytes(&sec1).unwrap()
    }

    #[test]
    fn a_proof_verifies_with_the_public_key_in_its_own_header() {
        let key = DpopKey::generate().unwrap();
        let token_request = ProofFor {
            method: "POST",
            url: "https://as.example/token",
            access_token: None,
            nonce: Some("n"),
        };
        let proof = key.proof_at(&token_request, 7, "j-1");
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = json_part(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(&header["jwk"], key.public_jwk());
        assert!(header["jwk"].get("d").is_none(), "{header}");
        let claims = json_part(parts[1]);
        assert_eq!(claims["htu"], "https://as.example/token");
        assert_eq!(claims["nonce"], "n");
        let signature = Signature::from_slice(&decode(parts[2])).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        key_of(&header["jwk"])
            .verify(signed.as_bytes(), &signature)
            .expect("the proof verifies with the key it names");
        // Another key does not verify it.
        let other = DpopKey::generate().unwrap();
        assert!(key_of(other.public_jwk())
            .verify(signed.as_bytes(), &signature)
            .is_err());
    }

    fn request(authorization: Option<&str>) -> HttpRequest {
        let mut headers = vec![("Accept".to_owned(), "application/json".to_owned())];
        if let Some(value) = authorization {
            headers.push(("Authorization".to_owned(), value.to_owned()));
        }
        HttpRequest {
            id: HttpRequestId(1),
            method: HttpMethod::Post,
            url: "https://mcp.example/mcp?x=1".to_owned(),
            headers,
            body: None,
        }
    }

    #[test]
    fn only_a_dpop_bound_request_gets_a_fresh_proof_naming_its_token_and_nonce() {
        let key = DpopKey::generate().unwrap();
        let bearer = request(Some("Bearer t"));
        assert_eq!(key.add_proof(bearer.clone()).unwrap(), bearer);
        let bare = request(None);
        assert_eq!(key.add_proof(bare.clone()).unwrap(), bare);
        key.set_nonce("rs-nonce".to_owned());
        let first = key.add_proof(request(Some("DPoP tok"))).unwrap();
        let second = key.add_proof(first.clone()).unwrap();
        let proof_of = |r: &HttpRequest| {
            let proofs: Vec<&String> = r
                .headers
                .iter()
                .filter(|(n, _)| n == "DPoP")
                .map(|(_, v)| v)
                .collect();
            assert_eq!(proofs.len(), 1, "one proof header: {r:?}");
            json_part(proofs[0].split('.').nth(1).unwrap())
        };
        let (a, b) = (proof_of(&first), proof_of(&second));
        assert_ne!(a["jti"], b["jti"], "each proof is fresh");
        assert_eq!(a["htm"], "POST");
        assert_eq!(a["htu"], "https://mcp.example/mcp");
        assert_eq!(a["nonce"], "rs-nonce");
        assert_eq!(a["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
    }

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let key = DpopKey::generate().unwrap();
        assert_eq!(format!("{key:?}"), "DpopKey(<redacted>)");
    }
}
