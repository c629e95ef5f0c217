//! `--property`: fences guided by counterexamples (FOIL §7.3, CheckFence), with the
//! integer program choosing the cheapest placement for all cycles seen so far.

use super::{cycle_label, ModeResult, Need, Problem, Report, Round};
use crate::arch::Arch;
use crate::bmc::{self, BmcOptions, Outcome, PropertyKind, StepKind, Verdict};
use crate::cycles::{Cycle, EdgeKind};
use crate::pipeline::{self, Analysis};
use crate::select::Strategy;
use crate::source::Error;
use crate::verify::Checked;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Source lines (file, line) where the counterexample used a weak-memory event: a write
/// delayed in a buffer (`*_delay` helper), a read delayed in a read set (`*$rs`), or on the
/// axiomatic route an access performed after an access of its thread that follows it in
/// program order.
fn weak_lines(o: &Outcome, acc: &[(String, Vec<Access>)]) -> HashSet<(u32, u32)> {
    let mut out: HashSet<(u32, u32)> = o
        .trace
        .iter()
        .filter(|s| s.loc.line > 0)
        .filter(|s| match &s.kind {
            StepKind::Call { function } => function.ends_with("_delay"),
            StepKind::Assign { lhs, .. } => lhs.contains("$rs"),
            StepKind::Write { object, .. } => object.contains("$rs"),
            StepKind::BufferedWrite { .. } => true,
            _ => false,
        })
        .map(|s| (s.loc.file, s.loc.line))
        .collect();
    out.extend(acc.iter().flat_map(|(_, l)| l.iter()).filter(|a| a.late).map(|a| (a.file, a.line)));
    out
}

/// A shared-memory access of a counterexample, per thread in program (= trace) order.
#[derive(Clone, Debug)]
struct Access {
    file: u32,
    line: u32,
    write: bool,
    /// Concrete address `(object, cell)` when the trace says it; `None`: unknown (matches any).
    addr: Option<(String, u64)>,
    /// The object's name when known (array name for an element).
    base: Option<String>,
    /// Entered a store buffer or a read set: a weak-memory event.
    delayed: bool,
    /// Performed after an access of its thread that follows it in program order (the
    /// axiomatic route's traces, in memory order): a weak-memory event.
    late: bool,
    /// Position in the thread's program order, and in the trace (memory order).
    po: u32,
    mem: usize,
}

/// `&latch+1`, `latch+1`, `latch[cell 1]`, `latch` → `("latch", 1)`; anything else: `None`.
fn parse_addr(s: &str) -> Option<(String, u64)> {
    let s = s.trim().trim_start_matches('&');
    let ident = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.');
    if let Some((b, rest)) = s.split_once("[cell ") {
        let k = rest.strip_suffix(']')?.trim().parse().ok()?;
        return ident(b).then(|| (b.to_string(), k));
    }
    if let Some((b, k)) = s.split_once('+') {
        let k = k.trim().parse().ok()?;
        return ident(b.trim()).then(|| (b.trim().to_string(), k));
    }
    ident(s).then(|| (s.to_string(), 0))
}

