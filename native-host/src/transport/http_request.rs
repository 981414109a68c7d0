//! The core's HTTP requests as reqwest sends them, and reqwest's response headers as the core
//! takes them: shared by the Streamable HTTP transport, redirect following and OAuth.

use agentwire::mcp::http::{HttpMethod, HttpRequest};

/// A request the core emitted (the Streamable HTTP machine or the OAuth flow), as reqwest's;
/// an HTTP method reqwest cannot send is an error naming it.
pub fn to_reqwest(
    client: &reqwest::Client,
    request: HttpRequest,
) -> Result<reqwest::RequestBuilder, String> {
    let method = match request.method {
        HttpMethod::Get => reqwest::Method::GET,
        HttpMethod::Post => reqwest::Method::POST,
        HttpMethod::Delete => reqwest::Method::DELETE,
        other => reqwest::Method::from_bytes(other.as_str().as_bytes())
            .map_err(|_| format!("unsupported method {other}"))?,
    };
    let mut builder = client.request(method, &request.url);
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if let Some(body) = request.body {
        builder = builder.body(body);
    }
    Ok(builder)
}

/// Response headers as the core takes them: `(name, value)` pairs, values read leniently.
pub fn header_pairs(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_owned(), value)
        })
        .collect()
}
