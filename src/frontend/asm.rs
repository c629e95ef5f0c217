//! GCC inline assembly: fence instructions, and the memory idioms lock-free libraries write
//! in extended asm (Concurrency Kit's `ck_pr.h`, Linux's barriers and atomics), each
//! lowered to the IR with the instruction's exact effect.
//!
//! An atomic idiom becomes an [`Rmw`] whose [`MemOrder`] is chosen so that
//! [`crate::atomics`] compiles it, through the architecture's row of
//! [`crate::arch::c11`], back to the very instruction sequence that was written (see
//! [`Idiom::Rmw`]). That only holds on the architecture the assembly is written for: with
//! `--target` (or the memory model's machine) of another family, memory idioms are treated
//! as unknown assembly. Fence-only assembly keeps its meaning everywhere: the architecture
//! tables map foreign fences conservatively (never ordering more than the instruction),
//! which is how the ESOP suite runs Power tests on TSO.
//!
//! Unknown assembly is a warning, not an error, and is treated soundly for the values it
//! may produce: memory outputs are written with nondeterministic values (`+m` ones read
//! first), memory inputs are read, register outputs become nondeterministic, and it orders
//! nothing.

use super::lower::{named_children, Lowerer, R};
use super::preprocess::Target;
use crate::ir::*;
use tree_sitter::Node;

/// The instruction set an idiom is written in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Family {
    X86,
    Power,
    /// ARMv7 only (`ldrex`/`strex`).
    Arm32,
    /// AArch64 only (`ldxr`/`stxr`, `ldar`, `stlr`).
    Arm64,
    /// Valid on both ARM targets (`ldr`, `str`).
    Arm,
    /// SPARC V9 (`cas`, `casx`).
    Sparc,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::X86 => "x86",
            Family::Power => "Power",
            Family::Arm32 => "ARMv7",
            Family::Arm64 => "AArch64",
            Family::Arm => "ARM",
            Family::Sparc => "SPARC",
        }
    }
    fn runs_on(self, t: Target) -> bool {
        matches!(
            (self, t),
            (Family::X86, Target::X86_64)
                | (Family::Power, Target::Ppc64le)
                | (Family::Arm32 | Family::Arm, Target::Armv7a)
                | (Family::Arm64 | Family::Arm, Target::Aarch64)
                | (Family::Sparc, Target::Sparc64)
        )
    }
}

/// One operand of an extended asm statement, before lowering.
struct OpInfo<'t> {
    name: Option<String>,
    cons: String,
    out: bool,
    /// `+`: read and written.
    plus: bool,
    /// A memory operand (`m`, `o`, `V`; `Q` on ARM, `Z` on Power): the asm accesses the
    /// lvalue itself.
    mem: bool,
    /// An input tied to output `k` by a matching constraint (`"0"`).
    tie: Option<usize>,
    node: Node<'t>,
}

impl OpInfo<'_> {
    /// Register class letters of the constraint (modifiers removed).
    fn letters(&self) -> String {
        self.cons.chars().filter(|c| !matches!(c, '=' | '+' | '&' | '%' | '*' | '?' | '!')).collect()
    }
}

/// The lowered operands.
#[derive(Default, Clone)]
struct LOp {
    /// Memory operands: the address of the lvalue.
    ptr: Option<Expr>,
    /// Register outputs: where the result goes.
    lv: Option<Expr>,
    /// The value the asm starts with in the operand's register (inputs, `+` outputs, tied
    /// outputs).
    val: Option<Expr>,
}

/// An instruction of the template, or a label.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Label(String),
    Ins { m: String, args: Vec<String>, lock: bool },
}

/// A memory access of an idiom.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Mem {
    /// A memory operand.
    Op(usize),
    /// Through the pointer held by a register operand (`(%1)`, `[%1]`, `0,%1`).
    Ptr(usize),
}

/// A value an idiom uses.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Val {
    Op(usize),
    Imm(i128),
    /// `~operand` (Power `andc`, ARM `bic`).
    NotOp(usize),
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Flag {
    /// `setz` after an arithmetic instruction: the new value is zero.
    Zero,
    NonZero,
    /// `setz` after `cmpxchg`, or `=@ccz`: the exchange happened.
    Success,
}

#[derive(Copy, Clone, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Swap,
    Cas,
}

#[derive(Clone, Debug, PartialEq)]
enum Idiom {
    /// Only barriers (possibly none: `""` is a compiler barrier).
    Fences(Vec<Fence>),
    /// No instruction with operands (`asm("" : "+r"(x))`): register outputs keep or take
    /// their tied inputs' values.
    Empty,
    /// An instruction that raises an illegal-instruction or trap signal, which ends the
    /// program (x86 `ud2`, ARM `udf`, Power `trap` or a word with primary opcode 0, which is
    /// no instruction: liburcu's `.long 0xd00d00` after its size switch): `__builtin_trap`.
    Trap(Family),
    Load { mem: Mem, out: usize, order: Option<MemOrder>, bytes: Option<u64>, family: Family },
    Store { mem: Mem, val: Val, order: Option<MemOrder>, bytes: Option<u64>, family: Family },
    /// A read-modify-write. `order` is what reproduces the instruction through the C11
    /// mapping of `family`'s architecture: x86 locked instructions are `SeqCst` (a locked
    /// RMW with `mfence` around it, X86 rows); Power `lwarx`/`stwcx.` loops are `Relaxed`, or
    /// `Acquire` with a trailing `isync` (POWER row `loop; isync`); ARMv7 `ldrex`/`strex`
    /// `Relaxed`; AArch64 `ldxr`/`stxr` `Relaxed`, `ldaxr` `Acquire`, `stlxr` `Release`,
    /// both `AcqRel` (AARCH64 rows). Explicit barriers in the same asm are `pre`/`post`.
    Rmw {
        op: Op,
        mem: Mem,
        val: Val,
        expected: Option<Val>,
        /// Output receiving the old value / the new value.
        old: Option<usize>,
        new: Option<usize>,
        flag: Option<(usize, Flag)>,
        order: MemOrder,
        /// False for an x86 memory-destination instruction without `lock`: a plain read
        /// and a plain write.
        atomic: bool,
        bytes: Option<u64>,
        pre: Vec<Fence>,
        post: Vec<Fence>,
        /// `post` executes only when a compare-and-swap succeeded (Linux puts the exit
        /// barrier before the failure label).
        post_on_success: bool,
        family: Family,
    },
}

