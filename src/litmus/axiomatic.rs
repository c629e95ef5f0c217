//! The axiomatic reference engine (`weakc litmus --engine axiomatic`): an independent second
//! implementation of "is the final condition reachable on architecture A", by enumerating the
//! candidate executions of the loop-free litmus program and keeping those *valid* on A in the
//! sense of ESOP 2013 §2:
//!
//! ```text
//! uniproc  acyclic(ws ∪ rf ∪ fr ∪ po-loc)
//! thin     acyclic(rf ∪ dp)                         dp = addr ∪ data ∪ ctrl (see below)
//! ghb      acyclic((ws ∪ rf ∪ fr ∪ po) ∩ safe_A ∪ ab)
//! ```
//!
//! It reads the parser's AST directly (its own interpreter of the X86, PPC, ARM and AArch64
//! instructions; it shares only the syntax helpers of [`super::translate`]) and never uses the
//! event graph, the cycle search or the rewriting. The architecture comes from the shared
//! tables ([`crate::arch`]): a program-order pair is in ghb when [`Arch::po_pair_safe`] says so
//! for a [`PairInfo`] holding the fences between the two events and the dependencies from the
//! first; rfi/rfe are in ghb when [`Arch::rfi_safe`]/[`Arch::rfe_safe`]; `ws` and `fr` always
//! are; cumulativity (`ab`) adds `w → e` for `w rfe r` and `(r, e)` a fenced pair with
//! [`Arch::rfe_then_pair_safe`], and `e → r` for `(e, w)` a fenced pair with
//! [`Arch::pair_then_rfe_safe`] and `w rfe r`.
//!
//! **Choices made** (they follow the paper and herd rather than weakc's machine):
//! * `thin` is checked over `rf ∪ dp ∪ (po ∩ safe_A)`: besides the paper's dependencies,
//!   every program-order pair the model keeps (fences included), as herd's Power and ARM
//!   models check `acyclic(ppo ∪ fence ∪ rfe)`. Without it, LB+lwsyncs would be valid on
//!   `power-esop` (rfe relaxed, lwsync not cumulative), which neither herd nor the hardware allows.
//!   On models whose rfe is safe this adds nothing to ghb. Like herd, `thin` uses `rfe`
//!   (and `rfi` only where the model keeps it), not `rf`: a read may be satisfied by
//!   forwarding from its thread's own write (herd allows LB+data+fri-rfi-data on ARM).
//! * Same-location read→write and write→write pairs are always in ghb (ESOP keeps posRW
//!   and posWW on every model; herd's ppc.cat has `po-loc` in its `cc0`), same-location
//!   read→read and write→read pairs follow the table.
//! * Cumulativity composes: for `w0 rfe r`, a fenced pair `(r, w)` both A- and
//!   B-cumulative, and `w rfe r2`, ghb gets `w0 → r2` (`rfe; fence; rfe`, WRC+lwsync+addr
//!   on `power`).
//! * Program-order read→read pairs to the *same* location go through the table like any
//!   other pair (as herd's `ppo` does: x86-TSO keeps them, rmo.cat does not), and uniproc
//!   orders them per location. In particular CoRR (same-location read→read) is
//!   *forbidden* on every model here, whereas weakc's instrumentation deliberately relaxes
//!   same-location read pairs behind a deferred dependent read on rmo/power/arm (ESOP's
//!   machine, `posrr00x`); such tests show up as engine disagreements.
//! * Locked x86 instructions (`XCHG`, `LOCK …`) are a read and a write of one location with
//!   nothing between them in coherence (herd's `rmw & (fre; coe)` empty) and an implied
//!   `MFENCE` on both sides (`MA(po) | AM(po)` in herd's x86 models). A failing
//!   `LOCK CMPXCHG` only reads.
//! * AArch64 `LDAR`/`LDAPR` order the load before every later access, and `STLR` every
//!   earlier access before the store (herd's `[A]; po` and `po; [L]`), and a release store
//!   comes before a later `LDAR` (`[L]; po; [A]`, not `LDAPR`'s `Q`); the tables have no
//!   acquire/release, so these pairs are added here.
//! * AArch64 atomics (`CAS`, `SWP`, `LD<op>`, `ST<op>`) are read-modify-writes as in herd:
//!   atomic (nothing in coherence between the read's write and the write; a failing `CAS`
//!   only reads), the `A` read acquire and the `L` write release, `AL` ones ordering what
//!   precedes them before what follows (`po; [A]; amo; [L]; po`), the read ordered before a
//!   later acquire read of the location that follows the write in `lrs` (`rmw; lrs; [A|Q]`),
//!   and before any read of its own write (`rmw; rfi`, in ghb), and with the zero register as
//!   result the read is `NoRet` (not acquire, not ordered by `DMB LD`). The instrumentation
//!   keeps none of this but acquire/release (it cannot keep atomicity soundly), so it may
//!   report reachable where this engine does not. Pick dependencies (herd's `iico_ctrl`) are
//!   kept where a write uses them (`[Exp]; pick-dep; [W]`): a `CAS` write comes after what its
//!   compare value `Xs` depends on, and a successful `CAS`'s result is, as in herd, either
//!   `Xs` (a dependency on what `Xs` depends on, and a pick dependency on the read, which
//!   orders a write computed from it but not a read addressed by it) or the value read (a
//!   dependency on the read): two executions, the outcome allowed if one allows it. Not
//!   kept (more executions, never fewer): pick dependencies through a branch or to a read
//!   before an `ISB`, through the value of a read they address, and `CSEL`'s on its flags
//!   (its result depends on the selected register only).
//! * The read of a value is the value of the chosen write (initial write included); a read
//!   whose address depends on a value is resolved when the thread is executed, so every
//!   branch and address is concrete in a candidate. Addresses are a location plus an integer
//!   offset (herd adds index registers to the base; non-zero offsets name a fresh location).
//! * Every value a read may return is found by a fixed point: a thread is executed for every
//!   combination of values its reads may see (initial values and values some execution of
//!   some thread writes), repeated until no new value appears — at most one round per write
//!   instruction plus one, which covers every chain of reads-from.
//!
//! The final condition is evaluated on the final state (the register values of the thread
//! executions, the last write in coherence per location): the proposition is *reachable* when
//! some valid execution satisfies it (for every quantifier, as the C translation asserts).
//! Enumeration is bounded ([`Limits`]); beyond the bound the verdict is unknown with a reason.

use super::parse::{LitArch, Litmus, Place, Prop, Value};
use super::translate::{canon_reg, cond_op, is_c_ident, operands, parse_imm, parse_rmw, ppc_arith_op, rmw_result_reg, split_mnemonic, Rmw, RmwOp};
use crate::aeg::{Deps, Dir, PairInfo};
use crate::arch::Arch;
use crate::ir::Fence;
use crate::source::{Error, Loc};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// Bounds of the enumeration.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Candidate executions examined (thread-execution combination × coherence × read-from).
    pub max_candidates: u64,
    /// Executions of one thread (one per combination of read values).
    pub max_thread_runs: usize,
    /// Wall-clock limit.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_candidates: 20_000_000, max_thread_runs: 100_000, timeout: Duration::from_secs(60) }
    }
}

/// The engine's answer for one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxResult {
    /// Some valid execution satisfies the proposition (None: bound exceeded, see `reason`).
    pub reachable: Option<bool>,
    /// Why there is no verdict.
    pub reason: Option<String>,
    /// Candidate executions examined.
    pub candidates: u64,
}

/// A register or memory value: a number or the address of a location plus an offset.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Val {
    Int(i64),
    Addr(String, i64),
}

impl Val {
    fn add(&self, o: &Val, loc: Loc) -> Result<Val, Error> {
        Ok(match (self, o) {
            (Val::Int(a), Val::Int(b)) => Val::Int(a.wrapping_add(*b)),
            (Val::Addr(x, a), Val::Int(b)) | (Val::Int(b), Val::Addr(x, a)) => Val::Addr(x.clone(), a.wrapping_add(*b)),
            (Val::Addr(..), Val::Addr(..)) => return Err(Error::unsupported(loc, "adding two addresses")),
        })
    }
    fn int(&self, loc: Loc) -> Result<i64, Error> {
        match self {
            Val::Int(v) => Ok(*v),
            Val::Addr(x, _) => Err(Error::unsupported(loc, format!("arithmetic on the address of `{x}`"))),
        }
    }
}

