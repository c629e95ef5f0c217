//! Verifier back ends: the built-in engine ([`crate::bmc`]) or an external SC verifier
//! (CBMC, ESBMC) run on the instrumented C. An external verifier's report is mapped onto
//! the same [`Outcome`] the built-in engine produces, so the trace rendering of
//! [`crate::trace`] and the JSON output are the same for every back end.
//!
//! The instrumented program is printed with `#line` directives, so the files and lines an
//! external verifier reports are the user's; code without a directive (the helpers of the
//! instrumentation) is reported in the generated file, which the mapping turns into
//! location-less steps, as the built-in engine reports them.

mod cbmc;
mod esbmc;
mod process;
pub mod report;
mod steps;
mod text;

use crate::bmc::{Outcome, Property, PropertyKind, Stats, Step, StepKind, Verdict};
use crate::source::{Error, Loc, SourceMap};
use report::{ExtVerdict, Report};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Builtin,
    Cbmc,
    Esbmc,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Builtin => "builtin",
            Backend::Cbmc => "cbmc",
            Backend::Esbmc => "esbmc",
        }
    }
}

/// What the user asked for: a back end, or `Auto`: the built-in engine, and CBMC (else
/// ESBMC) when it is installed and the built-in engine gives up.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Choice {
    #[default]
    Auto,
    Only(Backend),
}

/// The back end that will run, its binary, and why it was chosen (printed in the header).
#[derive(Clone, Debug)]
pub struct Selection {
    pub backend: Backend,
    pub binary: Option<PathBuf>,
    pub reason: String,
    /// `auto`: the external verifier to try when the built-in engine gives up.
    pub second: Option<(Backend, PathBuf)>,
}

impl Selection {
    /// The selection of the external verifier `auto` tries after the built-in engine.
    pub fn second_opinion(&self) -> Option<Selection> {
        let (b, p) = self.second.clone()?;
        Some(Selection { backend: b, reason: format!("auto: after the built-in engine, {}", p.display()), binary: Some(p), second: None })
    }
}

/// Picks the back end. `needs_builtin` names a requested feature only the built-in engine
/// provides (`--trace-dot`, `--unwindset`): `Auto` then never tries an external verifier,
/// an explicit external back end is a usage error. `Auto` runs the built-in engine first:
/// it decides small instrumented programs in a fraction of a second where an external
/// verifier may need minutes (ESBMC enumerates interleavings: 866 s on `examples/sb.c`).
pub fn select(choice: Choice, needs_builtin: Option<&str>) -> Result<Selection, Error> {
    let find = |b: Backend| which::which(b.name()).ok();
    match choice {
        Choice::Only(Backend::Builtin) => Ok(Selection { backend: Backend::Builtin, binary: None, reason: "requested".into(), second: None }),
        Choice::Only(b) => {
            if let Some(f) = needs_builtin {
                return Err(Error::Usage(format!("{f} needs the built-in back end; it cannot be used with --backend {}", b.name())));
            }
            match find(b) {
                Some(p) => Ok(Selection { backend: b, reason: format!("requested, {}", p.display()), binary: Some(p), second: None }),
                None => Err(Error::Usage(format!(
                    "--backend {0}: `{0}` was not found on PATH; install it or use --backend builtin (or auto)",
                    b.name()
                ))),
            }
        }
        Choice::Auto => {
            if let Some(f) = needs_builtin {
                return Ok(Selection { backend: Backend::Builtin, binary: None, reason: format!("auto: {f} needs it"), second: None });
            }
            let second = [Backend::Cbmc, Backend::Esbmc].into_iter().find_map(|b| find(b).map(|p| (b, p)));
            let reason = match &second {
                Some((b, p)) => format!("auto: built-in first, then {} ({}) if it gives up", b.name(), p.display()),
                None => "auto: neither cbmc nor esbmc is on PATH".into(),
            };
            Ok(Selection { backend: Backend::Builtin, binary: None, reason, second })
        }
    }
}

#[derive(Clone, Debug)]
pub struct ExternalOptions {
    pub unwind: u32,
    pub unwinding_assertions: bool,
    pub timeout: Option<Duration>,
    /// ESBMC's `--context-bound`.
    pub context_bound: Option<u32>,
}

/// Name of the instrumented program in the verifier's working directory.
pub const INPUT_NAME: &str = "weakc_input.c";

