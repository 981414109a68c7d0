//! Recovering the `id` of a JSON-RPC message that was too long to keep, from its first and last
//! bytes ([`LineEdges`]), so the request it answered can fail at once instead of timing out.
//!
//! Peers put the `id` either before the payload (`{"jsonrpc":"2.0","id":7,"result":…`) or after
//! it (`{"result":…,"jsonrpc":"2.0","id":7}`, as the TypeScript SDK does). So the head is read
//! forwards and the tail backwards, member by member, and only members that lie wholly inside
//! the kept bytes count: a cut never produces a wrong id, only none. [`sniff_response_id`]
//! also demands to see that the message is a response, not a request from the peer.

use crate::framing::LineEdges;
use crate::jsonrpc::Id;

/// How many members next to the payload are looked at from each end.
const MEMBERS: usize = 6;

/// The top-level `id` of the object whose edges these are, when either edge shows it whole.
pub fn sniff_id(edges: &LineEdges) -> Option<Id> {
    id_from_head(&edges.head).or_else(|| id_from_tail(&edges.tail))
}

/// The `id` of a *response* whose edges these are: as [`sniff_id`], but only when the edges
/// also show a top-level `result` or `error` member and no `method`.
///
/// Use this to decide which of our requests a dropped message answered: a server *request*
/// (say `sampling/createMessage` with a huge prompt) carries an id from the server's own
/// numbering, which may equal one of ours.
pub fn sniff_response_id(edges: &LineEdges) -> Option<Id> {
    let mut members = head_members(&edges.head);
    members.extend(tail_members(&edges.tail));
    let has = |key: &[u8]| members.iter().any(|m| m.key == key);
    let response = (has(b"\"result\"") || has(b"\"error\"")) && !has(b"\"method\"");
    response.then(|| sniff_id(edges)).flatten()
}

/// Parses an id from the raw JSON text of a scalar (a number or a string).
fn id_of(raw: &[u8]) -> Option<Id> {
    match serde_json::from_slice(raw).ok()? {
        serde_json::Value::Number(n) => Some(Id::Number(n)),
        serde_json::Value::String(s) => Some(Id::String(s)),
        _ => None,
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Bytes that make up a number or a literal (`true`, `false`, `null`).
fn is_bare(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
}

/// A top-level member an edge shows: its raw key (quotes included) and, when it is wholly
/// inside the kept bytes, its raw value.
struct Member<'a> {
    key: &'a [u8],
    value: Option<&'a [u8]>,
}

/// Reads `{"k": v, …` forwards: the members before anything cut off, the last of them possibly
/// with its value cut (then `value` is `None`).
fn head_members(bytes: &[u8]) -> Vec<Member<'_>> {
    let mut members = Vec::new();
    let mut at = skip_ws(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return members;
    }
    at += 1;
    for _ in 0..MEMBERS {
        at = skip_ws(bytes, at);
        let Some(key_end) = string_end(bytes, at) else {
            break;
        };
        let key = &bytes[at..key_end];
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            break;
        }
        at = skip_ws(bytes, at + 1);
        // A scalar cut by the edge would read as a shorter one: demand what follows it.
        let value_end = value_end(bytes, at);
        let next = value_end.map(|end| skip_ws(bytes, end));
        let follower = next.and_then(|next| bytes.get(next));
        let value = match (value_end, follower) {
            (Some(end), Some(b',' | b'}')) => Some(&bytes[at..end]),
            _ => None,
        };
        members.push(Member { key, value });
        match (value, follower) {
            (Some(_), Some(b',')) => at = next.unwrap_or(at) + 1,
            _ => break,
        }
    }
    members
}

fn id_from_head(bytes: &[u8]) -> Option<Id> {
    let id = head_members(bytes)
        .into_iter()
        .find(|m| m.key == b"\"id\"")?;
    id_of(id.value?)
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).copied().is_some_and(is_ws) {
        at += 1;
    }
    at
}

/// The end (exclusive) of the string starting at `at`, if it is complete.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    (bytes.get(at) == Some(&b'"')).then_some(())?;
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end (exclusive) of the value starting at `at`, if it is complete.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        b if is_bare(b) => {
            let len = bytes[at..].iter().take_while(|&&b| is_bare(b)).count();
            // Running into the edge means the scalar may go on beyond it.
            (at + len < bytes.len()).then_some(at + len)
        }
        _ => None,
    }
}

/// Reads `…, "k": v}` backwards: the members after anything cut off, each with its value.
/// Only scalar members are stepped over: a nested value ends the walk.
fn tail_members(bytes: &[u8]) -> Vec<Member<'_>> {
    let mut members = Vec::new();
    let mut end = skip_ws_back(bytes, bytes.len());
    if !(end > 0 && bytes[end - 1] == b'}') {
        return members;
    }
    end -= 1;
    for _ in 0..MEMBERS {
        end = skip_ws_back(bytes, end);
        let Some(value_start) = scalar_start_back(bytes, end) else {
            break;
        };
        let value = &bytes[value_start..end];
        end = skip_ws_back(bytes, value_start);
        if !(end > 0 && bytes[end - 1] == b':') {
            break;
        }
        end = skip_ws_back(bytes, end - 1);
        let Some(key_start) = string_start_back(bytes, end) else {
            break;
        };
        let key = &bytes[key_start..end];
        end = skip_ws_back(bytes, key_start);
        // A member follows `,` or `{`; anything else means the key was cut by the edge.
        match (end > 0).then(|| bytes[end - 1]) {
            Some(b',') => {
                members.push(Member {
                    key,
                    value: Some(value),
                });
                end -= 1;
            }
            Some(b'{') => {
                members.push(Member {
                    key,
                    value: Some(value),
                });
                break;
            }
            _ => break,
        }
    }
    members
}