/// A location: its name, and the offset (0 for the location itself).
fn loc_name(x: &str, off: i64) -> String {
    if off == 0 {
        x.to_string()
    } else {
        format!("{x}+{off}")
    }
}

/// A register value with the reads (thread-local event indices, bit set) it depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RegV {
    v: Val,
    taint: u64,
    /// Reads the value depends on through a selection only (herd's pick dependencies,
    /// `iico_ctrl`: the result of a successful `CAS`): they order a write that uses it
    /// (`[Exp]; pick-dep; [W]`) but not a read addressed by it.
    pick: u64,
}

/// One memory event of a thread execution.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ev {
    dir: Dir,
    loc: String,
    val: Val,
    /// Reads (local indices) the address / value / a preceding branch depends on.
    addr: u64,
    data: u64,
    ctrl: u64,
    /// Reads on which a branch depends that is followed by isync/isb before this event.
    ctrl_isync: u64,
    /// For the write of a read-modify-write: the local index of its read.
    rmw_read: Option<usize>,
    /// AArch64 acquire load / release store.
    acquire: bool,
    release: bool,
    /// AArch64: the acquire load is `LDAPR` (herd's `Q`), which is not ordered after an
    /// earlier release store (only `[L]; po; [A]` is).
    rcpc: bool,
    /// AArch64: the read of an atomic whose result register is the zero register (herd's
    /// `NoRet`), which `DMB LD` does not order.
    noret: bool,
    /// AArch64: the write of an acquire-release atomic (`SWPAL`, `CASAL`, `LDADDAL`…).
    acq_rel_amo: bool,
}

/// One execution of one thread for given read values.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Run {
    events: Vec<Ev>,
    /// (number of events before the fence, fence).
    fences: Vec<(usize, Fence)>,
    regs: BTreeMap<String, Val>,
}

/// The index the next event of the thread gets. Dependencies are sets of a thread's events
/// kept in 64-bit masks: a thread with more events is refused (a litmus test has a few).
fn new_event_index(st: &St, loc: Loc) -> Result<usize, Error> {
    let idx = st.run.events.len();
    if idx >= u64::BITS as usize {
        return Err(unsupported(loc, "more than 64 memory accesses in one thread"));
    }
    Ok(idx)
}

impl Run {
    fn fences_between(&self, i: usize, j: usize) -> BTreeSet<Fence> {
        self.fences.iter().filter(|(p, _)| *p > i && *p <= j).map(|(_, f)| *f).collect()
    }
    fn pair_info(&self, i: usize, j: usize) -> PairInfo {
        let b = &self.events[j];
        let bit = 1u64 << i;
        let first_is_read = self.events[i].dir == Dir::R;
        let mut fences = self.fences_between(i, j);
        if self.events[i].noret {
            // herd's `[R \ NoRet]; po; [dmb.ld]; po`.
            fences.remove(&Fence::DmbLd);
        }
        PairInfo {
            fences,
            deps: Deps {
                addr: first_is_read && b.addr & bit != 0,
                data: first_is_read && b.data & bit != 0,
                ctrl: first_is_read && b.ctrl & bit != 0,
                ctrl_isync: first_is_read && b.ctrl_isync & bit != 0,
                addr_po: first_is_read && self.events[i + 1..j].iter().any(|k| k.addr & bit != 0),
                // (every event is in the executions enumerated: chains compose there)
                chained: Default::default(),
                chained_addr: Default::default(),
            },
            ..Default::default()
        }
    }
}

/// One thread's code: instructions (labels stripped) and label → instruction index.
struct Code<'a> {
    ins: Vec<(&'a str, Loc)>,
    labels: HashMap<String, usize>,
}

/// What the static part of the test provides.
struct Setup<'a> {
    t: &'a Litmus,
    mem_init: BTreeMap<String, Val>,
    /// Initial registers per thread.
    regs: Vec<BTreeMap<String, Val>>,
    /// ARM symbolic registers without a thread (`%x0=x`).
    sym: HashMap<String, Val>,
    code: Vec<Code<'a>>,
}

/// The interpreter's state in one thread.
struct St<'s> {
    regs: BTreeMap<String, RegV>,
    flags: Option<(Val, Val, u64)>,
    ctrl: u64,
    isync: u64,
    run: Run,
    /// The values each read returns, in order (the oracle), and how many choices each had.
    choices: &'s [usize],
    radix: Vec<usize>,
}

/// A value domain: possible values per location.
type Domain = BTreeMap<String, BTreeSet<Val>>;

fn unsupported(loc: Loc, m: impl Into<String>) -> Error {
    Error::unsupported(loc, m)
}

