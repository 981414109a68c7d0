//! File tools against FIFOs, hard links and a racing symlink swapper.

use super::Fixture;
use nix::fcntl::{renameat2, RenameFlags, AT_FDCWD};
use nix::sys::stat::Mode;
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Calls a tool and fails (instead of hanging) if it takes more than 5 s.
async fn quick_err(fx: &Fixture, tool: &str, args: Value) -> String {
    match tokio::time::timeout(Duration::from_secs(5), fx.call(tool, args.clone())).await {
        Ok(out) => {
            assert!(
                out.is_error,
                "{tool} {args} succeeded: {}",
                out.to_model_text()
            );
            out.to_model_text()
        }
        Err(_) => panic!("{tool} {args} blocked"),
    }
}

#[tokio::test]
async fn file_tools_refuse_a_fifo_at_once() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.root().join("sub")).unwrap();
    for rel in ["pipe", "sub/pipe"] {
        nix::unistd::mkfifo(&fx.root().join(rel), Mode::from_bits_truncate(0o600)).unwrap();
        let msg = quick_err(&fx, "read_file", json!({"path": rel})).await;
        assert!(msg.contains("is a FIFO (named pipe)"), "{msg}");
        let msg = quick_err(&fx, "write_file", json!({"path": rel, "content": "x"})).await;
        assert!(msg.contains("is a FIFO (named pipe)"), "{msg}");
        let edit = json!({"path": rel, "old_string": "a", "new_string": "b"});
        let msg = quick_err(&fx, "edit_file", edit).await;
        assert!(msg.contains("is a FIFO (named pipe)"), "{msg}");
    }
    let _socket = std::os::unix::net::UnixListener::bind(fx.root().join("sock")).unwrap();
    let msg = quick_err(&fx, "read_file", json!({"path": "sock"})).await;
    assert!(
        msg.contains("\"sock\" is a socket; the file tools only work"),
        "{msg}"
    );
    let msg = quick_err(&fx, "write_file", json!({"path": "sock", "content": "x"})).await;
    assert!(msg.contains("is a socket"), "{msg}");
    // Reading or editing under a missing directory creates nothing.
    quick_err(&fx, "read_file", json!({"path": "nodir/x.txt"})).await;
    let edit = json!({"path": "nodir2/x.txt", "old_string": "a", "new_string": "b"});
    quick_err(&fx, "edit_file", edit).await;
    assert!(!fx.root().join("nodir").exists() && !fx.root().join("nodir2").exists());
    // A symlink inside the workspace to a FIFO is no way round it.
    symlink(fx.root().join("pipe"), fx.root().join("to_pipe")).unwrap();
    let msg = quick_err(&fx, "read_file", json!({"path": "to_pipe"})).await;
    assert!(msg.contains("is a FIFO"), "{msg}");
}

#[tokio::test]
async fn writers_refuse_hard_links_and_the_outside_file_is_untouched() {
    let fx = Fixture::new();
    let outside = fx.outside.path().join("secret.txt");
    std::fs::write(&outside, "outside text\n").unwrap();
    std::fs::hard_link(&outside, fx.root().join("linked.txt")).unwrap();
    let msg = quick_err(
        &fx,
        "write_file",
        json!({"path": "linked.txt", "content": "pwned"}),
    )
    .await;
    assert!(msg.contains("has 2 hard links"), "{msg}");
    let edit = json!({"path": "linked.txt", "old_string": "outside", "new_string": "pwned"});
    let msg = quick_err(&fx, "edit_file", edit).await;
    assert!(msg.contains("has 2 hard links"), "{msg}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside text\n");
    // Reading through a hard link is reading the file: allowed, and documented.
    let text = fx.ok("read_file", json!({"path": "linked.txt"})).await;
    assert!(text.contains("outside text"), "{text}");
    // A file with one name is written in place as before.
    fx.write("own.txt", "mine\n");
    fx.ok(
        "edit_file",
        json!({"path": "own.txt", "old_string": "mine", "new_string": "ours"}),
    )
    .await;
    assert_eq!(fx.read("own.txt"), "ours\n");
}

