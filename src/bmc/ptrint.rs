//! Arithmetic on the integers of pointers, which the engine's memory does not follow.
//! Pointers count cells (see [`super::layout`]) and `(uintptr_t)p` keeps those bits, so a
//! pointer stored in an integer comes back unchanged and two of them compare as the
//! machine's would (within an object, cells and bytes are in the same order). Arithmetic on
//! such an integer is another matter: `(uintptr_t)&a[1] + sizeof(int)` is `&a[5]` in cells,
//! `(uintptr_t)&a[3] - (uintptr_t)&a[0]` is 3, `((uintptr_t)&s.f & 7) == 0` asks about a
//! cell index. Those values are wrong wherever the pointer is inside an object whose cells
//! are not bytes, and a verdict through them would be silently wrong.
//!
//! This pass finds the casts of pointers to integers whose value may reach arithmetic — in
//! the same expression, or through integer variables, struct fields, parameters and return
//! values, array elements, and memory reached through pointers (`*p`, `p[i]`, atomic loads,
//! stores and read-modify-writes: one node for all of it) — flow-insensitive: any
//! assignment anywhere counts — so that the engine makes them
//! approximation sites: exact at the start of an object or in one made of bytes, distrusted
//! elsewhere. Equality and comparisons between two such integers are not arithmetic.

use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// Where an integer holding a pointer's bits may live.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Node {
    Cast(*const Expr),
    Var(VarId),
    Field(StructId, usize),
    Ret(FuncId),
    /// Any integer reached through a pointer (`*p`, `p[i]`, an atomic operation's object).
    Mem,
}

/// The casts of pointers to integers whose value may reach arithmetic (by address: the
/// program is not changed while the engine runs on it).
pub fn arithmetic_casts(prog: &Program) -> HashSet<*const Expr> {
    let mut g = Graph::default();
    for (i, f) in prog.funcs.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let fid = FuncId(i as u32);
        walk_stmts(body, &mut |s| {
            for_each_expr(s, &mut |e| {
                g.uses(e);
                g.escapes(e);
            });
            match &s.kind {
                StmtKind::Assign { lhs, rhs } => g.flow(rhs, lhs),
                StmtKind::Call { dest, callee: Callee::Direct(c), args } => {
                    let callee = prog.func(*c);
                    if callee.body.is_some() {
                        for (a, &p) in args.iter().zip(&callee.params) {
                            let src = g.sources(a);
                            g.edges_to(src, Node::Var(p));
                        }
                    }
                    if let Some(d) = dest {
                        if let Some(n) = target(d) {
                            g.edges.entry(Node::Ret(*c)).or_default().push(n);
                        }
                    }
                }
                StmtKind::Return(Some(e)) => {
                    let src = g.sources(e);
                    g.edges_to(src, Node::Ret(fid));
                }
                StmtKind::Rmw(r) => g.rmw(r),
                _ => {}
            }
        });
    }
    // Memory through a pointer may be any variable whose address is taken.
    for v in std::mem::take(&mut g.escaped) {
        g.edges_to(vec![Node::Mem], Node::Var(v));
        g.edges_to(vec![Node::Var(v)], Node::Mem);
    }
    // What reaches a use: backwards from the uses along the flow edges.
    let mut back: HashMap<Node, Vec<Node>> = HashMap::new();
    for (from, tos) in &g.edges {
        for to in tos {
            back.entry(*to).or_default().push(*from);
        }
    }
    let mut used: HashSet<Node> = HashSet::new();
    let mut work: Vec<Node> = g.used;
    while let Some(n) = work.pop() {
        if used.insert(n) {
            work.extend(back.get(&n).into_iter().flatten().copied());
        }
    }
    used.into_iter().filter_map(|n| if let Node::Cast(e) = n { Some(e) } else { None }).collect()
}

#[derive(Default)]
struct Graph {
    /// Flow of integer values: from a cast or a variable into the variables assigned them.
    edges: HashMap<Node, Vec<Node>>,
    /// Nodes whose value is an operand of arithmetic.
    used: Vec<Node>,
    /// Variables a pointer may point into: their address is taken, or they are arrays.
    escaped: HashSet<VarId>,
}