impl<'a> Setup<'a> {
    fn new(t: &'a Litmus) -> Result<Setup<'a>, Error> {
        let mut s = Setup { t, mem_init: BTreeMap::new(), regs: vec![BTreeMap::new(); t.threads.len()], sym: HashMap::new(), code: vec![] };
        let val = |v: &Option<Value>| match v {
            None => Val::Int(0),
            Some(Value::Int(n)) => Val::Int(*n),
            Some(Value::Sym(x)) => Val::Addr(x.clone(), 0),
        };
        for i in &t.init {
            match &i.place {
                Place::Mem(x) => {
                    s.mem_init.insert(x.clone(), val(&i.val));
                }
                Place::Reg { thread: None, reg } => {
                    s.sym.insert(reg.clone(), val(&i.val));
                }
                Place::Reg { thread: Some(th), reg } => {
                    let tid = *th as usize;
                    if tid >= t.threads.len() {
                        return Err(Error::syntax(i.loc, format!("thread {th} does not exist (the test has {} threads)", t.threads.len())));
                    }
                    let r = canon_reg(t.arch, reg).ok_or_else(|| unsupported(i.loc, format!("`{reg}` is not a {} register", t.arch.herd_name())))?;
                    s.regs[tid].insert(r, val(&i.val));
                }
            }
            if let Some(Value::Sym(x)) = &i.val {
                s.mem_init.entry(x.clone()).or_insert(Val::Int(0));
            }
        }
        for a in t.cond.prop.atoms() {
            if let Place::Mem(x) = &a.place {
                s.mem_init.entry(x.clone()).or_insert(Val::Int(0));
            }
        }
        for th in &t.threads {
            let mut c = Code { ins: vec![], labels: HashMap::new() };
            for ins in &th.code {
                let mut text = ins.text.trim();
                while let Some((l, rest)) = text.split_once(':') {
                    let l = l.trim();
                    if !is_c_ident(l) {
                        break;
                    }
                    if c.labels.insert(l.to_string(), c.ins.len()).is_some() {
                        return Err(Error::syntax(ins.loc, format!("label `{l}` defined twice")));
                    }
                    text = rest.trim();
                }
                if !text.is_empty() {
                    c.ins.push((text, ins.loc));
                }
            }
            s.code.push(c);
        }
        Ok(s)
    }

    /// Every execution of thread `tid` whose reads return values of `dom`.
    fn thread_runs(&self, tid: usize, dom: &Domain, limits: &Limits) -> Result<Result<Vec<Run>, String>, Error> {
        let mut out = vec![];
        let mut choices: Vec<usize> = vec![];
        loop {
            let (run, radix) = self.exec(tid, dom, &choices)?;
            out.push(run);
            if out.len() > limits.max_thread_runs {
                return Ok(Err(format!("thread P{tid} has more than {} executions", limits.max_thread_runs)));
            }
            // Next combination: increment the last read that has another choice.
            let mut next = choices.clone();
            next.resize(radix.len(), 0);
            let mut k = radix.len();
            loop {
                if k == 0 {
                    return Ok(Ok(out));
                }
                k -= 1;
                if next[k] + 1 < radix[k] {
                    next[k] += 1;
                    next.truncate(k + 1);
                    break;
                }
            }
            choices = next;
        }
    }

    /// Executes thread `tid` in program order; read number k returns the `choices[k]`-th value
    /// of its location's domain (the first when `choices` is shorter). Returns the execution
    /// and the number of values each read could return.
    fn exec(&self, tid: usize, dom: &Domain, choices: &[usize]) -> Result<(Run, Vec<usize>), Error> {
        let code = &self.code[tid];
        let mut st = St {
            regs: self.regs[tid].iter().map(|(r, v)| (r.clone(), RegV { v: v.clone(), taint: 0, pick: 0 })).collect(),
            flags: None,
            ctrl: 0,
            isync: 0,
            run: Run { events: vec![], fences: vec![], regs: BTreeMap::new() },
            choices,
            radix: vec![],
        };
        let mut pc = 0;
        let mut steps = 0;
        while pc < code.ins.len() {
            steps += 1;
            let (text, loc) = code.ins[pc];
            if steps > 10_000 {
                return Err(unsupported(loc, "a thread that does not terminate (loop)"));
            }
            let jump = match self.t.arch {
                LitArch::X86 => self.x86(&mut st, dom, text, loc)?,
                LitArch::Ppc => self.ppc(&mut st, dom, text, loc)?,
                LitArch::Arm | LitArch::AArch64 => self.arm(&mut st, dom, text, loc)?,
            };
            match jump {
                None => pc += 1,
                Some(l) => {
                    let target = *code.labels.get(&l).ok_or_else(|| Error::syntax(loc, format!("branch to `{l}`, a label thread P{tid} does not define")))?;
                    if target <= pc {
                        return Err(unsupported(loc, format!("a backward branch to `{l}` (the axiomatic engine handles loop-free tests)")));
                    }
                    pc = target;
                }
            }
            if st.run.events.len() > 64 {
                return Err(unsupported(loc, "more than 64 memory accesses in one thread"));
            }
        }
        st.run.regs = st.regs.iter().map(|(r, v)| (r.clone(), v.v.clone())).collect();
        for (r, v) in &self.sym {
            st.run.regs.entry(r.clone()).or_insert_with(|| v.clone());
        }
        let radix = std::mem::take(&mut st.radix);
        Ok((st.run, radix))
    }

    // ------------------------------------------------------------ shared semantics

    fn reg_name(&self, s: &str, loc: Loc) -> Result<String, Error> {
        canon_reg(self.t.arch, s).ok_or_else(|| unsupported(loc, format!("`{s}` is not a {} register", self.t.arch.herd_name())))
    }

    fn get(&self, st: &St, r: &str) -> RegV {
        if r == "ZR" {
            return RegV { v: Val::Int(0), taint: 0, pick: 0 };
        }
        if let Some(v) = st.regs.get(r) {
            return v.clone();
        }
        if let Some(v) = self.sym.get(r) {
            return RegV { v: v.clone(), taint: 0, pick: 0 };
        }
        RegV { v: Val::Int(0), taint: 0, pick: 0 }
    }

    fn set(&self, st: &mut St, r: &str, v: RegV, loc: Loc) -> Result<(), Error> {
        if r == "ZR" {
            return Err(unsupported(loc, "writing the zero register"));
        }
        st.regs.insert(r.to_string(), v);
        Ok(())
    }

    /// An operand: immediate or register.
    fn opnd(&self, st: &St, s: &str, loc: Loc) -> Result<RegV, Error> {
        let s = s.trim();
        if s.starts_with('#') || s.starts_with('$') || s.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-') {
            let v = parse_imm(s).ok_or_else(|| unsupported(loc, format!("immediate `{s}`")))?;
            return Ok(RegV { v: Val::Int(v), taint: 0, pick: 0 });
        }
        let r = self.reg_name(s, loc)?;
        Ok(self.get(st, &r))
    }

    fn arith(&self, st: &mut St, op: &str, rd: &str, a: &str, b: &str, loc: Loc) -> Result<(), Error> {
        let rd = self.reg_name(rd, loc)?;
        let (x, y) = (self.opnd(st, a, loc)?, self.opnd(st, b, loc)?);
        let (taint, pick) = (x.taint | y.taint, x.pick | y.pick);
        let v = match op {
            "+" => x.v.add(&y.v, loc)?,
            "-" => match (&x.v, &y.v) {
                (Val::Addr(p, o), Val::Int(k)) => Val::Addr(p.clone(), o - k),
                _ => Val::Int(x.v.int(loc)?.wrapping_sub(y.v.int(loc)?)),
            },
            // `r ^ r` is 0 whatever r holds (the diy dependency idiom, also on addresses).
            "^" if x.v == y.v => Val::Int(0),
            "^" => Val::Int(x.v.int(loc)? ^ y.v.int(loc)?),
            "&" => Val::Int(x.v.int(loc)? & y.v.int(loc)?),
            "|" => Val::Int(x.v.int(loc)? | y.v.int(loc)?),
            _ => return Err(Error::Internal(format!("axiomatic: unknown operator {op}"))),
        };
        self.set(st, &rd, RegV { v, taint, pick }, loc)
    }

    /// The next choice point of the run, with `n` alternatives: which one this run takes.
    fn choose(&self, st: &mut St, n: usize) -> usize {
        let k = st.radix.len();
        st.radix.push(n);
        st.choices.get(k).copied().unwrap_or(0).min(n - 1)
    }

    /// A read of `addr` into `rd` (None: discard). Returns the local event index.
    fn read(&self, st: &mut St, dom: &Domain, addr: &RegV, loc: Loc) -> Result<(usize, RegV), Error> {
        let Val::Addr(x, off) = &addr.v else {
            return Err(unsupported(loc, "an access to an address that is not a location (a number)"));
        };
        let name = loc_name(x, *off);
        let vals: Vec<&Val> = match dom.get(&name) {
            Some(s) if !s.is_empty() => s.iter().collect(),
            _ => vec![],
        };
        let zero = Val::Int(0);
        let vals = if vals.is_empty() { vec![&zero] } else { vals };
        let v = vals[self.choose(st, vals.len())].clone();
        let idx = new_event_index(st, loc)?;
        st.run.events.push(Ev {
            dir: Dir::R,
            loc: name,
            val: v.clone(),
            addr: addr.taint,
            data: 0,
            ctrl: st.ctrl,
            ctrl_isync: st.isync,
            rmw_read: None,
            acquire: false,
            release: false,
            rcpc: false,
            noret: false,
            acq_rel_amo: false,
        });
        Ok((idx, RegV { v, taint: 1u64 << idx, pick: 0 }))
    }

    fn write(&self, st: &mut St, addr: &RegV, val: &RegV, loc: Loc) -> Result<usize, Error> {
        let Val::Addr(x, off) = &addr.v else {
            return Err(unsupported(loc, "an access to an address that is not a location (a number)"));
        };
        let idx = new_event_index(st, loc)?;
        st.run.events.push(Ev {
            dir: Dir::W,
            loc: loc_name(x, *off),
            val: val.v.clone(),
            addr: addr.taint,
            data: val.taint,
            ctrl: st.ctrl | addr.pick | val.pick,
            ctrl_isync: st.isync,
            rmw_read: None,
            acquire: false,
            release: false,
            rcpc: false,
            noret: false,
            acq_rel_amo: false,
        });
        Ok(idx)
    }

    fn fence(st: &mut St, f: Fence) {
        st.run.fences.push((st.run.events.len(), f));
        if matches!(f, Fence::Isync | Fence::Isb) {
            st.isync |= st.ctrl;
        }
    }

    /// A conditional branch (None: unconditional) on the flags of the last compare, or on the
    /// given operands (`CBZ`, which sets no flags); returns the label when taken.
    fn branch(&self, st: &mut St, op: Option<&str>, opnds: Option<(Val, Val, u64)>, label: &str, loc: Loc) -> Result<Option<String>, Error> {
        let label = label.trim().to_string();
        let Some(op) = op else { return Ok(Some(label)) };
        let (a, b, taint) = match opnds {
            Some(f) => f,
            None => st.flags.clone().ok_or_else(|| unsupported(loc, "a conditional branch without a preceding compare"))?,
        };
        st.ctrl |= taint;
        let taken = Self::holds(op, &a, &b, loc)?;
        Ok(taken.then_some(label))
    }