/// The user-level accesses of each thread of the counterexample, in program order: the
/// instrumentation's helper calls read as the accesses they stand for (their `p` argument
/// is the address), read-set assignments as delayed reads, plain accesses as themselves.
fn accesses(o: &Outcome) -> Vec<(String, Vec<Access>)> {
    let mut out: Vec<(String, Vec<Access>)> = vec![];
    fn list<'a>(out: &'a mut Vec<(String, Vec<Access>)>, t: &str) -> &'a mut Vec<Access> {
        let i = match out.iter().position(|(n, _)| n == t) {
            Some(i) => i,
            None => {
                out.push((t.to_string(), vec![]));
                out.len() - 1
            }
        };
        &mut out[i].1
    }
    // per thread: the helper access whose `p` argument is still to come
    let mut pending: HashSet<String> = HashSet::new();
    for (mem, s) in o.trace.iter().enumerate() {
        if s.loc.line == 0 {
            continue;
        }
        let (file, line, po) = (s.loc.file, s.loc.line, s.po);
        match &s.kind {
            StepKind::Call { function } => {
                pending.remove(&s.thread);
                let helper = function.contains("$g") || function.starts_with("__weakc_");
                let Some((base, rule)) = function.rsplit_once('_').filter(|_| helper) else { continue };
                let (write, delayed) = match rule {
                    "delay" | "hold" => (true, true),
                    "write" => (true, false),
                    "read" | "held" => (false, false),
                    _ => continue,
                };
                let obj = base.split("$g").next().unwrap_or("").to_string();
                let base = (!obj.is_empty() && !obj.starts_with("__weakc")).then_some(obj);
                list(&mut out, &s.thread).push(Access { file, line, write, addr: None, base, delayed, late: false, po, mem });
                pending.insert(s.thread.clone());
            }
            StepKind::Assign { lhs, value } if lhs == "p" && pending.contains(&s.thread) => {
                if let Some(a) = list(&mut out, &s.thread).last_mut() {
                    a.addr = parse_addr(value);
                    if let Some((b, _)) = &a.addr {
                        a.base = Some(b.clone());
                    }
                }
            }
            StepKind::Assign { lhs, .. } if matches!(lhs.as_str(), "v" | "me" | "s" | "mask" | "tag") && pending.contains(&s.thread) => {}
            StepKind::Assign { lhs, value } if lhs.contains("$rs") => {
                pending.remove(&s.thread);
                let addr = parse_addr(value);
                let base = addr.as_ref().map(|a| a.0.clone()).or_else(|| Some(lhs.split("$rs").next()?.to_string()));
                list(&mut out, &s.thread).push(Access { file, line, write: false, addr, base, delayed: true, late: false, po, mem });
            }
            StepKind::Read { object, .. } | StepKind::Write { object, .. } | StepKind::BufferedWrite { object, .. } if !crate::trace::internal(object) => {
                pending.remove(&s.thread);
                let write = matches!(s.kind, StepKind::Write { .. } | StepKind::BufferedWrite { .. });
                let addr = parse_addr(object);
                let base = Some(object.split(['[', '+', '.']).next().unwrap_or(object).trim_start_matches('&').to_string());
                list(&mut out, &s.thread).push(Access { file, line, write, addr, base, delayed: false, late: false, po, mem });
            }
            _ => {
                pending.remove(&s.thread);
            }
        }
    }
    for (_, list) in &mut out {
        list.sort_by_key(|a| a.po);
        // Late: some access after it in program order came before it in the trace.
        let mut first_after = usize::MAX;
        for a in list.iter_mut().rev() {
            a.late = first_after < a.mem;
            a.delayed |= a.late;
            first_after = first_after.min(a.mem);
        }
    }
    out
}

