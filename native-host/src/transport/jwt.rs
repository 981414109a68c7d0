//! Client assertions for `private_key_jwt` (RFC 7523 §2.2): an ES256 JWT signed with the
//! client's EC P-256 key. The core asks for one with `OAuthStep::SignAssertion`; this host has
//! the key, the clock and the randomness.

use agentwire::mcp::oauth::encoding::base64url;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::json;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// How long an assertion is valid, in seconds (it is used at once).
pub const ASSERTION_LIFETIME: u64 = 300;

/// An EC P-256 private key that signs client assertions (ES256).
#[derive(Clone)]
pub struct AssertionKey {
    key: SigningKey,
}

impl fmt::Debug for AssertionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key.
        f.write_str("AssertionKey(<redacted>)")
    }
}

impl AssertionKey {
    /// Parses a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`),
    /// on the P-256 curve. The error says what the text is instead.
    pub fn from_pem(pem: &str) -> Result<Self, String> {
        let pem = pem.trim();
        let problem = |what: &str| Err(format!("the OAuth private key {what}"));
        if !pem.contains("-----BEGIN ") {
            return problem(
                "is not PEM text (no \"-----BEGIN\" line); give the key itself, not a path",
            );
        }
        if pem.contains("-----BEGIN PUBLIC KEY") {
            return problem("is a public key; private_key_jwt signs with the private key");
        }
        if pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY") {
            return problem("is encrypted; give it unencrypted (PKCS#8 \"BEGIN PRIVATE KEY\")");
        }
        let key = if pem.contains("-----BEGIN EC PRIVATE KEY") {
            p256::SecretKey::from_sec1_pem(pem)
                .map(SigningKey::from)
                .map_err(|e| format!("is not a P-256 key in SEC1 PEM ({e})"))
        } else if pem.contains("-----BEGIN PRIVATE KEY") {
            SigningKey::from_pkcs8_pem(pem)
                .map_err(|e| format!("is not an EC P-256 key in PKCS#8 PEM (ES256 needs one; {e})"))
        } else {
            Err("is neither \"BEGIN PRIVATE KEY\" nor \"BEGIN EC PRIVATE KEY\" PEM".to_owned())
        };
        key.map(|key| AssertionKey { key })
            .map_err(|what| format!("the OAuth private key {what}"))
    }

    /// The compact JWT `header.claims.signature` with `iss` = `sub` = `client_id`, `aud` =
    /// `audience`, `iat` = `issued_at` (Unix seconds), `exp` 5 minutes later, and `jti`.
    pub fn sign(&self, client_id: &str, audience: &str, issued_at: u64, jti: &str) -> String {
        let header = json!({"alg": "ES256", "typ": "JWT"});
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": issued_at,
            "exp": issued_at + ASSERTION_LIFETIME,
            "jti": jti,
        });
        let input = format!(
            "{}.{}",
            base64url(header.to_string().as_bytes()),
            base64url(claims.to_string().as_bytes())
        );
        // RFC 7518 §3.4: the signature is r || s, 32 bytes each (not DER).
        let signature: Signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", base64url(&signature.to_bytes()))
    }

    /// [`sign`](Self::sign) now, with a fresh random `jti`.
    pub fn sign_now(&self, client_id: &str, audience: &str) -> Result<String, String> {
        let (jti, now) = fresh_id_and_now()?;
        Ok(self.sign(client_id, audience, now, &jti))
    }
}