impl Idiom {
    fn family(&self) -> Option<Family> {
        match self {
            Idiom::Fences(_) | Idiom::Empty => None,
            Idiom::Trap(family) => Some(*family),
            Idiom::Load { family, .. } | Idiom::Store { family, .. } | Idiom::Rmw { family, .. } => Some(*family),
        }
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = s.strip_prefix("0x") { i128::from_str_radix(h, 16).ok()? } else { s.parse::<i128>().ok()? };
    Some(if neg { -v } else { v })
}

/// The template with operand references made `%N` (names resolved, modifiers dropped; the
/// Power `%U`/`%X` update/index modifiers vanish), `%%` made `%`, comments removed,
/// lower-cased, split into instructions and labels.
fn tokenize(template: &str, ops: &[OpInfo], extended: bool) -> Result<Vec<Tok>, String> {
    let mut s = String::new();
    let cs: Vec<char> = template.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c != '%' || !extended {
            s.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let Some(&n) = cs.get(i) else { return Err("`%` at the end of the template".into()) };
        if n == '%' {
            s.push('%');
            i += 1;
            continue;
        }
        if n == '=' {
            s.push('0');
            i += 1;
            continue;
        }
        let mut modifier = None;
        if n.is_ascii_alphabetic() && matches!(cs.get(i + 1), Some(d) if d.is_ascii_digit() || *d == '[') {
            modifier = Some(n);
            i += 1;
        }
        let idx = match cs.get(i) {
            Some('[') => {
                let end = cs[i..].iter().position(|&c| c == ']').ok_or("unterminated `%[`")? + i;
                let name: String = cs[i + 1..end].iter().collect();
                i = end + 1;
                ops.iter().position(|o| o.name.as_deref() == Some(name.as_str())).ok_or_else(|| format!("no operand named `{name}`"))?
            }
            Some(d) if d.is_ascii_digit() => {
                let start = i;
                while cs.get(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
                let k: String = cs[start..i].iter().collect();
                k.parse::<usize>().map_err(|e| e.to_string())?
            }
            _ => return Err(format!("unknown operand reference `%{n}`")),
        };
        if idx >= ops.len() {
            return Err(format!("operand %{idx} does not exist ({} operand(s))", ops.len()));
        }
        if !matches!(modifier, Some('U' | 'X')) {
            s.push_str(&format!("%{idx}"));
        }
    }
    let mut toks = Vec::new();
    let mut lock = false;
    for line in s.to_ascii_lowercase().lines() {
        let line = match line.find("//") {
            Some(p) => &line[..p],
            None => line,
        };
        // `#` starts a comment (x86, Power) unless it is an ARM immediate `#1`.
        let line = match line.char_indices().find(|&(p, c)| c == '#' && !line[p + 1..].starts_with(|d: char| d.is_ascii_alphanumeric() || d == '-')) {
            Some((p, _)) => &line[..p],
            None => line,
        };
        for part in line.split(';') {
            let mut rest = part.trim();
            // labels `1:` / `loop:`
            while let Some(p) = rest.find(':') {
                let (l, r) = rest.split_at(p);
                if !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    toks.push(Tok::Label(l.to_string()));
                    rest = r[1..].trim();
                } else {
                    break;
                }
            }
            if rest.is_empty() {
                continue;
            }
            let (m, a) = match rest.find(char::is_whitespace) {
                Some(p) => (&rest[..p], rest[p..].trim()),
                None => (rest, ""),
            };
            if m == "lock" {
                if a.is_empty() {
                    lock = true;
                    continue;
                }
                let (m2, a2) = match a.find(char::is_whitespace) {
                    Some(p) => (&a[..p], a[p..].trim()),
                    None => (a, ""),
                };
                toks.push(Tok::Ins { m: m2.to_string(), args: split_args(a2), lock: true });
                lock = false;
                continue;
            }
            toks.push(Tok::Ins { m: m.to_string(), args: split_args(a), lock });
            lock = false;
        }
    }
    if lock {
        return Err("`lock` prefix without an instruction".into());
    }
    Ok(toks)
}

fn split_args(a: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in a.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `%N` → N.
fn op_ref(a: &str) -> Option<usize> {
    a.strip_prefix('%')?.parse().ok()
}

/// Operand-level view of the template's arguments.
struct Ctx<'a, 't> {
    ops: &'a [OpInfo<'t>],
}

impl Ctx<'_, '_> {
    fn is_mem(&self, i: usize) -> bool {
        self.ops[i].mem
    }
    /// A memory access named by an argument: a memory operand, or a pointer register in an
    /// addressing form (`(%1)`, `0(%1)`, `[%1]`, `[%1,#0]`).
    fn mem(&self, a: &str) -> Option<Mem> {
        if let Some(i) = op_ref(a) {
            return self.is_mem(i).then_some(Mem::Op(i));
        }
        let inner = if let Some(p) = a.find('(') {
            let off = &a[..p];
            if !(off.is_empty() || parse_int(off) == Some(0)) {
                return None;
            }
            a[p + 1..].strip_suffix(')')?
        } else {
            let b = a.strip_prefix('[')?.strip_suffix(']')?;
            match b.split_once(',') {
                Some((r, off)) if parse_int(off.trim_start_matches('#')) == Some(0) => r,
                Some(_) => return None,
                None => b,
            }
        };
        let i = op_ref(inner)?;
        (!self.is_mem(i)).then_some(Mem::Ptr(i))
    }
    /// A register operand.
    fn reg(&self, a: &str) -> Option<usize> {
        op_ref(a).filter(|&i| !self.is_mem(i))
    }
    /// A register output.
    fn out(&self, a: &str) -> Option<usize> {
        self.reg(a).filter(|&i| self.ops[i].out)
    }
    /// A value: register operand or immediate (`$1`, `#1`, `1`).
    fn val(&self, a: &str) -> Option<Val> {
        if let Some(i) = self.reg(a) {
            return Some(Val::Op(i));
        }
        parse_int(a.trim_start_matches(['$', '#'])).map(Val::Imm)
    }
    /// x86 stack slot (`0(%rsp)`, `-4(%esp)`): thread-local memory.
    fn stack(a: &str) -> bool {
        a.ends_with("(%rsp)") || a.ends_with("(%esp)")
    }
}

/// Size in bytes of an x86 mnemonic's suffix, and the mnemonic without it.
fn x86_base(m: &str) -> (&str, Option<u64>) {
    const BASES: [&str; 17] = ["mov", "xchg", "xadd", "cmpxchg", "inc", "dec", "add", "sub", "and", "or", "xor", "not", "neg", "bts", "btr", "btc", "setz"];
    if BASES.contains(&m) {
        return (m, None);
    }
    for (suf, n) in [("b", 1), ("w", 2), ("l", 4), ("q", 8)] {
        if let Some(b) = m.strip_suffix(suf) {
            if BASES.contains(&b) {
                return (b, Some(n));
            }
        }
    }
    (m, None)
}

fn arith(m: &str) -> Option<Op> {
    Some(match m {
        "add" => Op::Add,
        "sub" => Op::Sub,
        "and" => Op::And,
        "or" => Op::Or,
        "xor" => Op::Xor,
        _ => return None,
    })
}

/// Fence instructions every family writes the same way as before: x86, Power, ARM, SPARC.
fn fence_of(m: &str, args: &[String], lock: bool) -> Option<Fence> {
    let a0 = args.first().map(String::as_str).unwrap_or("");
    Some(match (m, args.len()) {
        ("mfence", 0) => Fence::Mfence,
        // x86-TSO: loads are not reordered with loads, nor stores with stores (write-back
        // memory): lfence and sfence order nothing TSO does not.
        ("lfence" | "sfence", 0) => Fence::Compiler,
        // Linux's smp_mb() on x86-64: a locked no-op on the stack, a full barrier
        ("add" | "addl" | "addq" | "or" | "orl" | "orq", 2) if lock && Ctx::stack(&args[1]) => Fence::Mfence,
        ("sync" | "hwsync", 0) => Fence::Sync,
        ("sync", 1) if a0 == "0" => Fence::Sync,
        ("lwsync", 0) => Fence::Lwsync,
        ("sync", 1) if a0 == "1" => Fence::Lwsync,
        ("isync", 0) => Fence::Isync,
        ("eieio", 0) => Fence::Eieio,
        ("dmb" | "dsb", 0 | 1) => {
            let st = a0.ends_with("st");
            let ld = a0.ends_with("ld");
            let known = matches!(a0.trim_end_matches("st").trim_end_matches("ld"), "" | "sy" | "ish" | "nsh" | "osh");
            if !known {
                return None;
            }
            // the load and store variants only order what their dmb variant orders; a full
            // dsb orders at least what a dmb does
            match (st, ld, m) {
                (true, _, _) => Fence::DmbSt,
                (_, true, _) => Fence::DmbLd,
                (_, _, "dmb") => Fence::Dmb,
                _ => Fence::Dsb,
            }
        }
        ("isb", 0) => Fence::Isb,
        ("isb", 1) if a0 == "sy" => Fence::Isb,
        _ => return None,
    })
}

/// x86 instructions that do nothing to memory or ordering.
fn x86_noop(m: &str) -> bool {
    matches!(m, "pause" | "nop" | "rep") || m.starts_with("prefetch")
}

fn recognize(toks: &[Tok], ops: &[OpInfo], target: Option<Target>) -> Option<Idiom> {
    let c = Ctx { ops };
    let x86_target = matches!(target, None | Some(Target::X86_64));
    let ins: Vec<(&str, &[String], bool)> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Ins { m, args, lock } => Some((m.as_str(), args.as_slice(), *lock)),
            Tok::Label(_) => None,
        })
        .filter(|(m, _, _)| !(x86_target && x86_noop(m)))
        .collect();
    let has_labels = toks.iter().any(|t| matches!(t, Tok::Label(_)));
    if ins.is_empty() {
        return Some(if ops.is_empty() { Idiom::Fences(vec![Fence::Compiler]) } else { Idiom::Empty });
    }
    if !has_labels {
        if let Some(fs) = ins.iter().map(|(m, a, l)| fence_of(m, a, *l)).collect::<Option<Vec<_>>>() {
            return Some(Idiom::Fences(fs));
        }
    }
    if let [(m, args, false)] = ins.as_slice() {
        if let Some(f) = trap(m, args) {
            return Some(Idiom::Trap(f));
        }
    }
    x86(&c, &ins, has_labels).or_else(|| power(&c, toks)).or_else(|| arm(&c, toks)).or_else(|| sparc(&c, &ins, has_labels))
}

