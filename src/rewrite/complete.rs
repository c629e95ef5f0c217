//! Completing delayed reads: READ FROM SET, rule f(r(w, r)), and the statements that waited
//! for the values ([`Deferred`]), emitted as straight-line code.
//!
//! A deferred statement may need other pending reads completed before it runs (it uses a
//! value derived from one of them, redefines what they use, reads what their deferred stores
//! write, writes what they access: exactly what [`Rewriter::stmt_inner`] completes before a
//! statement). The completion of a read is therefore a *cascade*: the read, the reads its
//! flagged statements need, the reads *their* statements need, and so on. Emitting that by
//! inlining the completion of every needed read into each statement that needs it, as weakc
//! once did, repeats each completion once per path through the need graph: the emitted
//! program grew exponentially with the number of pending reads whose statements share a
//! variable (`r = r + v_k` chains every delayed read to every other one).
//!
//! A cascade is emitted flat instead, each read and each deferred statement once:
//! 1. *marking*: which pending reads complete (`$go`): the triggers, then, youngest first,
//!    the reads that the flagged statements of a completing read need;
//! 2. *reads*: each marked read takes its value;
//! 3. *statements*: the flagged statements of the marked reads, oldest read first (each
//!    read's in program order), each read followed by the checks of its guesses.
//!
//! **Order.** The deferred statements of a read are the statements after its site, up to the
//! next delayed site of the block (`make_deferred_stores`), so the flagged statements of two
//! pending reads were flagged in the order the reads were delayed: the older read's first.
//! That is the order they are performed in (it is program order), and a statement only needs
//! what is *older* than it: a read delayed after a statement was flagged has nothing that
//! statement should see (its value, its statements and their stores are after it in program
//! order; had the later read's site itself conflicted with the statement, redefining what it
//! uses or reading what it stores, the checks there would have completed the statement's
//! read first). So a
//! flagged statement's need of a *younger* pending read that has deferred statements is not
//! followed: that read stays pending, and its statements run after this one when it
//! completes. (The nested form completed it, performing its statements *before* the
//! statement that needed it: `r1 = r` of the younger read then missed `r = r + a` of the
//! older one.) A need of a read without deferred statements is followed whatever its age, as
//! before: completing it only performs the read.
//!
//! The age of two pending reads is their program order when it is fixed: each read has one
//! site and no loop contains both. Otherwise (two reads whose statements need each other,
//! in one loop or one of them with several sites) the function counts delays at run time
//! (`$seq`), and the cascade orders its reads by that count (`$rank`, in rounds).
//!
//! A cascade that completes nothing but its triggers, whose statements do not touch one
//! another, is emitted as one block per read, exactly as before.
//!
//! **Reads first.** Each marked read takes its value before any flagged statement runs. In
//! the nested form a needed read took it just before the statement needing it, after the
//! statements before that one; those statements do not need the read, so they neither write
//! what it reads nor read what it affects, and the whole cascade is one atomic step. The
//! reads go youngest first, as in the nested form from its trigger to the older reads its
//! statements need: a later read may let more buffered writes reach memory first
//! (`flush_some`), so the older read, the one a delay pair lets be satisfied after the
//! younger, may see the newer value. (The reverse, the older read seeing the older value, is
//! the execution in which it was not delayed.)

use super::*;

/// A request to complete the pending read with this index in its function's list, under the
/// condition (always when `None`).
pub(super) type Trigger = (usize, Option<Expr>);

/// How the completions of one function are emitted (made once per function).
pub(super) struct Cascades {
    reads: Vec<ReadPlan>,
    /// Needs shared by deferred statements: the reads needed (with the statement's own read),
    /// and the flag a completing read sets when one of its flagged statements has them.
    demands: Vec<(BTreeSet<usize>, VarId)>,
    /// Ages known only at run time.
    dynamic: Option<Dynamic>,
    /// Program position (pre-order) of each statement, and the outermost loop around it.
    pos: HashMap<u32, usize>,
    outer: HashMap<u32, u32>,
}

