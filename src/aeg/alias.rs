//! Flow-insensitive, context-insensitive inclusion-based (Andersen-style) points-to analysis.
//!
//! Abstract objects are the scalar *leaves* of memory roots: each global or address-taken
//! local variable, and each `malloc`-like allocation site. Structs are split by field;
//! arrays are one inexact leaf, or one exact leaf per element with `--array-elements` (then a
//! symbolic index touches every element). A dereference of a pointer whose targets are
//! unknown (integer casts, nondeterministic pointers, unknown external functions) may touch
//! every object — the sound default ESOP 2013 §4.2 prescribes.

use super::{ObjId, Object};
use crate::ir::*;
use crate::normalize::var_is_shared;
use crate::source::Loc;
use std::collections::{BTreeSet, HashMap};

#[derive(Copy, Clone, Debug, Default)]
pub struct AliasOptions {
    /// Split arrays (up to [`MAX_SPLIT`] elements) into one object per element.
    pub array_elements: bool,
}

/// Arrays longer than this stay one object even with `--array-elements`.
pub const MAX_SPLIT: u64 = 64;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Root {
    Var(VarId),
    /// Allocation site: the id of the statement calling `malloc`/`calloc`/….
    Heap(u32),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Step {
    Field(usize),
    /// An array element: `Some(i)` for a known index, `None` for any.
    Elem(Option<u64>),
}

/// What a pointer may hold.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Target {
    Mem(Root, Vec<Step>),
    Func(FuncId),
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Holder {
    /// A thread-local variable (never pointed to).
    Local(VarId),
    /// A memory leaf.
    Obj(ObjId),
    /// The return value of a function.
    Ret(FuncId),
}

const ALLOCATORS: &[&str] = &["malloc", "calloc", "realloc", "alloca", "__builtin_alloca", "valloc"];

pub struct Alias {
    pub objects: Vec<Object>,
    leaves: HashMap<Root, Vec<(Vec<Step>, ObjId)>>,
    pts: HashMap<Holder, BTreeSet<Target>>,
    opts: AliasOptions,
    /// Functions whose address is taken: the targets of an unknown function pointer.
    addressed_funcs: BTreeSet<FuncId>,
    heap_locs: HashMap<u32, Loc>,
}

/// The result of resolving one access.
#[derive(Clone, Debug, Default)]
pub struct AccessTargets {
    pub objects: Vec<ObjId>,
    /// The pointer's targets were unknown: every object was assumed.
    pub unknown: bool,
}

impl Alias {
    /// Runs the analysis over the functions in `reachable`.
    pub fn analyze(prog: &Program, reachable: &[FuncId], opts: AliasOptions) -> Alias {
        let mut a = Alias {
            objects: vec![],
            leaves: HashMap::new(),
            pts: HashMap::new(),
            opts,
            addressed_funcs: BTreeSet::new(),
            heap_locs: HashMap::new(),
        };
        // Roots: every shared variable mentioned by reachable code, and every allocation site.
        let mut roots = BTreeSet::new();
        for &f in reachable {
            let Some(body) = &prog.func(f).body else { continue };
            walk_stmts(body, &mut |s| {
                for_each_expr(s, &mut |e| {
                    e.visit(&mut |x| match &x.kind {
                        ExprKind::Var(v) if var_is_shared(prog, *v) => {
                            roots.insert(Root::Var(*v));
                        }
                        ExprKind::FuncAddr(g) => {
                            a.addressed_funcs.insert(*g);
                        }
                        _ => {}
                    })
                });
                if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                    if ALLOCATORS.contains(&prog.func(*g).name.as_str()) {
                        roots.insert(Root::Heap(s.id));
                        a.heap_locs.insert(s.id, s.loc);
                    }
                }
            });
        }
        for g in &prog.globals {
            if let Some(init) = &prog.var(*g).init {
                if init_mentions_shared(init) {
                    roots.insert(Root::Var(*g));
                }
            }
        }
        for r in roots {
            a.make_leaves(prog, r);
        }
        a.solve(prog, reachable);
        a
    }

    fn make_leaves(&mut self, prog: &Program, root: Root) {
        if self.leaves.contains_key(&root) {
            return;
        }
        let (base, ty) = match &root {
            Root::Var(v) => (prog.var(*v).name.clone(), Some(prog.var(*v).ty.clone())),
            Root::Heap(id) => {
                let line = self.heap_locs.get(id).map(|l| l.line).unwrap_or(0);
                (format!("heap@{line}"), None)
            }
        };
        let mut out = vec![];
        match ty {
            Some(ty) => self.leaf_paths(prog, &ty, vec![], true, &mut out),
            None => out.push((vec![], false)),
        }
        let var = match root {
            Root::Var(v) if prog.var(v).is_global() => Some(v),
            _ => None,
        };
        let mut ids = vec![];
        for (path, exact) in out {
            let name = format!("{base}{}", path_name(prog, &root, &path));
            self.objects.push(Object { name, exact, var });
            ids.push((path, ObjId(self.objects.len() as u32 - 1)));
        }
        self.leaves.insert(root, ids);
    }

    fn leaf_paths(&self, prog: &Program, ty: &Type, path: Vec<Step>, exact: bool, out: &mut Vec<(Vec<Step>, bool)>) {
        match ty {
            Type::Struct(s) if prog.strukt(*s).complete && !prog.strukt(*s).fields.is_empty() => {
                let def = prog.strukt(*s);
                if def.is_union {
                    // Union members overlap: one object for the whole union.
                    out.push((path, exact));
                    return;
                }
                for (i, f) in def.fields.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Step::Field(i));
                    self.leaf_paths(prog, &f.ty, p, exact, out);
                }
            }
            Type::Array(elem, Some(n)) if self.opts.array_elements && *n <= MAX_SPLIT => {
                for i in 0..*n {
                    let mut p = path.clone();
                    p.push(Step::Elem(Some(i)));
                    self.leaf_paths(prog, elem, p, exact, out);
                }
            }
            Type::Array(elem, _) => {
                let mut p = path;
                p.push(Step::Elem(None));
                self.leaf_paths(prog, elem, p, false, out);
            }
            _ => out.push((path, exact)),
        }
    }

    /// The objects an lvalue expression in function `func` may designate.
    pub fn access(&self, prog: &Program, lv: &Expr) -> AccessTargets {
        let mut out = AccessTargets::default();
        let mut objs = BTreeSet::new();
        for t in self.locations(prog, lv) {
            match t {
                Target::Mem(root, prefix) => self.matching_leaves(&root, &prefix, &mut objs),
                Target::Unknown => {
                    out.unknown = true;
                    objs.extend((0..self.objects.len() as u32).map(ObjId));
                }
                Target::Func(_) => {}
            }
        }
        out.objects = objs.into_iter().collect();
        out
    }

    /// Functions a function-pointer expression may denote (spawn sites, indirect calls).
    pub fn call_targets(&self, prog: &Program, e: &Expr) -> (Vec<FuncId>, bool) {
        let mut out = BTreeSet::new();
        let mut unknown = false;
        for t in self.eval(prog, e) {
            match t {
                Target::Func(f) => {
                    out.insert(f);
                }
                Target::Unknown => unknown = true,
                Target::Mem(..) => {}
            }
        }
        if unknown {
            out.extend(self.addressed_funcs.iter().copied());
        }
        (out.into_iter().collect(), unknown)
    }

    fn matching_leaves(&self, root: &Root, prefix: &[Step], out: &mut BTreeSet<ObjId>) {
        let Some(leaves) = self.leaves.get(root) else { return };
        for (path, id) in leaves {
            if path.iter().zip(prefix).all(|(a, b)| steps_overlap(*a, *b)) {
                out.insert(*id);
            }
        }
    }

    /// Memory locations an lvalue designates.
    fn locations(&self, prog: &Program, lv: &Expr) -> BTreeSet<Target> {
        let mut out = BTreeSet::new();
        match &lv.kind {
            ExprKind::Var(v) => {
                out.insert(Target::Mem(Root::Var(*v), vec![]));
            }
            ExprKind::Deref(p) => {
                for t in self.eval(prog, p) {
                    match t {
                        Target::Mem(root, prefix) => {
                            // A pointer whose pointee type differs from the location's
                            // (casts between struct types): the whole root, field paths
                            // would be meaningless.
                            let typed_ok = self.type_at(prog, &root, &prefix).is_none_or(|t| {
                                t == lv.ty || !matches!(t, Type::Struct(_)) && !matches!(lv.ty, Type::Struct(_))
                            });
                            if typed_ok {
                                out.insert(Target::Mem(root, prefix));
                            } else {
                                out.insert(Target::Mem(root, vec![]));
                            }
                        }
                        Target::Unknown => {
                            out.insert(Target::Unknown);
                        }
                        Target::Func(_) => {}
                    }
                }
            }
            ExprKind::Member(base, f) => {
                // Adjacent bit-fields are one memory location: their run's first field.
                let f = match &base.ty {
                    Type::Struct(sid) => prog.strukt(*sid).bitfield(*f).map_or(*f, |b| b.run),
                    _ => *f,
                };
                for t in self.locations(prog, base) {
                    out.insert(match t {
                        Target::Mem(r, mut p) => {
                            p.push(Step::Field(f));
                            Target::Mem(r, p)
                        }
                        t => t,
                    });
                }
            }
            ExprKind::Index(base, i) => {
                let idx = match (&i.kind, self.opts.array_elements) {
                    (ExprKind::Const(c), true) if *c >= 0 => Some(*c as u64),
                    _ => None,
                };
                for t in self.locations(prog, base) {
                    out.insert(match t {
                        Target::Mem(r, mut p) => {
                            p.push(Step::Elem(idx));
                            Target::Mem(r, p)
                        }
                        t => t,
                    });
                }
            }
            _ => {
                out.insert(Target::Unknown);
            }
        }
        out
    }

    fn type_at(&self, prog: &Program, root: &Root, path: &[Step]) -> Option<Type> {
        let Root::Var(v) = root else { return None };
        let mut ty = prog.var(*v).ty.clone();
        for s in path {
            ty = match (s, &ty) {
                (Step::Field(i), Type::Struct(sid)) => prog.strukt(*sid).fields.get(*i)?.ty.clone(),
                (Step::Elem(_), Type::Array(e, _)) => (**e).clone(),
                _ => return None,
            };
        }
        Some(ty)
    }

    fn holder_pts(&self, h: &Holder) -> BTreeSet<Target> {
        self.pts.get(h).cloned().unwrap_or_default()
    }

    /// Pointer values an expression may evaluate to.
    fn eval(&self, prog: &Program, e: &Expr) -> BTreeSet<Target> {
        let mut out = BTreeSet::new();
        match &e.kind {
            ExprKind::Const(0) => {}
            ExprKind::Const(_) => {
                if e.ty.is_pointer() {
                    out.insert(Target::Unknown);
                }
            }
            ExprKind::FuncAddr(f) => {
                out.insert(Target::Func(*f));
            }
            ExprKind::Var(v) if !var_is_shared(prog, *v) => {
                if matches!(prog.var(*v).ty, Type::Array(..)) {
                    // A local array is never a root (not address-taken): nothing to point to.
                } else {
                    out = self.holder_pts(&Holder::Local(*v));
                }
            }
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Member(..) | ExprKind::Index(..) => {
                let locs = self.locations(prog, e);
                if matches!(e.ty, Type::Array(..)) {
                    // Array-to-pointer decay: the value is the array's address.
                    for t in locs {
                        out.insert(match t {
                            Target::Mem(r, mut p) => {
                                p.push(Step::Elem(None));
                                Target::Mem(r, p)
                            }
                            t => t,
                        });
                    }
                } else {
                    let mut objs = BTreeSet::new();
                    for t in locs {
                        match t {
                            Target::Mem(root, prefix) => self.matching_leaves(&root, &prefix, &mut objs),
                            Target::Unknown => {
                                out.insert(Target::Unknown);
                            }
                            Target::Func(_) => {}
                        }
                    }
                    for o in objs {
                        out.extend(self.holder_pts(&Holder::Obj(o)));
                    }
                }
            }
            ExprKind::AddrOf(lv) => out = self.locations(prog, lv),
            ExprKind::Binary(op, a, b) => {
                if matches!(op, BinOp::Add | BinOp::Sub) && a.ty.is_pointer() {
                    out = self.eval(prog, a).into_iter().map(shift).collect();
                } else if matches!(op, BinOp::Add) && b.ty.is_pointer() {
                    out = self.eval(prog, b).into_iter().map(shift).collect();
                } else if e.ty.is_pointer() || matches!(op, BinOp::BitAnd | BinOp::BitOr) {
                    out = self.eval(prog, a);
                    out.extend(self.eval(prog, b));
                }
            }
            ExprKind::Cond(_, a, b) => {
                out = self.eval(prog, a);
                out.extend(self.eval(prog, b));
            }
            ExprKind::Cast(a) => {
                out = self.eval(prog, a);
                if out.is_empty() && e.ty.is_pointer() && !a.ty.is_pointer() && !matches!(a.kind, ExprKind::Const(_)) {
                    // An integer turned into a pointer: could be anything.
                    out.insert(Target::Unknown);
                }
            }
            ExprKind::Nondet => {
                if e.ty.is_pointer() {
                    out.insert(Target::Unknown);
                }
            }
            ExprKind::Unary(..) | ExprKind::FloatConst(_) | ExprKind::Str(_) => {}
        }
        out
    }

    fn add(&mut self, h: Holder, vals: &BTreeSet<Target>) -> bool {
        if vals.is_empty() {
            return false;
        }
        let set = self.pts.entry(h).or_default();
        let before = set.len();
        set.extend(vals.iter().cloned());
        set.len() != before
    }

    /// Adds `vals` to whatever `lv` designates.
    fn assign(&mut self, prog: &Program, lv: &Expr, vals: &BTreeSet<Target>) -> bool {
        if vals.is_empty() {
            return false;
        }
        if let ExprKind::Var(v) = lv.kind {
            if !var_is_shared(prog, v) {
                return self.add(Holder::Local(v), vals);
            }
        }
        let objs = self.access(prog, lv).objects;
        let mut changed = false;
        for o in objs {
            changed |= self.add(Holder::Obj(o), vals);
        }
        changed
    }

    /// Values of an rvalue, reading all leaves of an aggregate (struct copies).
    fn eval_rvalue(&self, prog: &Program, e: &Expr) -> BTreeSet<Target> {
        if matches!(e.ty, Type::Struct(_)) && crate::normalize::is_lvalue(e) {
            let mut out = BTreeSet::new();
            if let ExprKind::Var(v) = e.kind {
                if !var_is_shared(prog, v) {
                    return self.holder_pts(&Holder::Local(v));
                }
            }
            for o in self.access(prog, e).objects {
                out.extend(self.holder_pts(&Holder::Obj(o)));
            }
            return out;
        }
        self.eval(prog, e)
    }

    fn solve(&mut self, prog: &Program, reachable: &[FuncId]) {
        // Global initialisers.
        for g in &prog.globals {
            if let Some(init) = &prog.var(*g).init {
                let mut vals = BTreeSet::new();
                collect_init(self, prog, init, &mut vals);
                let lv = Expr::var(*g, prog.var(*g).ty.clone());
                self.assign(prog, &lv, &vals);
            }
        }
        loop {
            let mut changed = false;
            for &f in reachable {
                let Some(body) = &prog.func(f).body else { continue };
                let mut stmts = vec![];
                walk_stmts(body, &mut |s| stmts.push(s));
                for s in stmts {
                    changed |= self.stmt(prog, f, s);
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn bind_call(&mut self, prog: &Program, g: FuncId, dest: Option<&Expr>, args: &[Expr], stmt: &Stmt) -> bool {
        let mut changed = false;
        let func = prog.func(g);
        if func.body.is_some() {
            for (p, a) in func.params.iter().zip(args) {
                let vals = self.eval_rvalue(prog, a);
                changed |= self.add(Holder::Local(*p), &vals);
            }
            if let Some(d) = dest {
                let vals = self.holder_pts(&Holder::Ret(g));
                changed |= self.assign(prog, d, &vals);
            }
        } else if let Some(d) = dest {
            let mut vals = BTreeSet::new();
            if ALLOCATORS.contains(&func.name.as_str()) {
                vals.insert(Target::Mem(Root::Heap(stmt.id), vec![]));
            } else if d.ty.is_pointer() {
                vals.insert(Target::Unknown);
            }
            changed |= self.assign(prog, d, &vals);
        }
        changed
    }

    fn stmt(&mut self, prog: &Program, f: FuncId, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                let vals = self.eval_rvalue(prog, rhs);
                self.assign(prog, lhs, &vals)
            }
            StmtKind::Call { dest, callee, args } => match callee {
                Callee::Direct(g) => self.bind_call(prog, *g, dest.as_ref(), args, s),
                Callee::Indirect(e) => {
                    let (targets, _) = self.call_targets(prog, e);
                    let mut changed = false;
                    for g in targets {
                        changed |= self.bind_call(prog, g, dest.as_ref(), args, s);
                    }
                    changed
                }
            },
            StmtKind::Return(Some(e)) => {
                let vals = self.eval_rvalue(prog, e);
                self.add(Holder::Ret(f), &vals)
            }
            StmtKind::Spawn { func, arg, .. } => {
                let (targets, _) = self.call_targets(prog, func);
                let vals = self.eval(prog, arg);
                let mut changed = false;
                for g in targets {
                    if let Some(p) = prog.func(g).params.first() {
                        changed |= self.add(Holder::Local(*p), &vals);
                    }
                }
                changed
            }
            StmtKind::Rmw(r) => {
                let mut changed = false;
                let cell = Expr::new(ExprKind::Deref(Box::new(r.ptr.clone())), r.val.ty.clone());
                let new_vals = self.eval(prog, &r.val);
                changed |= self.assign(prog, &cell, &new_vals);
                if let Some(d) = &r.dest {
                    let old = self.eval(prog, &cell);
                    changed |= self.assign(prog, d, &old);
                }
                changed
            }
            _ => false,
        }
    }
}

fn steps_overlap(a: Step, b: Step) -> bool {
    match (a, b) {
        (Step::Field(x), Step::Field(y)) => x == y,
        (Step::Elem(Some(x)), Step::Elem(Some(y))) => x == y,
        (Step::Elem(_), Step::Elem(_)) => true,
        // Mismatched shapes (casts): assume overlap.
        _ => true,
    }
}

/// Pointer arithmetic moves within an array: the element becomes unknown.
fn shift(t: Target) -> Target {
    match t {
        Target::Mem(r, mut p) => {
            if let Some(Step::Elem(_)) = p.last() {
                p.pop();
                p.push(Step::Elem(None));
            }
            Target::Mem(r, p)
        }
        t => t,
    }
}

fn path_name(prog: &Program, root: &Root, path: &[Step]) -> String {
    let mut ty = match root {
        Root::Var(v) => Some(prog.var(*v).ty.clone()),
        Root::Heap(_) => None,
    };
    let mut s = String::new();
    for step in path {
        match step {
            Step::Field(i) => {
                let name = match &ty {
                    Some(Type::Struct(sid)) => prog.strukt(*sid).fields.get(*i).map(|f| f.name.clone()),
                    _ => None,
                }
                .unwrap_or_else(|| format!("f{i}"));
                ty = match &ty {
                    Some(Type::Struct(sid)) => prog.strukt(*sid).fields.get(*i).map(|f| f.ty.clone()),
                    _ => None,
                };
                s.push('.');
                s.push_str(&name);
            }
            Step::Elem(i) => {
                ty = ty.and_then(|t| t.pointee().cloned());
                match i {
                    Some(i) => s.push_str(&format!("[{i}]")),
                    None => s.push_str("[]"),
                }
            }
        }
    }
    s
}

fn init_mentions_shared(init: &Init) -> bool {
    match init {
        Init::Expr(e) => {
            let mut found = false;
            e.visit(&mut |x| found |= matches!(x.kind, ExprKind::AddrOf(_) | ExprKind::Var(_)));
            found
        }
        Init::List(l) => l.iter().any(init_mentions_shared),
    }
}

fn collect_init(a: &mut Alias, prog: &Program, init: &Init, out: &mut BTreeSet<Target>) {
    match init {
        Init::Expr(e) => out.extend(a.eval(prog, e)),
        Init::List(l) => {
            for i in l {
                collect_init(a, prog, i, out);
            }
        }
    }
}

/// The variable or allocation site (statement id of the `malloc`-like call) an abstract
/// object belongs to: lets a client with its own memory model (the bounded model checker)
/// map the analysis' objects back to its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjRoot {
    Var(VarId),
    Heap(u32),
}