fn trap(m: &str, args: &[String]) -> Option<Family> {
    match (m, args) {
        ("ud2" | "ud2a", []) => Some(Family::X86),
        ("trap", []) => Some(Family::Power),
        ("tw", [to, ..]) if parse_int(to) == Some(31) => Some(Family::Power),
        (".long", [w]) if parse_int(w).is_some_and(|w| (0..1 << 32).contains(&w) && w >> 26 == 0) => Some(Family::Power),
        ("udf", _) => Some(Family::Arm),
        _ => None,
    }
}

fn x86(c: &Ctx, ins: &[(&str, &[String], bool)], has_labels: bool) -> Option<Idiom> {
    if has_labels {
        return None;
    }
    let (mut ins, mut flag) = (ins.to_vec(), None);
    if let Some((m, a, _)) = ins.last() {
        let f = match *m {
            "setz" | "sete" => Some(Flag::Zero),
            "setnz" | "setne" => Some(Flag::NonZero),
            _ => None,
        };
        if let (Some(f), [o]) = (f, a) {
            flag = Some((c.out(o)?, f));
            ins.pop();
        }
    }
    // `=@ccz` flag output (GCC's asm flag outputs)
    if let Some(i) = c.ops.iter().position(|o| o.out && (o.cons.contains("@ccz") || o.cons.contains("@cce"))) {
        if flag.is_some() {
            return None;
        }
        flag = Some((i, Flag::Zero));
    }
    let [(m, a, lock)] = ins.as_slice() else { return None };
    let (base, bytes) = x86_base(m);
    let fam = Family::X86;
    let rmw = |op, mem, val, old, atomic: bool, flag: Option<(usize, Flag)>, expected| Idiom::Rmw {
        op,
        mem,
        val,
        expected,
        old,
        new: None,
        flag,
        // a locked instruction is a full barrier: a seq_cst RMW is `mfence; lock op; mfence`
        // on x86, which orders exactly what the locked instruction does
        order: MemOrder::SeqCst,
        atomic,
        bytes,
        pre: vec![],
        post: vec![],
        post_on_success: false,
        family: fam,
    };
    match (base, a.len()) {
        ("mov", 2) if !lock && flag.is_none() => {
            if let (Some(v), Some(mem)) = (c.val(&a[0]), c.mem(&a[1])) {
                return Some(Idiom::Store { mem, val: v, order: None, bytes, family: fam });
            }
            let (mem, out) = (c.mem(&a[0])?, c.out(&a[1])?);
            Some(Idiom::Load { mem, out, order: None, bytes, family: fam })
        }
        ("xchg", 2) if flag.is_none() => {
            let (r, mem) = match (c.mem(&a[0]), c.mem(&a[1])) {
                (None, Some(mem)) => (c.out(&a[0])?, mem),
                (Some(mem), None) => (c.out(&a[1])?, mem),
                _ => return None,
            };
            // xchg with memory is locked without the prefix
            Some(rmw(Op::Swap, mem, Val::Op(r), Some(r), true, None, None))
        }
        ("xadd", 2) if flag.is_none() => {
            let (r, mem) = (c.out(&a[0])?, c.mem(&a[1])?);
            Some(rmw(Op::Add, mem, Val::Op(r), Some(r), *lock, None, None))
        }
        ("cmpxchg", 2) if *lock => {
            let (v, mem) = (c.val(&a[0])?, c.mem(&a[1])?);
            let is_a = |o: &OpInfo| o.letters() == "a";
            // the expected value is in EAX: the "a" input or the "+a" output
            let exp = c.ops.iter().position(|o| is_a(o) && (!o.out || o.plus))?;
            let old = c.ops.iter().position(|o| is_a(o) && o.out);
            let flag = match flag {
                Some((i, Flag::Zero)) => Some((i, Flag::Success)),
                Some(_) => return None,
                None => None,
            };
            Some(rmw(Op::Cas, mem, v, old, true, flag, Some(Val::Op(exp))))
        }
        ("inc" | "dec", 1) => {
            let mem = c.mem(&a[0])?;
            let op = if base == "inc" { Op::Add } else { Op::Sub };
            Some(rmw(op, mem, Val::Imm(1), None, *lock, flag, None))
        }
        ("not", 1) if flag.is_none() => Some(rmw(Op::Xor, c.mem(&a[0])?, Val::Imm(-1), None, *lock, None, None)),
        (b, 2) if arith(b).is_some() => {
            let (v, mem) = (c.val(&a[0])?, c.mem(&a[1])?);
            Some(rmw(arith(b)?, mem, v, None, *lock, flag, None))
        }
        _ => None,
    }
}

