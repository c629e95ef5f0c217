//! Lowers every `.c` of the shared corpora (ESOP litmus tests, SV-COMP concurrency tasks).
//!
//! Some SV-COMP sources include headers that are not part of the shared copy
//! (`pthread-divine/*.h`, the driver model folder of `pthread-driver-races`); for those the
//! preprocessor fails and the test lowers the task's `.i` file instead (reported as "via .i").

use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use weakc::frontend::{load_file, Options};
use weakc::source::{Error, SourceMap};

fn c_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            c_files(&p, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("c") {
            out.push(p);
        }
    }
}

enum Outcome {
    Ok,
    ViaI,
    Failed(String),
}

fn lower_one(path: &Path) -> Outcome {
    let mut map = SourceMap::default();
    match load_file(path, &Options::default(), &mut map) {
        Ok(_) => Outcome::Ok,
        Err(Error::Preprocess { msg, .. }) => {
            let i = path.with_extension("i");
            if !i.exists() {
                return Outcome::Failed(format!("preprocessing failed and there is no .i: {msg}"));
            }
            let mut map = SourceMap::default();
            match load_file(&i, &Options::default(), &mut map) {
                Ok(_) => Outcome::ViaI,
                Err(e) => Outcome::Failed(format!("(via .i) {}", e.render(&map, false))),
            }
        }
        Err(e) => Outcome::Failed(e.render(&map, false)),
    }
}

#[test]
fn corpus_lowers_without_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if !root.is_dir() {
        println!("skipping: {} not found", root.display());
        return;
    }
    let mut files = Vec::new();
    c_files(&root.join("litmus/esop"), &mut files);
    c_files(&root.join("svcomp"), &mut files);
    if files.is_empty() {
        println!("skipping: no .c files under {}", root.display());
        return;
    }
    let start = Instant::now();
    let results: Vec<(PathBuf, Outcome)> = files.par_iter().map(|f| (f.clone(), lower_one(f))).collect();
    let elapsed = start.elapsed();
    let mut per_folder: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (f, o) in &results {
        let folder = f.parent().and_then(|p| p.strip_prefix(&root).ok()).map(|p| p.display().to_string()).unwrap_or_default();
        let e = per_folder.entry(folder).or_default();
        match o {
            Outcome::Ok => e.0 += 1,
            Outcome::ViaI => e.1 += 1,
            Outcome::Failed(msg) => {
                e.2 += 1;
                failures.push(format!("{}: {msg}", f.display()));
            }
        }
    }
    println!("{:<28} {:>5} {:>7} {:>7}", "folder", "ok", "via .i", "failed");
    for (folder, (ok, via, bad)) in &per_folder {
        println!("{folder:<28} {ok:>5} {via:>7} {bad:>7}");
    }
    println!("{} files in {:.2?}", results.len(), elapsed);
    assert!(failures.is_empty(), "{} file(s) failed:\n{}", failures.len(), failures.join("\n"));
}
