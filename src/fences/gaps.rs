//! Program points of the normalised IR where a fence can go, and inserting fences there.

use crate::ir::{walk_stmts, Block, Fence, FuncId, Program, Stmt, StmtKind};
use serde::Serialize;

/// A program point: before statement `index` of a block (`index == len`: at its end). The
/// block is a function body, or reached from it by `path`: per step the index of a
/// statement in the enclosing block and which of its blocks (0: `then`/loop body/nested
/// block, 1: `else`/loop latch).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Gap {
    pub func: FuncId,
    pub path: Vec<(usize, u8)>,
    pub index: usize,
}

fn child(s: &Stmt, which: u8) -> Option<&Block> {
    match (&s.kind, which) {
        (StmtKind::If { then_, .. }, 0) => Some(then_),
        (StmtKind::If { else_, .. }, 1) => Some(else_),
        (StmtKind::Loop { body, .. }, 0) => Some(body),
        (StmtKind::Loop { latch, .. }, 1) => Some(latch),
        (StmtKind::Block(b), 0) => Some(b),
        _ => None,
    }
}

fn child_mut(s: &mut Stmt, which: u8) -> Option<&mut Block> {
    match (&mut s.kind, which) {
        (StmtKind::If { then_, .. }, 0) => Some(then_),
        (StmtKind::If { else_, .. }, 1) => Some(else_),
        (StmtKind::Loop { body, .. }, 0) => Some(body),
        (StmtKind::Loop { latch, .. }, 1) => Some(latch),
        (StmtKind::Block(b), 0) => Some(b),
        _ => None,
    }
}

/// The block a gap lies in.
pub fn block_of<'p>(prog: &'p Program, func: FuncId, path: &[(usize, u8)]) -> Option<&'p Block> {
    let mut b = prog.funcs.get(func.0 as usize)?.body.as_ref()?;
    for &(i, w) in path {
        b = child(b.get(i)?, w)?;
    }
    Some(b)
}

fn block_of_mut<'p>(prog: &'p mut Program, func: FuncId, path: &[(usize, u8)]) -> Option<&'p mut Block> {
    let mut b = prog.funcs.get_mut(func.0 as usize)?.body.as_mut()?;
    for &(i, w) in path {
        b = child_mut(b.get_mut(i)?, w)?;
    }
    Some(b)
}

/// The statements around a gap: (before, after).
pub fn neighbours<'p>(prog: &'p Program, g: &Gap) -> (Option<&'p Stmt>, Option<&'p Stmt>) {
    match block_of(prog, g.func, &g.path) {
        Some(b) => (g.index.checked_sub(1).and_then(|i| b.get(i)), b.get(g.index)),
        None => (None, None),
    }
}

/// Every gap of the given functions, in program order.
pub fn all_gaps(prog: &Program, funcs: &[FuncId]) -> Vec<Gap> {
    fn walk(b: &Block, func: FuncId, path: &mut Vec<(usize, u8)>, out: &mut Vec<Gap>) {
        for i in 0..=b.len() {
            out.push(Gap { func, path: path.clone(), index: i });
            if let Some(s) = b.get(i) {
                for w in 0..2u8 {
                    if let Some(c) = child(s, w) {
                        path.push((i, w));
                        walk(c, func, path, out);
                        path.pop();
                    }
                }
            }
        }
    }
    let mut out = vec![];
    for &f in funcs {
        if let Some(body) = &prog.func(f).body {
            walk(body, f, &mut vec![], &mut out);
        }
    }
    out
}

/// Functions whose body holds at least one statement of `stmts` (statement ids).
pub fn funcs_with_stmts(prog: &Program, stmts: &std::collections::HashSet<u32>) -> Vec<FuncId> {
    (0..prog.funcs.len())
        .map(|i| FuncId(i as u32))
        .filter(|&f| {
            let mut hit = false;
            if let Some(b) = &prog.func(f).body {
                walk_stmts(b, &mut |s| hit |= stmts.contains(&s.id));
            }
            hit
        })
        .collect()
}

/// A copy of `prog` with `fence` statements inserted at the gaps (several at one gap are
/// inserted in the order given), statements renumbered. Gaps that do not exist are an error.
pub fn insert(prog: &Program, placements: &[(Gap, Fence)]) -> Result<Program, String> {
    let mut out = prog.clone();
    let mut order: Vec<usize> = (0..placements.len()).collect();
    // Deepest blocks first, then from the end of each block: earlier insertions never move
    // a later one's position.
    order.sort_by(|&a, &b| {
        let (ga, gb) = (&placements[a].0, &placements[b].0);
        gb.path.len().cmp(&ga.path.len()).then(gb.index.cmp(&ga.index)).then(b.cmp(&a))
    });
    for i in order {
        let (g, f) = &placements[i];
        let b = block_of_mut(&mut out, g.func, &g.path).ok_or_else(|| format!("no block at {g:?}"))?;
        if g.index > b.len() {
            return Err(format!("no position {} in block {g:?}", g.index));
        }
        let loc = b.get(g.index).or(g.index.checked_sub(1).and_then(|j| b.get(j))).map(|s| s.loc).unwrap_or_default();
        b.insert(g.index, Stmt::new(StmtKind::Fence(*f), loc));
    }
    crate::ir::number_stmts(&mut out);
    Ok(out)
}
