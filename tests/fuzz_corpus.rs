//! Every fuzz seed (`fuzz/corpus/<target>/`) and every input a fuzzing run ever failed on
//! (`fuzz/regressions/<target>/`), replayed through the same checks the fuzz targets make
//! (`fuzz/src/lib.rs`, included here), so a crash once found stays fixed without libFuzzer.

#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::Path;

fn replay(folder: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(folder);
    let mut replayed = 0;
    for (name, check) in targets::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(name)) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).expect("read a corpus file");
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{name}: {} fails", file.display());
            replayed += 1;
        }
    }
    replayed
}

#[test]
fn every_seed_passes_its_targets_checks() {
    let replayed = replay("corpus");
    assert!(
        replayed >= 7 * 4,
        "only {replayed} seeds found under fuzz/corpus"
    );
}

#[test]
fn every_saved_failure_stays_fixed() {
    let replayed = replay("regressions");
    assert!(
        replayed >= 2,
        "only {replayed} regressions found under fuzz/regressions"
    );
}