struct ReadPlan {
    /// Set while the read is being completed by the current cascade.
    go: VarId,
    /// Program position of its first site (ages, when fixed).
    pos: usize,
    sites: Vec<u32>,
    /// Its read set is a global (its destination is): another instance of the function may
    /// have left it set.
    global: bool,
    /// It has deferred statements.
    chained: bool,
    /// Its deferred statements in program order: flag, superseded flag, the statement as
    /// performed (without completions: the cascade makes those).
    stmts: Vec<(VarId, Option<VarId>, Block)>,
    /// Per demand set: its flagged statements that need those reads.
    contrib: Vec<(usize, Expr)>,
    /// Demand sets containing the read.
    demanded_by: Vec<usize>,
    /// Conditional needs: (statement flag, read needed, condition).
    direct: Vec<(VarId, usize, Expr)>,
    /// Reads a completion of this one may complete (itself included).
    closure: BTreeSet<usize>,
    /// Reads some deferred statement of this one needs, followed or not.
    touches: BTreeSet<usize>,
}

struct Dynamic {
    counter: VarId,
    /// Per read with deferred statements (else unused).
    seq: Vec<Option<VarId>>,
    rank: Vec<Option<VarId>>,
}

impl Cascades {
    /// Whether read `i` may be pending at statement `at` (`None`: the end of the function):
    /// one of its sites comes before it, or a loop holds both (the front end rejects
    /// backward jumps), or its read set is global. Completions of the others would be dead
    /// code: the read set is null there.
    fn live(&self, i: usize, at: Option<u32>) -> bool {
        let Some(at) = at.filter(|_| !self.reads[i].global) else { return true };
        let (Some(&p), l) = (self.pos.get(&at), self.outer.get(&at)) else { return true };
        self.reads[i].sites.iter().any(|s| self.pos.get(s).is_none_or(|&q| q < p) || (l.is_some() && self.outer.get(s) == l))
    }

    /// Whether a site of read `i` comes before statement `at` on every path to it (in an
    /// enclosing block, earlier): the read may then be pending there in the same iteration.
    pub(super) fn before_on_every_path(&self, body: &[Stmt], i: usize, at: u32) -> bool {
        fn path(block: &[Stmt], at: u32, sites: &[u32]) -> Option<bool> {
            for (k, s) in block.iter().enumerate() {
                let inner = match &s.kind {
                    _ if s.id == at => Some(false),
                    StmtKind::If { then_, else_, .. } => path(then_, at, sites).or_else(|| path(else_, at, sites)),
                    StmtKind::Loop { body, latch } => path(body, at, sites).or_else(|| path(latch, at, sites)),
                    StmtKind::Block(b) => path(b, at, sites),
                    _ => None,
                };
                if let Some(found) = inner {
                    return Some(found || block[..k].iter().any(|t| sites.contains(&t.id)));
                }
            }
            None
        }
        path(body, at, &self.reads[i].sites).unwrap_or(false)
    }
}

