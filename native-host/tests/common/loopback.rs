//! A loopback HTTP/1.1 server for the tests that script a peer byte by byte: each connection's
//! request (head and `Content-Length` body) is read, sent to a channel, and answered by the
//! test's closure, which writes whatever it likes (a status, a stream, a hang).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{mpsc, Arc};
use std::thread;

/// Reads one request (head and `Content-Length` body) from `stream` and returns its text.
pub fn read_request(stream: &mut TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    head + &String::from_utf8_lossy(&body)
}

/// A server on its own port (its own origin): each connection, on a thread of its own, has its
/// request sent to the returned channel, then `respond(request, stream)` answers. Returns the
/// `http://127.0.0.1:PORT` origin.
pub fn server(
    respond: impl Fn(&str, &mut TcpStream) + Send + Sync + 'static,
) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let (seen, requests) = mpsc::channel();
    let respond = Arc::new(respond);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let seen = seen.clone();
            let respond = respond.clone();
            thread::spawn(move || {
                let request = read_request(&mut stream);
                let _ = seen.send(request.clone());
                respond(&request, &mut stream);
            });
        }
    });
    (origin, requests)
}

/// [`server`] answering every request with the whole HTTP answer `answer(request)` returns.
pub fn answering(
    answer: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (String, mpsc::Receiver<String>) {
    server(move |request, stream| {
        let _ = stream.write_all(answer(request).as_bytes());
    })
}