/// The integer variable or field an assignment writes, an element of an array standing
/// for the whole array, [`Node::Mem`] for memory through a pointer.
fn target(lhs: &Expr) -> Option<Node> {
    fn place(e: &Expr) -> Option<Node> {
        match &e.kind {
            ExprKind::Var(v) => Some(Node::Var(*v)),
            ExprKind::Member(inner, idx) => match &inner.ty {
                Type::Struct(s) => Some(Node::Field(*s, *idx)),
                _ => None,
            },
            ExprKind::Index(base, _) if matches!(base.ty, Type::Array(..)) => place(base),
            ExprKind::Deref(_) => Some(Node::Mem),
            _ => None,
        }
    }
    if !lhs.ty.is_integral() {
        return None;
    }
    place(lhs)
}

fn is_arith(op: BinOp) -> bool {
    use BinOp::*;
    matches!(op, Add | Sub | Mul | Div | Rem | Shl | Shr | BitAnd | BitOr | BitXor)
}

impl Graph {
    /// The nodes whose integer value `e` carries unchanged or through arithmetic.
    fn sources(&self, e: &Expr) -> Vec<Node> {
        if !e.ty.is_integral() {
            return vec![];
        }
        match &e.kind {
            ExprKind::Cast(inner) if matches!(inner.ty, Type::Ptr(_) | Type::Array(..) | Type::Func(_)) => {
                vec![Node::Cast(e as *const Expr)]
            }
            ExprKind::Cast(inner) | ExprKind::Unary(_, inner) => self.sources(inner),
            ExprKind::Var(_) | ExprKind::Member(..) | ExprKind::Index(..) | ExprKind::Deref(_) => target(e).into_iter().collect(),
            ExprKind::Binary(op, a, b) if is_arith(*op) => [self.sources(a), self.sources(b)].concat(),
            ExprKind::Cond(_, a, b) => [self.sources(a), self.sources(b)].concat(),
            _ => vec![],
        }
    }

    fn edges_to(&mut self, from: Vec<Node>, to: Node) {
        for f in from {
            self.edges.entry(f).or_default().push(to);
        }
    }

    fn flow(&mut self, rhs: &Expr, lhs: &Expr) {
        if let Some(t) = target(lhs) {
            let src = self.sources(rhs);
            self.edges_to(src, t);
        }
    }

    /// Records the variables whose address `e` takes (and arrays, which decay to pointers).
    fn escapes(&mut self, e: &Expr) {
        e.visit(&mut |x| match &x.kind {
            ExprKind::Var(v) if matches!(x.ty, Type::Array(..)) => {
                self.escaped.insert(*v);
            }
            ExprKind::AddrOf(inner) => {
                let mut root = &**inner;
                while let ExprKind::Index(b, _) | ExprKind::Member(b, _) = &root.kind {
                    root = b;
                }
                if let ExprKind::Var(v) = root.kind {
                    self.escaped.insert(v);
                }
            }
            _ => {}
        });
    }

    /// An atomic operation on `*ptr`: its operand flows into the object, the object into its
    /// result (and, for compare-exchange, into the expected value it updates); a fetch-op
    /// does arithmetic on both.
    fn rmw(&mut self, r: &Rmw) {
        use RmwOp::*;
        let pointee = |p: &Expr| {
            let ty = p.ty.pointee()?;
            if !ty.is_integral() {
                return None;
            }
            match &p.kind {
                ExprKind::AddrOf(inner) => target(inner),
                _ => Some(Node::Mem),
            }
        };
        let Some(obj) = pointee(&r.ptr) else { return };
        let val = self.sources(&r.val);
        if !matches!(r.op, Load) {
            self.edges_to(val.clone(), obj);
        }
        if let Some(d) = r.dest.as_ref().and_then(target) {
            self.edges_to(vec![obj], d);
        }
        if let (CompareExchange, Some(e)) = (r.op, r.expected.as_ref()) {
            if let Some(x) = pointee(e) {
                self.edges_to(vec![obj], x);
            }
        }
        if !matches!(r.op, Exchange | CasVal | CasBool | CompareExchange | Load | Store) {
            self.used.push(obj);
            self.used.extend(val);
        }
    }

