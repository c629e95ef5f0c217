//! Litmus test → C, in the style the ESOP 2013 authors used for their suite (and that
//! `../shared/litmus/esop/*.c` shows), so that weakc's front end, event graph and verifier
//! see exactly the shapes they were validated on:
//!
//! * every register `r` of thread `T` is a global `int __unbuffered_pT_r` (never
//!   instrumented: registers are thread-private, the `__unbuffered_` prefix says so), every
//!   memory location an `int` global with its initial value (all values are modelled as
//!   32-bit `int`s; litmus tests use small constants);
//! * a register holding a location's address (`0:r2=x`, ARM `%x0=x`, AArch64 `0:X1=x`) is
//!   resolved statically: `lwz r1,0(r2)` becomes `r1 = x;`. An address computed from a value
//!   (`lwzx r4,r3,r5` with `r3 = r1 ^ r1`, ARM `[R1,%y0]`, AArch64 `[X3,W0,SXTW]`) becomes
//!   `r4 = *(&y + r3);`, an address dependency the event graph recognises; data
//!   dependencies are assignments through registers (`r3 = r1 ^ r1; r3 = r3 + 1; y = r3;`),
//!   control dependencies `if (r1 == r1) goto LC00;` (`cmpw`/`CMP` + `beq`/`BNE`, `CBZ`…).
//!   Index registers are expected to hold 0 (the diy dependency idiom): C scales `&y + r`
//!   by the element size where herd adds bytes, which only differs for non-zero indices;
//! * fences are inline assembly the front end maps to [`crate::ir::Fence`]
//!   (`asm("lwsync");`); x86 `XCHG` and `LOCK`-prefixed instructions are sequentially
//!   consistent `__atomic_*`/`__sync_*` builtins (x86 locked instructions are full
//!   barriers);
//! * each thread ends with the architecture's full fence and `__unbuffered_cnt++` (so its
//!   buffered writes are flushed and main knows it finished); `main` starts the threads with
//!   `__CPROVER_ASYNC_n`, waits with `__CPROVER_assume(__unbuffered_cnt == N)`, fences, and
//!   asserts the negation of the final condition's proposition.
//!
//! **The assertion.** For every quantifier the C program asserts `!(P)` where `P` is the
//! proposition of the final condition, so *the assertion can fail ⇔ P is reachable* — the
//! `cond_reachable` column of herd's `verdicts.tsv`. herd's own Ok/No verdict follows: for
//! `exists P` Ok ⇔ reachable; for `~exists P` Ok ⇔ not reachable; for `forall P` herd's
//! verdict needs "¬P reachable", which this translation does not compute (a `forall` test's
//! `reachable` still means "P holds in some execution").
//!
//! **AArch64 acquire/release.** weakc's IR has no acquire/release accesses. `LDAR`/`LDAPR`
//! are translated as plain loads and `STLR` as a plain store — both weaker than the real
//! instruction, so the translation only allows more executions (never an unsound verdict) —
//! with one exact strengthening: an acquire load that is the first memory access of its
//! thread is followed by `dmb ld`, and a release store that is the last one is preceded by
//! `dmb sy`. There the fence orders exactly the pairs the instruction orders (acquire: the
//! load before everything after it; release: everything before the store), because no access
//! lies on the other side. Likewise an `LDAR` that is the next access after an `STLR`, in
//! straight-line code, gets a `dmb sy` before it: herd's `[L]; po; [A]` (SB+polas is
//! forbidden), and with `po; [L]` and `[A]; po` every pair across that fence is ordered
//! already. Threads with a backward branch get no strengthening.
//!
//! **AArch64 atomics** (`CAS`, `SWP`, `LD<op>`, `ST<op>`, with their `A`/`L` forms). The IR's
//! `Rmw` is a full fence plus an atomic access (C's `__sync_*`): far stronger than these
//! instructions, which order nothing but their acquire read and release write. So an atomic
//! is a plain read into a temporary and a plain write (`r = y; y = r + v; Xt = r;`), the `A`
//! read and the `L` write strengthened exactly as `LDAR`/`STLR` above. What is lost, so only
//! more executions are allowed: atomicity (another thread's write may come between the read
//! and the write), the acquire-release full barrier of the `AL` forms, `aob`, and the pick
//! dependencies into a `CAS` write. Details that keep the translation sound:
//! * `CAS Xs,Xt,[Xn]` writes `Xt` under `if (pick)`, `pick` an `__unbuffered_pick_*`
//!   variable ([`crate::normalize::PICK_PREFIX`]): herd's compare is `iico_ctrl` inside the
//!   instruction, not a control dependency of the later ones, and the event graph and the
//!   rewriter treat such a branch as a selection (no `ctrl`, later writes do not wait).
//! * The result of a `CAS` (`Xs`) and of `CSEL` is a guess (`__VERIFIER_nondet_int()`)
//!   checked at the end of the thread against the real value (`__CPROVER_assume`): herd
//!   orders no later read after the reads those values come from (MP+rel+CAS-ok-MRs-addr,
//!   MP+rel+CAS-ok-RsRs-addr, LB+rel+CSEL and MP+rel+CSEL are allowed), and any use of a
//!   value computed from a delayed read makes the rewriter complete that read. The guessed
//!   register carries no dependency at all (herd's pick ones to writes are lost).
//! * An atomic whose result register is the zero register reads `NoRet`: no acquire, and a
//!   later `DMB LD` does not order it (herd's `[R \ NoRet]; po; [dmb.ld]`), so a `DMB LD`
//!   after one is left out.
//! * An acquire read also gets its `dmb ld` when every earlier read is already ordered before
//!   everything after it: after a `DMB SY`/`DMB LD`, the read of a `SWP`/`LD<op>` of the
//!   same location whose write precedes it in `lrs` (herd's `rmw; lrs; [A | Q]`), or a read
//!   that the value or address of the store preceding it in `lrs` depends on (herd's
//!   `(addr | data); lrs`, MP+rel+data-lrs-acq; a store to a computed address, `[X5,W4]`,
//!   counts where the index registers hold zero whatever was read, herd's false
//!   dependencies `EOR W4,W2,W2`: MP+rel+addr-lrs-acq; any other computed address is not
//!   known to be the acquire read's location).
//!
//! Registers are versioned: a register's first definition in a thread writes its C variable,
//! later ones a fresh `__unbuffered_pT_R_vN` (where paths naming different versions meet, a
//! join version is assigned on each edge; the final condition reads the last version), so
//! the value of a read the rewriter delays is never overwritten, which would make it
//! complete the read there. Threads with a backward branch
//! keep one variable per register. `LDR`/`STR` with post-indexing (`STR W0,[X1],#4`) access
//! `[X1]`; the register then points past the location and using it again is unsupported.
//!
//! Unsupported instructions (byte/halfword atomics, `CASP`, conditional execution, non-zero
//! displacements, …) are [`Error::Unsupported`] at their cell in the litmus file.

use super::parse::{LitArch, Litmus, Place, Prop, Value};
use crate::source::{Error, Loc};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// The C program for a litmus test.
#[derive(Clone, Debug)]
pub struct CTest {
    pub c: String,
    pub threads: usize,
    /// The atomics translated without their atomicity (AArch64 `CAS`, `SWP`, `LD<op>`: a
    /// plain read and a plain write), as written in the test: an outcome the C program
    /// reaches may need another write between the two.
    pub non_atomic: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum RV {
    /// A number (the register's C variable holds it).
    Int,
    /// The address of `loc`, plus the value of the C expression `off` when present.
    Addr { loc: String, off: Option<String> },
    /// An address `bytes` bytes past `loc` (AArch64 post-indexing, `STR W0,[X1],#4`): not a
    /// location of the model, so using the register again is unsupported.
    Past { loc: String, bytes: i64 },
}

struct Cx<'a> {
    t: &'a Litmus,
    mem: BTreeMap<String, i64>,
    /// (thread, canonical register) → initial value, for every register declared.
    regs: BTreeMap<(usize, String), i64>,
    /// ARM symbolic registers without a thread (`%x0=x`).
    sym_regs: HashMap<String, String>,
    /// The pick variables of AArch64 `CAS`/`CSEL` ([`crate::normalize::PICK_PREFIX`]).
    picks: BTreeSet<String>,
    /// [`CTest::non_atomic`].
    non_atomic: Vec<String>,
}

