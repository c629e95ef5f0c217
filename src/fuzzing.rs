//! The code paths the fuzzers drive (`fuzz/`, cargo-fuzz) with arbitrary bytes, shared with
//! `tests/fuzz_regressions.rs`, which replays every input a fuzzer once crashed on. Any input
//! must end in a result or an error (rendered as the CLI renders it): never a panic, never a
//! hang (limits are small).

use crate::arch::Arch;
use crate::litmus::{axiomatic, gen, parse, translate};
use crate::source::SourceMap;
use crate::{bmc, cprint, frontend, pipeline, select::Strategy};
use std::time::Duration;

fn arch(name: &str) -> &'static Arch {
    Arch::all().iter().find(|a| a.name == name).expect("architecture")
}

/// Bytes as a C file (not preprocessed): the front end and, for a program it accepts, the
/// analysis on tso and power (small limits), the rewriter, the printer of the instrumented
/// C, and the built-in engine at unwind 1 for 300 ms.
pub fn c_frontend(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut map = SourceMap::default();
    let fopts = frontend::Options { preprocess: frontend::Preprocess::Never, ..Default::default() };
    let prog = match frontend::load_str("fuzz.c", text, &fopts, &mut map) {
        Ok(p) => p,
        Err(e) => {
            // Rendered as the CLI renders it: its span slices the text.
            let _ = e.render(&map, false);
            return;
        }
    };
    let mut opts = pipeline::Options::default();
    opts.limits.max_cycles = 200;
    opts.limits.time_budget = Duration::from_millis(200);
    opts.selection_timeout = Some(Duration::from_millis(200));
    for name in ["tso", "power"] {
        let a = arch(name);
        let mut p = prog.clone();
        let Ok(mut an) = pipeline::analyze_program(&mut p, a, &opts, map.clone(), Duration::ZERO, 0) else { continue };
        let ins = pipeline::instrument(&mut an, a, Strategy::Ilp, &crate::rewrite::Options { buffer_size: 2 });
        let _ = cprint::print_program(&ins.rewritten.program, &an.map, &cprint::PrintOptions::default());
    }
    let bopts = bmc::BmcOptions { unwind: 1, timeout: Some(Duration::from_millis(300)), ..Default::default() };
    let _ = bmc::verify(&prog, &bopts);
}

/// Bytes as a litmus file: the parser and, for a test it accepts, the printer, the
/// translation to C and the axiomatic engine on the test's architecture (small limits).
pub fn litmus_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut map = SourceMap::default();
    let t = match parse::parse_str("fuzz.litmus", text, &mut map) {
        Ok(t) => t,
        Err(e) => {
            let _ = e.render(&map, false);
            return;
        }
    };
    let _ = gen::herd_text(&t);
    let _ = translate::translate(&t);
    let name = match t.arch {
        parse::LitArch::X86 => "tso",
        parse::LitArch::Ppc => "power",
        parse::LitArch::Arm => "arm",
        parse::LitArch::AArch64 => "aarch64",
    };
    let limits = axiomatic::Limits { max_candidates: 20_000, max_thread_runs: 256, timeout: Duration::from_millis(300) };
    let _ = axiomatic::check(&t, arch(name), &limits);
}
