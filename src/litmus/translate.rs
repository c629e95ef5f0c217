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
//! lies on the other side. Threads with a backward branch get no strengthening.
//!
//! Unsupported instructions (AArch64 `CAS`, `SWP`, `LDADD`, `CSEL`, conditional execution,
//! non-zero displacements, …) are [`Error::Unsupported`] at their cell in the litmus file.

use super::parse::{LitArch, Litmus, Place, Prop, Value};
use crate::source::{Error, Loc};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

/// The C program for a litmus test.
#[derive(Clone, Debug)]
pub struct CTest {
    pub c: String,
    pub threads: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum RV {
    /// A number (the register's C variable holds it).
    Int,
    /// The address of `loc`, plus the value of the C expression `off` when present.
    Addr { loc: String, off: Option<String> },
}

struct Cx<'a> {
    t: &'a Litmus,
    mem: BTreeMap<String, i64>,
    /// (thread, canonical register) → initial value, for every register declared.
    regs: BTreeMap<(usize, String), i64>,
    /// ARM symbolic registers without a thread (`%x0=x`).
    sym_regs: HashMap<String, String>,
}

struct Th {
    tid: usize,
    regs: HashMap<String, RV>,
    /// Operands of the last compare.
    flags: Option<(String, String)>,
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
    let mut cx = Cx { t, mem: BTreeMap::new(), regs: BTreeMap::new(), sym_regs: HashMap::new() };
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
    for (tid, thread) in t.threads.iter().enumerate() {
        let mut th = Th {
            tid,
            regs: std::mem::take(&mut init_regs[tid]),
            flags: None,
            body: vec![],
            labels_defined: BTreeSet::new(),
            labels_used: vec![],
        };
        // Acquire/release strengthening needs a thread without backward branches.
        let (first_acc, last_acc, backward) = scan(t.arch, &thread.code);
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
                th.body.push(format!("{l}: ;"));
                text = rest.trim();
            }
            if text.is_empty() {
                continue;
            }
            let strengthen = !backward && t.arch == LitArch::AArch64;
            let pos = Pos { first: strengthen && Some(k) == first_acc, last: strengthen && Some(k) == last_acc };
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
        final_regs.push(th.regs.clone());
        bodies.push(th.body);
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
                if let Some(RV::Addr { loc, .. }) = final_regs[tid].get(&r) {
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
    let prop = c_prop(t, &t.cond.prop);
    let fence = full_fence(t.arch);
    // Emit.
    let mut c = String::new();
    let _ = writeln!(c, "/* {} {} — translated from herd litmus by weakc (ESOP 2013 conventions) */", t.arch.herd_name(), t.name);
    let _ = writeln!(c, "int __unbuffered_cnt = 0;");
    for ((tid, r), v) in &cx.regs {
        let _ = writeln!(c, "int {} = {v};", cvar(*tid, r));
    }
    for (x, v) in &cx.mem {
        let _ = writeln!(c, "int {x} = {v};");
    }
    for (tid, body) in bodies.iter().enumerate() {
        let _ = writeln!(c, "\nvoid *P{tid}(void *arg) {{");
        for l in body {
            let _ = writeln!(c, "  {l}");
        }
        let _ = writeln!(c, "  asm(\"{fence}\");\n  __unbuffered_cnt++;\n  return 0;\n}}");
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
    Ok(CTest { c, threads: t.threads.len() })
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

fn c_prop(t: &Litmus, p: &Prop) -> String {
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
                    format!("{} == {v}", cvar(thread.unwrap_or(0) as usize, &r))
                }
            }
        }
        Prop::Not(a) => format!("!({})", c_prop(t, a)),
        Prop::And(a, b) => format!("({} && {})", c_prop(t, a), c_prop(t, b)),
        Prop::Or(a, b) => format!("({} || {})", c_prop(t, a), c_prop(t, b)),
    }
}

/// First and last memory-access instruction and whether some branch goes backwards.
fn scan(arch: LitArch, code: &[super::parse::Instr]) -> (Option<usize>, Option<usize>, bool) {
    let mut first = None;
    let mut last = None;
    let mut labels = BTreeSet::new();
    let mut backward = false;
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
        let mu = m.to_ascii_uppercase();
        if mu.starts_with('B') || mu.starts_with("CB") {
            let target = text.rsplit([',', ' ']).next().unwrap_or("").trim();
            if labels.contains(target) {
                backward = true;
            }
        }
    }
    (first, last, backward)
}

#[derive(Copy, Clone)]
struct Pos {
    /// First memory access of a thread without backward branches.
    first: bool,
    last: bool,
}