#[tokio::test]
async fn a_racing_symlink_swap_never_leads_out() {
    let fx = Fixture::new();
    // `dir` is a real directory; `alt` a symlink to the outside. A thread swaps the two names
    // atomically (RENAME_EXCHANGE), over and over, while the tools read and write `dir/...`.
    std::fs::create_dir(fx.root().join("dir")).unwrap();
    fx.write("dir/f.txt", "inside\n");
    std::fs::write(fx.outside.path().join("f.txt"), "SECRET\n").unwrap();
    symlink(fx.outside.path(), fx.root().join("alt")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, a, b) = (
            Arc::clone(&stop),
            fx.root().join("dir"),
            fx.root().join("alt"),
        );
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                renameat2(AT_FDCWD, &a, AT_FDCWD, &b, RenameFlags::RENAME_EXCHANGE).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut inside, mut refused) = (0, 0);
    for i in 0..600 {
        let out = fx.call("read_file", json!({"path": "dir/f.txt"})).await;
        let text = out.to_model_text();
        assert!(
            !text.contains("SECRET"),
            "read {i} escaped the workspace: {text}"
        );
        if out.is_error {
            refused += 1;
        } else {
            inside += 1;
        }
        let name = format!("dir/w{i}.txt");
        fx.call("write_file", json!({"path": name, "content": "x"}))
            .await;
        let edit = json!({"path": "dir/f.txt", "old_string": "SECRET", "new_string": "PWNED"});
        fx.call("edit_file", edit).await;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 600, "the swapper ran ({swaps} swaps)");
    let escaped: Vec<_> = std::fs::read_dir(fx.outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "f.txt")
        .collect();
    assert!(escaped.is_empty(), "files written outside: {escaped:?}");
    assert_eq!(
        std::fs::read_to_string(fx.outside.path().join("f.txt")).unwrap(),
        "SECRET\n"
    );
    // Both outcomes happened, so the race was real.
    assert!(
        inside > 0 && refused > 0,
        "inside {inside}, refused {refused}"
    );
}

/// Swaps two names atomically, over and over, until stopped; returns how often.
fn swapper(
    a: std::path::PathBuf,
    b: std::path::PathBuf,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut swaps = 0u64;
        while !stop.load(Ordering::Relaxed) {
            renameat2(AT_FDCWD, &a, AT_FDCWD, &b, RenameFlags::RENAME_EXCHANGE).unwrap();
            swaps += 1;
        }
        swaps
    })
}

#[tokio::test]
async fn a_racing_swap_of_the_file_itself_never_leads_out_nor_blocks() {
    let fx = Fixture::new();
    // `f.txt` is swapped with a symlink to an outside file, `p.txt` with a FIFO.
    fx.write("f.txt", "inside\n");
    std::fs::write(fx.outside.path().join("secret.txt"), "SECRET\n").unwrap();
    symlink(fx.outside.path().join("secret.txt"), fx.root().join("link")).unwrap();
    fx.write("p.txt", "plain\n");
    nix::unistd::mkfifo(&fx.root().join("pipe"), Mode::from_bits_truncate(0o600)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swappers = [
        swapper(
            fx.root().join("f.txt"),
            fx.root().join("link"),
            Arc::clone(&stop),
        ),
        swapper(
            fx.root().join("p.txt"),
            fx.root().join("pipe"),
            Arc::clone(&stop),
        ),
    ];
    let (mut ok, mut refused) = (0, 0);
    for i in 0..2000 {
        for path in ["f.txt", "p.txt"] {
            let call = fx.call("read_file", json!({"path": path}));
            let out = tokio::time::timeout(Duration::from_secs(5), call)
                .await
                .unwrap_or_else(|_| panic!("read {i} of {path} blocked"));
            let text = out.to_model_text();
            assert!(
                !text.contains("SECRET"),
                "read {i} escaped the workspace: {text}"
            );
            if out.is_error {
                refused += 1
            } else {
                ok += 1
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for swapper in swappers {
        assert!(swapper.join().unwrap() > 0);
    }
    assert!(ok > 0 && refused > 0, "ok {ok}, refused {refused}");
}
