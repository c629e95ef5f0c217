//! C11 order strengthening as a placement (issue 15, item 6): an atomic operation of the
//! source at a stronger `memory_order`, as an alternative to a fence.
//!
//! Each candidate is measured like a fence point: the source program is compiled for the
//! architecture with the one order changed and the event graph rebuilt; the program-order
//! pairs whose information changed (new barriers from the mapping's row, acquire/release
//! instructions) are what the candidate contributes when a cycle is re-judged. Its cost is
//! what the mapping adds ([`row_cost`]): the costs of the row's barriers (the fence menu's
//! costs) plus one per acquire or release instruction form.

use super::patch::Scan;
use crate::aeg::{self, EventId, PairInfo};
use crate::arch::c11::{Mapping, Op, Row};
use crate::arch::Arch;
use crate::ir::*;
use crate::pipeline;
use crate::source::{Error, Loc, SourceMap};
use std::collections::HashMap;
use std::ops::Range;

/// One atomic operation of the source at a stronger order.
#[derive(Clone, Debug)]
pub struct Strengthen {
    /// Position of the operation among the source program's atomic operations ([`ops`]).
    pub op_index: usize,
    pub op: Op,
    pub from: MemOrder,
    pub to: MemOrder,
    /// Where the order is spelled in the source text, as written and as it becomes.
    pub span: Range<usize>,
    pub old_text: String,
    pub new_text: String,
    pub line: u32,
    pub col: u32,
    /// The function the operation is in.
    pub function: String,
    /// Program-order pairs whose information the stronger order changes: the new information.
    pub changed: HashMap<(EventId, EventId), PairInfo>,
    pub cost: u32,
    /// The stronger row adds a lightweight barrier (herd's axioms decide what it forbids).
    pub light: bool,
    /// The translation unit whose text `span` is in (index into `Problem::units`).
    pub unit: usize,
}

/// The atomic operations of `prog` with an order, in a fixed walk order: (location, op,
/// order, function).
pub fn ops(prog: &Program) -> Vec<(Loc, Op, MemOrder, FuncId)> {
    let mut out = vec![];
    for (i, f) in prog.funcs.iter().enumerate() {
        if let Some(b) = &f.body {
            walk_stmts(b, &mut |s| out.extend(op_of(s).map(|(op, o)| (s.loc, op, o, FuncId(i as u32)))));
        }
    }
    out
}

fn op_of(s: &Stmt) -> Option<(Op, MemOrder)> {
    match &s.kind {
        StmtKind::Rmw(r) => Some((
            match r.op {
                RmwOp::Load => Op::Load,
                RmwOp::Store => Op::Store,
                _ => Op::Rmw,
            },
            r.order,
        )),
        StmtKind::Fence(Fence::Acquire) => Some((Op::Fence, MemOrder::Acquire)),
        StmtKind::Fence(Fence::Release) => Some((Op::Fence, MemOrder::Release)),
        StmtKind::Fence(Fence::AcqRel) => Some((Op::Fence, MemOrder::AcqRel)),
        _ => None,
    }
}

/// `prog` with the `n`-th atomic operation (as [`ops`] counts) at `order`.
fn set_order(prog: &mut Program, n: usize, order: MemOrder) {
    let mut k = 0;
    for f in &mut prog.funcs {
        if let Some(b) = &mut f.body {
            walk_stmts_mut(b, &mut |s| {
                if op_of(s).is_some() {
                    if k == n {
                        match &mut s.kind {
                            StmtKind::Rmw(r) => r.order = order,
                            StmtKind::Fence(f) => {
                                *f = match order {
                                    MemOrder::SeqCst => Fence::Full,
                                    MemOrder::AcqRel => Fence::AcqRel,
                                    MemOrder::Release => Fence::Release,
                                    _ => Fence::Acquire,
                                }
                            }
                            _ => {}
                        }
                    }
                    k += 1;
                }
            });
        }
    }
}

/// Orders strictly stronger than `o` that are valid for `op`.
fn stronger(op: Op, o: MemOrder) -> Vec<MemOrder> {
    use MemOrder::*;
    let rank = |x: MemOrder| match x {
        Relaxed => 0,
        Acquire | Release => 1,
        AcqRel => 2,
        SeqCst => 3,
    };
    let valid: &[MemOrder] = match op {
        Op::Load => &[Acquire, SeqCst],
        Op::Store => &[Release, SeqCst],
        Op::Rmw => &[Acquire, Release, AcqRel, SeqCst],
        Op::Fence => &[AcqRel, SeqCst],
    };
    valid.iter().copied().filter(|&n| rank(n) > rank(o) && !(rank(o) == 1 && rank(n) == 1)).collect()
}

/// Instructions a row adds to a plain access: its barriers at their menu costs, and one per
/// acquire/release instruction form (`LDAR`, `STLR`, Power's `cmp; bc; isync`).
pub fn row_cost(arch: &Arch, row: &Row) -> u32 {
    let fence = |f: &Fence| arch.fences.iter().find(|r| r.fence == *f).map_or(0, |r| r.cost);
    let fences: u32 = row.before.iter().chain(row.after).map(fence).sum();
    fences + u32::from(row.hw.release) + u32::from(row.hw.acquire != crate::ir::Acquire::None)
}