/// Leading and trailing barrier instructions of a sequence.
fn split_fences(toks: &[Tok]) -> (Vec<Fence>, &[Tok]) {
    let mut pre = vec![];
    let mut i = 0;
    while let Some(Tok::Ins { m, args, lock }) = toks.get(i) {
        match fence_of(m, args, *lock) {
            Some(f) => pre.push(f),
            // a prefetch for store (Linux arm64 atomics) has no effect on memory
            None if m == "prfm" => {}
            None => break,
        }
        i += 1;
    }
    (pre, &toks[i..])
}

/// The loop body's operation, in terms of the loaded register `rt` and the stored one `rs`.
struct Body {
    op: Op,
    val: Val,
    expected: Option<Val>,
    /// The register computed (stored), when it is not `rt`.
    new: Option<usize>,
    /// CAS failure exit label (`2f` → `2`).
    exit: Option<String>,
}

/// Power `lwarx`/`stwcx.` and ARM `ldrex`/`strex`, `ldxr`/`stxr` loops (with barriers
/// before and after).
fn ll_sc(c: &Ctx, toks: &[Tok], power: bool) -> Option<Idiom> {
    let (pre, rest) = split_fences(toks);
    let rest = match rest.first() {
        Some(Tok::Label(_)) => &rest[1..],
        _ => rest,
    };
    let Some(Tok::Ins { m: lm, args: la, .. }) = rest.first() else { return None };
    // the load-reserve
    let (mem, rt, acq, family) = if power {
        if !matches!(lm.as_str(), "lwarx" | "ldarx" | "lbarx" | "lharx") || !(la.len() == 3 || la.len() == 4) || la[1] != "0" {
            return None;
        }
        (c.reg(&la[2]).map(Mem::Ptr)?, c.out(&la[0])?, false, Family::Power)
    } else {
        let (acq, fam) = match lm.as_str() {
            "ldrex" | "ldrexb" | "ldrexh" => (false, Family::Arm32),
            "ldxr" | "ldxrb" | "ldxrh" => (false, Family::Arm64),
            "ldaxr" | "ldaxrb" | "ldaxrh" => (true, Family::Arm64),
            _ => return None,
        };
        if la.len() != 2 {
            return None;
        }
        (c.mem(&la[1])?, c.out(&la[0])?, acq, fam)
    };
    let st = rest.iter().position(|t| matches!(t, Tok::Ins { m, .. } if m.starts_with("st") && (m.contains("cx") || m.contains("ex") || m.contains("xr"))))?;
    let Tok::Ins { m: sm, args: sa, .. } = &rest[st] else { return None };
    let (rs, rel) = if power {
        if !matches!(sm.as_str(), "stwcx." | "stdcx." | "stbcx." | "sthcx.") || sa.len() != 3 || sa[1] != "0" || c.reg(&sa[2]).map(Mem::Ptr) != Some(mem) {
            return None;
        }
        (c.reg(&sa[0])?, false)
    } else {
        let rel = match sm.as_str() {
            "strex" | "strexb" | "strexh" if family == Family::Arm32 => false,
            "stxr" | "stxrb" | "stxrh" if family == Family::Arm64 => false,
            "stlxr" | "stlxrb" | "stlxrh" if family == Family::Arm64 => true,
            _ => return None,
        };
        if sa.len() != 3 || c.mem(&sa[2]) != Some(mem) {
            return None;
        }
        (c.reg(&sa[1])?, rel)
    };
    let body = &rest[1..st];
    let after = &rest[st + 1..];
    // the retry branch on the store's status
    let after = if power {
        match after.first() {
            Some(Tok::Ins { m, args, .. }) if matches!(m.as_str(), "bne" | "bne-" | "bne+") && args.len() == 1 && args[0].ends_with('b') => &after[1..],
            _ => return None,
        }
    } else {
        let Tok::Ins { args: sa, .. } = &rest[st] else { return None };
        let status = sa[0].as_str();
        match after {
            [Tok::Ins { m, args, .. }, ..] if m == "cbnz" && args.len() == 2 && args[0] == status && args[1].ends_with('b') => &after[1..],
            [Tok::Ins { m: t, args: ta, .. }, Tok::Ins { m: b, args: ba, .. }, ..]
                if matches!(t.as_str(), "teq" | "cmp") && ta.len() == 2 && ta[0] == status && parse_int(ta[1].trim_start_matches('#')) == Some(0)
                    && matches!(b.as_str(), "bne" | "b.ne") && ba.len() == 1 && ba[0].ends_with('b') => &after[2..],
            _ => return None,
        }
    };
    let b = ll_sc_body(c, body, rt, rs, power)?;
    // what follows: barriers, and the CAS failure label
    let mut post = vec![];
    let mut exit_seen = b.exit.is_none();
    let mut before_exit = 0;
    for t in after {
        match t {
            Tok::Label(l) if Some(l) == b.exit.as_ref() => exit_seen = true,
            Tok::Ins { m, args, lock } => {
                post.push(fence_of(m, args, *lock)?);
                if !exit_seen {
                    before_exit += 1;
                }
            }
            Tok::Label(_) => return None,
        }
    }
    if !exit_seen {
        return None;
    }
    let post_on_success = b.exit.is_some() && before_exit > 0;
    if post_on_success && before_exit != post.len() {
        return None;
    }
    let (order, post) = if power {
        // `loop; isync` is exactly the POWER acquire RMW row (ctrl+isync from the read)
        if !post_on_success && post == [Fence::Isync] {
            (MemOrder::Acquire, vec![])
        } else {
            (MemOrder::Relaxed, post)
        }
    } else {
        let order = match (acq, rel) {
            (false, false) => MemOrder::Relaxed,
            (true, false) => MemOrder::Acquire,
            (false, true) => MemOrder::Release,
            (true, true) => MemOrder::AcqRel,
        };
        (order, post)
    };
    // The access width is the mnemonic's (liburcu passes the address as a `void *`); AArch64's
    // `ldxr` takes it from its register operand, so there the C operand's type stays.
    let bytes = match lm.as_str() {
        "lbarx" | "ldrexb" | "ldxrb" | "ldaxrb" => Some(1),
        "lharx" | "ldrexh" | "ldxrh" | "ldaxrh" => Some(2),
        "lwarx" | "ldrex" => Some(4),
        "ldarx" => Some(8),
        _ => None,
    };
    let (old, new) = match b.new {
        _ if b.op == Op::Swap || b.op == Op::Cas => (Some(rt), None),
        Some(n) => (Some(rt), Some(n)),
        None => (None, Some(rt)),
    };
    Some(Idiom::Rmw { op: b.op, mem, val: b.val, expected: b.expected, old, new, flag: None, order, atomic: true, bytes, pre, post, post_on_success, family })
}