    /// `a op b` for a C comparison operator.
    fn holds(op: &str, a: &Val, b: &Val, loc: Loc) -> Result<bool, Error> {
        Ok(match (op, a, b) {
            ("==", _, _) => a == b,
            ("!=", _, _) => a != b,
            (_, Val::Int(x), Val::Int(y)) => match op {
                "<" => x < y,
                ">" => x > y,
                "<=" => x <= y,
                ">=" => x >= y,
                _ => return Err(Error::Internal(format!("axiomatic: unknown comparison {op}"))),
            },
            _ => return Err(unsupported(loc, "ordering comparison of addresses")),
        })
    }

    /// An AArch64 atomic ([`Rmw`]): a read and (but for a failing `CAS`) a write of one
    /// location with nothing between them in coherence (`rmw_read`, herd's `atomic` axiom).
    /// The read is acquire for the `A` forms unless the result register is the zero register
    /// (then it is `NoRet`), the write release for the `L` forms. Dependencies: the value
    /// written depends on `Xs` (`SWP`, `LD<op>`) or `Xt` (`CAS`); the register receiving the
    /// old value depends on the read, or after a successful `CAS` (a choice point) on what
    /// `Xs` depended on and by pick (`iico_ctrl`) on the read.
    fn arm_rmw(&self, st: &mut St, dom: &Domain, text: &str, r: Rmw, ops: &[String], loc: Loc) -> Result<(), Error> {
        if let Some(sz) = r.size {
            let what = if sz == 'B' { "byte" } else { "halfword" };
            return Err(unsupported(loc, format!("`{text}`: a {what} atomic (every location is modelled as a 32-bit int)")));
        }
        let dest = rmw_result_reg(r, ops).ok_or_else(|| unsupported(loc, format!("AArch64 instruction `{text}` (operands)")))?;
        let dest = self.reg_name(dest, loc)?;
        let noret = dest == "ZR";
        let a = self.arm_addr(st, ops.last().expect("2 or 3 operands"), loc)?;
        let rs = self.opnd(st, &ops[0], loc)?;
        let (ri, old) = self.read(st, dom, &a, loc)?;
        st.run.events[ri].acquire = r.acquire && !noret;
        st.run.events[ri].noret = noret;
        let (new, result) = match r.op {
            RmwOp::Cas => {
                let t = self.opnd(st, &ops[1], loc)?;
                let ok = old.v == rs.v;
                // On success herd builds two executions (`DataFromRRs`, `DataFromRx`): the
                // result takes its value from `Xs`, with a pick dependency (`iico_ctrl` from
                // the compare) on the read, or from the read itself. An outcome is allowed
                // if one of them allows it: LB+rel+CAS-ok-MRs-addr and
                // MP+rel+CAS-ok-bothRs-addr are forbidden, the RsRs and MRs ones allowed. On
                // failure the result is the value read.
                let from_xs = ok && self.choose(st, 2) == 0;
                (ok.then_some(t), if from_xs { RegV { v: old.v.clone(), taint: rs.taint, pick: rs.pick | old.taint } } else { old.clone() })
            }
            RmwOp::Swp => (Some(rs.clone()), old.clone()),
            RmwOp::Ld(op) => {
                let v = Val::Int(op.apply(old.v.int(loc)?, rs.v.int(loc)?));
                (Some(RegV { v, taint: rs.taint | old.taint, pick: rs.pick }), old.clone())
            }
        };
        if let Some(v) = new {
            let wi = self.write(st, &a, &v, loc)?;
            let w = &mut st.run.events[wi];
            w.rmw_read = Some(ri);
            // The compare decides whether the write happens: what `Xs` depends on is before
            // it (LB+rel+CAS is forbidden).
            if r.op == RmwOp::Cas {
                w.ctrl |= rs.taint | rs.pick;
            }
            w.release = r.release;
            w.acq_rel_amo = r.acquire && r.release && !noret;
        }
        if !noret {
            self.set(st, &dest, result, loc)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------ x86

    fn x86(&self, st: &mut St, dom: &Domain, text: &str, loc: Loc) -> Result<Option<String>, Error> {
        let (m, rest) = split_mnemonic(text);
        let mu = m.to_ascii_uppercase();
        if mu == "LOCK" {
            let (m2, rest2) = split_mnemonic(rest);
            self.x86_rmw(st, dom, &m2.to_ascii_uppercase(), rest2, loc)?;
            return Ok(None);
        }
        let ops = operands(rest);
        let is_mem = |s: &str| s.trim().starts_with('[');
        match (mu.as_str(), ops.len()) {
            ("MFENCE", 0) => Self::fence(st, Fence::Mfence),
            ("LFENCE" | "SFENCE", 0) => {}
            // Not herd's: SPARC barriers in x86-dialect tests (the C11 family's compiled
            // tests for pso/rmo, `super::c11`), each mask read as the IR fence whose SPARC
            // table entry orders exactly its pairs. The bits are added (`#LoadStore+#StoreStore`)
            // since `|` separates the columns.
            ("MEMBAR", _) => {
                let mut mask: Vec<String> = rest.split('+').map(|m| m.trim().to_ascii_uppercase()).collect();
                mask.sort();
                let mask: Vec<&str> = mask.iter().map(String::as_str).collect();
                let f = match mask.as_slice() {
                    ["#LOADLOAD", "#LOADSTORE", "#STORELOAD", "#STORESTORE"] => Fence::Mfence,
                    ["#STORESTORE"] => Fence::DmbSt,
                    ["#LOADLOAD", "#LOADSTORE"] => Fence::DmbLd,
                    ["#LOADSTORE", "#STORESTORE"] => Fence::MembarRelease,
                    _ => return Err(Error::unsupported(loc, format!("barrier `{text}` (all four bits, #StoreStore, #LoadLoad+#LoadStore or #LoadStore+#StoreStore)"))),
                };
                Self::fence(st, f);
            }
            ("MOV", 2) => match (is_mem(&ops[0]), is_mem(&ops[1])) {
                (true, false) => {
                    let a = self.x86_addr(st, &ops[0], loc)?;
                    let v = self.opnd(st, &ops[1], loc)?;
                    self.write(st, &a, &v, loc)?;
                }
                (false, true) => {
                    let a = self.x86_addr(st, &ops[1], loc)?;
                    let rd = self.reg_name(&ops[0], loc)?;
                    let (_, v) = self.read(st, dom, &a, loc)?;
                    self.set(st, &rd, v, loc)?;
                }
                (false, false) => {
                    let rd = self.reg_name(&ops[0], loc)?;
                    let v = self.opnd(st, &ops[1], loc)?;
                    self.set(st, &rd, v, loc)?;
                }
                (true, true) => return Err(unsupported(loc, "a memory-to-memory move")),
            },
            ("XCHG", 2) => {
                let (mem, r) = match (is_mem(&ops[0]), is_mem(&ops[1])) {
                    (true, false) => (&ops[0], &ops[1]),
                    (false, true) => (&ops[1], &ops[0]),
                    _ => return Err(unsupported(loc, "XCHG needs one memory and one register operand")),
                };
                self.x86_rmw(st, dom, "XCHG", &format!("{mem},{r}"), loc)?;
            }
            ("ADD" | "SUB" | "XOR" | "AND" | "OR", 2) if !is_mem(&ops[0]) && !is_mem(&ops[1]) => {
                let op = match mu.as_str() {
                    "ADD" => "+",
                    "SUB" => "-",
                    "XOR" => "^",
                    "AND" => "&",
                    _ => "|",
                };
                self.arith(st, op, &ops[0], &ops[0], &ops[1], loc)?;
            }
            ("INC" | "DEC", 1) if !is_mem(&ops[0]) => {
                self.arith(st, if mu == "INC" { "+" } else { "-" }, &ops[0], &ops[0], "$1", loc)?;
            }
            _ => return Err(unsupported(loc, format!("x86 instruction `{text}`"))),
        }
        Ok(None)
    }

    /// `[x]` or `[reg]`.
    fn x86_addr(&self, st: &St, s: &str, loc: Loc) -> Result<RegV, Error> {
        let inner = s.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')).ok_or_else(|| unsupported(loc, format!("memory operand `{s}`")))?.trim();
        if let Some(r) = canon_reg(LitArch::X86, inner) {
            if let Some(v) = st.regs.get(&r) {
                return Ok(v.clone());
            }
        }
        if !is_c_ident(inner) {
            return Err(unsupported(loc, format!("memory operand `{s}`")));
        }
        Ok(RegV { v: Val::Addr(inner.to_string(), 0), taint: 0, pick: 0 })
    }

    /// A locked read-modify-write: implied full fences around an atomic read and write.
    fn x86_rmw(&self, st: &mut St, dom: &Domain, m: &str, rest: &str, loc: Loc) -> Result<(), Error> {
        let ops = operands(rest);
        let a = self.x86_addr(st, ops.first().map_or("", |s| s.as_str()), loc)?;
        Self::fence(st, Fence::Mfence);
        let (ri, old) = self.read(st, dom, &a, loc)?;
        let arg = |k: usize| ops.get(k).ok_or_else(|| unsupported(loc, format!("`LOCK {m}` needs {} operands", k + 1)));
        let new: Option<RegV> = match m {
            "ADD" | "SUB" | "AND" | "OR" | "XOR" => {
                let v = self.opnd(st, arg(1)?, loc)?;
                let (x, y) = (old.v.int(loc)?, v.v.int(loc)?);
                let r = match m {
                    "ADD" => x.wrapping_add(y),
                    "SUB" => x.wrapping_sub(y),
                    "AND" => x & y,
                    "OR" => x | y,
                    _ => x ^ y,
                };
                Some(RegV { v: Val::Int(r), taint: old.taint | v.taint, pick: old.pick | v.pick })
            }
            "INC" | "DEC" => {
                let x = old.v.int(loc)?;
                Some(RegV { v: Val::Int(if m == "INC" { x + 1 } else { x - 1 }), taint: old.taint, pick: old.pick })
            }
            "XADD" => {
                let r = self.reg_name(arg(1)?, loc)?;
                let v = self.get(st, &r);
                let sum = RegV { v: old.v.add(&v.v, loc)?, taint: old.taint | v.taint, pick: old.pick | v.pick };
                self.set(st, &r, old.clone(), loc)?;
                Some(sum)
            }
            "XCHG" => {
                let r = self.reg_name(arg(1)?, loc)?;
                let v = self.get(st, &r);
                self.set(st, &r, old.clone(), loc)?;
                Some(v)
            }
            "CMPXCHG" => {
                let r = self.reg_name(arg(1)?, loc)?;
                let src = self.get(st, &r);
                let eax = self.get(st, "EAX");
                if eax.v == old.v {
                    Some(src)
                } else {
                    self.set(st, "EAX", old.clone(), loc)?;
                    None
                }
            }
            _ => return Err(unsupported(loc, format!("x86 instruction `LOCK {m} {rest}`"))),
        };
        if let Some(v) = new {
            let wi = self.write(st, &a, &v, loc)?;
            st.run.events[wi].rmw_read = Some(ri);
        }
        Self::fence(st, Fence::Mfence);
        Ok(())
    }

    // ------------------------------------------------------------ Power

    fn ppc(&self, st: &mut St, dom: &Domain, text: &str, loc: Loc) -> Result<Option<String>, Error> {
        let (m, rest) = split_mnemonic(text);
        let ml = m.to_ascii_lowercase();
        let ops = operands(rest);
        let dform = |s: &str| -> Result<(i64, String), Error> {
            let bad = || unsupported(loc, format!("address operand `{s}`"));
            let (d, r) = s.trim().split_once('(').ok_or_else(bad)?;
            let r = r.strip_suffix(')').ok_or_else(bad)?;
            let d = if d.trim().is_empty() { 0 } else { parse_imm(d).ok_or_else(bad)? };
            Ok((d, r.trim().to_string()))
        };
        match (ml.as_str(), ops.len()) {
            ("sync" | "hwsync", 0) => Self::fence(st, Fence::Sync),
            ("lwsync", 0) => Self::fence(st, Fence::Lwsync),
            ("isync", 0) => Self::fence(st, Fence::Isync),
            ("eieio", 0) => Self::fence(st, Fence::Eieio),
            ("li", 2) => {
                let rd = self.reg_name(&ops[0], loc)?;
                let v = self.opnd(st, &format!("#{}", ops[1].trim()), loc)?;
                self.set(st, &rd, v, loc)?;
            }
            ("mr", 2) => {
                let rd = self.reg_name(&ops[0], loc)?;
                let v = self.opnd(st, &ops[1], loc)?;
                self.set(st, &rd, v, loc)?;
            }
            ("lwz" | "ld" | "lwzx" | "ldx", _) | ("stw" | "std" | "stwx" | "stdx", _) => {
                let indexed = ml.ends_with('x');
                let a = if indexed {
                    if ops.len() != 3 {
                        return Err(unsupported(loc, format!("Power instruction `{text}`")));
                    }
                    let (x, y) = (self.opnd(st, &ops[1], loc)?, self.opnd(st, &ops[2], loc)?);
                    RegV { v: x.v.add(&y.v, loc)?, taint: x.taint | y.taint, pick: x.pick | y.pick }
                } else {
                    if ops.len() != 2 {
                        return Err(unsupported(loc, format!("Power instruction `{text}`")));
                    }
                    let (d, ra) = dform(&ops[1])?;
                    let x = self.opnd(st, &ra, loc)?;
                    RegV { v: x.v.add(&Val::Int(d), loc)?, taint: x.taint, pick: x.pick }
                };
                if ml.starts_with('l') {
                    let rd = self.reg_name(&ops[0], loc)?;
                    let (_, v) = self.read(st, dom, &a, loc)?;
                    self.set(st, &rd, v, loc)?;
                } else {
                    let v = self.opnd(st, &ops[0], loc)?;
                    self.write(st, &a, &v, loc)?;
                }
            }
            ("xor" | "add" | "and" | "or" | "sub", 3) => {
                let op = ppc_arith_op(&ml).expect("matched above");
                self.arith(st, op, &ops[0], &ops[1], &ops[2], loc)?;
            }
            ("subf", 3) => self.arith(st, "-", &ops[0], &ops[2], &ops[1], loc)?,
            ("addi" | "xori" | "andi." | "ori", 3) => {
                let op = ppc_arith_op(&ml).expect("matched above");
                self.arith(st, op, &ops[0], &ops[1], &format!("#{}", ops[2].trim()), loc)?;
            }
            ("cmpw" | "cmpd" | "cmpwi" | "cmpdi", 2) => {
                let a = self.opnd(st, &ops[0], loc)?;
                let b = if ml.ends_with('i') { self.opnd(st, &format!("#{}", ops[1].trim()), loc)? } else { self.opnd(st, &ops[1], loc)? };
                st.flags = Some((a.v, b.v, a.taint | b.taint));
            }
            ("beq" | "bne" | "blt" | "bgt" | "ble" | "bge", 1) => {
                let op = cond_op(&ml[1..]).ok_or_else(|| Error::Internal(format!("condition {ml}")))?;
                return self.branch(st, Some(op), None, &ops[0], loc);
            }
            ("b", 1) => return self.branch(st, None, None, &ops[0], loc),
            _ => return Err(unsupported(loc, format!("Power instruction `{text}`"))),
        }
        Ok(None)
    }

    // ------------------------------------------------------------ ARM / AArch64

    fn arm_addr(&self, st: &St, s: &str, loc: Loc) -> Result<RegV, Error> {
        let inner = super::translate::arm_address_inner(self.t.arch, s).ok_or_else(|| unsupported(loc, format!("address operand `{s}` (pre-indexing is not supported)")))?;
        let parts = operands(inner);
        let mut acc: Option<RegV> = None;
        let mut index: Option<RegV> = None;
        for (i, p) in parts.iter().enumerate() {
            let pu = p.to_ascii_uppercase();
            if i >= 2 && (pu == "SXTW" || pu == "UXTW" || pu == "SXTX" || pu == "UXTX") {
                continue;
            }
            if i >= 2 && pu.starts_with("LSL") {
                let k = parse_imm(pu.trim_start_matches("LSL").trim()).ok_or_else(|| unsupported(loc, format!("shift `{p}`")))?;
                if let Some(ix) = &mut index {
                    ix.v = Val::Int(ix.v.int(loc)?.wrapping_shl(k as u32));
                }
                continue;
            }
            let v = self.opnd(st, p, loc)?;
            if i == 0 {
                acc = Some(v);
            } else if let Some(ix) = index.take() {
                let sum = RegV { v: ix.v.add(&v.v, loc)?, taint: ix.taint | v.taint, pick: ix.pick | v.pick };
                index = Some(sum);
            } else {
                index = Some(v);
            }
        }
        let mut a = acc.ok_or_else(|| unsupported(loc, format!("address operand `{s}`")))?;
        if let Some(ix) = index {
            a = RegV { v: a.v.add(&ix.v, loc)?, taint: a.taint | ix.taint, pick: a.pick | ix.pick };
        }
        Ok(a)
    }

    /// AArch64 post-indexing: the base register of `[Xn]` (address `a`) becomes `a + imm`.
    fn post_index(&self, st: &mut St, mem: &str, imm: &str, a: &RegV, loc: Loc) -> Result<(), Error> {
        let k = parse_imm(imm).ok_or_else(|| unsupported(loc, format!("post-index `{imm}`")))?;
        let inner = mem.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']')).map(str::trim).unwrap_or_default();
        let r = self.reg_name(inner, loc).map_err(|_| unsupported(loc, format!("post-indexing with address operand `{mem}`")))?;
        let v = RegV { v: a.v.add(&Val::Int(k), loc)?, taint: a.taint, pick: a.pick };
        self.set(st, &r, v, loc)
    }