impl Rewriter<'_> {
    /// Completes the triggered pending reads (and what their deferred statements need).
    /// While the code of deferred statements is made (`plan_cascades`), records them instead.
    pub(super) fn complete(&self, ctx: &Ctx, triggers: Vec<Trigger>, loc: Loc) -> Block {
        if triggers.is_empty() {
            return vec![];
        }
        if let Some(sink) = self.sink.borrow_mut().as_mut() {
            sink.extend(triggers);
            return vec![];
        }
        let c = self.cascades.get(&ctx.func).expect("cascades planned before the body is rewritten");
        let triggers: Vec<Trigger> = triggers.into_iter().filter(|(t, _)| c.live(*t, ctx.at)).collect();
        let alone = |t: usize| c.reads[t].closure.iter().all(|&k| k == t || !c.live(k, ctx.at));
        let apart = triggers.iter().all(|(t, _)| triggers.iter().all(|(k, _)| !c.reads[*t].touches.contains(k)));
        if apart && triggers.iter().all(|(t, _)| alone(*t)) {
            // Nothing else to complete, and the statements of these reads do not touch one
            // another (in any order): one block per read, as it always was.
            return triggers.into_iter().map(|(t, cond)| self.single(c, ctx, t, cond, loc)).collect();
        }
        self.cascade(c, ctx, triggers, loc)
    }

    fn single(&self, c: &Cascades, ctx: &Ctx, t: usize, cond: Option<Expr>, loc: Loc) -> Stmt {
        let p = &self.pending[&ctx.func][t];
        let pty = self.out.var(p.ptr).ty.clone();
        let mut body = self.read_code(p, ctx, loc);
        body.extend(self.stmts_code(&c.reads[t], loc));
        body.extend(self.check_code(p, loc));
        body.extend(self.guess_checks(ctx, &[t], loc));
        let s = if_(ne(var(p.ptr, &pty), null(&pty)), body, vec![], loc);
        match cond {
            Some(cond) => if_(cond, vec![s], vec![], loc),
            None => s,
        }
    }

    fn cascade(&self, c: &Cascades, ctx: &Ctx, triggers: Vec<Trigger>, loc: Loc) -> Block {
        let pending = &self.pending[&ctx.func];
        let pending_now = |i: usize| {
            let pty = self.out.var(pending[i].ptr).ty.clone();
            ne(var(pending[i].ptr, &pty), null(&pty))
        };
        let go = |i: usize| var(c.reads[i].go, &Type::Bool);
        // The triggers and their conditions (one `None` makes a read unconditional).
        let mut start: BTreeMap<usize, Option<Expr>> = BTreeMap::new();
        for (t, cond) in triggers {
            match (start.get(&t), cond) {
                (Some(None), _) => {}
                (Some(Some(a)), Some(b)) => {
                    let a = a.clone();
                    start.insert(t, Some(or(a, b)));
                }
                (_, cond) => {
                    start.insert(t, cond);
                }
            }
        }
        let all: BTreeSet<usize> = start.keys().flat_map(|&t| c.reads[t].closure.iter().copied()).filter(|&k| c.live(k, ctx.at)).collect();
        // Youngest first (marking, reads); oldest first (statements).
        let mut by_age: Vec<usize> = all.iter().copied().collect();
        by_age.sort_by_key(|&i| c.reads[i].pos);
        let chained: Vec<usize> = by_age.iter().copied().filter(|&i| c.reads[i].chained).collect();
        // With fixed ages, reads are marked youngest first: a demand made by an older read
        // comes too late for a younger one (so it needs no test), and a demand that only
        // younger reads could answer need not be made.
        let fixed = c.dynamic.is_none();
        let younger = |j: usize, i: usize| !fixed || c.reads[j].pos > c.reads[i].pos;
        let mut contributors: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &j in &all {
            for (d, _) in &c.reads[j].contrib {
                contributors.entry(*d).or_default().push(j);
            }
        }
        let made_by_younger = |d: usize, i: usize| contributors.get(&d).is_some_and(|js| js.iter().any(|&j| !c.reads[i].chained || younger(j, i)));
        let answered = |d: usize, i: usize| c.demands[d].0.iter().any(|&t| t != i && all.contains(&t) && (!c.reads[t].chained || younger(i, t)));
        let used: BTreeSet<usize> = all.iter().flat_map(|&i| c.reads[i].contrib.iter().map(|(d, _)| *d).filter(move |&d| answered(d, i))).collect();

        let mut b = vec![];
        for &i in &all {
            let v = match start.get(&i) {
                Some(Some(cond)) => and(cond.clone(), pending_now(i)),
                Some(None) => pending_now(i),
                None => int(0),
            };
            b.push(assign(go(i), v, loc));
        }
        for &d in &used {
            b.push(assign(var(c.demands[d].1, &Type::Bool), int(0), loc));
        }
        // A read is marked when a flagged statement of a younger marked read needs it.
        let finalize = |i: usize| -> Option<Stmt> {
            let any = c.reads[i].demanded_by.iter().filter(|&&d| used.contains(&d) && made_by_younger(d, i)).map(|&d| var(c.demands[d].1, &Type::Bool)).reduce(or)?;
            Some(if_(any, vec![assign(go(i), pending_now(i), loc)], vec![], loc))
        };
        let contribute = |i: usize| -> Option<Stmt> {
            let r = &c.reads[i];
            let mut body = vec![];
            for (d, flags) in r.contrib.iter().filter(|(d, _)| answered(*d, i)) {
                body.push(if_(flags.clone(), vec![assign(var(c.demands[*d].1, &Type::Bool), int(1), loc)], vec![], loc));
            }
            for (flag, t, cond) in r.direct.iter().filter(|(_, t, _)| all.contains(t)) {
                let mut when = and(var(*flag, &Type::Bool), cond.clone());
                if c.reads[*t].chained {
                    if let Some(dy) = &c.dynamic {
                        // only an older read (see the module documentation)
                        let seq = |k: usize| var(dy.seq[k].expect("chained"), &Type::INT);
                        when = and(when, lt(seq(*t), seq(i)));
                    }
                }
                body.push(if_(when, vec![assign(go(*t), pending_now(*t), loc)], vec![], loc));
            }
            (!body.is_empty()).then(|| if_(go(i), body, vec![], loc))
        };
        match &c.dynamic {
            None => {
                for &i in chained.iter().rev() {
                    b.extend(finalize(i));
                    b.extend(contribute(i));
                }
            }
            Some(dy) => {
                // Rank of each pending read among those of the cascade: how many are older.
                let seq = |k: usize| var(dy.seq[k].expect("chained"), &Type::INT);
                let rank = |k: usize| var(dy.rank[k].expect("chained"), &Type::INT);
                for &i in &chained {
                    b.push(assign(rank(i), int(0), loc));
                    for &k in chained.iter().filter(|&&k| k != i) {
                        let older = and(pending_now(k), lt(seq(k), seq(i)));
                        b.push(if_(older, vec![assign(rank(i), bin(BinOp::Add, rank(i), int(1)), loc)], vec![], loc));
                    }
                }
                for j in (0..chained.len()).rev() {
                    for &i in &chained {
                        let mut round: Block = finalize(i).into_iter().collect();
                        round.extend(contribute(i));
                        if !round.is_empty() {
                            b.push(if_(eq(rank(i), int(j as i128)), round, vec![], loc));
                        }
                    }
                }
            }
        }
        for &i in by_age.iter().filter(|&&i| !c.reads[i].chained) {
            b.extend(finalize(i));
        }
        for &i in by_age.iter().rev() {
            let mut body = self.read_code(&pending[i], ctx, loc);
            if !c.reads[i].chained {
                body.extend(self.check_code(&pending[i], loc));
            }
            b.push(if_(go(i), body, vec![], loc));
        }
        let perform = |i: usize| -> Block {
            let mut body = self.stmts_code(&c.reads[i], loc);
            body.extend(self.check_code(&pending[i], loc));
            body
        };
        match &c.dynamic {
            None => {
                for &i in &chained {
                    b.push(if_(go(i), perform(i), vec![], loc));
                }
            }
            Some(dy) => {
                let rank = |k: usize| var(dy.rank[k].expect("chained"), &Type::INT);
                for j in 0..chained.len() {
                    for &i in &chained {
                        b.push(if_(and(go(i), eq(rank(i), int(j as i128))), perform(i), vec![], loc));
                    }
                }
            }
        }
        b.extend(self.guess_checks(ctx, &by_age, loc));
        b
    }

    /// At a delayed read's site, when ages are counted: the read is the youngest.
    pub(super) fn count_delay(&self, ctx: &Ctx, i: usize, loc: Loc) -> Block {
        let Some(dy) = self.cascades.get(&ctx.func).and_then(|c| c.dynamic.as_ref()) else { return vec![] };
        let Some(seq) = dy.seq[i] else { return vec![] };
        let n = var(dy.counter, &Type::INT);
        vec![assign(n.clone(), bin(BinOp::Add, n.clone(), int(1)), loc), assign(var(seq, &Type::INT), n, loc)]
    }

    /// Initial values of the age counters (function prologue).
    pub(super) fn cascade_prologue(&self, f: FuncId, loc: Loc) -> Block {
        let Some(dy) = self.cascades.get(&f).and_then(|c| c.dynamic.as_ref()) else { return vec![] };
        std::iter::once(dy.counter).chain(dy.seq.iter().flatten().copied()).map(|v| assign(var(v, &Type::INT), int(0), loc)).collect()
    }

    /// Makes the code of every deferred statement of `f` (recording what it needs instead of
    /// completing it), of every read and its checks, and the variables of the cascades.
    pub(super) fn plan_cascades(&mut self, f: FuncId, ctx: &Ctx) {
        let pending = self.pending.get(&f).cloned().unwrap_or_default();
        if pending.is_empty() {
            return;
        }
        let n = pending.len();
        let loc = self.src.func(f).loc;
        // Program positions (pre-order) and the outermost loop around each statement.
        let mut pos: HashMap<u32, usize> = HashMap::new();
        let mut outer: HashMap<u32, u32> = HashMap::new();
        fn visit(block: &[Stmt], lp: Option<u32>, pos: &mut HashMap<u32, usize>, outer: &mut HashMap<u32, u32>) {
            for s in block {
                let k = pos.len();
                pos.insert(s.id, k);
                if let Some(l) = lp {
                    outer.insert(s.id, l);
                }
                match &s.kind {
                    StmtKind::If { then_, else_, .. } => {
                        visit(then_, lp, pos, outer);
                        visit(else_, lp, pos, outer);
                    }
                    StmtKind::Loop { body, latch } => {
                        let l = lp.or(Some(s.id));
                        visit(body, l, pos, outer);
                        visit(latch, l, pos, outer);
                    }
                    StmtKind::Block(b) => visit(b, lp, pos, outer),
                    _ => {}
                }
            }
        }
        visit(self.src.func(f).body.as_deref().unwrap_or(&[]), None, &mut pos, &mut outer);
        let mut sites: Vec<Vec<u32>> = vec![vec![]; n];
        for (&sid, &i) in &self.pending_of_site {
            if pos.contains_key(&sid) {
                sites[i].push(sid);
            }
        }
        let first = |i: usize| sites[i].iter().map(|s| pos[s]).min().unwrap_or(usize::MAX);

        // Each deferred statement as performed, and what it needs.
        let mut inner = Ctx { func: f, me: ctx.me.clone(), entry: ctx.entry, atomic_depth: 1, at: None };
        let mut code: Vec<Vec<(VarId, Option<VarId>, Block)>> = vec![];
        let mut needs: Vec<Vec<(VarId, Vec<Trigger>)>> = vec![];
        for (i, p) in pending.iter().enumerate() {
            let mut stmts = vec![];
            let mut nd = vec![];
            for d in &p.deferred {
                *self.sink.borrow_mut() = Some(vec![]);
                let mut perform = vec![];
                self.stmt_inner(&d.stmt, &mut inner, &mut perform, Some(i));
                let ts = self.sink.borrow_mut().take().expect("set above");
                stmts.push((d.flag, d.sup, perform));
                nd.push((d.flag, ts));
            }
            code.push(stmts);
            needs.push(nd);
        }

        // Ages: fixed by program order unless two reads whose statements need one another
        // share a loop, or one of them has several sites.
        let chained: Vec<bool> = pending.iter().map(|p| !p.deferred.is_empty()).collect();
        let same_loop = |i: usize, t: usize| sites[i].iter().any(|a| outer.get(a).is_some_and(|l| sites[t].iter().any(|b| outer.get(b) == Some(l))));
        let ambiguous = |i: usize, t: usize| sites[i].len() > 1 || sites[t].len() > 1 || same_loop(i, t);
        let dynamic = (0..n).any(|i| chained[i] && needs[i].iter().flat_map(|(_, ts)| ts).any(|(t, _)| *t != i && chained[*t] && ambiguous(i, *t)));
        // Whether a need of read i's statement of read t is followed.
        let follows = |i: usize, t: usize| t != i && (!chained[t] || dynamic || first(t) < first(i));
        let mut closure: Vec<BTreeSet<usize>> = vec![];
        for i in 0..n {
            let mut seen: BTreeSet<usize> = [i].into();
            let mut todo = vec![i];
            while let Some(k) = todo.pop() {
                for (_, ts) in &needs[k] {
                    for (t, _) in ts {
                        if follows(k, *t) && seen.insert(*t) {
                            todo.push(*t);
                        }
                    }
                }
            }
            closure.push(seen);
        }

        let touches: Vec<BTreeSet<usize>> = needs.iter().enumerate().map(|(i, nd)| nd.iter().flat_map(|(_, ts)| ts.iter().map(|(t, _)| *t)).filter(|&t| t != i).collect()).collect();

        // Variables.
        let mk = |rw: &mut Self, name: String, ty: Type| rw.out.add_var(Var { name, ty, storage: Storage::Temp { func: f }, init: None, address_taken: false, loc });
        let names: Vec<String> = pending.iter().map(|p| self.src.var(p.dest).name.clone()).collect();
        let multi = closure.iter().any(|c| c.len() > 1) || touches.iter().any(|t| !t.is_empty());
        let gos: Vec<VarId> = if multi { names.iter().map(|nm| mk(self, format!("{nm}$go"), Type::Bool)).collect() } else { vec![VarId(u32::MAX); n] };
        let mut demands: Vec<(BTreeSet<usize>, VarId)> = vec![];
        let mut reads = vec![];
        for (i, (stmts, nd)) in code.into_iter().zip(needs).enumerate() {
            let mut contrib: BTreeMap<usize, Vec<VarId>> = BTreeMap::new();
            let mut direct = vec![];
            for (flag, ts) in nd {
                // (A need that is not followed is in the set too, so that more statements
                // share one: the marking order ignores it, see `cascade`.)
                let always: BTreeSet<usize> = ts.iter().filter(|(t, c)| c.is_none() && *t != i).map(|(t, _)| *t).collect();
                if !always.is_empty() {
                    let mut set = always.clone();
                    set.insert(i);
                    let d = match demands.iter().position(|(s, _)| *s == set) {
                        Some(d) => d,
                        None => {
                            let v = mk(self, format!("__weakc_need{}", demands.len()), Type::Bool);
                            demands.push((set, v));
                            demands.len() - 1
                        }
                    };
                    contrib.entry(d).or_default().push(flag);
                }
                for (t, cond) in ts {
                    if let Some(cond) = cond.filter(|_| follows(i, t) && !always.contains(&t)) {
                        direct.push((flag, t, cond));
                    }
                }
            }
            let contrib = contrib.into_iter().map(|(d, fs)| (d, fs.into_iter().map(|f| var(f, &Type::Bool)).reduce(or).expect("non-empty"))).collect();
            reads.push(ReadPlan { go: gos[i], pos: first(i), sites: sites[i].clone(), global: self.out.var(pending[i].ptr).is_global(), chained: chained[i], stmts, contrib, demanded_by: vec![], direct, closure: closure[i].clone(), touches: touches[i].clone() });
        }
        for (d, (set, _)) in demands.iter().enumerate() {
            for &t in set {
                reads[t].demanded_by.push(d);
            }
        }
        let dynamic = dynamic.then(|| {
            let counter = mk(self, "__weakc_seq".into(), Type::INT);
            let seq = (0..n).map(|i| chained[i].then(|| mk(self, format!("{}$seq", names[i]), Type::INT))).collect();
            let rank = (0..n).map(|i| chained[i].then(|| mk(self, format!("{}$rank", names[i]), Type::INT))).collect();
            Dynamic { counter, seq, rank }
        });
        self.cascades.insert(f, Cascades { reads, demands, dynamic, pos, outer });
    }

    /// The deferred statements of a read, in program order, each performed if flagged.
    fn stmts_code(&self, r: &ReadPlan, loc: Loc) -> Block {
        r.stmts
            .iter()
            .map(|(flag, sup, perform)| {
                let flag = var(*flag, &Type::Bool);
                let mut again = vec![assign(flag.clone(), int(0), loc)];
                match sup {
                    // Coherence-before a later write already performed: nobody reads it now.
                    Some(sup) => again.push(if_(var(*sup, &Type::Bool), vec![assign(var(*sup, &Type::Bool), int(0), loc)], perform.clone(), loc)),
                    None => again.extend(perform.iter().cloned()),
                }
                if_(flag, again, vec![], loc)
            })
            .collect()
    }

    /// READ FROM memory or buffer into the read's destination; its read set emptied.
    fn read_code(&self, p: &PendingRead, ctx: &Ctx, loc: Loc) -> Block {
        let pty = self.out.var(p.ptr).ty.clone();
        let dty = self.out.var(p.dest).ty.clone();
        let ptr = var(p.ptr, &pty);
        let mut body = vec![];
        match p.group.map(|g| self.groups[g].fns) {
            Some(fns) => {
                // (Owned buffers: only the reader's own entries, which it reads anyway.)
                body.extend(fns.flush_some.map(|f| call(f, vec![], loc)));
                let read = stmt(
                    StmtKind::Call { dest: Some(var(p.dest, &dty)), callee: Callee::Direct(fns.read.expect("made")), args: vec![ptr.clone(), ctx.me.clone()] },
                    loc,
                );
                match (p.hold, fns.read_held) {
                    (Some(h), Some(rh)) => {
                        let held = var(h.held, &Type::Bool);
                        let sty = self.out.var(h.snap).ty.clone();
                        let args = vec![ptr.clone(), ctx.me.clone(), addr_of(var(h.snap, &sty))];
                        let read_held = vec![stmt(StmtKind::Call { dest: Some(var(p.dest, &dty)), callee: Callee::Direct(rh), args }, loc), assign(held.clone(), int(0), loc)];
                        body.push(if_(held, read_held, vec![read], loc));
                    }
                    _ => body.push(read),
                }
            }
            None => body.push(assign(var(p.dest, &dty), deref(ptr.clone()), loc)),
        }
        body.push(assign(ptr.clone(), null(&pty), loc));
        body
    }

    /// After the read and its deferred statements: the values it forwarded must hold.
    fn check_code(&self, p: &PendingRead, loc: Loc) -> Block {
        let mut body = vec![];
        // Reads that took a deferred store's value early must have guessed right.
        for f in &p.fwd {
            let StmtKind::Assign { lhs: slhs, rhs: srhs } = &f.store.kind else { continue };
            let gty = self.out.var(f.guess).ty.clone();
            let aty = self.out.var(f.addr).ty.clone();
            let guess = var(f.guess, &gty);
            let hit = eq(addr_of(slhs.clone()), var(f.addr, &aty));
            let value = Expr::new(ExprKind::Cast(Box::new(srhs.clone())), gty.clone());
            let nomatch = var(f.nomatch, &Type::Bool);
            let check = vec![
                if_(hit, vec![assume(and(not(nomatch.clone()), eq(guess.clone(), value)), loc)], vec![assume(eq(guess, var(f.mem, &gty)), loc)], loc),
                assign(var(f.flag, &Type::Bool), int(0), loc),
                assign(nomatch, int(0), loc),
            ];
            body.push(if_(var(f.flag, &Type::Bool), check, vec![], loc));
        }
        body
    }

    /// After the deferred statements of the reads `done`: the branches taken on a guess of a
    /// variable must have guessed its value, once every read it derives from is complete
    /// (before, the statements that compute it from the others have not all run).
    fn guess_checks(&self, ctx: &Ctx, done: &[usize], loc: Loc) -> Block {
        let pending = &self.pending[&ctx.func];
        let specs: BTreeSet<(VarId, VarId, VarId)> = done.iter().flat_map(|&i| pending[i].spec.iter().map(|sp| (sp.flag, sp.var, sp.guess))).collect();
        specs
            .into_iter()
            .map(|(f, v, guess)| {
                let ty = self.out.var(v).ty.clone();
                let flag = var(f, &Type::Bool);
                let ready = pending
                    .iter()
                    .filter(|q| q.spec.iter().any(|sp| sp.flag == f))
                    .map(|q| {
                        let pty = self.out.var(q.ptr).ty.clone();
                        eq(var(q.ptr, &pty), null(&pty))
                    })
                    .fold(flag.clone(), and);
                let check = vec![assume(eq(var(v, &ty), var(guess, &ty)), loc), assign(flag, int(0), loc)];
                if_(ready, check, vec![], loc)
            })
            .collect()
    }
}