struct Th {
    tid: usize,
    regs: HashMap<String, RV>,
    /// Operands of the last compare.
    flags: Option<(String, String)>,
    /// The registers the last compare read, and the first of them overwritten since.
    flag_regs: Vec<String>,
    flags_clobbered: Option<String>,
    /// An AArch64 atomic without a result register (`LDADD W0,WZR,[X1]`, `CAS WZR,…`) came
    /// before in the text, or anywhere when the thread branches backwards: its read is not
    /// ordered by a later `DMB LD` (herd's `[R \ NoRet]; po; [dmb.ld]`).
    noret_before: bool,
    /// Registers defined so far (text order). A register's first definition writes its C
    /// variable; later ones write a fresh version (`__unbuffered_p1_X0_v2`), so that a value
    /// the rewriter keeps pending for a delayed read is never overwritten (which would force
    /// the read to complete: an ordering the architecture does not have). Where paths with
    /// different versions meet (a label), the register gets a join version assigned on each
    /// incoming edge; at the end of the thread every register is copied back to its variable.
    /// Not in a thread that branches backwards, whose registers are single variables.
    defined: BTreeSet<String>,
    /// Register → its current version, when not its variable.
    ver: BTreeMap<String, String>,
    versions: usize,
    /// The branches to each label so far: body line, condition, versions then.
    edges: HashMap<String, Vec<(usize, Option<String>, BTreeMap<String, String>)>>,
    /// The current point is reachable from the previous instruction (no `goto` just before).
    live: bool,
    /// The thread branches backwards.
    backward: bool,
    /// Checks of the values guessed for `CAS`/`CSEL` results, made at the end of the thread.
    checks: Vec<String>,
    /// No label or branch so far, and none backwards: program order is the text order.
    straight: bool,
    /// The reads so far that nothing yet orders before every later access (see
    /// [`Cx::acquire_exact`]).
    unordered: Vec<Unordered>,
    /// Per register, the reads of [`Th::unordered`] (by [`Unordered::id`]) its value comes
    /// from through data flow (loads, arithmetic, moves; not the guessed `CAS`/`CSEL`
    /// results, whose dependencies are pick ones): a store whose value or address has one
    /// puts that read before a later read of the store's location in `lrs`.
    taint: HashMap<String, BTreeSet<usize>>,
    /// Registers that hold zero whatever was read (`EOR W4,W2,W2`, `SUB W4,W2,W2`: herd's
    /// false dependencies): an address indexed by them is its base location.
    zero: BTreeSet<String>,
    /// Reads so far (the next [`Unordered::id`]).
    reads: usize,
    /// The last memory access was an AArch64 `STLR` (see [`Cx::release_acquire`]).
    release_last: bool,
    body: Vec<String>,
    labels_defined: BTreeSet<String>,
    labels_used: Vec<(String, Loc)>,
}

const C_RESERVED: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "main", "arg", "asm",
];

pub(crate) fn is_c_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_') && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

fn unsupported(loc: Loc, msg: impl Into<String>) -> Error {
    Error::unsupported(loc, msg)
}