fn id_from_tail(bytes: &[u8]) -> Option<Id> {
    let id = tail_members(bytes)
        .into_iter()
        .find(|m| m.key == b"\"id\"")?;
    id_of(id.value?)
}

fn skip_ws_back(bytes: &[u8], mut end: usize) -> usize {
    while end > 0 && is_ws(bytes[end - 1]) {
        end -= 1;
    }
    end
}

/// The start of the string ending (exclusive) at `end`, if all of it was kept.
fn string_start_back(bytes: &[u8], end: usize) -> Option<usize> {
    (end > 0 && bytes[end - 1] == b'"').then_some(())?;
    let mut i = end - 1;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                // The first unescaped quote opens the string. (Where the kept bytes begin
                // inside a run of backslashes the count may be wrong, but then a backslash
                // precedes the quote, never the `:`, `,` or `{` the caller demands.)
                return Some(i);
            }
        }
    }
    None
}

/// The start of the scalar (string, number or literal) ending (exclusive) at `end`.
fn scalar_start_back(bytes: &[u8], end: usize) -> Option<usize> {
    if end > 0 && bytes[end - 1] == b'"' {
        return string_start_back(bytes, end);
    }
    let len = bytes[..end]
        .iter()
        .rev()
        .take_while(|&&b| is_bare(b))
        .count();
    // A scalar running into the start of the kept bytes may have begun before it.
    (len > 0 && len < end).then_some(end - len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::EDGE_BYTES;

    /// The edges the decoder keeps of `line`.
    fn edges(line: &str) -> LineEdges {
        let bytes = line.as_bytes();
        LineEdges {
            head: bytes[..bytes.len().min(EDGE_BYTES)].to_vec(),
            tail: bytes[bytes.len().saturating_sub(EDGE_BYTES)..].to_vec(),
        }
    }

    fn big(n: usize) -> String {
        format!("\"{}\"", "x".repeat(n))
    }

    #[test]
    fn the_id_is_found_before_or_after_a_huge_payload() {
        let payload = format!(
            "{{\"content\":[{{\"type\":\"text\",\"text\":{}}}]}}",
            big(5000)
        );
        for (line, id) in [
            (format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{payload}}}"), Id::from(7)),
            (format!("{{\"result\":{payload},\"jsonrpc\":\"2.0\",\"id\":42}}"), Id::from(42)),
            (format!("{{ \"result\" : {payload} , \"id\" : \"req-1\" , \"jsonrpc\" : \"2.0\" }}\r"), Id::String("req-1".into())),
            (format!("{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":1,\"message\":\"m\"}},\"id\":3,\"x\":{payload}}}"), Id::from(3)),
        ] {
            assert_eq!(sniff_id(&edges(line.trim_end())), Some(id), "{}", &line[..60]);
        }
    }

    #[test]
    fn an_id_inside_the_payload_or_cut_by_an_edge_is_never_taken() {
        let inner = format!("{{\"id\":99,\"text\":{}}}", big(5000));
        for line in [
            // Nested ids belong to the payload, not to the message.
            format!("{{\"result\":{inner},\"jsonrpc\":\"2.0\"}}"),
            format!("{{\"jsonrpc\":\"2.0\",\"result\":{inner}}}"),
            // No id at all (a notification).
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{{\"t\":{}}}}}",
                big(5000)
            ),
            // An escaped quote in a string that ends the line looks like a member boundary.
            format!(
                "{{\"result\":{{\"t\":\"{}\\\",\\\"id\\\":5}}\"}}}}",
                "x".repeat(5000)
            ),
            // Not an object.
            format!("[{}]", big(5000)),
        ] {
            assert_eq!(
                sniff_id(&edges(&line)),
                None,
                "{}",
                &line[line.len() - 60..]
            );
        }
    }

    #[test]
    fn only_a_message_shown_to_be_a_response_yields_a_response_id() {
        let payload = big(5000);
        for (line, id) in [
            // The key of the huge value is whole at the head, its id at either end.
            (format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"t\":{payload}}}}}"), Some(7)),
            (format!("{{\"result\":{{\"t\":{payload}}},\"jsonrpc\":\"2.0\",\"id\":8}}"), Some(8)),
            (format!("{{\"id\":9,\"jsonrpc\":\"2.0\",\"error\":{{\"code\":1,\"message\":{payload}}}}}"), Some(9)),
            // A request from the peer, its method at either end: its id is not one of ours.
            (format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\",\"params\":{{\"t\":{payload}}}}}"), None),
            (format!("{{\"params\":{{\"t\":{payload}}},\"method\":\"m\",\"jsonrpc\":\"2.0\",\"id\":7}}"), None),
            // Neither end shows what it is.
            (format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"x\":{payload},\"result\":{payload}}}"), None),
        ] {
            let edges = edges(&line);
            assert_eq!(sniff_response_id(&edges), id.map(Id::from), "{}", &line[..60]);
            assert!(sniff_id(&edges).is_some(), "the id itself is visible: {}", &line[..60]);
        }
    }

    #[test]
    fn a_number_cut_by_the_edge_is_not_read_as_a_shorter_one() {
        let cut = LineEdges {
            head: b"{\"jsonrpc\":\"2.0\",\"id\":12".to_vec(),
            tail: b"2345}".to_vec(),
        };
        assert_eq!(sniff_id(&cut), None);
        // The tail begins at a quote whose backslash was cut: `{…,"foo\"id":5}` is key `foo"id`.
        let cut_key = LineEdges {
            head: b"{\"result\":\"xxxxxxxx".to_vec(),
            tail: b"\"id\":5}".to_vec(),
        };
        assert_eq!(sniff_id(&cut_key), None);
    }
}