/// The runtime header the emitted program includes, embedded so that weakc works from any
/// directory, followed by what the verifier needs to give weakc's primitives their meaning
/// (the header only declares them; a verifier would treat a declared-only
/// `__VERIFIER_assert` as a function without effect, and the assertion would be lost).
fn header_for(backend: Backend) -> String {
    let base = include_str!("../../runtime/weakc.h");
    let tail = match backend {
        Backend::Esbmc => {
            "#define __VERIFIER_assert(c) __ESBMC_assert((c), \"assertion\")\n\
             #define __VERIFIER_error() (__ESBMC_assert(0, \"reach_error\"), __ESBMC_assume(0))\n\
             #define __VERIFIER_assume(c) __ESBMC_assume(c)\n\
             #define __VERIFIER_atomic_begin() __ESBMC_atomic_begin()\n\
             #define __VERIFIER_atomic_end() __ESBMC_atomic_end()\n"
        }
        _ => {
            "#define __VERIFIER_assert(c) __CPROVER_assert((c), \"assertion\")\n\
             #define __VERIFIER_error() (__CPROVER_assert(0, \"reach_error\"), __CPROVER_assume(0))\n\
             #define __VERIFIER_assume(c) __CPROVER_assume(c)\n\
             #define __VERIFIER_atomic_begin() __CPROVER_atomic_begin()\n\
             #define __VERIFIER_atomic_end() __CPROVER_atomic_end()\n"
        }
    };
    format!("{base}\n/* Added by weakc for {}: */\n{tail}", backend.name())
}

/// What running an external verifier gave.
pub enum ExternalRun {
    Done(Report),
    TimedOut(Duration),
}

/// Writes `program` (the printed instrumented C) and the runtime header into a fresh
/// temporary directory and runs the selected verifier there.
pub fn run_external(sel: &Selection, program: &str, o: &ExternalOptions) -> Result<ExternalRun, Error> {
    let bin = sel.binary.as_deref().ok_or_else(|| Error::Internal("external back end without a binary".into()))?;
    let tool = sel.backend.name();
    let dir = tempfile::tempdir().map_err(|e| Error::Internal(format!("cannot create a temporary directory: {e}")))?;
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).map_err(|e| Error::Internal(format!("cannot write {name} for {tool}: {e}")))
    };
    write(INPUT_NAME, program)?;
    write("weakc.h", &header_for(sel.backend))?;
    let spawn_err = |e: std::io::Error| Error::Usage(format!("cannot run {}: {e}", bin.display()));
    let args = match sel.backend {
        Backend::Cbmc => {
            let v = process::run(bin, &["--version".into()], dir.path(), Some(Duration::from_secs(20))).map_err(spawn_err)?;
            // An unreadable version is taken as current (6 or later).
            cbmc::args(INPUT_NAME, o, cbmc::major_version(&v.stdout).unwrap_or(6))
        }
        Backend::Esbmc => esbmc::args(INPUT_NAME, o),
        Backend::Builtin => return Err(Error::Internal("run_external with the built-in back end".into())),
    };
    let f = process::run(bin, &args, dir.path(), o.timeout).map_err(spawn_err)?;
    if f.timed_out {
        return Ok(ExternalRun::TimedOut(f.elapsed));
    }
    let fail = |msg: String| Error::External { tool: tool.into(), code: f.code, msg };
    let report = match sel.backend {
        // 0: all properties hold; 10: one fails; anything else (6: usage or parse error) is
        // an error, reported with CBMC's own messages.
        Backend::Cbmc => match f.code {
            Some(0) | Some(10) => cbmc::parse_json(&f.stdout).map_err(fail)?,
            _ => {
                let errs = cbmc::parse_json(&f.stdout).map(|r| r.errors).unwrap_or_default();
                return Err(fail(error_text(errs, &f.stderr, &f.stdout)));
            }
        },
        _ => text::parse(&format!("{}\n{}", f.stdout, f.stderr)),
    };
    // ESBMC's own `--timeout` (exit 1, the message sometimes glued to the end of the line
    // before): the time limit, not an error.
    if report.verdict == ExtVerdict::None && text::timed_out(&f.stdout, &f.stderr) {
        return Ok(ExternalRun::TimedOut(f.elapsed));
    }
    if report.verdict == ExtVerdict::None {
        return Err(fail(error_text(report.errors.clone(), &f.stderr, &f.stdout)));
    }
    Ok(ExternalRun::Done(report))
}

