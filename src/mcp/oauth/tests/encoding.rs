use crate::mcp::oauth::encoding::*;
use crate::mcp::oauth::{BearerChallenge, SplitUrl};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn sha256_matches_the_fips_180_4_vectors() {
    assert_eq!(
        hex(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        hex(&sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        hex(&sha256(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    let million = vec![b'a'; 1_000_000];
    assert_eq!(
        hex(&sha256(&million)),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    );
}

#[test]
fn pkce_challenge_matches_rfc_7636_appendix_b() {
    assert_eq!(
        pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
}

#[test]
fn base64_pads_standard_and_not_url_safe() {
    assert_eq!(base64_standard(b"f"), "Zg==");
    assert_eq!(base64_standard(b"fo"), "Zm8=");
    assert_eq!(base64_standard(b"foobar"), "Zm9vYmFy");
    assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    assert_eq!(base64url(b"f"), "Zg");
}

#[test]
fn base64url_decodes_what_it_encodes_and_refuses_the_rest() {
    for length in 0..40usize {
        let data: Vec<u8> = (0..length).map(|i| (i * 37 + 11) as u8).collect();
        assert_eq!(
            base64url_decode(&base64url(&data)),
            Some(data),
            "{length} bytes"
        );
    }
    assert_eq!(base64url_decode("-_8"), Some(vec![0xfb, 0xff]));
    assert_eq!(base64url_decode("Zg=="), None, "no padding in JWTs");
    assert_eq!(base64url_decode("Zm9v+"), None, "standard alphabet");
    assert_eq!(base64url_decode("Zm9vY"), None, "impossible length");
}

#[test]
fn percent_encoding_round_trips() {
    let text = "a b&c=d/é~";
    assert_eq!(percent_encode(text), "a%20b%26c%3Dd%2F%C3%A9~");
    assert_eq!(percent_decode(&percent_encode(text)), text);
    assert_eq!(percent_decode("a+b%2"), "a b%2");
    assert_eq!(form_encode(&[("k", "v w"), ("x", "")]), "k=v%20w&x=");
}

#[test]
fn urls_split_and_build_well_known_locations() {
    let url = SplitUrl::parse("https://Example.com:8443/tenant/mcp/?x=1#frag").unwrap();
    assert_eq!(url.origin, "https://Example.com:8443");
    assert_eq!(url.path, "/tenant/mcp/");
    assert_eq!(url.query_param("x").as_deref(), Some("1"));
    assert_eq!(
        url.well_known("oauth-protected-resource"),
        "https://Example.com:8443/.well-known/oauth-protected-resource/tenant/mcp"
    );
    assert!(SplitUrl::parse("ftp://x/y").is_none());
    assert!(SplitUrl::parse("https:///path").is_none());
    assert!(SplitUrl::parse("not a url").is_none());
}

#[test]
fn bearer_challenges_are_parsed() {
    let c = BearerChallenge::parse(
        r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp""#,
    );
    assert!(c.insufficient_scope());
    assert_eq!(c.scope.as_deref(), Some("a b"));
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some("https://x/.well-known/oauth-protected-resource/mcp")
    );
    let bare = BearerChallenge::parse("Bearer realm=mcp,error=invalid_token");
    assert_eq!(bare.error.as_deref(), Some("invalid_token"));
    assert_eq!(bare.scope, None);
    assert_eq!(
        BearerChallenge::parse("Basic realm=\"x\""),
        BearerChallenge::default()
    );
    assert_eq!(BearerChallenge::parse("Bearer"), BearerChallenge::default());
    let escaped = BearerChallenge::parse(r#"Bearer scope="a \"q\"", =broken, x"#);
    assert_eq!(escaped.scope.as_deref(), Some(r#"a "q""#));
    // A nameless pair is skipped, and what follows it still read.
    let nameless = BearerChallenge::parse(r#"Bearer =broken, scope="s""#);
    assert_eq!(nameless.scope.as_deref(), Some("s"));
    // A DPoP challenge (RFC 9449 §7.1) carries the same parameters.
    let dpop =
        BearerChallenge::parse(r#"dpop error="use_dpop_nonce", resource_metadata="https://x/m""#);
    assert_eq!(dpop.error.as_deref(), Some("use_dpop_nonce"));
    assert_eq!(dpop.resource_metadata.as_deref(), Some("https://x/m"));
    assert_eq!(
        BearerChallenge::parse("DPoPx error=\"use_dpop_nonce\""),
        BearerChallenge::default()
    );
}