fn ll_sc_body(c: &Ctx, body: &[Tok], rt: usize, rs: usize, power: bool) -> Option<Body> {
    let ins: Vec<(&str, &[String])> = body
        .iter()
        .map(|t| match t {
            Tok::Ins { m, args, .. } => Some((m.as_str(), args.as_slice())),
            Tok::Label(_) => None,
        })
        .collect::<Option<_>>()?;
    let is_rt = |a: &str| c.reg(a) == Some(rt);
    let new_of = |rd: usize| if rd == rt { None } else { Some(rd) };
    let val_of = |a: &str| -> Option<Val> {
        let v = c.val(a)?;
        (v != Val::Op(rt)).then_some(v)
    };
    let exit_of = |a: &str| a.strip_suffix('f').map(str::to_string);
    match ins.as_slice() {
        [] => Some(Body { op: Op::Swap, val: Val::Op(rs), expected: None, new: None, exit: None }),
        // compare-and-swap: Power `cmpw [cr,] rt, x; bne- 2f`, ARM `cmp rt, x; bne 2f`,
        // AArch64 `eor t, rt, x; cbnz t, 2f`
        [(cm, ca), (bm, ba)] if matches!(*cm, "cmpw" | "cmpd" | "cmplw" | "cmpld" | "cmp") && matches!(*bm, "bne" | "bne-" | "bne+" | "b.ne") && ba.len() == 1 => {
            let ca = if ca.len() == 3 && power { &ca[1..] } else { &ca[..] };
            if ca.len() != 2 || !is_rt(&ca[0]) {
                return None;
            }
            Some(Body { op: Op::Cas, val: Val::Op(rs), expected: Some(val_of(&ca[1])?), new: None, exit: Some(exit_of(&ba[0])?) })
        }
        [("eor", ea), ("cbnz", ba)] if !power && ea.len() == 3 && ba.len() == 2 && ba[0] == ea[0] && is_rt(&ea[1]) => {
            Some(Body { op: Op::Cas, val: Val::Op(rs), expected: Some(val_of(&ea[2])?), new: None, exit: Some(exit_of(&ba[1])?) })
        }
        [(m, a)] if a.len() == 3 && c.reg(&a[0]) == Some(rs) => {
            let rd = rs;
            let (op, x) = match (*m, power) {
                // Power: `add d,a,b`, `subf d,x,rt` (d = rt - x), `addic d,rt,imm`
                ("add" | "and" | "or" | "xor", true) if is_rt(&a[1]) => (arith(m)?, val_of(&a[2])?),
                ("add" | "and" | "or" | "xor", true) if is_rt(&a[2]) => (arith(m)?, val_of(&a[1])?),
                ("addic" | "addi", true) if is_rt(&a[1]) => (Op::Add, Val::Imm(parse_int(&a[2])?)),
                ("subf", true) if is_rt(&a[2]) => (Op::Sub, val_of(&a[1])?),
                ("andc", true) if is_rt(&a[1]) => (Op::And, not(val_of(&a[2])?)?),
                // ARM: `op d, rt, x`
                ("add" | "sub" | "and", false) if is_rt(&a[1]) => (arith(m)?, val_of(&a[2])?),
                ("add" | "and", false) if is_rt(&a[2]) => (arith(m)?, val_of(&a[1])?),
                ("orr", false) if is_rt(&a[1]) => (Op::Or, val_of(&a[2])?),
                ("eor", false) if is_rt(&a[1]) => (Op::Xor, val_of(&a[2])?),
                ("bic", false) if is_rt(&a[1]) => (Op::And, not(val_of(&a[2])?)?),
                _ => return None,
            };
            Some(Body { op, val: x, expected: None, new: new_of(rd), exit: None })
        }
        _ => None,
    }
}

fn not(v: Val) -> Option<Val> {
    Some(match v {
        Val::Op(i) => Val::NotOp(i),
        Val::Imm(k) => Val::Imm(!k),
        Val::NotOp(_) => return None,
    })
}

fn power(c: &Ctx, toks: &[Tok]) -> Option<Idiom> {
    if let Some(i) = ll_sc(c, toks, true) {
        return Some(i);
    }
    let [Tok::Ins { m, args, .. }] = toks else { return None };
    let fam = Family::Power;
    let bytes = |w: char| match w {
        'b' => Some(1),
        'h' => Some(2),
        'w' => Some(4),
        'd' => Some(8),
        _ => None,
    };
    if args.len() != 2 {
        return None;
    }
    // `lwz%U1%X1 %0,%1` (Linux), `ld`, `lbz`, `lhz`; `stw`, `std`, `stb`, `sth`
    let m = m.trim_end_matches('x');
    if let Some(w) = m.strip_prefix("st").filter(|w| w.len() == 1) {
        let b = bytes(w.chars().next()?)?;
        let (v, mem) = (c.val(&args[0])?, c.mem(&args[1])?);
        return Some(Idiom::Store { mem, val: v, order: None, bytes: Some(b), family: fam });
    }
    let w = match m {
        "ld" => 'd',
        "lwa" => 'w',
        _ => m.strip_prefix('l').and_then(|r| r.strip_suffix('z')).filter(|w| w.len() == 1)?.chars().next()?,
    };
    let b = bytes(w)?;
    let (out, mem) = (c.out(&args[0])?, c.mem(&args[1])?);
    Some(Idiom::Load { mem, out, order: None, bytes: Some(b), family: fam })
}

fn arm(c: &Ctx, toks: &[Tok]) -> Option<Idiom> {
    if let Some(i) = ll_sc(c, toks, false) {
        return Some(i);
    }
    let [Tok::Ins { m, args, .. }] = toks else { return None };
    if args.len() != 2 {
        return None;
    }
    let plain = |s: &str| matches!(s, "" | "b" | "h");
    if let Some(w) = m.strip_prefix("ldar") {
        // LDAR is the seq_cst load row on AArch64 whether acquire loads are LDAR or LDAPR
        // (`--ldapr`), so it is reproduced exactly by a seq_cst load
        plain(w).then_some(())?;
        return Some(Idiom::Load { mem: c.mem(&args[1])?, out: c.out(&args[0])?, order: Some(MemOrder::SeqCst), bytes: None, family: Family::Arm64 });
    }
    if let Some(w) = m.strip_prefix("stlr") {
        plain(w).then_some(())?;
        return Some(Idiom::Store { mem: c.mem(&args[1])?, val: c.val(&args[0])?, order: Some(MemOrder::Release), bytes: None, family: Family::Arm64 });
    }
    if let Some(w) = m.strip_prefix("ldr") {
        (plain(w) || w == "sw" || w == "sh" || w == "sb").then_some(())?;
        return Some(Idiom::Load { mem: c.mem(&args[1])?, out: c.out(&args[0])?, order: None, bytes: None, family: Family::Arm });
    }
    if let Some(w) = m.strip_prefix("str") {
        plain(w).then_some(())?;
        return Some(Idiom::Store { mem: c.mem(&args[1])?, val: c.val(&args[0])?, order: None, bytes: None, family: Family::Arm });
    }
    None
}