/// The verifier's own error messages, else the end of what it printed.
fn error_text(errors: Vec<String>, stderr: &str, stdout: &str) -> String {
    if !errors.is_empty() {
        return errors.join("\n");
    }
    let text = if stderr.trim().is_empty() { stdout } else { stderr };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(8)..].join("\n");
    if tail.is_empty() {
        "it printed nothing".into()
    } else {
        tail
    }
}

/// Maps a report onto the program: locations in the user's files become [`Loc`]s of `map`
/// (registering files not seen yet), the generated file and the verifiers' own models
/// (`<builtin-library-…>`) become location-less steps, and thread numbers become names
/// `FUNCTION#N` as the built-in engine gives them. `messages` gives the program's assertion
/// text at a location (the verifier only sees the instrumented condition).
pub fn to_outcome(r: &Report, map: &mut SourceMap, unwinding_assertions: bool, messages: &HashMap<(String, u32), String>) -> Outcome {
    let mut loc_of = |l: &report::ExtLoc| -> Loc {
        if l.file.is_empty() || steps::is_library(l) || steps::is_generated(l) {
            return Loc::default();
        }
        Loc { file: map.file_id(&l.file), line: l.line, col: 0, len: 0 }
    };
    let reduced = steps::reduce(&r.trace);
    // A thread is named after the first user function it runs (the reduced trace's
    // locations are the user's).
    let mut names: HashMap<u32, String> = HashMap::from([(0, "main".to_string())]);
    for s in &reduced {
        if let Some(l) = s.loc.as_ref().filter(|l| !l.function.is_empty()) {
            names.entry(s.thread).or_insert_with(|| format!("{}#{}", l.function, s.thread));
        }
    }
    let mut trace = vec![];
    for s in reduced {
        let thread = names.get(&s.thread).cloned().unwrap_or_else(|| format!("thread#{}", s.thread));
        let loc = s.loc.as_ref().map(&mut loc_of).unwrap_or_default();
        let kind = match s.kind {
            StepKind::Failure { message } => {
                let at = s.loc.as_ref().map(|l| (l.file.clone(), l.line));
                StepKind::Failure { message: at.and_then(|k| messages.get(&k).cloned()).unwrap_or(message) }
            }
            k => k,
        };
        trace.push(Step { thread, loc, kind, po: trace.len() as u32 });
    }
    let failed = r.failed.as_ref().map(|p| Property {
        kind: if p.is_unwinding() { PropertyKind::UnwindingAssertion } else { PropertyKind::Assertion },
        loc: loc_of(&p.loc),
        message: messages.get(&(p.loc.file.clone(), p.loc.line)).cloned().unwrap_or_else(|| p.description.clone()),
    });
    let verdict = match r.verdict {
        ExtVerdict::Unsafe => Verdict::Unsafe,
        // Without unwinding assertions a SAFE verdict only covers the bound.
        _ => Verdict::Safe { complete: unwinding_assertions },
    };
    Outcome { verdict, failed, trace, stats: Stats::default(), warnings: vec![], graph: None, stopped: None, warnings_tracked: false }
}

/// `(file, line) → message` of the assertions of `prog`, for [`to_outcome`].
pub fn assertion_messages(prog: &crate::ir::Program, map: &SourceMap) -> HashMap<(String, u32), String> {
    let mut out = HashMap::new();
    for f in &prog.funcs {
        if let Some(body) = &f.body {
            crate::ir::walk_stmts(body, &mut |s| {
                if let crate::ir::StmtKind::Assert { msg, .. } = &s.kind {
                    out.entry((map.name(s.loc).to_string(), s.loc.line)).or_insert_with(|| msg.clone());
                }
            });
        }
    }
    out
}

/// Reads a saved CBMC or ESBMC report in any of the formats they write: CBMC's JSON
/// (`--json-ui`), CBMC's XML (`--xml-ui`), or the plain text both print.
pub fn parse_saved(text: &str) -> Result<Report, String> {
    match text.trim_start().chars().next() {
        Some('[') => cbmc::parse_json(text),
        Some('<') => cbmc::parse_xml(text),
        _ => Ok(text::parse(text)),
    }
}
