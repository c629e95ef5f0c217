//! Inlining of small leaf functions before the analysis (`load(&x)`, `store(&y, v)`,
//! Concurrency Kit's `ck_pr_load_int`/`ck_pr_store_int`, a `fence()` helper).
//!
//! Why: the event graph and the rewriter see a called function once for all its call sites.
//! A wrapper's pointer parameter then points to every location any caller passes, and a read
//! the wrapper returns completes at its `return`, before the caller's later accesses that do
//! not depend on it. Both cost the instrumentation behaviours of the architecture (reported
//! as UNKNOWN, or over-ordered). Inlined, each call site has its own copy of the parameters
//! and the read is an ordinary read of the caller.
//!
//! A function is inlined at its direct call sites when it calls nothing, has no labels or
//! jumps, returns only as its last top-level statement, is not `main`, and is small
//! ([`MAX_STATEMENTS`]). Its parameters and locals get fresh copies per call site (locals of
//! the caller); the arguments are assigned to the parameters' copies, converted to their
//! types, and the returned value to the call's destination. Statements keep their source
//! locations, so traces and diagnostics still name the callee's lines. Callers that become
//! leaves are inlined in turn, for [`ROUNDS`] rounds.

use crate::ir::*;
use std::collections::HashMap;

/// Statements (counted recursively) a function may have to be inlined.
const MAX_STATEMENTS: usize = 40;
/// Rounds of inlining: a wrapper of a wrapper is inlined in the second.
const ROUNDS: usize = 3;

/// Inlines small leaf functions at their direct call sites (see the module documentation).
pub fn inline_leaves(prog: &mut Program) {
    for _ in 0..ROUNDS {
        let leaves: Vec<bool> = (0..prog.funcs.len()).map(|f| inlinable(prog, FuncId(f as u32))).collect();
        if !leaves.iter().any(|&l| l) {
            return;
        }
        let mut changed = false;
        for fi in 0..prog.funcs.len() {
            let Some(mut body) = prog.funcs[fi].body.take() else { continue };
            changed |= inline_in(prog, FuncId(fi as u32), &mut body, &leaves);
            prog.funcs[fi].body = Some(body);
        }
        if !changed {
            return;
        }
    }
}

/// Whether `f` may be inlined at a direct call.
fn inlinable(prog: &Program, f: FuncId) -> bool {
    if prog.main == Some(f) {
        return false;
    }
    let func = prog.func(f);
    let Some(body) = &func.body else { return false };
    if func.ty.variadic {
        return false;
    }
    let mut count = 0;
    let mut ok = true;
    walk_stmts(body, &mut |s| {
        // Fences do not count: one inserted by `weakc fences` must not change what is
        // inlined, or the patched source would have other events than the placement's IR.
        count += usize::from(!matches!(s.kind, StmtKind::Fence(_)));
        ok &= !matches!(
            s.kind,
            StmtKind::Call { .. } | StmtKind::Goto(_) | StmtKind::Label(..) | StmtKind::Spawn { .. } | StmtKind::Join { .. }
        );
        // A return anywhere but last would need a jump to the end of the inlined copy.
        if matches!(s.kind, StmtKind::Return(_)) && !body.last().is_some_and(|l| std::ptr::eq(l, s)) {
            ok = false;
        }
    });
    ok && count <= MAX_STATEMENTS
}

/// Inlines the calls of `body` (a block of `caller`) to functions `leaves` marks; whether any was.
fn inline_in(prog: &mut Program, caller: FuncId, body: &mut Block, leaves: &[bool]) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(body.len());
    for mut s in std::mem::take(body) {
        match &mut s.kind {
            StmtKind::If { then_, else_, .. } => {
                changed |= inline_in(prog, caller, then_, leaves);
                changed |= inline_in(prog, caller, else_, leaves);
            }
            StmtKind::Loop { body, latch } => {
                changed |= inline_in(prog, caller, body, leaves);
                changed |= inline_in(prog, caller, latch, leaves);
            }
            StmtKind::Block(b) => changed |= inline_in(prog, caller, b, leaves),
            StmtKind::Call { dest, callee: Callee::Direct(g), args } if *g != caller && leaves[g.0 as usize] && args.len() == prog.func(*g).params.len() => {
                let copy = instantiate(prog, caller, *g, dest.take(), std::mem::take(args), s.loc);
                out.push(Stmt::new(StmtKind::Block(copy), s.loc));
                changed = true;
                continue;
            }
            _ => {}
        }
        out.push(s);
    }
    *body = out;
    changed
}