/// SPARC V9 `cas [rs1], rs2, rd` (`casx`: 64 bits), liburcu's `_uatomic_cmpxchg`: the word
/// at `rs1` is compared with `rs2` and, when equal, swapped with `rd`; `rd` receives the old
/// word either way (SPARC Architecture Manual V9, A.9). On its own it is the relaxed RMW of
/// the SPARC rows (`cas`, nothing around it); the membars written around it in the same asm
/// are kept as `pre`/`post` when each has an exact fence (an inexact mask leaves the whole
/// statement unknown, so nothing is trusted that the mask may not give).
fn sparc(c: &Ctx, ins: &[(&str, &[String], bool)], has_labels: bool) -> Option<Idiom> {
    if has_labels {
        return None;
    }
    let fence = |(m, a, _): &(&str, &[String], bool)| match membar(&format!("{m} {}", a.join("|")))? {
        (f, true) => Some(f),
        (_, false) => None,
    };
    let k = ins.iter().position(|i| fence(i).is_none())?;
    let pre = ins[..k].iter().map(fence).collect::<Option<Vec<_>>>()?;
    let post = ins[k + 1..].iter().map(fence).collect::<Option<Vec<_>>>()?;
    let (m, a, _) = ins[k];
    let bytes = match m {
        "cas" => 4,
        "casx" => 8,
        _ => return None,
    };
    let [addr, cmp, rd] = a else { return None };
    let mem = c.mem(addr)?;
    let rd = c.out(rd)?;
    // `rd` is both the value stored and where the old word goes: an in-out register
    if !c.ops[rd].plus {
        return None;
    }
    Some(Idiom::Rmw {
        op: Op::Cas,
        mem,
        val: Val::Op(rd),
        expected: Some(c.val(cmp)?),
        old: Some(rd),
        new: None,
        flag: None,
        order: MemOrder::Relaxed,
        atomic: true,
        bytes: Some(bytes),
        pre,
        post,
        post_on_success: false,
        family: Family::Sparc,
    })
}

/// A SPARC `membar #A | #B` and whether the fence is exact. The masks GCC, liburcu and
/// Linux write have a fence of their own (the full mask, `#StoreStore`, `#LoadLoad`, `#StoreLoad`,
/// `#LoadLoad | #LoadStore`, `#LoadStore | #StoreStore`, `#StoreLoad | #LoadLoad`,
/// `#StoreLoad | #StoreStore`); any other gets the fence that orders the most of its pairs
/// without ordering more (sound for assertions that hold; a violation may need the pairs it
/// lacks, so it is not trusted).
fn membar(d: &str) -> Option<(Fence, bool)> {
    let rest = d.strip_prefix("membar")?;
    let mask: Vec<String> = rest.split('|').map(|m| m.trim().to_string()).collect();
    let has = |m: &str| mask.iter().any(|x| x == m);
    let (ss, sl, ll, ls) = (has("#storestore"), has("#storeload"), has("#loadload"), has("#loadstore"));
    Some(if (ss && sl && ll && ls) || has("#sync") || has("#memissue") {
        (Fence::Mfence, true)
    } else if ll && !(ss || sl || ls) {
        (Fence::MembarLoadLoad, true)
    } else if sl && !(ss || ll || ls) {
        (Fence::MembarStoreLoad, true)
    } else if sl && ll && !(ss || ls) {
        (Fence::MembarToLoads, true)
    } else if sl && ss && !(ll || ls) {
        (Fence::MembarFromStores, true)
    } else if ls && ss && !(sl || ll) {
        (Fence::MembarRelease, true)
    } else if ss && ll && ls {
        (Fence::Lwsync, !sl)
    } else if ss {
        (Fence::DmbSt, !(sl || ll || ls))
    } else if ll && ls {
        (Fence::DmbLd, !(ss || sl))
    } else {
        (Fence::Compiler, !(ss || sl || ll || ls))
    })
}

/// The instruction in the delay slot of a branch always to the label right after it — Linux's
/// and liburcu's SPARC `membar_safe` (`ba,pt %xcc, 1f; membar …; 1:`, the Spitfire
/// erratum workaround): it executes, and the branch does nothing else. (`ba,a` annuls the
/// slot: not this.)
fn delay_slot(flat: &str) -> Option<&str> {
    let rest = ["ba,pt %xcc, 1f", "ba,pt %icc, 1f", "ba 1f", "b 1f"].iter().find_map(|p| flat.strip_prefix(p))?;
    let rest = rest.trim_start_matches(|c: char| c == ';' || c.is_whitespace());
    let slot = rest.strip_suffix("1:")?.trim_end().trim_end_matches(';').trim_end();
    slot.starts_with("membar").then_some(slot)
}

fn memory_letter(c: char, target: Option<Target>) -> bool {
    match c {
        'm' | 'o' | 'V' => true,
        'Q' => !matches!(target, Some(Target::X86_64)),
        'Z' => matches!(target, Some(Target::Ppc64le)),
        _ => false,
    }
}

impl<'t> Lowerer<'t> {
    /// An inline assembly statement.
    pub fn asm(&mut self, n: Node<'t>) -> R<()> {
        let loc = self.loc(n);
        let code = n.child_by_field_name("assembly_code").ok_or_else(|| self.syntax_err(n))?;
        let template = String::from_utf8_lossy(&self.string_literal_bytes(code)?).into_owned();
        let target = self.target;
        let mut ops: Vec<OpInfo<'t>> = Vec::new();
        let extended = n.child_by_field_name("output_operands").is_some();
        for (field, out) in [("output_operands", true), ("input_operands", false)] {
            let Some(list) = n.child_by_field_name(field) else { continue };
            for o in named_children(list) {
                let cn = o.child_by_field_name("constraint").ok_or_else(|| self.syntax_err(o))?;
                let vn = o.child_by_field_name("value").ok_or_else(|| self.syntax_err(o))?;
                let cons = String::from_utf8_lossy(&self.string_literal_bytes(cn)?).into_owned();
                let name = o.child_by_field_name("symbol").map(|s| self.text(s).to_string());
                let letters: String = cons.chars().filter(|c| c.is_ascii_alphabetic()).collect();
                // "rm", "g": the compiler may choose a register, which is how it is read here
                let mem = !letters.is_empty() && !cons.contains('@') && letters.chars().all(|c| memory_letter(c, target));
                let tie = if out { None } else { cons.trim().parse::<usize>().ok() };
                if let Some(k) = tie {
                    if k >= ops.iter().filter(|o| o.out).count() {
                        return Err(self.unsupported(cn, format!("matching constraint \"{cons}\" names no output operand")));
                    }
                }
                ops.push(OpInfo { name, plus: out && cons.contains('+'), out, mem, tie, cons, node: vn });
            }
        }
        let clobbers: Vec<String> = match n.child_by_field_name("clobbers") {
            Some(cl) => named_children(cl).into_iter().filter_map(|c| self.string_literal_bytes(c).ok()).map(|b| String::from_utf8_lossy(&b).into_owned()).collect(),
            None => vec![],
        };
        let memory_clobber = clobbers.iter().any(|c| c == "memory");
        // SPARC membar masks are written with `#`: recognised before comment stripping
        let flat = template.to_ascii_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
        let flat = flat.trim().trim_end_matches(';').trim();
        if ops.is_empty() {
            let unescaped = flat.replace("%%", "%");
            if let Some((f, exact)) = membar(delay_slot(&unescaped).unwrap_or(flat)) {
                if !exact {
                    self.distrust(loc, format!("`{flat}` has no exact counterpart among weakc's fences: it is taken as {}, which orders less (a violation through it is not trusted)", f.name()));
                }
                self.emit(StmtKind::Fence(f), loc);
                return Ok(());
            }
        }
        let (idiom, why) = match tokenize(&template, &ops, extended) {
            Ok(toks) => match recognize(&toks, &ops, target) {
                Some(i) => match (i.family(), target) {
                    (Some(f), Some(t)) if !f.runs_on(t) => {
                        (None, format!("{} assembly, but the analysis is for {}: its accesses are not modelled", f.name(), t.name()))
                    }
                    _ => (Some(i), String::new()),
                },
                None => (None, "instruction sequence not understood".to_string()),
            },
            Err(e) => (None, e),
        };
        let lops = self.asm_operands(&ops)?;
        if let Some(idiom) = idiom {
            if self.asm_idiom(n, &idiom, &ops, &lops)? {
                return Ok(());
            }
        }
        let shown = if flat.chars().count() > 60 { format!("{}…", flat.chars().take(60).collect::<String>()) } else { flat.to_string() };
        let why = if why.is_empty() { "operand types not understood".to_string() } else { why };
        self.distrust(loc, format!("inline assembly `{shown}` treated as unknown ({why}): its memory outputs get arbitrary values, its register outputs too, and it orders nothing"));
        self.asm_unknown(n, &ops, &lops, memory_clobber)
    }