enum Opnd {
    Imm(i64),
    Reg(String),
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
                Ok(cvar(th.tid, r))
            }
            RV::Addr { loc: x, .. } => Err(unsupported(loc, format!("register `{r}` holds the address of `{x}`; using it as a number"))),
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
        th.regs.insert(r.to_string(), RV::Int);
        self.regs.entry((th.tid, r.to_string())).or_insert(0);
        Ok(cvar(th.tid, r))
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
                let v = cvar(th.tid, &rd);
                self.regs.entry((th.tid, rd.clone())).or_insert(0);
                th.body.push(format!("{v} = {};", parts.join(" + ")));
                Some(v)
            };
            th.regs.insert(rd, RV::Addr { loc: x, off: new_off });
            return Ok(());
        }
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
        let v = self.val(th, src, loc)?;
        let d = self.def(th, &rd, loc)?;
        th.body.push(format!("{d} = {v};"));
        Ok(())
    }

    fn branch(&mut self, th: &mut Th, cmp: Option<&str>, label: &str, loc: Loc) -> Result<(), Error> {
        let label = label.trim();
        if !is_c_ident(label) {
            return Err(unsupported(loc, format!("branch target `{label}`")));
        }
        th.labels_used.push((label.to_string(), loc));
        match cmp {
            None => th.body.push(format!("goto {label};")),
            Some(op) => {
                let (a, b) = th.flags.clone().ok_or_else(|| unsupported(loc, "a conditional branch without a preceding compare"))?;
                th.body.push(format!("if ({a} {op} {b}) goto {label};"));
            }
        }
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
                th.flags = Some((a, b));
            }
            ("beq" | "bne" | "blt" | "bgt" | "ble" | "bge", 1) => {
                let op = cond_op(&ml[1..]).expect("listed above");
                self.branch(th, Some(op), &ops[0], loc)?;
            }
            ("b", 1) => self.branch(th, None, &ops[0], loc)?,
            _ => return Err(unsupported(loc, format!("Power instruction `{text}`"))),
        }
        Ok(())
    }

    // ---------------------------------------------------------------- ARM / AArch64

    fn arm(&mut self, th: &mut Th, text: &str, loc: Loc, pos: Pos) -> Result<(), Error> {
        let (m, rest) = split_mnemonic(text);
        let mu = m.to_ascii_uppercase();
        let rest_u = rest.trim().to_ascii_uppercase();
        let v8 = self.t.arch == LitArch::AArch64;
        let ops = operands(rest);
        // `[Rn]`, `[Rn,Rm]`, `[Rn,#0]`, `[Xn,Wm,SXTW]`, `[Xn,Xm,LSL #k]`
        let addr = |cx: &mut Self, th: &mut Th, s: &str| -> Result<String, Error> {
            let inner = s.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')).ok_or_else(|| unsupported(loc, format!("address operand `{s}` (post/pre-indexing is not supported)")))?;
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
                    regs.push(cx.reg(p, loc)?);
                }
            }
            cx.lvalue(th, &regs, disp, loc)
        };
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
                    "LD" => "dmb ld",
                    _ => return Err(unsupported(loc, format!("barrier `{text}`"))),
                };
                Self::fence(th, f);
            }
            ("ISB", _) => Self::fence(th, "isb"),
            ("NOP", 0) => {}
            ("MOV", 2) => self.mov(th, &ops[0], &ops[1], loc)?,
            ("LDR" | "LDAR" | "LDAPR", 2) => {
                if mu != "LDR" && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let lv = addr(self, th, &ops[1])?;
                let rd = self.reg(&ops[0], loc)?;
                let d = self.def(th, &rd, loc)?;
                th.body.push(format!("{d} = {lv};"));
                if mu != "LDR" && pos.first {
                    Self::fence(th, "dmb ld");
                }
            }
            ("STR" | "STLR", 2) => {
                if mu != "STR" && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let lv = addr(self, th, &ops[1])?;
                let v = self.val(th, &ops[0], loc)?;
                if mu == "STLR" && pos.last {
                    Self::fence(th, "dmb sy");
                }
                th.body.push(format!("{lv} = {v};"));
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
                th.flags = Some((a, b));
            }
            ("B", 1) => self.branch(th, None, &ops[0], loc)?,
            ("CBZ" | "CBNZ", 2) if v8 => {
                let v = self.val(th, &ops[0], loc)?;
                th.flags = Some((v, "0".into()));
                self.branch(th, Some(if mu == "CBZ" { "==" } else { "!=" }), &ops[1], loc)?;
            }
            (b, 1) if cond_op(b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase().as_str()).is_some() && b.starts_with('B') => {
                let op = cond_op(&b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase()).expect("checked");
                self.branch(th, Some(op), &ops[0], loc)?;
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