/// The body of `g` for one call: fresh copies of its parameters and locals, the arguments
/// assigned to the parameters, the returned value to `dest`.
fn instantiate(prog: &mut Program, caller: FuncId, g: FuncId, dest: Option<Expr>, args: Vec<Expr>, loc: crate::source::Loc) -> Block {
    let mut body = prog.func(g).body.clone().expect("inlinable functions have a body");
    let params = prog.func(g).params.clone();
    let gname = prog.func(g).name.clone();
    // Fresh copies of every variable the function owns.
    let mut owned: Vec<VarId> = params.clone();
    walk_stmts(&body, &mut |s| {
        for_each_expr(s, &mut |e| {
            e.visit(&mut |x| {
                if let ExprKind::Var(v) = x.kind {
                    if matches!(prog.var(v).storage, Storage::Local { func } | Storage::Temp { func } if func == g) && !owned.contains(&v) {
                        owned.push(v);
                    }
                }
            })
        })
    });
    let mut map: HashMap<VarId, VarId> = HashMap::new();
    for v in owned {
        let old = prog.var(v).clone();
        let storage = match old.storage {
            Storage::Temp { .. } => Storage::Temp { func: caller },
            _ => Storage::Local { func: caller },
        };
        let n = prog.vars.len();
        let copy = prog.add_var(Var { name: format!("{}__{}{}", old.name, gname, n), storage, ..old });
        map.insert(v, copy);
    }
    let rename = |e: &mut Expr| {
        e.visit_mut_post(&mut |x| {
            if let ExprKind::Var(v) = &mut x.kind {
                if let Some(&c) = map.get(v) {
                    *v = c;
                }
            }
        })
    };
    walk_stmts_mut(&mut body, &mut |s| {
        s.id = 0;
        for_each_expr_mut(s, &mut |e| rename(e));
    });
    let mut out: Block = params
        .iter()
        .zip(args)
        .map(|(p, a)| {
            let ty = prog.var(*p).ty.clone();
            let a = if a.ty == ty { a } else { Expr::new(ExprKind::Cast(Box::new(a)), ty.clone()) };
            Stmt::new(StmtKind::Assign { lhs: Expr::var(map[p], ty), rhs: a }, loc)
        })
        .collect();
    if let Some(last) = body.pop() {
        match last.kind {
            StmtKind::Return(value) => {
                if let (Some(d), Some(v)) = (dest, value) {
                    let v = if v.ty == d.ty { v } else { Expr::new(ExprKind::Cast(Box::new(v)), d.ty.clone()) };
                    body.push(Stmt::new(StmtKind::Assign { lhs: d, rhs: v }, last.loc));
                }
            }
            _ => body.push(last),
        }
    }
    out.extend(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    fn load(src: &str) -> Program {
        let mut map = SourceMap::default();
        crate::frontend::load_str("t.c", src, &Default::default(), &mut map).expect("parses")
    }

    /// The names of the functions `f` calls directly.
    fn calls(p: &Program, f: &str) -> Vec<String> {
        let mut out = vec![];
        walk_stmts(p.func(p.func_by_name(f).unwrap()).body.as_ref().unwrap(), &mut |s| {
            if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                out.push(p.func(*g).name.clone());
            }
        });
        out
    }

    const WRAPPERS: &str = "
        int x, y;
        void ext(void);
        static int ld(int *p) { return *p; }
        static void st(int *p, int v) { *p = v; }
        static int twice(int *p) { int a = ld(p); return a + ld(p); }
        static int early(int *p) { if (*p) return 1; return 0; }
        static void logged(int *p) { ext(); *p = 1; }
        int f(void) { st(&x, 1); int r = twice(&y); r = r + early(&x); logged(&y); return r + ld(&x); }
        int main(void) { return f(); }
    ";

    #[test]
    fn leaves_and_wrappers_of_leaves_are_inlined_the_rest_stays_a_call() {
        let mut p = load(WRAPPERS);
        inline_leaves(&mut p);
        // `twice` becomes a leaf once `ld` is inlined into it (second round); `early` returns
        // early and `logged` calls a function, so they stay calls, and so does `f`.
        let mut f = calls(&p, "f");
        f.sort();
        assert_eq!(f, ["early", "logged"]);
        assert_eq!(calls(&p, "main"), ["f"]);
        assert!(calls(&p, "twice").is_empty());
    }

    #[test]
    fn every_call_site_gets_its_own_parameters() {
        let mut p = load(WRAPPERS);
        inline_leaves(&mut p);
        let f = p.func_by_name("f").unwrap();
        let copies: Vec<&Var> = p.vars.iter().filter(|v| v.name.starts_with("p__ld") && matches!(v.storage, Storage::Local { func } if func == f)).collect();
        // `ld` at the end of `f`, and twice inside the inlined `twice`.
        assert_eq!(copies.len(), 3, "{:?}", copies.iter().map(|v| &v.name).collect::<Vec<_>>());
    }
}