    fn asm_operands(&mut self, ops: &[OpInfo<'t>]) -> R<Vec<LOp>> {
        let mut l: Vec<LOp> = vec![LOp::default(); ops.len()];
        for (i, o) in ops.iter().enumerate() {
            if o.mem {
                let ptr = self.addr_of(o.node)?;
                l[i].ptr = Some(ptr);
            } else if o.out {
                let lv = self.lvalue(o.node)?;
                if o.plus {
                    l[i].val = Some(lv.clone());
                }
                l[i].lv = Some(lv);
            } else {
                let v = self.rvalue(o.node)?;
                if let Some(k) = o.tie {
                    let out_idx = ops.iter().enumerate().filter(|(_, o)| o.out).nth(k).map(|(j, _)| j);
                    if let Some(j) = out_idx {
                        l[j].val = Some(v.clone());
                    }
                }
                l[i].val = Some(v);
            }
        }
        Ok(l)
    }

    /// A temporary holding `e` (so that later writes to the operand's lvalue do not change
    /// it); constants stay as they are.
    fn asm_temp(&mut self, e: Expr, n: Node<'t>) -> R<Expr> {
        if matches!(e.kind, ExprKind::Const(_)) {
            return Ok(e);
        }
        let t = self.new_temp(e.ty.clone(), n)?;
        let ty = e.ty.clone();
        self.emit(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: e }, self.loc(n));
        Ok(Expr::var(t, ty))
    }

    /// The pointer an idiom accesses, retyped to the instruction's width when the C operand
    /// is narrower or wider (ck passes `*(char *)target` to 64-bit instructions).
    fn asm_ptr(&mut self, mem: Mem, lops: &[LOp], bytes: Option<u64>, hint: Option<&Type>, n: Node<'t>) -> R<Option<Expr>> {
        let p = match mem {
            Mem::Op(i) => lops[i].ptr.clone(),
            Mem::Ptr(i) => lops[i].val.clone(),
        };
        let Some(p) = p else { return Ok(None) };
        let Some(elem) = p.ty.pointee().cloned() else { return Ok(None) };
        let Some(b) = bytes else {
            return Ok((elem.is_scalar()).then_some(p));
        };
        let size = |l: &Self, t: &Type| if t.is_scalar() { l.size_align(t, n).ok().map(|s| s.0) } else { None };
        if size(self, &elem) == Some(b) {
            return Ok(Some(p));
        }
        let ty = match hint {
            Some(h) if size(self, h) == Some(b) => h.clone(),
            _ => Type::Int { bits: (b * 8) as u8, signed: false },
        };
        Ok(Some(Expr::new(ExprKind::Cast(Box::new(p)), Type::ptr_to(ty))))
    }

    fn asm_val(&self, v: Val, lops: &[LOp], ty: &Type) -> Option<Expr> {
        Some(match v {
            Val::Imm(k) => self.conv(Expr::int(k), ty),
            Val::Op(i) => self.conv(lops[i].val.clone()?, ty),
            Val::NotOp(i) => {
                let e = self.conv(lops[i].val.clone()?, ty);
                Expr::new(ExprKind::Unary(UnOp::BitNot, Box::new(e)), ty.clone())
            }
        })
    }

    fn asm_assign(&mut self, out: usize, lops: &[LOp], e: Expr, loc: crate::source::Loc) {
        if let Some(lv) = lops[out].lv.clone() {
            let rhs = self.conv(e, &lv.ty);
            self.emit(StmtKind::Assign { lhs: lv, rhs }, loc);
        }
    }

