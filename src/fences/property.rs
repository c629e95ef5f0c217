//! `--property`: fences guided by counterexamples (FOIL §7.3, CheckFence), with the
//! integer program choosing the cheapest placement for all cycles seen so far.

use super::{cycle_label, ModeResult, Problem, Report, Round};
use crate::arch::Arch;
use crate::bmc::{self, BmcOptions, Outcome, PropertyKind, StepKind, Verdict};
use crate::cycles::Cycle;
use crate::pipeline::{self, Analysis};
use crate::select::Strategy;
use crate::source::Error;
use std::collections::HashSet;
use std::time::Duration;

/// Source lines (file, line) where the counterexample used a weak-memory event: a write
/// delayed in a buffer (`*_delay` helper) or a read delayed in a read set (`*$rs`).
pub fn weak_lines(o: &Outcome) -> HashSet<(u32, u32)> {
    o.trace
        .iter()
        .filter(|s| s.loc.line > 0)
        .filter(|s| match &s.kind {
            StepKind::Call { function } => function.ends_with("_delay"),
            StepKind::Assign { lhs, .. } => lhs.contains("$rs"),
            StepKind::Write { object, .. } => object.contains("$rs"),
            _ => false,
        })
        .map(|s| (s.loc.file, s.loc.line))
        .collect()
}

/// The cycles of `a` whose unsafe relations start at a line the counterexample delayed.
fn used_cycles(a: &Analysis, weak: &HashSet<(u32, u32)>) -> Vec<Cycle> {
    a.cycles
        .cycles
        .iter()
        .filter(|c| {
            c.unsafe_edges().any(|e| {
                let l = a.aeg.event(e.from).loc;
                weak.contains(&(l.file, l.line))
            })
        })
        .cloned()
        .collect()
}

fn key(c: &Cycle) -> Vec<(u32, u32)> {
    c.edges.iter().map(|e| (e.from.0, e.to.0)).collect()
}

fn check(a: &mut Analysis, arch: &Arch, bopts: &BmcOptions) -> Result<Outcome, Error> {
    let ins = pipeline::instrument(a, arch, Strategy::Ilp, &Default::default());
    bmc::verify(&ins.rewritten.program, bopts)
}

pub(super) fn run(base: &Analysis, arch: &Arch, opts: &pipeline::Options, args: &super::FenceArgs) -> ModeResult {
    let problem = Problem::new(base, arch, opts)?;
    let bopts = BmcOptions { unwind: args.unwind, timeout: args.timeout.map(Duration::from_secs_f64), ..Default::default() };
    let mut report = Report {
        file: problem.file.clone(),
        arch: arch.name.to_string(),
        mode: "property",
        cycles: base.cycles.cycles.len(),
        placements: vec![],
        total_cost: 0,
        optimal: true,
        status: "round-limit",
        verification: String::new(),
        rounds: vec![],
        notes: vec![],
    };
    let original = problem.text.clone();
    let mut seen: Vec<Cycle> = vec![];
    let mut seen_keys: HashSet<Vec<(u32, u32)>> = HashSet::new();
    let mut chosen: Vec<usize> = vec![];
    let mut cost = 0u32;
    for round in 1..=args.max_rounds.max(1) {
        let mut a = problem.analyse_with(&chosen)?;
        let o = check(&mut a, arch, &bopts)?;
        let mut rd = Round { round, fences: chosen.len(), cost, cycles: a.cycles.cycles.len(), verdict: String::new(), used: vec![] };
        match &o.verdict {
            Verdict::Safe { complete } => {
                rd.verdict = if *complete { "assertions hold".into() } else { format!("assertions hold up to unwind {}", args.unwind) };
                report.rounds.push(rd);
                // Check the patched source as the user will get it.
                let text = problem.patched_text(&chosen);
                let mut re = problem.analyse_text(&text)?;
                let o2 = check(&mut re, arch, &bopts)?;
                if !matches!(o2.verdict, Verdict::Safe { .. }) {
                    return Err(Error::Internal(format!(
                        "the patched source does not verify on {} ({:?}) although the placement did in the IR",
                        arch.name, o2.verdict
                    )));
                }
                report.placements = problem.placements(&chosen, &seen);
                report.total_cost = cost;
                report.status = "verified";
                report.verification = format!(
                    "verified: VERIFICATION SUCCESSFUL on {} with the fences inserted{} (built-in BMC, unwind {}, patched source re-checked), after {round} round(s)",
                    arch.name,
                    if *complete { "" } else { ", up to the unwinding bound" },
                    args.unwind
                );
                return Ok((report, text, original));
            }
            Verdict::Unknown(why) => {
                rd.verdict = format!("unknown: {why}");
                report.rounds.push(rd);
                report.status = "unknown";
                report.verification = format!("no verified answer: the verifier could not decide round {round} ({why})");
                return Ok((report, original.clone(), original));
            }
            Verdict::Unsafe => {}
        }
        if let Some(f) = o.failed.as_ref().filter(|f| matches!(f.kind, PropertyKind::UnwindingAssertion)) {
            rd.verdict = format!("unwinding assertion failed at line {}", f.loc.line);
            report.rounds.push(rd);
            report.status = "unknown";
            report.verification = format!("no verified answer: a loop needs more than {} iterations (raise --unwind)", args.unwind);
            return Ok((report, original.clone(), original));
        }
        let weak = weak_lines(&o);
        if weak.is_empty() {
            rd.verdict = "assertion violated without weak-memory events".into();
            report.rounds.push(rd);
            report.status = "sc-violation";
            report.verification =
                "the assertion fails under sequential consistency too: no fence can fix it (VERIFICATION FAILED)".into();
            return Ok((report, original.clone(), original));
        }
        let mut used = used_cycles(&a, &weak);
        used.retain(|c| !seen_keys.contains(&key(c)));
        if used.is_empty() {
            // The trace's weak events match no new cycle: take every cycle left.
            used = a.cycles.cycles.iter().filter(|c| !seen_keys.contains(&key(c))).cloned().collect();
        }
        if used.is_empty() {
            rd.verdict = "assertion violated, no critical cycle left".into();
            report.rounds.push(rd);
            report.status = "sc-violation";
            report.verification = "the assertion fails although no critical cycle is left: not a weak-memory bug, no fence can fix it (VERIFICATION FAILED)".into();
            return Ok((report, original.clone(), original));
        }
        rd.verdict = "assertion violated".into();
        rd.used = used.iter().map(|c| cycle_label(&a.aeg, c)).collect();
        report.rounds.push(rd);
        for c in used {
            seen_keys.insert(key(&c));
            seen.push(c);
        }
        let sol = problem.solve(&seen)?;
        if sol.unbreakable.len() == seen.len() {
            report.status = "partial";
            report.notes.extend(sol.unbreakable_note(&base.aeg, &seen));
            report.verification = "no verified answer: the counterexamples use only cycles no fence at a source position can break (see the note)".into();
            return Ok((report, original.clone(), original));
        }
        report.optimal &= sol.optimal;
        report.notes.extend(sol.note);
        chosen = sol.chosen;
        cost = sol.cost;
    }
    report.verification =
        format!("no verified answer within {} rounds (raise --max-rounds, or use static mode)", args.max_rounds.max(1));
    Ok((report, original.clone(), original))
}