impl Alias {
    /// The root of every abstract object.
    pub fn roots(&self) -> HashMap<ObjId, ObjRoot> {
        let mut out = HashMap::new();
        for (root, leaves) in &self.leaves {
            let r = match root {
                Root::Var(v) => ObjRoot::Var(*v),
                Root::Heap(s) => ObjRoot::Heap(*s),
            };
            for (_, id) in leaves {
                out.insert(*id, r);
            }
        }
        out
    }
}

/// Calls whose effects the points-to analysis and the checker agree on. (Not the
/// thread-specific-data calls: a value set there reaches a destructor's parameter, a flow the
/// analysis does not see; nor `scanf` and its kin, which write through their arguments.)
pub const KNOWN_EXTERNALS: &[&str] = &[
    "__weakc_commit", "__weakc_commit_take", "malloc", "calloc", "alloca", "__builtin_alloca", "valloc", "free", "__builtin_free", "pthread_mutex_lock",
    "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_mutex_init", "pthread_mutex_destroy", "pthread_cond_wait",
    "pthread_cond_timedwait", "pthread_cond_signal", "pthread_cond_broadcast", "pthread_cond_init", "pthread_cond_destroy",
    "pthread_spin_lock", "pthread_spin_unlock", "pthread_spin_trylock", "pthread_spin_init", "pthread_spin_destroy",
    "pthread_attr_init", "pthread_attr_destroy", "pthread_mutexattr_init", "pthread_mutexattr_destroy",
    "pthread_mutexattr_settype", "pthread_self", "printf", "puts", "putchar", "fprintf", "fputs", "fflush", "perror",
    "sched_yield", "sleep", "usleep", "nanosleep", "srand", "rand", "random", "time", "memset", "__builtin_memset", "strlen",
    "pthread_yield", "thrd_yield", "__VERIFIER_loop_bound", "__VERIFIER_loop_begin", "__VERIFIER_spin_start", "__VERIFIER_spin_end",
];