    /// Emits a recognised idiom; false when its operands do not fit (then it is unknown).
    fn asm_idiom(&mut self, n: Node<'t>, idiom: &Idiom, ops: &[OpInfo<'t>], lops: &[LOp]) -> R<bool> {
        let loc = self.loc(n);
        let hint = |v: &Val| match v {
            Val::Op(i) | Val::NotOp(i) => lops[*i].val.as_ref().map(|e| e.ty.clone()).or_else(|| lops[*i].lv.as_ref().map(|e| e.ty.clone())),
            Val::Imm(_) => None,
        };
        match idiom {
            Idiom::Fences(fs) => {
                for f in fs {
                    self.emit(StmtKind::Fence(*f), loc);
                }
                Ok(true)
            }
            Idiom::Trap(_) => {
                self.emit(StmtKind::Assume(Expr::int(0)), loc);
                Ok(true)
            }
            Idiom::Empty => {
                // the asm leaves each register as it found it
                for (i, o) in ops.iter().enumerate() {
                    if o.out && !o.mem && !o.plus {
                        let v = lops[i].val.clone().unwrap_or_else(|| Expr::new(ExprKind::Nondet, lops[i].lv.as_ref().map(|e| e.ty.clone()).unwrap_or(Type::INT)));
                        self.asm_assign(i, lops, v, loc);
                    }
                }
                Ok(true)
            }
            Idiom::Load { mem, out, order, bytes, .. } => {
                let h = lops[*out].lv.as_ref().map(|e| e.ty.clone());
                let Some(p) = self.asm_ptr(*mem, lops, *bytes, h.as_ref(), n)? else { return Ok(false) };
                let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
                let t = self.new_temp(ty.clone(), n)?;
                let tv = Expr::var(t, ty.clone());
                match order {
                    None => self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: Expr::new(ExprKind::Deref(Box::new(p)), ty.clone()) }, loc),
                    Some(o) => {
                        let rmw = Rmw { op: RmwOp::Load, dest: Some(tv.clone()), ptr: p, val: self.conv(Expr::int(0), &ty), expected: None, order: *o };
                        self.emit(StmtKind::Rmw(rmw), loc);
                    }
                }
                self.asm_assign(*out, lops, tv, loc);
                Ok(true)
            }
            Idiom::Store { mem, val, order, bytes, .. } => {
                let h = hint(val);
                let Some(p) = self.asm_ptr(*mem, lops, *bytes, h.as_ref(), n)? else { return Ok(false) };
                let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
                let Some(v) = self.asm_val(*val, lops, &ty) else { return Ok(false) };
                match order {
                    None => self.emit(StmtKind::Assign { lhs: Expr::new(ExprKind::Deref(Box::new(p)), ty), rhs: v }, loc),
                    Some(o) => self.emit(StmtKind::Rmw(Rmw { op: RmwOp::Store, dest: None, ptr: p, val: v, expected: None, order: *o }), loc),
                }
                Ok(true)
            }
            Idiom::Rmw { op, mem, val, expected, old, new, flag, order, atomic, bytes, pre, post, post_on_success, .. } => {
                let h = hint(val);
                let Some(p) = self.asm_ptr(*mem, lops, *bytes, h.as_ref(), n)? else { return Ok(false) };
                let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
                if !ty.is_integral() && !ty.is_pointer() {
                    return Ok(false);
                }
                // arithmetic on pointers is done on the integer of the same width
                let Some(v) = self.asm_val(*val, lops, &ty) else { return Ok(false) };
                let e = match expected {
                    Some(x) => match self.asm_val(*x, lops, &ty) {
                        Some(e) => Some(e),
                        None => return Ok(false),
                    },
                    None => None,
                };
                let v = self.asm_temp(v, n)?;
                let e = match e {
                    Some(e) => Some(self.asm_temp(e, n)?),
                    None => None,
                };
                for f in pre {
                    self.emit(StmtKind::Fence(*f), loc);
                }
                let t = self.new_temp(ty.clone(), n)?;
                let old_v = Expr::var(t, ty.clone());
                let bin = |b: BinOp, a: Expr, c: Expr| Expr::new(ExprKind::Binary(b, Box::new(a), Box::new(c)), ty.clone());
                let new_v = match op {
                    Op::Add => bin(BinOp::Add, old_v.clone(), v.clone()),
                    Op::Sub => bin(BinOp::Sub, old_v.clone(), v.clone()),
                    Op::And => bin(BinOp::BitAnd, old_v.clone(), v.clone()),
                    Op::Or => bin(BinOp::BitOr, old_v.clone(), v.clone()),
                    Op::Xor => bin(BinOp::BitXor, old_v.clone(), v.clone()),
                    Op::Swap => v.clone(),
                    Op::Cas => {
                        let eq = Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(old_v.clone()), Box::new(e.clone().unwrap_or(Expr::int(0)))), Type::INT);
                        Expr::new(ExprKind::Cond(Box::new(eq), Box::new(v.clone()), Box::new(old_v.clone())), ty.clone())
                    }
                };
                if *atomic {
                    let rop = match op {
                        Op::Add => RmwOp::FetchAdd,
                        Op::Sub => RmwOp::FetchSub,
                        Op::And => RmwOp::FetchAnd,
                        Op::Or => RmwOp::FetchOr,
                        Op::Xor => RmwOp::FetchXor,
                        Op::Swap => RmwOp::Exchange,
                        Op::Cas => RmwOp::CasVal,
                    };
                    let rmw = Rmw { op: rop, dest: Some(old_v.clone()), ptr: p, val: v.clone(), expected: e.clone(), order: *order };
                    self.emit(StmtKind::Rmw(rmw), loc);
                } else {
                    let cell = Expr::new(ExprKind::Deref(Box::new(p)), ty.clone());
                    self.emit(StmtKind::Assign { lhs: old_v.clone(), rhs: cell.clone() }, loc);
                    self.emit(StmtKind::Assign { lhs: cell, rhs: new_v.clone() }, loc);
                }
                let success = e.clone().map(|e| Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(old_v.clone()), Box::new(e)), Type::INT));
                if !post.is_empty() {
                    if *post_on_success {
                        self.push_block();
                        for f in post {
                            self.emit(StmtKind::Fence(*f), loc);
                        }
                        let then_ = self.pop_block();
                        let cond = success.clone().unwrap_or(Expr::int(1));
                        self.emit(StmtKind::If { cond, then_, else_: vec![] }, loc);
                    } else {
                        for f in post {
                            self.emit(StmtKind::Fence(*f), loc);
                        }
                    }
                }
                if let Some(o) = old {
                    self.asm_assign(*o, lops, old_v.clone(), loc);
                }
                if let Some(nw) = new {
                    self.asm_assign(*nw, lops, new_v.clone(), loc);
                }
                if let Some((f, kind)) = flag {
                    let zero = self.conv(Expr::int(0), &ty);
                    let c = match kind {
                        Flag::Zero => Expr::new(ExprKind::Binary(BinOp::Eq, Box::new(new_v), Box::new(zero)), Type::INT),
                        Flag::NonZero => Expr::new(ExprKind::Binary(BinOp::Ne, Box::new(new_v), Box::new(zero)), Type::INT),
                        Flag::Success => match success {
                            Some(s) => s,
                            None => return Ok(false),
                        },
                    };
                    self.asm_assign(*f, lops, c, loc);
                }
                Ok(true)
            }
        }
    }

    /// Unknown assembly: reads its memory inputs, writes arbitrary values to its outputs,
    /// orders nothing. With a `"memory"` clobber, an object a pointer input points to may
    /// be read and written too (`lwarx %0,0,%1` takes the address in a register).
    fn asm_unknown(&mut self, n: Node<'t>, ops: &[OpInfo<'t>], lops: &[LOp], memory_clobber: bool) -> R<()> {
        let loc = self.loc(n);
        let mut writes: Vec<Expr> = Vec::new();
        for (i, o) in ops.iter().enumerate() {
            let cell = |p: &Expr| -> Option<Expr> {
                let t = p.ty.pointee()?.clone();
                t.is_scalar().then(|| Expr::new(ExprKind::Deref(Box::new(p.clone())), t))
            };
            if o.mem {
                let Some(c) = lops[i].ptr.as_ref().and_then(cell) else { continue };
                if !o.out || o.plus {
                    self.asm_temp(c.clone(), o.node)?;
                }
                if o.out {
                    writes.push(c);
                }
            } else if o.out {
                if let Some(lv) = &lops[i].lv {
                    writes.push(lv.clone());
                }
            } else if let Some(v) = lops[i].val.clone() {
                if memory_clobber {
                    if let Some(c) = cell(&v) {
                        self.asm_temp(c.clone(), o.node)?;
                        writes.push(c);
                        continue;
                    }
                }
                if self.reads_shared(&v) {
                    self.asm_temp(v, o.node)?;
                }
            }
        }
        for lhs in writes {
            let rhs = Expr::new(ExprKind::Nondet, lhs.ty.clone());
            self.emit(StmtKind::Assign { lhs, rhs }, loc);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_split_into_instructions_with_operand_numbers() {
        let toks = tokenize("1:\tlwarx\t%0,0,%[p]\t# atomic_add\n\tadd %0,%2,%0\n\tstwcx. %0,0,%[p]\n\tbne- 1b", &[], true);
        assert!(toks.is_err(), "no operand named p");
        let t = tokenize("lock; addl $0,0(%%rsp)", &[], true).unwrap();
        assert_eq!(t, vec![Tok::Ins { m: "addl".into(), args: vec!["$0".into(), "0(%rsp)".into()], lock: true }]);
        let t = tokenize("dmb ishld // comment", &[], true).unwrap();
        assert_eq!(t, vec![Tok::Ins { m: "dmb".into(), args: vec!["ishld".into()], lock: false }]);
    }
}
