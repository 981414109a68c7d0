//! Following redirects by hand, so that credentials never reach another origin.
//!
//! reqwest's own policy drops only `Authorization`, `Cookie` and a few more on a cross-origin
//! redirect; a server's configured headers (`X-Api-Key`, ...) would follow. The MCP HTTP
//! client is built with [`reqwest::redirect::Policy::none`] and [`send`] follows up to
//! [`MAX_REDIRECTS`] itself: within one origin (scheme, host and port) every header stays;
//! once a redirect leaves the origin, only the protocol headers in `SAFE_ACROSS_ORIGINS` go
//! on (also if a later redirect comes back). `301`/`302` turn a `POST` into a bodiless `GET`
//! and `303` turns anything but `GET` into one, as browsers and reqwest do; `307`/`308` keep the
//! method and body.

use agentwire::mcp::http::{HttpMethod, HttpRequest};
use reqwest::Url;

/// The redirect policy of the model backends' client: redirects within the base URL's origin
/// are followed (with the key: it is the same server), one to another origin is refused with
/// an error naming it. Refused rather than re-sent without the key: a model request's body is
/// the whole conversation, which must not go to a server the user did not name either, and a
/// model server without its key only answers 401. reqwest would drop `Authorization` across
/// origins but keep `x-api-key`, `api-key` and every other header, which is why this exists.
pub fn same_origin_only() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if first.is_some_and(|origin| origin != attempt.url().origin()) {
            let to = crate::os::display_url::for_display(attempt.url().as_str());
            return attempt.error(format!(
                "the model server redirected to another origin, {to}; agentwire sends the key \
                 and the conversation only to the origin of the base URL (set the base URL to \
                 that server if you trust it)"
            ));
        }
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        attempt.follow()
    })
}

/// Most redirects followed for one request (reqwest's default too).
pub const MAX_REDIRECTS: usize = 10;

/// Headers that carry no credential, kept across origins (lowercase).
const SAFE_ACROSS_ORIGINS: &[&str] = &[
    "accept",
    "content-type",
    "mcp-protocol-version",
    "last-event-id",
    "user-agent",
];

/// Whether header `name` may follow a redirect to another origin.
pub fn safe_across_origins(name: &str) -> bool {
    SAFE_ACROSS_ORIGINS
        .iter()
        .any(|safe| safe.eq_ignore_ascii_case(name))
}

/// Performs `request`, following redirects as described in the module docs. Errors are
/// reqwest's, described with their causes by `describe`.
pub async fn send(
    client: &reqwest::Client,
    mut request: HttpRequest,
    describe: fn(&(dyn std::error::Error + 'static)) -> String,
) -> Result<reqwest::Response, String> {
    for _ in 0..=MAX_REDIRECTS {
        let response = crate::transport::http_request::to_reqwest(client, request.clone())?
            .send()
            .await
            .map_err(|e| describe(&e))?;
        let Some(next) = redirect_target(&request.url, &response) else {
            return Ok(response);
        };
        follow(&mut request, response.status().as_u16(), next);
    }
    Err(format!(
        "more than {MAX_REDIRECTS} redirects from {}",
        crate::os::display_url::for_display(&request.url)
    ))
}

/// Where a `3xx` with a `Location` leads, when it is an `http(s)` URL.
fn redirect_target(from: &str, response: &reqwest::Response) -> Option<Url> {
    if !response.status().is_redirection() {
        return None;
    }
    let location = response.headers().get(reqwest::header::LOCATION)?;
    let next = Url::parse(from).ok()?.join(location.to_str().ok()?).ok()?;
    matches!(next.scheme(), "http" | "https").then_some(next)
}

/// `request` rewritten to follow a `status` redirect to `next`.
fn follow(request: &mut HttpRequest, status: u16, next: Url) {
    let same_origin = Url::parse(&request.url).is_ok_and(|from| from.origin() == next.origin());
    if !same_origin {
        request
            .headers
            .retain(|(name, _)| safe_across_origins(name));
    }
    let to_get = match status {
        301 | 302 => request.method == HttpMethod::Post,
        303 => request.method != HttpMethod::Get,
        _ => false,
    };
    if to_get {
        request.method = HttpMethod::Get;
        request.body = None;
        request
            .headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
    }
    request.url = next.into();
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire::mcp::http::HttpRequestId;

    fn post(url: &str) -> HttpRequest {
        HttpRequest {
            id: HttpRequestId(1),
            method: HttpMethod::Post,
            url: url.into(),
            headers: vec![
                ("X-Api-Key".into(), "k".into()),
                ("Authorization".into(), "Bearer t".into()),
                ("Content-Type".into(), "application/json".into()),
                ("Accept".into(), "text/event-stream".into()),
            ],
            body: Some(b"{}".to_vec()),
        }
    }

    fn names(request: &HttpRequest) -> Vec<&str> {
        request.headers.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[test]
    fn same_origin_keeps_every_header_and_307_keeps_the_body() {
        let mut request = post("http://127.0.0.1:1/mcp");
        follow(
            &mut request,
            307,
            Url::parse("http://127.0.0.1:1/v2").unwrap(),
        );
        assert_eq!(names(&request).len(), 4);
        assert_eq!(request.method, HttpMethod::Post);
        assert!(request.body.is_some());
        assert_eq!(request.url, "http://127.0.0.1:1/v2");
    }

    #[test]
    fn another_port_scheme_or_host_is_another_origin() {
        for next in [
            "http://127.0.0.1:2/mcp",
            "https://127.0.0.1:1/mcp",
            "http://localhost:1/mcp",
        ] {
            let mut request = post("http://127.0.0.1:1/mcp");
            follow(&mut request, 308, Url::parse(next).unwrap());
            assert_eq!(names(&request), ["Content-Type", "Accept"], "{next}");
        }
    }

    #[test]
    fn see_other_and_found_turn_a_post_into_a_get() {
        for status in [301, 302, 303] {
            let mut request = post("http://127.0.0.1:1/mcp");
            follow(
                &mut request,
                status,
                Url::parse("http://127.0.0.1:1/x").unwrap(),
            );
            assert_eq!(request.method, HttpMethod::Get, "{status}");
            assert_eq!(request.body, None);
            assert!(!names(&request).contains(&"Content-Type"));
            assert!(names(&request).contains(&"X-Api-Key"));
        }
        let mut delete = post("http://127.0.0.1:1/mcp");
        delete.method = HttpMethod::Delete;
        follow(
            &mut delete,
            302,
            Url::parse("http://127.0.0.1:1/x").unwrap(),
        );
        assert_eq!(delete.method, HttpMethod::Delete, "302 keeps a DELETE");
        follow(
            &mut delete,
            303,
            Url::parse("http://127.0.0.1:1/y").unwrap(),
        );
        assert_eq!(delete.method, HttpMethod::Get);
    }
}