/// Does the counterexample realise cycle `c`? Its events must map to accesses of the trace
/// (same line, direction and object): the events of one thread of the cycle to one thread
/// of the trace, in program order; the two ends of each communication relation to two
/// threads at one address; and at least one unsafe relation must start at an access the
/// trace made weak (a write left in a store buffer, a read left in a read set). That is
/// the cycle the weak events of this trace form, read from the trace rather than from its
/// lines only.
fn realises(aeg: &crate::aeg::Aeg, c: &Cycle, acc: &[(String, Vec<Access>)]) -> bool {
    let n = c.events.len();
    let fits = |k: usize, a: &Access| {
        let ev = aeg.event(c.events[k]);
        a.line == ev.loc.line
            && a.write == (ev.dir == crate::aeg::Dir::W)
            && a.base.as_ref().is_none_or(|b| {
                let name = &aeg.object(ev.obj).name;
                b == name || !acc.iter().any(|(_, l)| l.iter().any(|x| x.base.as_deref() == Some(name.as_str())))
            })
    };
    // choice[k] = (thread index, access index)
    fn search(
        k: usize,
        n: usize,
        c: &Cycle,
        acc: &[(String, Vec<Access>)],
        fits: &dyn Fn(usize, &Access) -> bool,
        choice: &mut Vec<(usize, usize)>,
    ) -> bool {
        if k == n {
            // close the cycle: the last edge, back to event 0
            return edge_ok(n - 1, c, acc, choice, choice[0])
                && c.edges.iter().enumerate().any(|(i, e)| !e.safe && weak(i, c, acc, choice))
                && threads_distinct(c, choice);
        }
        for (t, (_, list)) in acc.iter().enumerate() {
            for (j, a) in list.iter().enumerate() {
                if !fits(k, a) {
                    continue;
                }
                if k > 0 && !edge_ok(k - 1, c, acc, choice, (t, j)) {
                    continue;
                }
                choice.push((t, j));
                if search(k + 1, n, c, acc, fits, choice) {
                    return true;
                }
                choice.pop();
            }
        }
        false
    }
    fn edge_ok(i: usize, c: &Cycle, acc: &[(String, Vec<Access>)], choice: &[(usize, usize)], to: (usize, usize)) -> bool {
        let from = choice[i];
        match c.edges[i].kind {
            EdgeKind::Po { .. } => from.0 == to.0 && from.1 < to.1,
            _ => {
                let (a, b) = (&acc[from.0].1[from.1], &acc[to.0].1[to.1]);
                from.0 != to.0 && (a.addr.is_none() || b.addr.is_none() || a.addr == b.addr)
            }
        }
    }
    // Unsafe relation `i` is what the trace relaxed: its first access was delayed by the
    // instrumentation; on the axiomatic route, it was performed after its second.
    fn weak(i: usize, c: &Cycle, acc: &[(String, Vec<Access>)], choice: &[(usize, usize)]) -> bool {
        let a = &acc[choice[i].0].1[choice[i].1];
        if !a.late {
            return a.delayed;
        }
        let to = choice[(i + 1) % choice.len()];
        !matches!(c.edges[i].kind, EdgeKind::Po { .. }) || acc[to.0].1[to.1].mem < a.mem
    }
    // the cycle's threads (maximal po chains) go to distinct threads of the trace
    fn threads_distinct(c: &Cycle, choice: &[(usize, usize)]) -> bool {
        let mut seen = HashSet::new();
        c.edges.iter().enumerate().filter(|(_, e)| !matches!(e.kind, EdgeKind::Po { .. })).all(|(i, _)| {
            let next = (i + 1) % choice.len();
            seen.insert(choice[next].0)
        })
    }
    search(0, n, c, acc, &fits, &mut Vec::with_capacity(n))
}

/// The cycles of `a` the counterexample realises ([`realises`]).
fn realised_cycles(a: &Analysis, acc: &[(String, Vec<Access>)]) -> Vec<Cycle> {
    a.cycles.cycles.iter().filter(|c| realises(&a.aeg, c, acc)).cloned().collect()
}

/// The cycles of `a` whose unsafe relations start at a line the counterexample delayed
/// (the broad match, when the precise one finds nothing new).
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

/// Decides a round's program: on the axiomatic route first where the built-in engine has a
/// model of `arch`, then instrumented (strategy ilp, `buffer_size`, depth 1 after a memory
/// guard: [`crate::verify::check`]). `bopts.timeout` is the budget of the whole round.
///
/// The axiomatic route decides the program itself, without the rewriter's bounds, and is
/// much cheaper than an instrumented program once several fences are in it (FOIL's STMs:
/// seconds against more than 300 s), so its safety is the answer. Its counterexample lists
/// the steps in memory order with their place in program order, which shows every
/// reordered pair; on a model whose stores are not multi-copy atomic (Power, ARM) a write
/// seen early by another thread does not show, so the instrumented program is asked for a
/// counterexample that names its weak events, and the axiomatic one guides the next round
/// when it finds none (it may lack behaviours of the architecture, or run out of time).
/// Where the engine has no model, the instrumented program alone decides: its assertions
/// that hold up to the rewriter's approximations are UNKNOWN ([`Checked::verdict`]).
fn check(a: &mut Analysis, arch: &Arch, bopts: &BmcOptions, buffer_size: u32) -> Result<Checked, Error> {
    let deadline = bopts.timeout.map(|t| Instant::now() + t);
    let left = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
    let mut found = None;
    if let Ok(model) = crate::verify::store_buffer_model(arch) {
        let shows_all = model.relaxed.as_ref().is_none_or(|r| r.mca);
        let outcome = bmc::verify(&a.program, &BmcOptions { model: Some(model), timeout: left(), ..bopts.clone() })?;
        let decided = matches!(outcome.verdict, Verdict::Safe { .. }) || (shows_all && outcome.verdict == Verdict::Unsafe);
        let unsafe_ = outcome.verdict == Verdict::Unsafe;
        let ax = Checked { checks: vec![crate::verify::Check { buffer_size: 0, outcome }], no_fallback: None, instrumented: false, approximations: vec![], doubts: vec![], axiomatic: true, under_sc: false };
        if decided {
            return Ok(ax);
        }
        found = unsafe_.then_some(ax);
    }
    let chosen = pipeline::choose(a, arch, Strategy::Ilp);
    let mut engine = |p: &crate::ir::Program, timeout: Option<Duration>| bmc::verify(p, &BmcOptions { timeout, ..bopts.clone() });
    let checked = crate::verify::check(a, arch, &chosen.selection, buffer_size, deadline, &mut engine, &mut |_| {})?;
    Ok(match found {
        Some(ax) if checked.verdict_of_checks() != Verdict::Unsafe => ax,
        _ => checked,
    })
}