/// A fresh random JWT id (`jti`, 128 bits, base64url) and the time now in Unix seconds: what
/// every JWT this host signs (assertions, DPoP proofs) needs.
pub fn fresh_id_and_now() -> Result<(String, u64), String> {
    let mut jti = [0u8; 16];
    getrandom::fill(&mut jti).map_err(|e| format!("no randomness for the JWT id: {e}"))?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|_| "the system clock is before 1970".to_owned())?
        .as_secs();
    Ok((base64url(&jti), now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;
    use p256::pkcs8::{EncodePrivateKey, LineEnding};
    use serde_json::Value;

    /// A fixed test key (never used anywhere else), as PKCS#8 PEM.
    fn test_key() -> (SigningKey, String) {
        let key = SigningKey::from_bytes(&[0x42; 32].into()).unwrap();
        let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap().to_string();
        (key, pem)
    }

    fn decode(part: &str) -> Vec<u8> {
        // The inverse of base64url, enough for a test.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut bits = 0u32;
        let mut count = 0;
        let mut out = Vec::new();
        for c in part.bytes() {
            let value = alphabet.iter().position(|&a| a == c).expect("base64url") as u32;
            bits = (bits << 6) | value;
            count += 6;
            if count >= 8 {
                count -= 8;
                out.push((bits >> count) as u8);
            }
        }
        out
    }

    fn json_part(part: &str) -> Value {
        serde_json::from_slice(&decode(part)).unwrap()
    }

    #[test]
    fn an_assertion_verifies_with_the_public_key_and_carries_the_claims() {
        let (key, pem) = test_key();
        let signer = AssertionKey::from_pem(&pem).unwrap();
        let jwt = signer.sign("svc", "https://auth.example", 1_700_000_000, "id-1");
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3, "{jwt}");
        assert_eq!(json_part(parts[0]), json!({"alg": "ES256", "typ": "JWT"}));
        let claims = json_part(parts[1]);
        assert_eq!(claims["iss"], "svc");
        assert_eq!(claims["sub"], "svc");
        assert_eq!(claims["aud"], "https://auth.example");
        assert_eq!(claims["iat"], 1_700_000_000);
        assert_eq!(claims["exp"], 1_700_000_300);
        assert_eq!(claims["jti"], "id-1");

        let signature_bytes = decode(parts[2]);
        assert_eq!(signature_bytes.len(), 64, "r || s, not DER");
        let signature = Signature::from_slice(&signature_bytes).unwrap();
        let verifier = VerifyingKey::from(&key);
        let input = format!("{}.{}", parts[0], parts[1]);
        verifier.verify(input.as_bytes(), &signature).unwrap();
        let tampered = format!("{}.{}x", parts[0], parts[1]);
        assert!(verifier.verify(tampered.as_bytes(), &signature).is_err());
    }

    #[test]
    fn signing_now_uses_the_clock_and_a_fresh_id() {
        let (_, pem) = test_key();
        let signer = AssertionKey::from_pem(&pem).unwrap();
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims_now = || {
            let jwt = signer.sign_now("svc", "aud").unwrap();
            json_part(jwt.split('.').nth(1).unwrap())
        };
        let (first, second) = (claims_now(), claims_now());
        let iat = first["iat"].as_u64().unwrap();
        assert!(iat >= before && iat <= before + 5, "{iat} vs {before}");
        assert_eq!(first["exp"].as_u64().unwrap(), iat + ASSERTION_LIFETIME);
        assert_eq!(first["jti"].as_str().unwrap().len(), 22, "16 random bytes");
        assert_ne!(first["jti"], second["jti"]);
    }

    #[test]
    fn sec1_keys_are_accepted_and_the_key_stays_out_of_debug() {
        let (key, pem) = test_key();
        let sec1 = p256::SecretKey::from(&key)
            .to_sec1_pem(LineEnding::LF)
            .unwrap()
            .to_string();
        assert!(sec1.contains("BEGIN EC PRIVATE KEY"));
        let signer = AssertionKey::from_pem(&sec1).unwrap();
        assert_eq!(signer.key, key);
        let shown = format!("{:?}", AssertionKey::from_pem(&pem).unwrap());
        assert_eq!(shown, "AssertionKey(<redacted>)");
    }

    #[test]
    fn a_bad_key_is_refused_with_the_reason() {
        /// A P-384 key: PEM and PKCS#8 are fine, the curve is not.
        const P384: &str = "-----BEGIN PRIVATE KEY-----
MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDC7B9FhUgOvPZiuKSHg
0GTRszxrOAnP9gQmZ21bLF6XvdDjnbRfUo4umthsG57aQ6KhZANiAASpUilvskOj
As/XZn940G/VBJoBb9jS5gRxeZXpIaRoc7VrO8BFQxXC2AGKj9bphnxBJ4xv5vZt
W0wVCgX9PEG5teScSt/1JeS+nYaqZHOmv8H9L0xZpFS0fPd7EYdax+k=
-----END PRIVATE KEY-----";
        let (key, _) = test_key();
        let public = VerifyingKey::from(&key);
        let public_pem =
            p256::pkcs8::EncodePublicKey::to_public_key_pem(&public, LineEnding::LF).unwrap();
        for (pem, reason) in [
            ("/etc/keys/client.pem", "is not PEM text"),
            (public_pem.as_str(), "is a public key"),
            (
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----",
                "is encrypted",
            ),
            (P384, "is not an EC P-256 key in PKCS#8 PEM"),
            (
                "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----",
                "is not an EC P-256 key in PKCS#8 PEM",
            ),
            (
                "-----BEGIN EC PRIVATE KEY-----\n!!\n-----END EC PRIVATE KEY-----",
                "is not a P-256 key in SEC1 PEM",
            ),
            (
                "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
                "is neither",
            ),
        ] {
            let error = AssertionKey::from_pem(pem).unwrap_err();
            assert!(error.starts_with("the OAuth private key "), "{error}");
            assert!(error.contains(reason), "{pem}: {error}");
        }
    }
}