    fn arm(&self, st: &mut St, dom: &Domain, text: &str, loc: Loc) -> Result<Option<String>, Error> {
        let (m, rest) = split_mnemonic(text);
        let mu = m.to_ascii_uppercase();
        let rest_u = rest.trim().to_ascii_uppercase();
        let v8 = self.t.arch == LitArch::AArch64;
        let ops = operands(rest);
        if v8 {
            if let Some(r) = parse_rmw(&mu) {
                self.arm_rmw(st, dom, text, r, &ops, loc)?;
                return Ok(None);
            }
        }
        match (mu.as_str(), ops.len()) {
            ("DMB" | "DSB", _) => {
                let kind = rest_u.trim_start_matches("ISH").trim_start_matches("OSH").trim_start_matches("NSH");
                let f = match kind {
                    "" | "SY" => {
                        if mu == "DSB" {
                            Fence::Dsb
                        } else {
                            Fence::Dmb
                        }
                    }
                    "ST" => Fence::DmbSt,
                    "LD" => Fence::DmbLd,
                    _ => return Err(unsupported(loc, format!("barrier `{text}`"))),
                };
                Self::fence(st, f);
            }
            ("ISB", _) => Self::fence(st, Fence::Isb),
            ("NOP", 0) => {}
            ("MOV", 2) => {
                let rd = self.reg_name(&ops[0], loc)?;
                let v = self.opnd(st, &ops[1], loc)?;
                self.set(st, &rd, v, loc)?;
            }
            ("LDR" | "LDAR" | "LDAPR", 2) | ("LDR", 3) => {
                if mu != "LDR" && !v8 || ops.len() == 3 && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let a = self.arm_addr(st, &ops[1], loc)?;
                let rd = self.reg_name(&ops[0], loc)?;
                let (i, v) = self.read(st, dom, &a, loc)?;
                st.run.events[i].acquire = mu != "LDR";
                st.run.events[i].rcpc = mu == "LDAPR";
                if ops.len() == 3 {
                    self.post_index(st, &ops[1], &ops[2], &a, loc)?;
                }
                self.set(st, &rd, v, loc)?;
            }
            ("STR" | "STLR", 2) | ("STR", 3) => {
                if mu != "STR" && !v8 || ops.len() == 3 && !v8 {
                    return Err(unsupported(loc, format!("ARMv7 instruction `{text}`")));
                }
                let a = self.arm_addr(st, &ops[1], loc)?;
                let v = self.opnd(st, &ops[0], loc)?;
                let i = self.write(st, &a, &v, loc)?;
                st.run.events[i].release = mu == "STLR";
                if ops.len() == 3 {
                    self.post_index(st, &ops[1], &ops[2], &a, loc)?;
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
                self.arith(st, op, &ops[0], &ops[1], &ops[2], loc)?;
            }
            ("CMP", 2) => {
                let (a, b) = (self.opnd(st, &ops[0], loc)?, self.opnd(st, &ops[1], loc)?);
                st.flags = Some((a.v, b.v, a.taint | b.taint));
            }
            ("B", 1) => return self.branch(st, None, None, &ops[0], loc),
            ("CBZ" | "CBNZ", 2) if v8 => {
                let a = self.opnd(st, &ops[0], loc)?;
                return self.branch(st, Some(if mu == "CBZ" { "==" } else { "!=" }), Some((a.v, Val::Int(0), a.taint)), &ops[1], loc);
            }
            // CSEL: the selected register's value and dependencies; the flags only select
            // (herd's `iico_ctrl`, a pick dependency, not kept).
            ("CSEL", 4) if v8 => {
                let op = cond_op(&ops[3].trim().to_ascii_lowercase()).ok_or_else(|| unsupported(loc, format!("CSEL condition `{}`", ops[3].trim())))?;
                let (a, b, _) = st.flags.clone().ok_or_else(|| unsupported(loc, "CSEL without a preceding compare"))?;
                let sel = if Self::holds(op, &a, &b, loc)? { &ops[1] } else { &ops[2] };
                let v = self.opnd(st, sel, loc)?;
                let rd = self.reg_name(&ops[0], loc)?;
                self.set(st, &rd, v, loc)?;
            }
            (b, 1) if b.starts_with('B') && cond_op(&b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase()).is_some() => {
                let op = cond_op(&b.trim_start_matches('B').trim_start_matches('.').to_ascii_lowercase()).ok_or_else(|| Error::Internal(format!("condition {b}")))?;
                return self.branch(st, Some(op), None, &ops[0], loc);
            }
            _ => return Err(unsupported(loc, format!("{} instruction `{text}`", self.t.arch.herd_name()))),
        }
        Ok(None)
    }
}

// ---------------------------------------------------------------- executions

/// A global event: `thread` None for an initial write.
#[derive(Clone, Debug)]
struct GEv {
    thread: Option<usize>,
    local: usize,
    dir: Dir,
    loc: usize,
    val: Val,
}

fn acyclic(n: usize, edges: &[(usize, usize)]) -> bool {
    let mut indeg = vec![0usize; n];
    let mut adj = vec![vec![]; n];
    for &(a, b) in edges {
        if a == b {
            return false;
        }
        adj[a].push(b);
        indeg[b] += 1;
    }
    let mut stack: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut seen = 0;
    while let Some(i) = stack.pop() {
        seen += 1;
        for &j in &adj[i] {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                stack.push(j);
            }
        }
    }
    seen == n
}