/// How a round's verdict was reached when the requested depth hit the memory guard.
fn depth_note(c: &Checked) -> String {
    if c.fell_back() {
        format!(" at buffer depth {} (depth {} hit the memory guard)", c.last().buffer_size, c.requested())
    } else {
        String::new()
    }
}

pub(super) fn run(base: &Analysis, arch: &Arch, opts: &pipeline::Options, args: &super::FenceArgs, units: &[super::Unit]) -> ModeResult {
    let problem = Problem::new(base, arch, opts, units.to_vec())?;
    let bopts = BmcOptions { unwind: args.unwind, timeout: args.timeout.map(Duration::from_secs_f64), ..Default::default() };
    let mut report = Report {
        file: problem.file().to_string(),
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
    let original = problem.texts();
    let mut seen: Vec<Cycle> = vec![];
    let mut seen_keys: HashSet<Vec<(u32, u32)>> = HashSet::new();
    // per counterexample so far, what the cycles it realises ask (break any one)
    let mut groups: Vec<Vec<Need>> = vec![];
    let mut chosen: Vec<usize> = vec![];
    let mut cost = 0u32;
    for round in 1..=args.max_rounds.max(1) {
        let mut a = problem.analyse_with(&chosen)?;
        let checked = check(&mut a, arch, &bopts, args.buffer_size)?;
        let at_depth = depth_note(&checked);
        // The requested depth hit the memory guard and the fences hold at depth 1 only.
        let held_shallow = checked.fell_back() && matches!(checked.last().outcome.verdict, Verdict::Safe { .. });
        let axiomatic = checked.axiomatic;
        let o = checked.into_outcome();
        let placed = problem.placements(&chosen, &[]).iter().map(|p| p.describe(&super::short_name(&p.file))).collect();
        let orders = chosen.iter().filter(|&&k| matches!(problem.candidates[k].what, super::What::Order(_))).count();
        let mut rd = Round { round, fences: chosen.len() - orders, orders, cost, cycles: a.cycles.cycles.len(), verdict: String::new(), used: vec![], placed };
        match &o.verdict {
            Verdict::Safe { complete } => {
                rd.verdict = if *complete { "assertions hold".into() } else { format!("assertions hold up to unwind {}", args.unwind) };
                report.rounds.push(rd);
                // Check the patched source as the user will get it.
                let text = problem.patched_texts(&chosen);
                let mut re = problem.analyse_texts(&text)?;
                let o2 = check(&mut re, arch, &bopts, args.buffer_size)?.into_outcome();
                match &o2.verdict {
                    Verdict::Safe { .. } => {}
                    // A limit (time, memory) can stop the second check and not the first.
                    Verdict::Unknown(why) => {
                        report.status = "unknown";
                        report.verification = format!(
                            "no verified answer: the fences of round {round} make the assertions hold in the IR, but the patched source could not be re-checked ({why})"
                        );
                        return Ok((report, original));
                    }
                    Verdict::Unsafe => {
                        return Err(Error::Internal(format!(
                            "the patched source does not verify on {} ({:?}) although the placement did in the IR",
                            arch.name, o2.verdict
                        )))
                    }
                }
                report.placements = problem.placements(&chosen, &seen);
                report.total_cost = cost;
                report.status = "verified";
                report.verification = format!(
                    "verified: VERIFICATION SUCCESSFUL on {} with the fences inserted{} (built-in BMC{}, unwind {}, patched source re-checked), after {round} round(s)",
                    arch.name,
                    if *complete { "" } else { ", up to the unwinding bound" },
                    if axiomatic { " on the axiomatic route" } else { ", instrumented" },
                    args.unwind
                );
                return Ok((report, text));
            }
            Verdict::Unknown(why) => {
                rd.verdict = format!("unknown: {why}");
                report.rounds.push(rd);
                report.status = "unknown";
                report.verification = format!("no verified answer: the verifier could not decide round {round} ({why})");
                if held_shallow && !chosen.is_empty() {
                    // Shown, not written: they are verified at buffer depth 1 only.
                    report.placements = problem.placements(&chosen, &seen);
                    report.total_cost = cost;
                    report.notes.push(format!(
                        "the fences shown make the assertions hold at buffer depth 1 only (run with --buffer-size 1 to accept that bound and write them); the check at depth {} stopped at the memory guard",
                        args.buffer_size
                    ));
                }
                return Ok((report, original));
            }
            Verdict::Unsafe => {}
        }
        if let Some(f) = o.failed.as_ref().filter(|f| matches!(f.kind, PropertyKind::UnwindingAssertion)) {
            rd.verdict = format!("unwinding assertion failed at line {}", f.loc.line);
            report.rounds.push(rd);
            report.status = "unknown";
            report.verification = format!("no verified answer: a loop needs more than {} iterations (raise --unwind)", args.unwind);
            return Ok((report, original));
        }
        let acc = accesses(&o);
        let weak = weak_lines(&o, &acc);
        // The axiomatic route marks delayed writes only (its steps are in memory order): a
        // trace without marks may still reorder reads, so it proves no SC violation.
        if weak.is_empty() && !axiomatic {
            rd.verdict = "assertion violated without weak-memory events".into();
            report.rounds.push(rd);
            report.status = "sc-violation";
            report.verification =
                "the assertion fails under sequential consistency too: no fence can fix it (VERIFICATION FAILED)".into();
            return Ok((report, original));
        }
        // The cycles this trace realises; when none, the broad match by lines; when that
        // finds none either, every cycle left. Breaking any one of them forbids this
        // execution: the next placement must break one (cycles still critical with the
        // fences placed, so every round asks for something new and the loop ends).
        // A level whose cycles no fence can break (accesses of one statement, a loop body
        // without a gap) gives way to the next: the match may be looser than the cause.
        let needs_of = |cs: &[Cycle]| cs.iter().map(|c| problem.need(c)).collect::<Result<Vec<Need>, Error>>();
        let breakable = |ns: &[Need]| ns.iter().any(|n| matches!(n, Need::Cover(_)));
        let mut used = realised_cycles(&a, &acc);
        let mut needs = needs_of(&used)?;
        if !breakable(&needs) {
            let more = used_cycles(&a, &weak);
            needs.extend(needs_of(&more)?);
            used.extend(more);
        }
        if !breakable(&needs) {
            used = a.cycles.cycles.clone();
            needs = needs_of(&used)?;
        }
        if used.is_empty() {
            rd.verdict = "assertion violated, no critical cycle left".into();
            report.rounds.push(rd);
            report.status = "sc-violation";
            report.verification = "the assertion fails although no critical cycle is left: not a weak-memory bug, no fence can fix it (VERIFICATION FAILED)".into();
            return Ok((report, original));
        }
        rd.verdict = format!("assertion violated{at_depth}");
        rd.used = used.iter().map(|c| cycle_label(&a.aeg, c)).collect();
        report.rounds.push(rd);
        if !breakable(&needs) {
            let why: Vec<_> = needs
                .iter()
                .enumerate()
                .filter_map(|(ci, n)| match *n {
                    Need::Unbreakable(i, w) => Some((ci, i, w)),
                    _ => None,
                })
                .collect();
            report.status = "partial";
            report.notes.extend(super::unbreakable_note(&a.aeg, &used, &why));
            report.verification = "no verified answer: the counterexample uses only cycles no fence at a source position can break (see the note)".into();
            return Ok((report, original));
        }
        for c in used {
            if seen_keys.insert(key(&c)) {
                seen.push(c);
            }
        }
        groups.push(needs);
        let sol = problem.solve_groups(&groups);
        report.optimal &= sol.optimal;
        report.notes.extend(sol.note);
        chosen = sol.chosen;
        cost = sol.cost;
    }
    report.verification =
        format!("no verified answer within {} rounds (raise --max-rounds, or use static mode)", args.max_rounds.max(1));
    Ok((report, original))
}