    /// Records the arithmetic in `e` (and its sub-expressions) on pointer integers: every
    /// operand of an arithmetic operator, and an ordering comparison of such an integer
    /// with one that is not (two of them compare as the machine's would).
    fn uses(&mut self, e: &Expr) {
        e.visit(&mut |x| match &x.kind {
            ExprKind::Binary(op, a, b) if is_arith(*op) && x.ty.is_integral() => {
                let s = [self.sources(a), self.sources(b)].concat();
                self.used.extend(s);
            }
            ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, a, b) => {
                let (sa, sb) = (self.sources(a), self.sources(b));
                if sa.is_empty() != sb.is_empty() {
                    self.used.extend(sa.into_iter().chain(sb));
                }
            }
            ExprKind::Unary(UnOp::Neg | UnOp::BitNot, a) => {
                let s = self.sources(a);
                self.used.extend(s);
            }
            _ => {}
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    fn flagged(src: &str) -> usize {
        let p = crate::frontend::load_str("t.c", src, &Default::default(), &mut SourceMap::default()).expect("parses");
        arithmetic_casts(&p).len()
    }

    #[test]
    fn casts_reaching_arithmetic_through_variables_fields_and_calls() {
        let h = "typedef unsigned long uintptr_t;\nint a[4]; struct s { uintptr_t u; } g;\n";
        // in the expression itself, through a local, through a field, through a call
        assert_eq!(flagged(&format!("{h}int main(void) {{ return *(int *)((uintptr_t)&a[1] + 4); }}")), 1);
        assert_eq!(flagged(&format!("{h}int main(void) {{ uintptr_t u = (uintptr_t)&a[1]; uintptr_t v = u; return (v & 3) == 0; }}")), 1);
        assert_eq!(flagged(&format!("{h}int main(void) {{ g.u = (uintptr_t)&a[2]; return g.u - 8 > 0; }}")), 1);
        assert_eq!(flagged(&format!("{h}uintptr_t id(uintptr_t x) {{ return x; }} int main(void) {{ return id((uintptr_t)&a[2]) % 8; }}")), 1);
        assert_eq!(flagged(&format!("{h}uintptr_t slot[2]; int main(void) {{ slot[1] = (uintptr_t)&a[2]; return slot[0] >> 3; }}")), 1);
        // through memory reached by a pointer, and through atomic operations
        assert_eq!(flagged(&format!("{h}uintptr_t *box; int main(void) {{ *box = (uintptr_t)&a[1]; uintptr_t *b2 = box; return b2[0] + 4 > 0; }}")), 1);
        assert_eq!(flagged(&format!("{h}uintptr_t cell; int main(void) {{ __atomic_store_n(&cell, (uintptr_t)&a[1], 5); return __atomic_load_n(&cell, 5) & 7; }}")), 1);
        assert_eq!(flagged(&format!("{h}uintptr_t cell; int main(void) {{ cell = (uintptr_t)&a[1]; __atomic_fetch_add(&cell, 4, 5); return 0; }}")), 1);
        // memory through a pointer is also the variables whose address is taken
        assert_eq!(flagged(&format!("{h}uintptr_t cell; int main(void) {{ uintptr_t *t = &cell; *t = (uintptr_t)&a[1]; return cell + 1; }}")), 1);
        // a round trip, equality, ordering two pointer integers: no arithmetic
        assert_eq!(flagged(&format!("{h}int main(void) {{ uintptr_t u = (uintptr_t)&a[1]; int *p = (int *)u; return u == (uintptr_t)&a[2] || u < (uintptr_t)&a[3] || *p; }}")), 0);
    }
}