/// Calls `f` on every permutation of `items`.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = vec![];
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

fn eval(p: &Prop, t: &Litmus, regs: &[&BTreeMap<String, Val>], mem: &dyn Fn(&str) -> Val) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Not(a) => !eval(a, t, regs, mem),
        Prop::And(a, b) => eval(a, t, regs, mem) && eval(b, t, regs, mem),
        Prop::Or(a, b) => eval(a, t, regs, mem) || eval(b, t, regs, mem),
        Prop::Atom(a) => {
            let want = match &a.val {
                Value::Int(v) => Val::Int(*v),
                Value::Sym(x) => Val::Addr(x.clone(), 0),
            };
            let got = match &a.place {
                Place::Mem(x) => mem(x),
                Place::Reg { thread, reg } => {
                    let r = canon_reg(t.arch, reg).unwrap_or_else(|| reg.clone());
                    let tid = thread.unwrap_or(0) as usize;
                    regs.get(tid).and_then(|m| m.get(&r)).cloned().unwrap_or(Val::Int(0))
                }
            };
            got == want
        }
    }
}

/// Per-thread precomputation for one thread execution: the ghb edges among its events and
/// the cumulativity sets (local indices).
struct RunInfo {
    /// Program-order pairs kept in ghb.
    ppo: Vec<(usize, usize)>,
    /// dp = addr ∪ data ∪ ctrl pairs.
    dp: Vec<(usize, usize)>,
    /// For each read r: the events e with `rfe; fence` to e safe (A-cumulativity).
    a_cumul: Vec<Vec<usize>>,
    /// For each write w: the events e with `fence; rfe` from e safe (B-cumulativity).
    b_cumul: Vec<Vec<usize>>,
}