/// Bodyless functions known not to keep or publish a pointer they are given.
fn keeps_no_pointer(name: &str) -> bool {
    KNOWN_EXTERNALS.contains(&name)
        || ["__VERIFIER_", "__CPROVER_"].iter().any(|p| name.starts_with(p))
        || ["pthread_join", "assert", "__assert_fail", "__assert", "abort", "exit"].contains(&name)
}

impl Alias {
    /// Objects of local variables no other thread can reach (thread-escape analysis): the
    /// address of the variable never reaches a global, the heap, a thread's argument or
    /// result, a function without a body that may keep it, or an integer (where the
    /// points-to sets stop following it). Every instance of such a local belongs to one
    /// thread, so two accesses to it never race, whichever threads run the function.
    pub fn thread_local_objects(&self, prog: &Program, reachable: &[FuncId]) -> BTreeSet<ObjId> {
        let mut escaping: BTreeSet<Root> = self.leaves.keys().filter(|r| matches!(r, Root::Heap(_)) || matches!(r, Root::Var(v) if prog.var(*v).is_global())).cloned().collect();
        let mut seeds: BTreeSet<Target> = BTreeSet::new();
        for &f in reachable {
            let Some(body) = &prog.func(f).body else { continue };
            walk_stmts(body, &mut |s| {
                match &s.kind {
                    StmtKind::Spawn { func, arg, .. } => {
                        seeds.extend(self.eval(prog, arg));
                        for g in self.call_targets(prog, func).0 {
                            seeds.extend(self.holder_pts(&Holder::Ret(g)));
                        }
                    }
                    StmtKind::Call { callee, args, .. } => {
                        let bodyless = match callee {
                            Callee::Direct(g) => prog.func(*g).body.is_none() && !keeps_no_pointer(&prog.func(*g).name),
                            Callee::Indirect(e) => {
                                let (targets, unknown) = self.call_targets(prog, e);
                                unknown || targets.iter().any(|g| prog.func(*g).body.is_none())
                            }
                        };
                        if bodyless {
                            for a in args {
                                seeds.extend(self.eval_rvalue(prog, a));
                            }
                        }
                    }
                    _ => {}
                }
                for_each_expr(s, &mut |e| {
                    e.visit(&mut |x| {
                        if let ExprKind::Cast(a) = &x.kind {
                            if a.ty.is_pointer() && !x.ty.is_pointer() {
                                seeds.extend(self.eval(prog, a));
                            }
                        }
                    })
                });
            });
        }
        let mut work: Vec<Root> = escaping.iter().cloned().collect();
        for t in seeds {
            if let Target::Mem(r, _) = t {
                if escaping.insert(r.clone()) {
                    work.push(r);
                }
            }
        }
        while let Some(r) = work.pop() {
            for (_, o) in self.leaves.get(&r).into_iter().flatten() {
                for t in self.holder_pts(&Holder::Obj(*o)) {
                    if let Target::Mem(r2, _) = t {
                        if escaping.insert(r2.clone()) {
                            work.push(r2);
                        }
                    }
                }
            }
        }
        self.leaves
            .iter()
            .filter(|(r, _)| !escaping.contains(r))
            .flat_map(|(_, ls)| ls.iter().map(|(_, o)| *o))
            .collect()
    }
}