/// The spellings of an order in the two families (`memory_order_*`, `__ATOMIC_*`).
fn spelled(o: MemOrder, gnu: bool) -> &'static str {
    use MemOrder::*;
    match (o, gnu) {
        (Relaxed, false) => "memory_order_relaxed",
        (Acquire, false) => "memory_order_acquire",
        (Release, false) => "memory_order_release",
        (AcqRel, false) => "memory_order_acq_rel",
        (SeqCst, false) => "memory_order_seq_cst",
        (Relaxed, true) => "__ATOMIC_RELAXED",
        (Acquire, true) => "__ATOMIC_ACQUIRE",
        (Release, true) => "__ATOMIC_RELEASE",
        (AcqRel, true) => "__ATOMIC_ACQ_REL",
        (SeqCst, true) => "__ATOMIC_SEQ_CST",
    }
}

/// The order an identifier names (consume reads as acquire, as the front end does).
fn order_named(id: &str) -> Option<(MemOrder, bool)> {
    use MemOrder::*;
    let (rest, gnu) = match (id.strip_prefix("memory_order_"), id.strip_prefix("__ATOMIC_")) {
        (Some(r), _) => (r.to_ascii_lowercase(), false),
        (_, Some(r)) => (r.to_ascii_lowercase(), true),
        _ => return None,
    };
    let o = match rest.as_str() {
        "relaxed" => Relaxed,
        "consume" | "acquire" => Acquire,
        "release" => Release,
        "acq_rel" => AcqRel,
        "seq_cst" => SeqCst,
        _ => return None,
    };
    Some((o, gnu))
}