/// AArch64 atomics order the pair `(i, j)` of one thread: an acquire-release atomic between
/// them (herd's `po; [A]; amo; [L]; po`), or `i` the read of an atomic whose write is followed
/// by `j`, an acquire read of the location with no write of it between (`rmw; lrs; [A | Q]`).
fn amo_orders(run: &Run, i: usize, j: usize) -> bool {
    let ev = &run.events;
    let through = ev.iter().enumerate().any(|(w, e)| e.acq_rel_amo && w < j && e.rmw_read.is_some_and(|r| i < r));
    let lrs = ev[j].dir == Dir::R
        && ev[j].acquire
        && ev.iter().enumerate().any(|(w, e)| {
            e.rmw_read == Some(i) && w < j && e.loc == ev[j].loc && !ev[w + 1..j].iter().any(|m| m.dir == Dir::W && m.loc == e.loc)
        });
    through || lrs
}

fn run_info(run: &Run, arch: &Arch) -> RunInfo {
    let n = run.events.len();
    let mut ri = RunInfo { ppo: vec![], dp: vec![], a_cumul: vec![vec![]; n], b_cumul: vec![vec![]; n] };
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (&run.events[i], &run.events[j]);
            let info = run.pair_info(i, j);
            // Same location: a write is never performed before an earlier read or write of
            // its location (posRW, posWW are safe in ESOP's models and in herd's ppo);
            // posRR and posWR follow the table.
            let same_loc_to_write = a.loc == b.loc && b.dir == Dir::W;
            let release_acquire = a.release && b.acquire && !b.rcpc;
            let kept = arch.po_pair_safe(a.dir, b.dir, &info) || a.acquire || b.release || release_acquire || amo_orders(run, i, j);
            if kept || same_loc_to_write {
                ri.ppo.push((i, j));
            }
            // thin: dp, and (as herd's `acyclic (ppo | fence | rfe)`) every pair kept in ghb.
            if info.deps.addr || info.deps.data || info.deps.ctrl || kept || same_loc_to_write {
                ri.dp.push((i, j));
            }
            if a.dir == Dir::R && arch.rfe_then_pair_safe(b.dir, &info, false) {
                ri.a_cumul[i].push(j);
            }
            if b.dir == Dir::W && arch.pair_then_rfe_safe(a.dir, &info, false) {
                ri.b_cumul[j].push(i);
            }
        }
    }
    ri
}

/// Runs the engine on a parsed test for `arch`.
pub fn check(t: &Litmus, arch: &Arch, limits: &Limits) -> Result<AxResult, Error> {
    let t0 = Instant::now();
    let setup = Setup::new(t)?;
    // Value domain by fixed point.
    let mut dom: Domain = BTreeMap::new();
    for (x, v) in &setup.mem_init {
        dom.entry(x.clone()).or_default().insert(v.clone());
    }
    let writes_static: usize = setup.code.iter().map(|c| c.ins.len()).sum();
    let unknown = |reason: String, candidates: u64| Ok(AxResult { reachable: None, reason: Some(reason), candidates });
    let mut runs: Vec<Vec<Run>>;
    let mut round = 0;
    loop {
        runs = vec![];
        for tid in 0..t.threads.len() {
            match setup.thread_runs(tid, &dom, limits)? {
                Ok(r) => runs.push(r),
                Err(why) => return unknown(why, 0),
            }
            if t0.elapsed() > limits.timeout {
                return unknown("timeout while executing the threads".into(), 0);
            }
        }
        let mut grew = false;
        for r in runs.iter().flatten() {
            for e in &r.events {
                // A location not in the initial state starts with 0.
                if !dom.contains_key(&e.loc) {
                    dom.entry(e.loc.clone()).or_default().insert(Val::Int(0));
                    grew = true;
                }
                if e.dir == Dir::W {
                    grew |= dom.entry(e.loc.clone()).or_default().insert(e.val.clone());
                }
            }
        }
        round += 1;
        if !grew {
            break;
        }
        if round > writes_static + 2 {
            // Every value of a real execution is found within `writes + 1` rounds (each
            // round extends the read-from chains by one write); later values are unreachable.
            break;
        }
    }
    // Locations: initial write for every location some event or the condition touches.
    let mut locs: Vec<String> = dom.keys().cloned().collect();
    for r in runs.iter().flatten() {
        for e in &r.events {
            if !locs.contains(&e.loc) {
                locs.push(e.loc.clone());
            }
        }
    }
    locs.sort();
    locs.dedup();
    let loc_id: HashMap<&str, usize> = locs.iter().enumerate().map(|(i, x)| (x.as_str(), i)).collect();
    let init_val = |x: &str| setup.mem_init.get(x).cloned().unwrap_or(Val::Int(0));
    let infos: Vec<Vec<RunInfo>> = runs.iter().map(|rs| rs.iter().map(|r| run_info(r, arch)).collect()).collect();

    let nthreads = t.threads.len();
    let mut pick = vec![0usize; nthreads];
    let mut candidates: u64 = 0;
    if runs.iter().any(|r| r.is_empty()) {
        return Err(Error::Internal("axiomatic: a thread without executions".into()));
    }
    loop {
        // ---- one combination of thread executions
        let chosen: Vec<&Run> = (0..nthreads).map(|k| &runs[k][pick[k]]).collect();
        let mut ev: Vec<GEv> = locs.iter().enumerate().map(|(i, x)| GEv { thread: None, local: 0, dir: Dir::W, loc: i, val: init_val(x) }).collect();
        let mut base = vec![0usize; nthreads];
        for (k, r) in chosen.iter().enumerate() {
            base[k] = ev.len();
            for (i, e) in r.events.iter().enumerate() {
                ev.push(GEv { thread: Some(k), local: i, dir: e.dir, loc: loc_id[e.loc.as_str()], val: e.val.clone() });
            }
        }
        let n = ev.len();
        // Read-from candidates: writes of the same location and value.
        let reads: Vec<usize> = (0..n).filter(|&i| ev[i].dir == Dir::R).collect();
        let rf_cands: Vec<Vec<usize>> = reads.iter().map(|&r| (0..n).filter(|&w| ev[w].dir == Dir::W && ev[w].loc == ev[r].loc && ev[w].val == ev[r].val && w != r).collect()).collect();
        if rf_cands.iter().all(|c| !c.is_empty()) {
            // Static edges of this combination.
            let mut po_loc = vec![];
            let mut ppo = vec![];
            let mut dp = vec![];
            for (k, r) in chosen.iter().enumerate() {
                let b = base[k];
                for i in 0..r.events.len() {
                    for j in i + 1..r.events.len() {
                        if ev[b + i].loc == ev[b + j].loc {
                            po_loc.push((b + i, b + j));
                        }
                    }
                }
                let inf = &infos[k][pick[k]];
                ppo.extend(inf.ppo.iter().map(|&(i, j)| (b + i, b + j)));
                dp.extend(inf.dp.iter().map(|&(i, j)| (b + i, b + j)));
            }
            // Coherence: permutations of each location's writes after the initial one (their
            // number counted first: twelve writes to one location are 479 million orders).
            let writes: Vec<Vec<usize>> =
                (0..locs.len()).map(|l| (locs.len()..n).filter(|&w| ev[w].dir == Dir::W && ev[w].loc == l).collect()).collect();
            let orders = writes.iter().try_fold(1u64, |acc, ws| (1..=ws.len() as u64).try_fold(acc, |a, k| a.checked_mul(k)));
            if orders.is_none_or(|o| candidates.saturating_add(o) > limits.max_candidates) {
                return unknown(format!("more than {} candidate executions", limits.max_candidates), candidates);
            }
            let per_loc: Vec<Vec<Vec<usize>>> = writes.iter().map(|ws| permutations(ws)).collect();
            let mut co_pick = vec![0usize; locs.len()];
            loop {
                // ---- one coherence order
                candidates += 1;
                if candidates > limits.max_candidates {
                    return unknown(format!("more than {} candidate executions", limits.max_candidates), candidates);
                }
                if candidates % 4096 == 0 && t0.elapsed() > limits.timeout {
                    return unknown(format!("timeout after {candidates} candidate executions"), candidates);
                }
                let last: Vec<usize> = (0..locs.len()).map(|l| per_loc[l][co_pick[l]].last().copied().unwrap_or(l)).collect();
                let regs: Vec<&BTreeMap<String, Val>> = chosen.iter().map(|r| &r.regs).collect();
                let mem = |x: &str| match loc_id.get(x) {
                    Some(&l) => ev[last[l]].val.clone(),
                    None => init_val(x),
                };
                if eval(&t.cond.prop, t, &regs, &mem) {
                    let mut co_pos = vec![0usize; n];
                    let mut co_edges = vec![];
                    let mut co_next = vec![None; n];
                    for l in 0..locs.len() {
                        let mut prev = l;
                        for (p, &w) in per_loc[l][co_pick[l]].iter().enumerate() {
                            co_pos[w] = p + 1;
                            co_edges.push((prev, w));
                            co_next[prev] = Some(w);
                            prev = w;
                        }
                    }
                    // ---- every read-from
                    let mut rf_pick = vec![0usize; reads.len()];
                    loop {
                        candidates += 1;
                        if candidates > limits.max_candidates {
                            return unknown(format!("more than {} candidate executions", limits.max_candidates), candidates);
                        }
                        if candidates % 4096 == 0 && t0.elapsed() > limits.timeout {
                            return unknown(format!("timeout after {candidates} candidate executions"), candidates);
                        }
                        if valid(arch, &ev, &chosen, &infos, &pick, &base, &reads, &rf_cands, &rf_pick, &co_edges, &co_next, &co_pos, &po_loc, &ppo, &dp) {
                            return Ok(AxResult { reachable: Some(true), reason: None, candidates });
                        }
                        if !next(&mut rf_pick, |k| rf_cands[k].len()) {
                            break;
                        }
                    }
                }
                if !next(&mut co_pick, |l| per_loc[l].len()) {
                    break;
                }
            }
        } else {
            candidates += 1;
        }
        if !next(&mut pick, |k| runs[k].len()) {
            break;
        }
    }
    Ok(AxResult { reachable: Some(false), reason: None, candidates })
}

