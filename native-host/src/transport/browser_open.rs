//! Opening a URL that came from a peer (an authorization server's `authorization_endpoint`) in
//! the user's browser, and only such a URL.
//!
//! The system opener (`xdg-open`, macOS `open`) hands its argument to whatever handles the
//! scheme: `file:` opens a local file, `smb:` mounts a share (and sends the user's NTLM hash),
//! `vscode:` or `javascript:` run an editor or a script, and an argument starting with `-` is
//! read as the opener's own option (`xdg-open --manual`). So [`checked`] lets through only
//! `https:` URLs, and `http:` URLs whose host is this machine (a local authorization server);
//! everything else is refused before any process starts. The URL is passed re-serialised by the
//! URL parser, so what the opener gets always starts with `http` — never with `-` (neither
//! opener takes `--` as an end of options: `xdg-open --` fails, so none is passed).

use reqwest::Url;
use std::net::IpAddr;

/// `url` as it may be opened, or why not (the caller names the server that sent it).
pub fn checked(url: &str) -> Result<String, String> {
    let shown = crate::os::display_url::for_display(url);
    let shown = shown.split('?').next().unwrap_or(&shown);
    if url.starts_with('-') {
        return Err(format!(
            "`{shown}` is not a URL (it starts with '-', which an opener reads as an option)"
        ));
    }
    let parsed = Url::parse(url).map_err(|e| format!("`{shown}` is not a URL ({e})"))?;
    match parsed.scheme() {
        // The parser refuses an https URL without a host.
        "https" => Ok(parsed.into()),
        "http" if is_loopback(&parsed) => Ok(parsed.into()),
        "http" => Err(format!(
            "`{shown}` is plain http to another machine; only https (or http to this machine) \
             is opened"
        )),
        scheme => Err(format!(
            "`{shown}` has the scheme `{scheme}:`; only https (or http to this machine) is opened"
        )),
    }
}

/// Whether `url`'s host is this machine: `localhost`, 127.0.0.0/8 or `[::1]`.
fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Opens `url` (already [`checked`]) with the system opener, best effort: without a desktop
/// the printed URL is enough.
pub fn open(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_and_loopback_http_are_opened() {
        for url in [
            "https://auth.example/authorize?client_id=x",
            "HTTPS://Auth.Example/authorize",
            "http://127.0.0.1:8080/authorize",
            "http://127.9.9.9/authorize",
            "http://localhost:3000/authorize",
            "http://LOCALHOST/authorize",
            "http://[::1]:9/authorize",
        ] {
            let opened = checked(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert!(opened.starts_with("http"), "{url} -> {opened}");
        }
        for (url, why) in [
            ("file:///etc/passwd", "scheme `file:`"),
            ("javascript:alert(1)", "scheme `javascript:`"),
            ("smb://evil.example/share", "scheme `smb:`"),
            ("vscode://ext/install?x", "scheme `vscode:`"),
            ("--manual", "starts with '-'"),
            ("-https://auth.example/", "starts with '-'"),
            ("--manual?response_type=code", "starts with '-'"),
            (
                "http://evil.example/authorize",
                "plain http to another machine",
            ),
            (
                "http://127.0.0.1.evil.example/",
                "plain http to another machine",
            ),
            (
                "http://localhost.evil.example/",
                "plain http to another machine",
            ),
            ("http://10.0.0.1/", "plain http to another machine"),
            ("https:", "is not a URL"),
            ("authorize", "is not a URL"),
            ("data:text/html,<script>", "scheme `data:`"),
        ] {
            let error = checked(url).expect_err(url);
            assert!(error.contains(why), "{url}: {error}");
        }
    }

    #[test]
    fn a_refusal_shows_no_query_and_no_user_info() {
        let error = checked("ftp://bob:pw@evil.example/x?code_challenge=abc").unwrap_err();
        assert!(!error.contains("pw") && !error.contains("abc"), "{error}");
        assert!(error.contains("ftp://evil.example/x"), "{error}");
    }
}