/// The order identifiers in the text of the operation at `loc`: (byte range, order, GNU
/// spelling). Only code is searched (not comments or strings).
fn order_tokens(scan: &Scan, loc: Loc) -> Vec<(Range<usize>, MemOrder, bool)> {
    let Some(start) = scan.offset(loc) else { return vec![] };
    let b = scan.text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // the operation's own text: the call at `loc` up to its `)` (inside a condition, the
    // statement goes on), else its statement
    let name_end = (start..b.len()).find(|&k| !ident(b[k])).unwrap_or(b.len());
    let open = (name_end..b.len()).find(|&k| !b[k].is_ascii_whitespace()).filter(|&k| b[k] == b'(' && scan.is_code(k));
    let close = open.and_then(|o| (o + 1..b.len()).find(|&k| b[k] == b')' && scan.is_code(k) && scan.depth_at(k) == scan.depth_at(o)));
    let Some(end) = close.map(|c| c + 1).or_else(|| scan.statement_end(start)) else { return vec![] };
    let mut out = vec![];
    let mut i = start;
    while i < end {
        if scan.is_code(i) && ident(b[i]) && (i == 0 || !ident(b[i - 1])) {
            let j = (i..end).find(|&j| !ident(b[j])).unwrap_or(end);
            if let Some((o, gnu)) = order_named(&scan.text[i..j]) {
                out.push((i..j, o, gnu));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The compiled, normalised program of `raw` with the atomic operations of `set` at the
/// given orders.
pub fn compiled_with(raw: &Program, arch: &Arch, opts: &pipeline::Options, set: &[(usize, MemOrder)]) -> Program {
    let mut p = raw.clone();
    for &(n, o) in set {
        set_order(&mut p, n, o);
    }
    crate::atomics::compile(&mut p, arch, &opts.atomics);
    crate::normalize::normalize(&mut p);
    p
}

/// The source program (before compilation) and every strengthening of an atomic operation
/// of one of the `units` whose order is spelled in the text and that changes what the event
/// graph orders.
pub fn candidates(
    base: &pipeline::Analysis,
    arch: &Arch,
    opts: &pipeline::Options,
    units: &[super::Unit],
    same_events: impl Fn(&aeg::Aeg) -> bool,
) -> Result<(Program, Vec<Strengthen>), Error> {
    let mut map = SourceMap::default();
    let raw = super::load_units(units, units.iter().map(|u| u.text.as_str()), &mut map)?;
    let mapping: &Mapping = crate::atomics::mapping(arch, &opts.atomics);
    let scans: Vec<Scan> = units.iter().map(|u| Scan::new(&u.text)).collect();
    let all = ops(&raw);
    let mut per_loc: HashMap<(u32, u32, u32), usize> = HashMap::new();
    for (l, ..) in &all {
        *per_loc.entry((l.file, l.line, l.col)).or_default() += 1;
    }
    let mut out = vec![];
    for (n, &(loc, op, from, func)) in all.iter().enumerate() {
        let Some(unit) = units.iter().position(|u| u.id == loc.file) else {
            continue; // in a header: not patched
        };
        if per_loc[&(loc.file, loc.line, loc.col)] > 1 {
            continue; // one statement with several operations: not patched
        }
        let (scan, text) = (&scans[unit], units[unit].text.as_str());
        let toks = order_tokens(scan, loc);
        // the order of the operation: the only one in its statement (a compare-exchange's
        // first, its success order)
        let Some((span, written, gnu)) = toks.first().cloned() else { continue };
        if written != from || (toks.len() > 1 && !matches!(op, Op::Rmw)) {
            continue;
        }
        let old_row = mapping.row(op, from);
        for to in stronger(op, from) {
            let new_row = mapping.row(op, to);
            let p = compiled_with(&raw, arch, opts, &[(n, to)]);
            let g = aeg::build(&p, &opts.build)?;
            if !same_events(&g) {
                continue;
            }
            let changed: HashMap<(EventId, EventId), PairInfo> = g
                .pairs
                .iter()
                .filter(|(&(x, y), info)| base.aeg.pair(x, y).is_none_or(|b| !same_order(b, info)))
                .map(|(&k, info)| (k, info.clone()))
                .collect();
            if changed.is_empty() {
                continue;
            }
            let light = new_row.before.iter().chain(new_row.after).any(|f| {
                !old_row.before.contains(f) && !old_row.after.contains(f) && arch.fences.iter().any(|r| r.fence == *f && r.light)
            });
            let before = &text[..span.start];
            out.push(Strengthen {
                op_index: n,
                op,
                from,
                to,
                old_text: text[span.clone()].to_string(),
                new_text: spelled(to, gnu).to_string(),
                line: before.matches('\n').count() as u32 + 1,
                col: (span.start - before.rfind('\n').map_or(0, |i| i + 1)) as u32,
                span: span.clone(),
                function: raw.func(func).name.clone(),
                changed,
                cost: row_cost(arch, new_row).saturating_sub(row_cost(arch, old_row)),
                light,
                unit,
            });
        }
    }
    Ok((raw, out))
}

/// Whether two pairs are ordered by the same things (what a candidate can add).
fn same_order(a: &PairInfo, b: &PairInfo) -> bool {
    a.fences == b.fences && a.hw == b.hw && a.deps == b.deps
}

/// `into` with what `more` adds: its barriers, acquire/release instructions, dependencies.
pub fn merge(into: &mut PairInfo, more: &PairInfo) {
    into.fences.extend(more.fences.iter().copied());
    into.hw.acquire |= more.hw.acquire;
    into.hw.release |= more.hw.release;
    into.hw.release_acquire |= more.hw.release_acquire;
    into.deps.addr |= more.deps.addr;
    into.deps.data |= more.deps.data;
    into.deps.ctrl |= more.deps.ctrl;
    into.deps.ctrl_isync |= more.deps.ctrl_isync;
    into.deps.addr_po |= more.deps.addr_po;
    into.deps.chained.join(&more.deps.chained);
    into.deps.chained_addr.join(&more.deps.chained_addr);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stronger_orders_per_operation() {
        use MemOrder::*;
        assert_eq!(stronger(Op::Load, Relaxed), vec![Acquire, SeqCst]);
        assert_eq!(stronger(Op::Store, Release), vec![SeqCst]);
        assert_eq!(stronger(Op::Rmw, Acquire), vec![AcqRel, SeqCst]);
        assert_eq!(stronger(Op::Rmw, Relaxed), vec![Acquire, Release, AcqRel, SeqCst]);
        assert_eq!(stronger(Op::Fence, Release), vec![AcqRel, SeqCst]);
        assert!(stronger(Op::Load, SeqCst).is_empty());
    }

    #[test]
    fn order_identifiers_in_both_spellings() {
        assert_eq!(order_named("memory_order_consume"), Some((MemOrder::Acquire, false)));
        assert_eq!(order_named("__ATOMIC_ACQ_REL"), Some((MemOrder::AcqRel, true)));
        assert_eq!(order_named("memory_order"), None);
        for o in [MemOrder::Relaxed, MemOrder::Acquire, MemOrder::Release, MemOrder::AcqRel, MemOrder::SeqCst] {
            for gnu in [false, true] {
                assert_eq!(order_named(spelled(o, gnu)), Some((o, gnu)));
            }
        }
    }

    #[test]
    fn row_costs_count_what_the_mapping_adds() {
        use crate::arch::by_name;
        let power = by_name("power").unwrap();
        let m = power.c11;
        // relaxed store: st; release: lwsync; st; seq_cst: sync; st
        assert_eq!(row_cost(power, m.row(Op::Store, MemOrder::Relaxed)), 0);
        assert_eq!(row_cost(power, m.row(Op::Store, MemOrder::Release)), 2);
        assert_eq!(row_cost(power, m.row(Op::Store, MemOrder::SeqCst)), 4);
        // acquire load: ld; cmp; bc; isync
        assert_eq!(row_cost(power, m.row(Op::Load, MemOrder::Acquire)), 1);
        let a64 = by_name("aarch64").unwrap();
        assert_eq!(row_cost(a64, a64.c11.row(Op::Store, MemOrder::Release)), 1);
        assert_eq!(row_cost(a64, a64.c11.row(Op::Load, MemOrder::Acquire)), 1);
    }
}
