//! Provider token classes: a prefix, the characters of the body, and the shortest body that
//! counts. The classes follow those of the common secret scanners (gitleaks' rule set was the
//! reference); the table is matched by hand, byte by byte, with no regex engine in the core.

/// Which bytes may form a token's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Charset {
    /// `A-Z a-z 0-9`.
    Alnum,
    /// `A-Z 0-9`.
    Upper,
    /// `0-9 a-f A-F`.
    Hex,
    /// Alphanumerics plus `_` and `-`.
    Dash,
    /// Alphanumerics plus `_ - .` (JWTs, dotted tokens).
    Dotted,
    /// Alphanumerics plus `_ - = /`: tokens that carry base64 padding or path parts.
    Base64,
}

impl Charset {
    /// Whether `b` may continue a body of this class.
    pub(super) fn accepts(self, b: u8) -> bool {
        let alnum = b.is_ascii_alphanumeric();
        match self {
            Charset::Alnum => alnum,
            Charset::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Charset::Hex => b.is_ascii_hexdigit(),
            Charset::Dash => alnum || b == b'_' || b == b'-',
            Charset::Dotted => alnum || matches!(b, b'_' | b'-' | b'.'),
            Charset::Base64 => alnum || matches!(b, b'_' | b'-' | b'=' | b'/'),
        }
    }
}

/// One token class: the prefix (kept in the output, it names the kind of secret), the body's
/// characters, and how long the body must be.
pub(super) struct Provider {
    pub(super) prefix: &'static [u8],
    pub(super) body: Charset,
    pub(super) min_body: usize,
}

const fn p(prefix: &'static str, body: Charset, min_body: usize) -> Provider {
    Provider {
        prefix: prefix.as_bytes(),
        body,
        min_body,
    }
}

use Charset::*;

/// Longer prefixes come before the shorter ones they start with (`github_pat_` before nothing
/// shorter here, `xoxe.xoxp-` before `xoxe-`), since the first match wins.
pub(super) const PROVIDERS: &[Provider] = &[
    // GitHub
    p("github_pat_", Dash, 8),
    p("ghp_", Alnum, 8),
    p("gho_", Alnum, 8),
    p("ghu_", Alnum, 8),
    p("ghs_", Alnum, 8),
    p("ghr_", Alnum, 8),
    // GitLab
    p("glpat-", Dash, 8),
    p("gldt-", Dash, 16),
    p("glptt-", Dash, 16),
    p("glrt-", Dash, 16),
    p("glsoat-", Dash, 16),
    p("glcbt-", Dash, 16),
    p("glimt-", Dash, 16),
    p("gloas-", Dash, 16),
    p("GR1348941", Dash, 16),
    // OpenAI, Anthropic and other `sk-` keys
    p("sk-", Dash, 8),
    // Stripe (secret, restricted, webhook signing)
    p("sk_live_", Alnum, 10),
    p("sk_test_", Alnum, 10),
    p("rk_live_", Alnum, 10),
    p("rk_test_", Alnum, 10),
    p("whsec_", Alnum, 16),
    // Slack
    p("xoxe.xoxp-", Dash, 8),
    p("xoxb-", Dash, 8),
    p("xoxp-", Dash, 8),
    p("xoxa-", Dash, 8),
    p("xoxs-", Dash, 8),
    p("xoxr-", Dash, 8),
    p("xoxe-", Dash, 8),
    p("xapp-", Dash, 8),
    p("hooks.slack.com/services/", Base64, 16),
    // Google
    p("AIza", Dash, 30),
    p("GOCSPX-", Dash, 20),
    p("ya29.", Dotted, 20),
    // AWS access key ids (the secret key has no prefix: see `aws_secret_len`)
    p("AKIA", Upper, 16),
    p("ASIA", Upper, 16),
    p("ABIA", Upper, 16),
    p("ACCA", Upper, 16),
    p("A3T", Upper, 16),
    // Package registries
    p("npm_", Alnum, 30),
    p("pypi-AgEIcHlwaS5vcmc", Dash, 40),
    p("rubygems_", Hex, 48),
    p("CLOJARS_", Alnum, 40),
    p("oy2", Alnum, 43),
    // Cloud and developer platforms
    p("hf_", Alnum, 30),
    p("dapi", Hex, 32),
    p("dop_v1_", Hex, 64),
    p("doo_v1_", Hex, 64),
    p("dor_v1_", Hex, 64),
    p("shpat_", Hex, 32),
    p("shpca_", Hex, 32),
    p("shppa_", Hex, 32),
    p("shpss_", Hex, 32),
    p("SG.", Dotted, 40),
    p("PMAK-", Dash, 40),
    p("lin_api_", Alnum, 32),
    p("NRAK-", Upper, 27),
    p("sntrys_", Base64, 32),
    p("sntryu_", Hex, 32),
    p("glc_", Base64, 32),
    p("glsa_", Dash, 32),
    p("hvs.", Dash, 24),
    p("hvb.", Dash, 24),
    p("HRKU-", Dash, 32),
    p("dp.pt.", Alnum, 40),
    p("dp.st.", Dotted, 40),
    p("dp.sa.", Alnum, 40),
    p("dp.ct.", Alnum, 40),
    p("AGE-SECRET-KEY-1", Upper, 50),
    p("ATATT3", Base64, 50),
    p("ops_eyJ", Dotted, 50),
    p("fo1_", Dash, 40),
    p("FlyV1 ", Base64, 40),
    p("sbp_", Alnum, 40),
    p("pscale_tkn_", Dotted, 32),
    p("pscale_pw_", Dotted, 32),
    p("pscale_oauth_", Dotted, 32),
    p("pul-", Hex, 40),
    p("sq0atp-", Dash, 22),
    p("sq0csp-", Dash, 40),
    p("ntn_", Alnum, 40),
    p("LTAI", Alnum, 20),
    p("key-", Hex, 32),
    p("pnu_", Alnum, 36),
    p("rdme_", Alnum, 70),
    p("tfp_", Dash, 40),
    p("dt0c01.", Dotted, 80),
    p("EZAK", Alnum, 54),
    p("FLWSECK_TEST-", Dash, 32),
    p("FLWSECK-", Dash, 32),
    p("fio-u-", Dash, 64),
    p("duffel_live_", Dash, 43),
    p("duffel_test_", Dash, 43),
    p("shippo_live_", Hex, 40),
    p("shippo_test_", Hex, 40),
    p("sha256~", Dash, 43),
    p("ico-", Alnum, 32),
    p("API-", Upper, 26),
    // JSON Web Tokens (three dotted base64url parts)
    p("eyJ", Dotted, 16),
];