/// Canonical register name per architecture (None: not a register of it).
pub(crate) fn canon_reg(arch: LitArch, r: &str) -> Option<String> {
    let r = r.trim();
    match arch {
        LitArch::X86 => {
            let u = r.to_ascii_uppercase();
            (u.len() >= 2 && u.chars().all(|c| c.is_ascii_alphanumeric()) && u.chars().next().is_some_and(|c| c.is_ascii_alphabetic())).then_some(u)
        }
        LitArch::Ppc => {
            if r.starts_with('%') {
                return Some(r.to_string());
            }
            let l = r.to_ascii_lowercase();
            let n = l.strip_prefix('r')?;
            (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then_some(l)
        }
        LitArch::Arm => {
            if r.starts_with('%') {
                return Some(r.to_string());
            }
            let u = r.to_ascii_uppercase();
            let n = u.strip_prefix('R')?;
            (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then_some(u)
        }
        LitArch::AArch64 => {
            if r.starts_with('%') {
                return Some(r.to_string());
            }
            let u = r.to_ascii_uppercase();
            if u == "WZR" || u == "XZR" {
                return Some("ZR".into());
            }
            let n = u.strip_prefix('W').or_else(|| u.strip_prefix('X'))?;
            (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then(|| format!("X{n}"))
        }
    }
}

fn cvar(tid: usize, reg: &str) -> String {
    let r: String = reg.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("__unbuffered_p{tid}_{r}")
}

/// Splits operands at commas outside brackets and parentheses.
pub(crate) fn operands(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The inside of an ARM address operand: `[R5]`, `[X1,W2,SXTW]`, or herd's short form for
/// ARM, a bare register (`LDR R2,R5`, `str R1,R5`). `None` for pre-indexing (`[R1,#4]!`) and
/// anything else.
pub(crate) fn arm_address_inner(arch: LitArch, s: &str) -> Option<&str> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        return Some(inner);
    }
    let bare = arch == LitArch::Arm && !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (bare && !s.starts_with(|c: char| c.is_ascii_digit())).then_some(s)
}

pub(crate) fn parse_imm(s: &str) -> Option<i64> {
    let s = s.trim().trim_start_matches(['#', '$']);
    match super::parse::parse_value(s) {
        Value::Int(v) => Some(v),
        Value::Sym(_) => None,
    }
}

/// Which mnemonics access memory (for the acquire/release strengthening).
fn is_access(arch: LitArch, mnemonic: &str) -> bool {
    let m = mnemonic.to_ascii_uppercase();
    match arch {
        LitArch::X86 => false, // not used
        LitArch::Ppc => m.starts_with("LW") || m.starts_with("ST") || m.starts_with("LD"),
        LitArch::Arm | LitArch::AArch64 => {
            m.starts_with("LD") || m.starts_with("ST") || m.starts_with("CAS") || m.starts_with("SWP")
        }
    }
}

/// Translates a parsed litmus test to C.
pub fn translate(t: &Litmus) -> Result<CTest, Error> {
    let mut cx = Cx { t, mem: BTreeMap::new(), regs: BTreeMap::new(), sym_regs: HashMap::new(), picks: BTreeSet::new(), non_atomic: Vec::new() };
    let mut init_regs: Vec<HashMap<String, RV>> = vec![HashMap::new(); t.threads.len()];
    for i in &t.init {
        match &i.place {
            Place::Mem(x) => {
                check_loc_name(x, i.loc)?;
                let v = match &i.val {
                    None => 0,
                    Some(Value::Int(v)) => *v,
                    Some(Value::Sym(s)) => return Err(unsupported(i.loc, format!("a memory location initialised with an address (`{x}={s}`)"))),
                };
                if let Some(ty) = &i.ty {
                    if ty.contains('*') {
                        return Err(unsupported(i.loc, format!("pointer-typed location `{ty} {x}`")));
                    }
                }
                cx.mem.insert(x.clone(), v);
            }
            Place::Reg { thread: None, reg } => match &i.val {
                Some(Value::Sym(x)) => {
                    check_loc_name(x, i.loc)?;
                    cx.mem.entry(x.clone()).or_insert(0);
                    cx.sym_regs.insert(reg.clone(), x.clone());
                }
                _ => return Err(unsupported(i.loc, format!("symbolic register `{reg}` not holding an address"))),
            },
            Place::Reg { thread: Some(th), reg } => {
                let tid = *th as usize;
                if tid >= t.threads.len() {
                    return Err(Error::syntax(i.loc, format!("thread {th} does not exist (the test has {} threads)", t.threads.len())));
                }
                let r = canon_reg(t.arch, reg).ok_or_else(|| unsupported(i.loc, format!("`{reg}` is not a {} register", t.arch.herd_name())))?;
                match &i.val {
                    Some(Value::Sym(x)) => {
                        check_loc_name(x, i.loc)?;
                        cx.mem.entry(x.clone()).or_insert(0);
                        init_regs[tid].insert(r, RV::Addr { loc: x.clone(), off: None });
                    }
                    v => {
                        let n = match v {
                            Some(Value::Int(n)) => *n,
                            _ => 0,
                        };
                        if i32::try_from(n).is_err() {
                            return Err(unsupported(i.loc, format!("value {n} does not fit the 32-bit model")));
                        }
                        cx.regs.insert((tid, r.clone()), n);
                        init_regs[tid].insert(r, RV::Int);
                    }
                }
            }
        }
    }
    let mut bodies = vec![];
    let mut final_regs = vec![];
    let mut finals = BTreeMap::new();
    for (tid, thread) in t.threads.iter().enumerate() {
        let mut th = Th {
            tid,
            regs: std::mem::take(&mut init_regs[tid]),
            flags: None,
            flag_regs: vec![],
            flags_clobbered: None,
            noret_before: false,
            defined: BTreeSet::new(),
            ver: BTreeMap::new(),
            versions: 0,
            edges: HashMap::new(),
            live: true,
            backward: false,
            checks: vec![],
            straight: true,
            unordered: vec![],
            taint: HashMap::new(),
            zero: BTreeSet::new(),
            reads: 0,
            release_last: false,
            body: vec![],
            labels_defined: BTreeSet::new(),
            labels_used: vec![],
        };
        // Acquire/release strengthening needs a thread without backward branches.
        let Scan { first: first_acc, last: last_acc, backward, noret } = scan(t.arch, &thread.code);
        th.noret_before = backward && noret;
        th.backward = backward;
        th.straight = !backward;
        for (k, ins) in thread.code.iter().enumerate() {
            let mut text = ins.text.trim();
            // Leading label(s).
            while let Some((l, rest)) = text.split_once(':') {
                let l = l.trim();
                if !is_c_ident(l) || l.contains(' ') {
                    break;
                }
                if !th.labels_defined.insert(l.to_string()) {
                    return Err(Error::syntax(ins.loc, format!("label `{l}` defined twice")));
                }
                cx.join(&mut th, l);
                th.straight = false;
                th.body.push(format!("{l}: ;"));
                text = rest.trim();
            }
            if text.is_empty() {
                continue;
            }
            let strengthen = !backward && t.arch == LitArch::AArch64;
            let pos = Pos { first: strengthen && Some(k) == first_acc, last: strengthen && Some(k) == last_acc, index: k };
            let r = match t.arch {
                LitArch::X86 => cx.x86(&mut th, text, ins.loc),
                LitArch::Ppc => cx.ppc(&mut th, text, ins.loc),
                LitArch::Arm | LitArch::AArch64 => cx.arm(&mut th, text, ins.loc, pos),
            };
            r?;
        }
        for (l, loc) in &th.labels_used {
            if !th.labels_defined.contains(l) {
                return Err(Error::syntax(*loc, format!("branch to `{l}`, a label thread P{tid} does not define")));
            }
        }
        // The final condition names each register's last version: no copy back to the
        // register's variable, which would redefine what a pending read writes and make the
        // rewriter complete it early.
        for (r, v) in std::mem::take(&mut th.ver) {
            finals.insert((th.tid, r), v);
        }
        final_regs.push(th.regs.clone());
        bodies.push((th.body, th.checks));
    }
    // The condition.
    for a in t.cond.prop.atoms() {
        match &a.place {
            Place::Mem(x) => {
                check_loc_name(x, a.loc)?;
                cx.mem.entry(x.clone()).or_insert(0);
            }
            Place::Reg { thread: Some(th), reg } => {
                let tid = *th as usize;
                if tid >= t.threads.len() {
                    return Err(Error::syntax(a.loc, format!("thread {th} does not exist (the test has {} threads)", t.threads.len())));
                }
                let r = canon_reg(t.arch, reg).ok_or_else(|| unsupported(a.loc, format!("`{reg}` is not a {} register", t.arch.herd_name())))?;
                if let Some(RV::Addr { loc, .. } | RV::Past { loc, .. }) = final_regs[tid].get(&r) {
                    return Err(unsupported(a.loc, format!("a condition on register {th}:{reg}, which holds the address of `{loc}`")));
                }
                cx.regs.entry((tid, r)).or_insert(0);
            }
            Place::Reg { thread: None, reg } => return Err(unsupported(a.loc, format!("a condition on symbolic register `{reg}`"))),
        }
        if let Value::Sym(s) = &a.val {
            return Err(unsupported(a.loc, format!("a condition comparing with an address (`{s}`)")));
        }
    }
    let prop = c_prop(t, &t.cond.prop, &finals);
    let fence = full_fence(t.arch);
    // Emit.
    let mut c = String::new();
    let _ = writeln!(c, "/* {} {} — translated from herd litmus by weakc (ESOP 2013 conventions) */", t.arch.herd_name(), t.name);
    let _ = writeln!(c, "int __unbuffered_cnt = 0;");
    for ((tid, r), v) in &cx.regs {
        let _ = writeln!(c, "int {} = {v};", cvar(*tid, r));
    }
    for p in &cx.picks {
        let _ = writeln!(c, "int {p} = 0;");
    }
    for (x, v) in &cx.mem {
        let _ = writeln!(c, "int {x} = {v};");
    }
    for (tid, (body, checks)) in bodies.iter().enumerate() {
        let _ = writeln!(c, "\nvoid *P{tid}(void *arg) {{");
        for l in body {
            let _ = writeln!(c, "  {l}");
        }
        let _ = writeln!(c, "  asm(\"{fence}\");");
        for l in checks {
            let _ = writeln!(c, "  {l}");
        }
        let _ = writeln!(c, "  __unbuffered_cnt++;\n  return 0;\n}}");
    }
    let _ = writeln!(c, "\nint main(void) {{");
    for tid in 0..t.threads.len() {
        let _ = writeln!(c, "  __CPROVER_ASYNC_{tid}: P{tid}(0);");
    }
    let _ = writeln!(c, "  __CPROVER_assume(__unbuffered_cnt == {});", t.threads.len());
    let _ = writeln!(c, "  asm(\"{fence}\");");
    let _ = writeln!(c, "  /* {} P: the assertion fails <=> P is reachable */", t.cond.quant.keyword());
    let _ = writeln!(c, "  __CPROVER_assert(!({prop}), \"{} {}\");", t.cond.quant.keyword(), t.cond.prop.to_string().replace('\\', "\\\\"));
    let _ = writeln!(c, "  return 0;\n}}");
    Ok(CTest { c, threads: t.threads.len(), non_atomic: cx.non_atomic })
}

fn check_loc_name(x: &str, loc: Loc) -> Result<(), Error> {
    if !is_c_ident(x) || C_RESERVED.contains(&x) || x.starts_with("__") || x.starts_with('P') && x[1..].chars().all(|c| c.is_ascii_digit()) {
        return Err(unsupported(loc, format!("location name `{x}` (not usable as a C identifier here)")));
    }
    Ok(())
}

fn full_fence(a: LitArch) -> &'static str {
    match a {
        LitArch::X86 => "mfence",
        LitArch::Ppc => "sync",
        LitArch::Arm => "dmb",
        LitArch::AArch64 => "dmb sy",
    }
}

/// `finals`: the variable holding a register's last version, where it is not the register's
/// own.
fn c_prop(t: &Litmus, p: &Prop, finals: &BTreeMap<(usize, String), String>) -> String {
    match p {
        Prop::True => "1".into(),
        Prop::False => "0".into(),
        Prop::Atom(a) => {
            let v = match &a.val {
                Value::Int(v) => v.to_string(),
                Value::Sym(s) => s.clone(),
            };
            match &a.place {
                Place::Mem(x) => format!("{x} == {v}"),
                Place::Reg { thread, reg } => {
                    let r = canon_reg(t.arch, reg).unwrap_or_else(|| reg.clone());
                    let tid = thread.unwrap_or(0) as usize;
                    format!("{} == {v}", finals.get(&(tid, r.clone())).cloned().unwrap_or_else(|| cvar(tid, &r)))
                }
            }
        }
        Prop::Not(a) => format!("!({})", c_prop(t, a, finals)),
        Prop::And(a, b) => format!("({} && {})", c_prop(t, a, finals), c_prop(t, b, finals)),
        Prop::Or(a, b) => format!("({} || {})", c_prop(t, a, finals), c_prop(t, b, finals)),
    }
}

/// What [`scan`] finds in a thread.
struct Scan {
    /// First and last memory-access instruction.
    first: Option<usize>,
    last: Option<usize>,
    /// Some branch goes backwards.
    backward: bool,
    /// Some AArch64 atomic has no result register (its read is `NoRet`).
    noret: bool,
}

fn scan(arch: LitArch, code: &[super::parse::Instr]) -> Scan {
    let mut first = None;
    let mut last = None;
    let mut labels = BTreeSet::new();
    let mut backward = false;
    let mut noret = false;
    for (k, ins) in code.iter().enumerate() {
        let mut text = ins.text.trim();
        while let Some((l, rest)) = text.split_once(':') {
            if !is_c_ident(l.trim()) {
                break;
            }
            labels.insert(l.trim().to_string());
            text = rest.trim();
        }
        let mut words = text.split_whitespace();
        let m = words.next().unwrap_or("");
        if is_access(arch, m) {
            first.get_or_insert(k);
            last = Some(k);
        }
        if arch == LitArch::AArch64 {
            if let Some(r) = parse_rmw(m) {
                let ops = operands(text[m.len()..].trim());
                noret |= rmw_result_reg(r, &ops).is_some_and(|d| canon_reg(arch, d).as_deref() == Some("ZR"));
            }
        }
        let mu = m.to_ascii_uppercase();
        if mu.starts_with('B') || mu.starts_with("CB") {
            let target = text.rsplit([',', ' ']).next().unwrap_or("").trim();
            if labels.contains(target) {
                backward = true;
            }
        }
    }
    Scan { first, last, backward, noret }
}

/// A read not yet ordered before everything after it (AArch64 acquire strengthening).
struct Unordered {
    id: usize,
    /// Locations a later read of which this read is ordered before, each written since
    /// only by the write that put it here: the read of a `SWP`/`LD<op>` (which always
    /// writes) and its location (herd's `rmw; lrs`), or a read that the value or the
    /// address of a store depends on and the store's location (`(addr | data); lrs`). With
    /// `[A | Q]; po`, a later acquire read of such a location orders the read before every
    /// later access.
    lrs: Vec<String>,
    /// The read is `NoRet` (a `DMB LD` does not order it).
    noret: bool,
}

/// The location an lvalue of [`Cx::lvalue`] accesses, and whether it is exactly it (not
/// `*(&x + r)`).
fn lv_loc(lv: &str) -> (&str, bool) {
    match lv.strip_prefix("*(&") {
        Some(r) => (r.split(' ').next().unwrap_or(r), false),
        None => (lv, true),
    }
}

#[derive(Copy, Clone)]
struct Pos {
    /// First memory access of a thread without backward branches.
    first: bool,
    last: bool,
    /// Index of the instruction in its thread (names its temporaries).
    index: usize,
}

/// An AArch64 atomic read-modify-write: `CAS`, `SWP`, `LD<op>` and their `ST<op>` aliases, with
/// the acquire (`A`), release (`L`) and size (`B`, `H`) suffixes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rmw {
    pub op: RmwOp,
    pub acquire: bool,
    pub release: bool,
    /// `ST<op> Ws,[Xn]`: `LD<op> Ws,WZR,[Xn]`.
    pub store_form: bool,
    /// `B` or `H`: a byte or halfword access.
    pub size: Option<char>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum RmwOp {
    /// `CAS Xs,Xt,[Xn]`: if `[Xn] == Xs` then `[Xn] = Xt`; `Xs` receives the old value.
    Cas,
    /// `SWP Xs,Xt,[Xn]`: `[Xn] = Xs`, `Xt` receives the old value.
    Swp,
    /// `LD<op> Xs,Xt,[Xn]`: `[Xn] = old <op> Xs`, `Xt` receives the old value.
    Ld(AmoOp),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AmoOp {
    Add,
    Clr,
    Eor,
    Set,
    Smax,
    Smin,
    Umax,
    Umin,
}

impl AmoOp {
    /// The new memory value as a C expression.
    fn c(self, old: &str, v: &str) -> String {
        match self {
            AmoOp::Add => format!("{old} + {v}"),
            AmoOp::Clr => format!("{old} & ~{v}"),
            AmoOp::Eor => format!("{old} ^ {v}"),
            AmoOp::Set => format!("{old} | {v}"),
            AmoOp::Smax => format!("{old} > {v} ? {old} : {v}"),
            AmoOp::Smin => format!("{old} < {v} ? {old} : {v}"),
            AmoOp::Umax => format!("(unsigned){old} > (unsigned){v} ? {old} : {v}"),
            AmoOp::Umin => format!("(unsigned){old} < (unsigned){v} ? {old} : {v}"),
        }
    }

    /// The new memory value (32-bit arithmetic, as the C translation computes it).
    pub(crate) fn apply(self, old: i64, v: i64) -> i64 {
        let (o, x) = (old as i32, v as i32);
        i64::from(match self {
            AmoOp::Add => o.wrapping_add(x),
            AmoOp::Clr => o & !x,
            AmoOp::Eor => o ^ x,
            AmoOp::Set => o | x,
            AmoOp::Smax => o.max(x),
            AmoOp::Smin => o.min(x),
            AmoOp::Umax => ((o as u32).max(x as u32)) as i32,
            AmoOp::Umin => ((o as u32).min(x as u32)) as i32,
        })
    }
}

/// Parses an AArch64 atomic mnemonic (None: not one).
pub(crate) fn parse_rmw(mnemonic: &str) -> Option<Rmw> {
    const OPS: [(&str, AmoOp); 8] = [
        ("ADD", AmoOp::Add),
        ("CLR", AmoOp::Clr),
        ("EOR", AmoOp::Eor),
        ("SET", AmoOp::Set),
        ("SMAX", AmoOp::Smax),
        ("SMIN", AmoOp::Smin),
        ("UMAX", AmoOp::Umax),
        ("UMIN", AmoOp::Umin),
    ];
    let u = mnemonic.to_ascii_uppercase();
    let amo = |r: &str| OPS.iter().find(|(n, _)| r.starts_with(n)).map(|(n, a)| (RmwOp::Ld(*a), r[n.len()..].to_string()));
    let (op, store_form, rest) = if let Some(r) = u.strip_prefix("CAS") {
        (RmwOp::Cas, false, r.to_string())
    } else if let Some(r) = u.strip_prefix("SWP") {
        (RmwOp::Swp, false, r.to_string())
    } else if let Some(r) = u.strip_prefix("LD") {
        let (op, rest) = amo(r)?;
        (op, false, rest)
    } else if let Some(r) = u.strip_prefix("ST") {
        let (op, rest) = amo(r)?;
        (op, true, rest)
    } else {
        return None;
    };
    let (acquire, rest) = rest.strip_prefix('A').map_or((false, rest.as_str()), |r| (true, r));
    let (release, rest) = rest.strip_prefix('L').map_or((false, rest), |r| (true, r));
    let size = match rest {
        "" => None,
        "B" => Some('B'),
        "H" => Some('H'),
        _ => return None,
    };
    if store_form && acquire {
        return None;
    }
    Some(Rmw { op, acquire, release, store_form, size })
}

/// The register that receives the old value of an atomic (`Xs` of `CAS`, `Xt` otherwise;
/// `WZR` for the `ST<op>` forms): None when the operands do not fit the mnemonic.
pub(crate) fn rmw_result_reg(r: Rmw, ops: &[String]) -> Option<&str> {
    match (r.store_form, ops.len(), r.op) {
        (true, 2, _) => Some("WZR"),
        (false, 3, RmwOp::Cas) => Some(&ops[0]),
        (false, 3, _) => Some(&ops[1]),
        _ => None,
    }
}

enum Opnd {
    Imm(i64),
    Reg(String),
}

impl Opnd {
    fn reg(&self) -> Option<&str> {
        match self {
            Opnd::Reg(r) => Some(r),
            Opnd::Imm(_) => None,
        }
    }
}

impl Cx<'_> {
    fn reg(&self, s: &str, loc: Loc) -> Result<String, Error> {
        canon_reg(self.t.arch, s).ok_or_else(|| unsupported(loc, format!("`{s}` is not a {} register", self.t.arch.herd_name())))
    }

    fn state(&self, th: &Th, r: &str) -> RV {
        if let Some(x) = self.sym_regs.get(r) {
            return RV::Addr { loc: x.clone(), off: None };
        }
        th.regs.get(r).cloned().unwrap_or(RV::Int)
    }

    /// The C expression of a register read as a number.
    fn int(&mut self, th: &mut Th, r: &str, loc: Loc) -> Result<String, Error> {
        if r == "ZR" {
            return Ok("0".into());
        }
        match self.state(th, r) {
            RV::Int => {
                self.regs.entry((th.tid, r.to_string())).or_insert(0);
                Ok(th.ver.get(r).cloned().unwrap_or_else(|| cvar(th.tid, r)))
            }
            RV::Addr { loc: x, .. } | RV::Past { loc: x, .. } => Err(unsupported(loc, format!("register `{r}` holds the address of `{x}`; using it as a number"))),
        }
    }

    /// Marks `r` as holding a number and returns its C variable.
    fn def(&mut self, th: &mut Th, r: &str, loc: Loc) -> Result<String, Error> {
        if r == "ZR" {
            return Err(unsupported(loc, "writing the zero register"));
        }
        if self.sym_regs.contains_key(r) {
            return Err(unsupported(loc, format!("overwriting symbolic register `{r}`")));
        }
        Self::clobber(th, r);
        th.regs.insert(r.to_string(), RV::Int);
        Ok(self.def_name(th, r))
    }

    /// The C variable a definition of register `r` writes (see [`Th::defined`]).
    fn def_name(&mut self, th: &mut Th, r: &str) -> String {
        self.regs.entry((th.tid, r.to_string())).or_insert(0);
        if th.defined.insert(r.to_string()) || th.backward {
            th.ver.remove(r);
            return cvar(th.tid, r);
        }
        th.versions += 1;
        let v = self.temp(th, format!("{r}_v{}", th.versions));
        th.ver.insert(r.to_string(), v.clone());
        v
    }

    /// At label `l`: the version of each register after it. Where the incoming edges (the
    /// branches to `l`, and falling through) name different versions, a join version is
    /// assigned on each edge (inside the branch: executed only when it is taken).
    fn join(&mut self, th: &mut Th, l: &str) {
        let mut edges = th.edges.remove(l).unwrap_or_default();
        if th.live {
            edges.push((usize::MAX, None, th.ver.clone()));
        }
        th.live = true;
        let regs: BTreeSet<String> = edges.iter().flat_map(|(_, _, v)| v.keys().cloned()).collect();
        let mut ver = BTreeMap::new();
        let mut copies = vec![String::new(); edges.len()];
        for r in regs {
            let name = |v: &BTreeMap<String, String>| v.get(&r).cloned().unwrap_or_else(|| cvar(th.tid, &r));
            let first = name(&edges[0].2);
            if edges.iter().all(|(_, _, v)| name(v) == first) {
                if first != cvar(th.tid, &r) {
                    ver.insert(r, first);
                }
                continue;
            }
            th.versions += 1;
            let j = self.temp(th, format!("{r}_v{}", th.versions));
            for (k, (_, _, v)) in edges.iter().enumerate() {
                copies[k] += &format!("{j} = {}; ", name(v));
            }
            ver.insert(r, j);
        }
        for ((line, cond, _), c) in edges.iter().zip(copies) {
            if c.is_empty() {
                continue;
            }
            match (line, cond) {
                (&usize::MAX, _) => th.body.push(c.trim_end().to_string()),
                (&i, Some(cond)) => th.body[i] = format!("if ({cond}) {{ {c}goto {l}; }}"),
                (&i, None) => th.body[i] = format!("{c}goto {l};"),
            }
        }
        th.ver = ver;
    }

    /// Register `r` is overwritten: a compare that read it no longer holds its operands.
    fn clobber(th: &mut Th, r: &str) {
        th.taint.remove(r);
        th.zero.remove(r);
        if th.flags_clobbered.is_none() && th.flag_regs.iter().any(|f| f == r) {
            th.flags_clobbered = Some(r.to_string());
        }
    }

    /// The flags of a compare: C operands, and the registers among `ops` they read.
    fn set_flags(&mut self, th: &mut Th, a: String, b: String, ops: &[&str], loc: Loc) {
        th.flags = Some((a, b));
        th.flags_clobbered = None;
        th.flag_regs = ops.iter().filter_map(|o| match self.opnd(o, loc) {
            Ok(Opnd::Reg(r)) => Some(r),
            _ => None,
        }).collect();
    }

    /// The operands of the last compare, for `what` (a conditional branch, `CSEL`).
    fn flags(&self, th: &Th, what: &str, loc: Loc) -> Result<(String, String), Error> {
        if let Some(r) = &th.flags_clobbered {
            return Err(unsupported(loc, format!("{what} after the compared register `{r}` was overwritten")));
        }
        th.flags.clone().ok_or_else(|| unsupported(loc, format!("{what} without a preceding compare")))
    }

    /// A fresh thread-private temporary (declared like a register, never a litmus register).
    fn temp(&mut self, th: &Th, name: String) -> String {
        let v = cvar(th.tid, &name);
        self.regs.entry((th.tid, name)).or_insert(0);
        v
    }

    /// Whether a `dmb ld` right after the acquire read of `lv` orders exactly what the acquire
    /// read does ([A]; po), i.e. nothing more: every earlier read is already ordered before
    /// every later access. That holds for reads before a `DMB SY` or (not `NoRet`) a `DMB LD`,
    /// for acquire reads, for the read of a `SWP`/`LD<op>` whose write this read follows
    /// in `lrs` (herd's `aob`: `rmw; lrs; [A | Q]`, the acquire read then orders everything
    /// after it), and for a read that the value or address of the store this read follows in
    /// `lrs` depends on (herd's `dob`: `(addr | data); lrs`). Straight-line code only. (The first access of a thread is the case without
    /// earlier reads, see [`Pos::first`].)
    fn acquire_exact(th: &Th, lv: &str) -> bool {
        let (x, plain) = lv_loc(lv);
        th.straight && plain && th.unordered.iter().all(|u| u.lrs.iter().any(|l| l == x))
    }

    /// An acquire read of `lv` was translated: a `dmb ld` after it where that is exact.
    fn acquire(th: &mut Th, lv: &str, first: bool) {
        if first || Self::acquire_exact(th, lv) {
            Self::fence(th, "dmb ld");
            th.unordered.clear();
        }
    }

    /// An `LDAR` right after an `STLR` (no memory access, label or branch between): herd's
    /// `[L]; po; [A]` orders them, and a `dmb sy` between them orders exactly that. Every
    /// access up to the store is ordered before it (`po; [L]`), the load before every later
    /// access (`[A]; po`), so each pair the fence orders is already in `ob` by transitivity.
    /// (Only `LDAR`: `LDAPR`'s `Q` is not ordered after a release store.)
    fn release_acquire(th: &mut Th) {
        if th.straight && std::mem::take(&mut th.release_last) {
            Self::fence(th, "dmb sy");
            th.unordered.clear();
        }
    }

    /// A write of `lv`: reads of its location no longer precede a later read of it in `lrs`.
    fn written(th: &mut Th, lv: &str) {
        let (x, _) = lv_loc(lv);
        for u in &mut th.unordered {
            u.lrs.retain(|l| l != x);
        }
    }

    /// A store of `lv` whose value or address comes from the reads `ids` (after
    /// [`Cx::written`]): they precede a later read of its location in `lrs` (herd's
    /// `(addr | data); lrs`).
    fn stored_from(th: &mut Th, lv: &str, ids: &BTreeSet<usize>) {
        let (x, plain) = lv_loc(lv);
        if !plain {
            return;
        }
        for u in th.unordered.iter_mut().filter(|u| ids.contains(&u.id)) {
            u.lrs.push(x.to_string());
        }
    }

    /// A read not yet ordered before everything after it, with its [`Unordered::id`].
    fn unordered_read(th: &mut Th, lrs: Vec<String>, noret: bool) -> usize {
        let id = th.reads;
        th.reads += 1;
        th.unordered.push(Unordered { id, lrs, noret });
        id
    }

    /// The reads the registers `regs` depend on (see [`Th::taint`]).
    fn taint_of<'r>(th: &Th, regs: impl IntoIterator<Item = &'r str>) -> BTreeSet<usize> {
        regs.into_iter().filter_map(|r| th.taint.get(r)).flatten().copied().collect()
    }

    /// A thread-private guess (`__VERIFIER_nondet_int()`) for the result of the instruction at
    /// `index`: the value is checked at the end of the thread (`checks`), so nothing depends on
    /// the reads it is computed from. Not in a thread that branches backwards, where the
    /// instruction may run more than once.
    fn guess(&mut self, th: &mut Th, text: &str, index: usize, loc: Loc) -> Result<String, Error> {
        if th.backward {
            return Err(unsupported(loc, format!("`{text}` in a thread that branches backwards (its result is a guess checked at the end of the thread)")));
        }
        let g = self.temp(th, format!("guess{index}"));
        th.body.push(format!("{g} = __VERIFIER_nondet_int();"));
        Ok(g)
    }

    /// The pick variable of the AArch64 `CAS`/`CSEL` at instruction `index`.
    fn pick(&mut self, th: &Th, index: usize) -> String {
        let v = format!("{}p{}_{index}", crate::normalize::PICK_PREFIX, th.tid);
        self.picks.insert(v.clone());
        v
    }

    fn opnd(&self, s: &str, loc: Loc) -> Result<Opnd, Error> {
        let s = s.trim();
        if s.starts_with('#') || s.starts_with('$') || s.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-') {
            return parse_imm(s).map(Opnd::Imm).ok_or_else(|| unsupported(loc, format!("immediate `{s}`")));
        }
        Ok(Opnd::Reg(self.reg(s, loc)?))
    }

    /// Value of an operand as a C expression (number).
    fn val(&mut self, th: &mut Th, s: &str, loc: Loc) -> Result<String, Error> {
        match self.opnd(s, loc)? {
            Opnd::Imm(v) => Ok(v.to_string()),
            Opnd::Reg(r) => self.int(th, &r, loc),
        }
    }

    /// The C lvalue of the location at `base + index` (registers) + `disp`.
    fn lvalue(&mut self, th: &mut Th, regs: &[String], disp: i64, loc: Loc) -> Result<String, Error> {
        if disp != 0 {
            return Err(unsupported(loc, format!("a non-zero displacement ({disp})")));
        }
        let mut base = None;
        let mut offs = vec![];
        for r in regs {
            match self.state(th, r) {
                RV::Addr { loc: x, off } => {
                    if base.is_some() {
                        return Err(unsupported(loc, "an address made of two addresses"));
                    }
                    base = Some(x);
                    offs.extend(off);
                }
                RV::Int => offs.push(self.int(th, r, loc)?),
                RV::Past { loc: x, bytes } => {
                    return Err(unsupported(loc, format!("an access through `{r}`, which post-indexing moved {bytes} bytes past `{x}` (weakc names locations, not byte offsets)")));
                }
            }
        }
        let Some(x) = base else {
            return Err(unsupported(loc, "an address computed without a register known to hold a location's address"));
        };
        Ok(if offs.is_empty() { x } else { format!("*(&{x} + {})", offs.join(" + ")) })
    }

    /// `rd = a OP b` where one side may be an address (address arithmetic is tracked).
    fn arith(&mut self, th: &mut Th, op: &str, rd: &str, a: &str, b: &str, loc: Loc) -> Result<(), Error> {
        let rd = self.reg(rd, loc)?;
        let oa = self.opnd(a, loc)?;
        let ob = self.opnd(b, loc)?;
        let is_addr = |cx: &Self, th: &Th, o: &Opnd| matches!(o, Opnd::Reg(r) if matches!(cx.state(th, r), RV::Addr { .. }));
        let (aa, ba) = (is_addr(self, th, &oa), is_addr(self, th, &ob));
        if op == "+" && (aa || ba) {
            if aa && ba {
                return Err(unsupported(loc, "adding two addresses"));
            }
            let (addr, other) = if aa { (oa, ob) } else { (ob, oa) };
            let Opnd::Reg(ar) = addr else { unreachable!("checked above") };
            let RV::Addr { loc: x, off } = self.state(th, &ar) else { unreachable!("checked above") };
            let t = Self::taint_of(th, [ar.as_str()].into_iter().chain(other.reg()));
            let ov = match other {
                Opnd::Imm(0) => None,
                Opnd::Imm(v) => return Err(unsupported(loc, format!("a non-zero displacement ({v})"))),
                Opnd::Reg(r) => Some(self.int(th, &r, loc)?),
            };
            let parts: Vec<String> = off.into_iter().chain(ov).collect();
            if rd == "ZR" || self.sym_regs.contains_key(&rd) {
                return Err(unsupported(loc, format!("writing register `{rd}`")));
            }
            let new_off = if parts.is_empty() {
                None
            } else {
                let v = self.def_name(th, &rd);
                th.body.push(format!("{v} = {};", parts.join(" + ")));
                Some(v)
            };
            Self::clobber(th, &rd);
            th.taint.insert(rd.clone(), t);
            th.regs.insert(rd, RV::Addr { loc: x, off: new_off });
            return Ok(());
        }
        let t = Self::taint_of(th, oa.reg().into_iter().chain(ob.reg()));
        let va = match oa {
            Opnd::Imm(v) => v.to_string(),
            Opnd::Reg(r) => self.int(th, &r, loc)?,
        };
        let vb = match ob {
            Opnd::Imm(v) => v.to_string(),
            Opnd::Reg(r) => self.int(th, &r, loc)?,
        };
        let d = self.def(th, &rd, loc)?;
        th.body.push(format!("{d} = {va} {op} {vb};"));
        if matches!(op, "^" | "-") && va == vb {
            th.zero.insert(rd.clone());
        }
        th.taint.insert(rd, t);
        Ok(())
    }

    /// `rd = rs` (an address is copied statically).
    fn mov(&mut self, th: &mut Th, rd: &str, src: &str, loc: Loc) -> Result<(), Error> {
        let rd = self.reg(rd, loc)?;
        if let Opnd::Reg(r) = self.opnd(src, loc)? {
            if let RV::Addr { .. } = self.state(th, &r) {
                return self.arith(th, "+", &rd, src, "#0", loc);
            }
        }
        let t = Self::taint_of(th, self.opnd(src, loc)?.reg());
        let v = self.val(th, src, loc)?;
        let d = self.def(th, &rd, loc)?;
        th.body.push(format!("{d} = {v};"));
        th.taint.insert(rd, t);
        Ok(())
    }

    /// A branch: unconditional, on the flags of the last compare (`Some((op, None))`), or on
    /// the given operands (`CBZ`).
    fn branch(&mut self, th: &mut Th, cmp: Option<(&str, Option<(String, String)>)>, label: &str, loc: Loc) -> Result<(), Error> {
        let label = label.trim();
        if !is_c_ident(label) {
            return Err(unsupported(loc, format!("branch target `{label}`")));
        }
        th.labels_used.push((label.to_string(), loc));
        let cond = match cmp {
            None => None,
            Some((op, opnds)) => {
                let (a, b) = match opnds {
                    Some(ab) => ab,
                    None => self.flags(th, "a conditional branch", loc)?,
                };
                Some(format!("{a} {op} {b}"))
            }
        };
        th.straight = false;
        match &cond {
            None => th.body.push(format!("goto {label};")),
            Some(c) => th.body.push(format!("if ({c}) goto {label};")),
        }
        if !th.backward {
            th.edges.entry(label.to_string()).or_default().push((th.body.len() - 1, cond.clone(), th.ver.clone()));
        }
        th.live = cond.is_some();
        Ok(())
    }

    fn fence(th: &mut Th, asm: &str) {
        th.body.push(format!("asm(\"{asm}\");"));
    }

    // ---------------------------------------------------------------- x86

    fn x86(&mut self, th: &mut Th, text: &str, loc: Loc) -> Result<(), Error> {
        let (m, rest) = split_mnemonic(text);
        let mu = m.to_ascii_uppercase();
        if mu == "LOCK" {
            let (m2, rest2) = split_mnemonic(rest);
            return self.x86_locked(th, &m2.to_ascii_uppercase(), rest2, loc);
        }
        let ops = operands(rest);
        let mem = |s: &str| s.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')).map(|x| x.trim().to_string());
        match (mu.as_str(), ops.len()) {
            ("MFENCE", 0) => Self::fence(th, "mfence"),
            // lfence/sfence order nothing TSO does not already order.
            ("LFENCE" | "SFENCE", 0) => {}
            ("MOV", 2) => match (mem(&ops[0]), mem(&ops[1])) {
                (Some(x), None) => {
                    let x = self.x86_loc(&x, loc)?;
                    let v = self.val(th, &ops[1], loc)?;
                    th.body.push(format!("{x} = {v};"));
                }
                (None, Some(x)) => {
                    let x = self.x86_loc(&x, loc)?;
                    let r = self.reg(&ops[0], loc)?;
                    let d = self.def(th, &r, loc)?;
                    th.body.push(format!("{d} = {x};"));
                }
                (None, None) => self.mov(th, &ops[0], &ops[1], loc)?,
                (Some(_), Some(_)) => return Err(unsupported(loc, "a memory-to-memory move")),
            },
            ("XCHG", 2) => {
                let (x, r) = match (mem(&ops[0]), mem(&ops[1])) {
                    (Some(x), None) => (x, &ops[1]),
                    (None, Some(x)) => (x, &ops[0]),
                    _ => return Err(unsupported(loc, "XCHG needs one memory and one register operand")),
                };
                let x = self.x86_loc(&x, loc)?;
                let r = self.reg(r, loc)?;
                let v = self.int(th, &r, loc)?;
                th.body.push(format!("{v} = __atomic_exchange_n(&{x}, {v}, __ATOMIC_SEQ_CST);"));
            }
            ("ADD" | "SUB" | "XOR" | "AND" | "OR", 2) if mem(&ops[0]).is_none() => {
                let op = match mu.as_str() {
                    "ADD" => "+",
                    "SUB" => "-",
                    "XOR" => "^",
                    "AND" => "&",
                    _ => "|",
                };
                if mem(&ops[1]).is_some() {
                    return Err(unsupported(loc, format!("`{m}` with a memory operand (use MOV)")));
                }
                self.arith(th, op, &ops[0], &ops[0], &ops[1], loc)?;
            }
            ("INC" | "DEC", 1) if mem(&ops[0]).is_none() => {
                self.arith(th, if mu == "INC" { "+" } else { "-" }, &ops[0], &ops[0], "$1", loc)?;
            }
            _ => return Err(unsupported(loc, format!("x86 instruction `{text}`"))),
        }
        Ok(())
    }

    fn x86_loc(&mut self, x: &str, loc: Loc) -> Result<String, Error> {
        check_loc_name(x, loc)?;
        self.mem.entry(x.to_string()).or_insert(0);
        Ok(x.to_string())
    }

    /// `LOCK`-prefixed read-modify-writes: sequentially consistent atomics.
    fn x86_locked(&mut self, th: &mut Th, m: &str, rest: &str, loc: Loc) -> Result<(), Error> {
        let ops = operands(rest);
        let x = ops
            .first()
            .and_then(|s| s.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')))
            .ok_or_else(|| unsupported(loc, format!("`LOCK {m}` without a memory destination")))?
            .trim()
            .to_string();
        let x = self.x86_loc(&x, loc)?;
        let sc = "__ATOMIC_SEQ_CST";
        match (m, ops.len()) {
            ("ADD" | "SUB" | "AND" | "OR" | "XOR", 2) => {
                let v = self.val(th, &ops[1], loc)?;
                let f = m.to_ascii_lowercase();
                th.body.push(format!("__atomic_fetch_{f}(&{x}, {v}, {sc});"));
            }
            ("INC" | "DEC", 1) => {
                let f = if m == "INC" { "add" } else { "sub" };
                th.body.push(format!("__atomic_fetch_{f}(&{x}, 1, {sc});"));
            }
            ("XADD", 2) => {
                let r = self.reg(&ops[1], loc)?;
                let v = self.int(th, &r, loc)?;
                th.body.push(format!("{v} = __atomic_fetch_add(&{x}, {v}, {sc});"));
            }
            ("XCHG", 2) => {
                let r = self.reg(&ops[1], loc)?;
                let v = self.int(th, &r, loc)?;
                th.body.push(format!("{v} = __atomic_exchange_n(&{x}, {v}, {sc});"));
            }
            ("CMPXCHG", 2) => {
                // Compares EAX with [x]: equal → [x] = src; otherwise EAX = [x]. Either way
                // EAX ends up holding the old value of [x].
                let r = self.reg(&ops[1], loc)?;
                let src = self.int(th, &r, loc)?;
                let eax = self.int(th, "EAX", loc)?;
                th.body.push(format!("{eax} = __sync_val_compare_and_swap(&{x}, {eax}, {src});"));
            }
            _ => return Err(unsupported(loc, format!("x86 instruction `LOCK {m} {rest}`"))),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- Power

    fn ppc(&mut self, th: &mut Th, text: &str, loc: Loc) -> Result<(), Error> {
        let (m, rest) = split_mnemonic(text);
        let ml = m.to_ascii_lowercase();
        let ops = operands(rest);
        // `d(rA)`
        let dform = |s: &str| -> Option<(i64, String)> {
            let (d, r) = s.trim().split_once('(')?;
            let r = r.strip_suffix(')')?;
            Some((if d.trim().is_empty() { 0 } else { parse_imm(d)? }, r.trim().to_string()))
        };
        match (ml.as_str(), ops.len()) {
            ("sync" | "hwsync", 0) => Self::fence(th, "sync"),
            ("lwsync", 0) => Self::fence(th, "lwsync"),
            ("isync", 0) => Self::fence(th, "isync"),
            ("eieio", 0) => Self::fence(th, "eieio"),
            ("li", 2) => self.mov(th, &ops[0], &format!("#{}", ops[1].trim()), loc)?,
            ("mr", 2) => self.mov(th, &ops[0], &ops[1], loc)?,
            ("lwz" | "ld", 2) => {
                let (d, ra) = dform(&ops[1]).ok_or_else(|| unsupported(loc, format!("address operand `{}`", ops[1])))?;
                let ra = self.reg(&ra, loc)?;
                let lv = self.lvalue(th, &[ra], d, loc)?;
                let rd = self.reg(&ops[0], loc)?;
                let d = self.def(th, &rd, loc)?;
                th.body.push(format!("{d} = {lv};"));
            }
            ("lwzx" | "ldx", 3) => {
                let (ra, rb) = (self.reg(&ops[1], loc)?, self.reg(&ops[2], loc)?);
                let lv = self.lvalue(th, &[ra, rb], 0, loc)?;
                let rd = self.reg(&ops[0], loc)?;
                let d = self.def(th, &rd, loc)?;
                th.body.push(format!("{d} = {lv};"));
            }
            ("stw" | "std", 2) => {
                let (d, ra) = dform(&ops[1]).ok_or_else(|| unsupported(loc, format!("address operand `{}`", ops[1])))?;
                let ra = self.reg(&ra, loc)?;
                let lv = self.lvalue(th, &[ra], d, loc)?;
                let v = self.val(th, &ops[0], loc)?;
                th.body.push(format!("{lv} = {v};"));
            }
            ("stwx" | "stdx", 3) => {
                let (ra, rb) = (self.reg(&ops[1], loc)?, self.reg(&ops[2], loc)?);
                let lv = self.lvalue(th, &[ra, rb], 0, loc)?;
                let v = self.val(th, &ops[0], loc)?;
                th.body.push(format!("{lv} = {v};"));
            }
            ("xor" | "add" | "and" | "or" | "sub", 3) => {
                let op = ppc_arith_op(&ml).expect("matched above");
                self.arith(th, op, &ops[0], &ops[1], &ops[2], loc)?;
            }
            // subf rD,rA,rB = rB - rA
            ("subf", 3) => self.arith(th, "-", &ops[0], &ops[2], &ops[1], loc)?,
            ("addi" | "xori" | "andi." | "ori", 3) => {
                let op = ppc_arith_op(&ml).expect("matched above");
                self.arith(th, op, &ops[0], &ops[1], &format!("#{}", ops[2].trim()), loc)?;
            }
            ("cmpw" | "cmpd", 2) | ("cmpwi" | "cmpdi", 2) => {
                let a = self.val(th, &ops[0], loc)?;
                let b = if ml.ends_with('i') { parse_imm(&ops[1]).map(|v| v.to_string()).ok_or_else(|| unsupported(loc, format!("immediate `{}`", ops[1])))? } else { self.val(th, &ops[1], loc)? };
                let regs: Vec<&str> = if ml.ends_with('i') { vec![&ops[0]] } else { vec![&ops[0], &ops[1]] };
                self.set_flags(th, a, b, &regs, loc);
            }
            ("beq" | "bne" | "blt" | "bgt" | "ble" | "bge", 1) => {
                let op = cond_op(&ml[1..]).expect("listed above");
                self.branch(th, Some((op, None)), &ops[0], loc)?;
            }
            ("b", 1) => self.branch(th, None, &ops[0], loc)?,
            _ => return Err(unsupported(loc, format!("Power instruction `{text}`"))),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- ARM / AArch64

    /// `[Rn]`, `[Rn,Rm]`, `[Rn,#0]`, `[Xn,Wm,SXTW]`, `[Xn,Xm,LSL #k]` as a C lvalue.
    fn arm_addr(&mut self, th: &mut Th, s: &str, loc: Loc) -> Result<String, Error> {
        let (regs, disp) = self.arm_addr_parts(s, loc)?;
        self.lvalue(th, &regs, disp, loc)
    }

    /// The registers (canonical) and the displacement of an ARM address operand.
    fn arm_addr_parts(&self, s: &str, loc: Loc) -> Result<(Vec<String>, i64), Error> {
        let inner = arm_address_inner(self.t.arch, s).ok_or_else(|| unsupported(loc, format!("address operand `{s}` (pre-indexing is not supported)")))?;
        let parts = operands(inner);
        let mut regs = vec![];
        let mut disp = 0;
        for (i, p) in parts.iter().enumerate() {
            let pu = p.to_ascii_uppercase();
            if i >= 2 && (pu == "SXTW" || pu == "UXTW" || pu == "SXTX" || pu == "UXTX" || pu.starts_with("LSL")) {
                continue; // extension/shift of an index expected to be 0
            }
            if p.starts_with('#') {
                disp += parse_imm(p).ok_or_else(|| unsupported(loc, format!("offset `{p}`")))?;
            } else {
                regs.push(self.reg(p, loc)?);
            }
        }
        Ok((regs, disp))
    }

    /// AArch64 post-indexing (`LDR W0,[X1],#4`, `STR W0,[X1],#4`): after the access, the base
    /// register holds the address `imm` bytes further.
    fn post_index(&mut self, th: &mut Th, mem: &str, imm: &str, loc: Loc) -> Result<(), Error> {
        let k = parse_imm(imm).ok_or_else(|| unsupported(loc, format!("post-index `{imm}`")))?;
        let inner = mem.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')).map(str::trim).unwrap_or_default();
        let r = self.reg(inner, loc).map_err(|_| unsupported(loc, format!("post-indexing with address operand `{mem}`")))?;
        if k == 0 {
            return Ok(());
        }
        if self.sym_regs.contains_key(&r) {
            return Err(unsupported(loc, format!("post-indexing symbolic register `{r}`")));
        }
        match self.state(th, &r) {
            RV::Addr { loc: x, .. } | RV::Past { loc: x, .. } => {
                Self::clobber(th, &r);
                th.regs.insert(r, RV::Past { loc: x, bytes: k });
                Ok(())
            }
            RV::Int => Err(unsupported(loc, format!("post-indexing `{r}`, which holds no known address"))),
        }
    }

    /// An AArch64 atomic (see [`Rmw`]). The read and the write are plain accesses: the
    /// instruction orders nothing beyond its acquire/release semantics, which are translated
    /// as for `LDAR`/`STLR`, and its atomicity is not kept (an over-approximation: another
    /// thread's write may come between them). A `CAS` selects its write through a *pick*
    /// ([`crate::normalize::PICK_PREFIX`]), not a control dependency, and its result is a
    /// guess checked at the end of the thread (see the module documentation).
    fn rmw(&mut self, th: &mut Th, text: &str, r: Rmw, ops: &[String], loc: Loc, pos: Pos) -> Result<(), Error> {
        if let Some(sz) = r.size {
            let what = if sz == 'B' { "byte" } else { "halfword" };
            return Err(unsupported(loc, format!("`{text}`: a {what} atomic (weakc models every location as a 32-bit int)")));
        }
        let dest = rmw_result_reg(r, ops).ok_or_else(|| unsupported(loc, format!("AArch64 instruction `{text}` (operands)")))?;
        let dest = self.reg(dest, loc)?;
        let (rs, rt) = if r.store_form { (self.reg(&ops[0], loc)?, "ZR".to_string()) } else { (self.reg(&ops[0], loc)?, self.reg(&ops[1], loc)?) };
        let lv = self.arm_addr(th, ops.last().expect("2 or 3 operands"), loc)?;
        // With the zero register as result the read is `NoRet`: no acquire, and later `DMB LD`s
        // do not order it.
        let noret = dest == "ZR";
        self.non_atomic.push(text.trim().to_string());
        let old = self.temp(th, format!("rmw{}", pos.index));
        th.release_last = false;
        th.body.push(format!("{old} = {lv};"));
        if r.acquire && !noret {
            Self::acquire(th, &lv, pos.first);
            Self::written(th, &lv);
        } else {
            // Its own write comes between earlier writes of the location and later reads.
            Self::written(th, &lv);
            let (x, plain) = lv_loc(&lv);
            let lrs = (r.op != RmwOp::Cas && !noret && plain).then(|| x.to_string());
            Self::unordered_read(th, lrs.into_iter().collect(), noret);
        }
        th.noret_before |= noret;
        let release = if r.release && pos.last { "asm(\"dmb sy\"); " } else { "" };
        let s = self.int(th, &rs, loc)?;
        match r.op {
            RmwOp::Cas => {
                let t = self.int(th, &rt, loc)?;
                let pick = self.pick(th, pos.index);
                th.body.push(format!("{pick} = {old} == {s};"));
                th.body.push(format!("if ({pick}) {{ {release}{lv} = {t}; }}"));
                if !noret {
                    // `Xs` receives the old value (unchanged on success). herd's dependencies
                    // into it are not plain data ones (a successful CAS's `Xs` orders no later
                    // read), so it is a guess, checked at the end of the thread.
                    let g = self.guess(th, text, pos.index, loc)?;
                    th.checks.push(format!("__CPROVER_assume({g} == {old});"));
                    let d = self.def(th, &rs, loc)?;
                    th.body.push(format!("{d} = {g};"));
                }
            }
            RmwOp::Swp | RmwOp::Ld(_) => {
                let new = match r.op {
                    RmwOp::Ld(a) => a.c(&old, &s),
                    _ => s,
                };
                th.body.push(format!("{release}{lv} = {new};"));
                if !noret {
                    let d = self.def(th, &rt, loc)?;
                    th.body.push(format!("{d} = {old};"));
                }
            }
        }
        Ok(())
    }

    fn arm(&mut self, th: &mut Th, text: &str, loc: Loc, pos: Pos) -> Result<(), Error> {
        let (m, rest) = split_mnemonic(text);
        let mu = m.to_ascii_uppercase();
        let rest_u = rest.trim().to_ascii_uppercase();
        let v8 = self.t.arch == LitArch::AArch64;
        let ops = operands(rest);
        if v8 {
            if let Some(r) = parse_rmw(&mu) {
                return self.rmw(th, text, r, &ops, loc, pos);
            }
        }
        match (mu.as_str(), ops.len()) {
            ("DMB", _) | ("DSB", _) => {
                let kind = rest_u.trim_start_matches("ISH").trim_start_matches("OSH").trim_start_matches("NSH");
                let f = match kind {
                    "" | "SY" => {
                        if mu == "DSB" {
                            "dsb"
                        } else if v8 {
                            "dmb sy"
                        } else {
                            "dmb"
                        }
                    }
                    "ST" => "dmb st",
                    "LD" if th.noret_before => {
                        // It would order the read of an earlier atomic without result, which
                        // herd's `[R \ NoRet]; po; [dmb.ld]` does not: left out (orders less).
                        th.body.push(format!("/* {text}: left out, an earlier atomic's read is not ordered by it */"));
                        return Ok(());
                    }
                    "LD" => "dmb ld",
                    _ => return Err(unsupported(loc, format!("barrier `{text}`"))),
                };
                match f {
                    "dmb ld" => th.unordered.retain(|u| u.noret),
                    "dmb st" => {}
                    _ => th.unordered.clear(),
                }
                Self::fence(th, f);
            }
            ("ISB", _) => Self::fence(th, "isb"),
            ("NOP", 0) => {}
            ("MOV", 2) => self.mov(th, &ops[0], &ops[1], loc)?,
            ("LDR" | "LDAR" | "LDAPR", 2) | ("LDR", 3) => {
                if mu != "LDR" && !v8 || ops.len() == 3 && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let lv = self.arm_addr(th, &ops[1], loc)?;
                let rd = self.reg(&ops[0], loc)?;
                let d = self.def(th, &rd, loc)?;
                if mu == "LDAR" {
                    Self::release_acquire(th);
                }
                th.release_last = false;
                th.body.push(format!("{d} = {lv};"));
                if mu == "LDR" {
                    let id = Self::unordered_read(th, vec![], false);
                    th.taint.insert(rd.clone(), BTreeSet::from([id]));
                } else if v8 {
                    Self::acquire(th, &lv, pos.first);
                }
                if ops.len() == 3 {
                    self.post_index(th, &ops[1], &ops[2], loc)?;
                }
            }
            ("STR" | "STLR", 2) | ("STR", 3) => {
                if mu != "STR" && !v8 || ops.len() == 3 && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let (addr_regs, disp) = self.arm_addr_parts(&ops[1], loc)?;
                let lv = self.lvalue(th, &addr_regs, disp, loc)?;
                let v = self.val(th, &ops[0], loc)?;
                if mu == "STLR" && pos.last {
                    Self::fence(th, "dmb sy");
                }
                th.body.push(format!("{lv} = {v};"));
                th.release_last = mu == "STLR";
                // (indexed only by registers that hold zero: the base location itself)
                let at = if addr_regs.iter().all(|r| matches!(self.state(th, r), RV::Addr { off: None, .. }) || th.zero.contains(r)) { lv_loc(&lv).0.to_string() } else { lv.clone() };
                Self::written(th, &at);
                let value = self.opnd(&ops[0], loc)?;
                let ids = Self::taint_of(th, addr_regs.iter().map(String::as_str).chain(value.reg()));
                Self::stored_from(th, &at, &ids);
                if ops.len() == 3 {
                    self.post_index(th, &ops[1], &ops[2], loc)?;
                }
            }
            ("EOR" | "ADD" | "SUB" | "AND" | "ORR", 3) => {
                let op = match mu.as_str() {
                    "EOR" => "^",
                    "ADD" => "+",
                    "SUB" => "-",
                    "AND" => "&",
                    _ => "|",
                };
                self.arith(th, op, &ops[0], &ops[1], &ops[2], loc)?;
            }
            ("CMP", 2) => {
                let a = self.val(th, &ops[0], loc)?;
                let b = self.val(th, &ops[1], loc)?;
                self.set_flags(th, a, b, &[&ops[0], &ops[1]], loc);
            }
            // CSEL Xd,Xn,Xm,cond: Xd = cond ? Xn : Xm. herd orders no later read after the
            // reads the flags come from (they select: `iico_ctrl`, a pick dependency), nor
            // after those of the register not selected, so Xd is a guess checked at the end
            // of the thread: the selection and both operands are kept in temporaries.
            ("CSEL", 4) if v8 => {
                let op = cond_op(&ops[3].trim().to_ascii_lowercase()).ok_or_else(|| unsupported(loc, format!("CSEL condition `{}`", ops[3].trim())))?;
                let (a, b) = self.flags(th, "CSEL", loc)?;
                let n = self.val(th, &ops[1], loc)?;
                let m = self.val(th, &ops[2], loc)?;
                let rd = self.reg(&ops[0], loc)?;
                let k = pos.index;
                let (c, tn, tm) = (self.temp(th, format!("cond{k}")), self.temp(th, format!("then{k}")), self.temp(th, format!("else{k}")));
                th.body.push(format!("{c} = {a} {op} {b};"));
                th.body.push(format!("{tn} = {n};"));
                th.body.push(format!("{tm} = {m};"));
                let g = self.guess(th, text, k, loc)?;
                th.checks.push(format!("__CPROVER_assume({g} == ({c} ? {tn} : {tm}));"));
                let d = self.def(th, &rd, loc)?;
                th.body.push(format!("{d} = {g};"));
            }
            ("B", 1) => self.branch(th, None, &ops[0], loc)?,
            // CBZ/CBNZ compare a register with zero without setting the flags.
            ("CBZ" | "CBNZ", 2) if v8 => {
                let v = self.val(th, &ops[0], loc)?;
                self.branch(th, Some((if mu == "CBZ" { "==" } else { "!=" }, Some((v, "0".into())))), &ops[1], loc)?;
            }
            (b, 1) if cond_op(b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase().as_str()).is_some() && b.starts_with('B') => {
                let op = cond_op(&b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase()).expect("checked");
                self.branch(th, Some((op, None)), &ops[0], loc)?;
            }
            _ => return Err(unsupported(loc, format!("{} instruction `{text}`", self.t.arch.herd_name()))),
        }
        Ok(())
    }
}

pub(crate) fn cond_op(c: &str) -> Option<&'static str> {
    Some(match c {
        "eq" => "==",
        "ne" => "!=",
        "lt" => "<",
        "gt" => ">",
        "le" => "<=",
        "ge" => ">=",
        _ => return None,
    })
}

pub(crate) fn split_mnemonic(text: &str) -> (&str, &str) {
    let t = text.trim();
    match t.find(char::is_whitespace) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    }
}

/// The C operator of a PPC register or immediate arithmetic mnemonic (`xor`, `addi`, …),
/// shared by the translator and the axiomatic engine's interpreter.
pub(crate) fn ppc_arith_op(mnemonic: &str) -> Option<&'static str> {
    Some(match mnemonic {
        "xor" | "xori" => "^",
        "add" | "addi" => "+",
        "and" | "andi." => "&",
        "or" | "ori" => "|",
        "sub" => "-",
        _ => return None,
    })
}