/// Odometer increment; false when every combination was seen.
fn next(v: &mut [usize], radix: impl Fn(usize) -> usize) -> bool {
    for k in (0..v.len()).rev() {
        if v[k] + 1 < radix(k) {
            v[k] += 1;
            return true;
        }
        v[k] = 0;
    }
    false
}

#[allow(clippy::too_many_arguments)]
fn valid(
    arch: &Arch,
    ev: &[GEv],
    chosen: &[&Run],
    infos: &[Vec<RunInfo>],
    pick: &[usize],
    base: &[usize],
    reads: &[usize],
    rf_cands: &[Vec<usize>],
    rf_pick: &[usize],
    co_edges: &[(usize, usize)],
    co_next: &[Option<usize>],
    co_pos: &[usize],
    po_loc: &[(usize, usize)],
    ppo: &[(usize, usize)],
    dp: &[(usize, usize)],
) -> bool {
    let n = ev.len();
    let mut rf_of = vec![usize::MAX; n];
    let mut rf = vec![];
    let mut fr = vec![];
    for (k, &r) in reads.iter().enumerate() {
        let w = rf_cands[k][rf_pick[k]];
        rf_of[r] = w;
        rf.push((w, r));
        if let Some(w2) = co_next[w] {
            fr.push((r, w2));
        }
    }
    // Atomicity of read-modify-writes: nothing in coherence between the read's source and
    // the write.
    for (k, run) in chosen.iter().enumerate() {
        for (i, e) in run.events.iter().enumerate() {
            if let Some(ri) = e.rmw_read {
                let (w, r) = (base[k] + i, base[k] + ri);
                if co_pos[w] != co_pos[rf_of[r]] + 1 {
                    return false;
                }
            }
        }
    }
    // A read that takes its value from its thread's write whose address or value depends on
    // earlier reads comes after those reads: the write's value is known only then (herd's
    // `dd; rfi` in `ii` on Power and ARM, `(addr | data); lrs` in AArch64's `dob`). With the
    // program-order pairs kept from that read, what depends on it comes after them as well
    // (`DataRW` with a branch on the value).
    let mut dd_rfi = vec![];
    // Likewise a read of a read-modify-write's own write comes after the read-modify-write's
    // read (aarch64.cat's `aob`: `rmw; rfi`; LB+CAS-rfi-ctrl+DMBSY and R+CAS-rfi-ctrl+DMBST
    // are forbidden, MP+CAS-rfi-ctrl+acq allowed). In ghb only, not in the thin-air check.
    let mut aob_rfi = vec![];
    for &(w, r) in &rf {
        let (Some(k), true) = (ev[w].thread, ev[w].thread == ev[r].thread) else { continue };
        let we = &chosen[k].events[ev[w].local];
        if let Some(ri) = we.rmw_read {
            aob_rfi.push((base[k] + ri, r));
        }
        // (not in rmo.cat, nor needed where read pairs are kept anyway: `DepRules::dd_rfi`)
        let mut deps = if arch.deps.dd_rfi { we.addr | we.data } else { 0 };
        while deps != 0 {
            let m = deps.trailing_zeros() as usize;
            deps &= deps - 1;
            dd_rfi.push((base[k] + m, r));
        }
    }
    // uniproc
    let mut e: Vec<(usize, usize)> = Vec::with_capacity(co_edges.len() + 2 * rf.len() + po_loc.len());
    e.extend_from_slice(co_edges);
    e.extend_from_slice(&rf);
    e.extend_from_slice(&fr);
    e.extend_from_slice(po_loc);
    if !acyclic(n, &e) {
        return false;
    }
    // thin air, over rfe (and rfi only where the model keeps it): a read may be satisfied
    // by forwarding from a write of its own thread before that write's dependencies are
    // resolved (herd allows LB+data+fri-rfi-data on ARM).
    if !dp.is_empty() {
        let mut e2: Vec<(usize, usize)> = rf.iter().copied().filter(|&(w, r)| arch.rfi_safe() || ev[w].thread != ev[r].thread).collect();
        e2.extend_from_slice(dp);
        e2.extend_from_slice(&dd_rfi);
        if !acyclic(n, &e2) {
            return false;
        }
    }
    // ghb
    let mut g: Vec<(usize, usize)> = Vec::with_capacity(e.len() + ppo.len());
    g.extend_from_slice(co_edges);
    g.extend_from_slice(&fr);
    g.extend_from_slice(ppo);
    g.extend_from_slice(&dd_rfi);
    g.extend_from_slice(&aob_rfi);
    for &(w, r) in &rf {
        let external = ev[w].thread != ev[r].thread;
        let safe = if external { arch.rfe_safe() } else { arch.rfi_safe() };
        if safe {
            g.push((w, r));
        }
        if external {
            // rfe; fence (A-cumulativity) and fence; rfe (B-cumulativity).
            if let Some(k) = ev[r].thread {
                for &j in &infos[k][pick[k]].a_cumul[ev[r].local] {
                    g.push((w, base[k] + j));
                }
            }
            if let Some(k) = ev[w].thread {
                let inf = &infos[k][pick[k]];
                for &i in &inf.b_cumul[ev[w].local] {
                    let e = base[k] + i;
                    g.push((e, r));
                    // rfe; fence; rfe: the fence is A-cumulative for (e, w) as well, so the
                    // write e read from is ordered before r.
                    if ev[e].dir == Dir::R && inf.a_cumul[i].contains(&ev[w].local) {
                        let w0 = rf_of[e];
                        if ev[w0].thread != ev[e].thread {
                            g.push((w0, r));
                        }
                    }
                }
            }
        }
    }
    acyclic(n, &g)
}

#[cfg(test)]
#[path = "axiomatic_tests.rs"]
mod tests;
