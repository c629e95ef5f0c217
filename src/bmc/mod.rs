//! The built-in verifier: a bounded model checker for concurrent C under sequential
//! consistency, deciding the programs weakc's rewriter emits (and SV-COMP-style tasks).
//!
//! Pipeline: [`symex`] executes the IR symbolically (inlining, loop unwinding, path merging)
//! straight into bit-blasted SSA ([`bv`] over the gate store of [`sat`]) and a list of
//! shared-memory events; [`order`] adds the partial-order encoding of SC (or of a memory
//! model), whose order of events is a theory of the solver ([`acyclic`], connected through
//! [`solver`]); one SAT query asks whether some property can fail; the model becomes a
//! counterexample trace.
//!
//! Four reductions keep the encoding small, each sound by construction and cross-checked
//! against brute-force interleaving enumeration in the tests:
//! * **Read resolution.** Symbolic execution runs a few times: each run records, per thread,
//!   the constant addresses it writes (and every write at a non-constant address); the next
//!   run gives a read of a constant address its value straight from the path (no event, no
//!   choice of writes) when no thread other than the reader and its ancestors writes there,
//!   and the ancestors only before spawning the reader's line. Pointers that main stores
//!   before starting threads thus stay constants, and so do the addresses computed from
//!   them. Thread identities (parent, spawn statement, call and loop-iteration path) are
//!   compared between runs; on any difference the final run resolves nothing.
//! * **Points-to restriction.** When the program stays within what [`crate::aeg::alias`]
//!   models (no external calls with unmodelled effects, no thread return values, no string
//!   literals in memory), an access through a pointer is matched only with writes to, and
//!   initial values of, the objects the analysis allows.
//! * **Known bits.** The collection pass also records, per constant address, the bits all
//!   writes there agree on (and, per write at a non-constant address, the bits of its value
//!   and address). A read of a constant address then takes the bits its initial value and
//!   every write that may touch it agree on as constants: pointers kept in shared memory
//!   (the instrumentation's buffers) keep their constant object and offset bits, so address
//!   comparisons fold. The final pass records its own writes and checks the assumption; if
//!   any write breaks it, that pass is redone without known bits.
//! * **Atomic blocks.** Within one atomic section a read of a constant address already read
//!   or written in it (under a guard the current one implies) takes that value: no event.
//!   The counterexample's execution graph still shows it, with the rf edge of the thread's
//!   last access to the address.
//!
//! # Limits
//! `BmcOptions::timeout` bounds every phase: symbolic execution looks at the clock before
//! each statement, the gate store every few thousand clauses (and the encoding of SC before
//! each read), CaDiCaL through its terminate callback. Two memory guards stop the check the
//! same way: the formula's clause count (`max_clauses`, [`DEFAULT_MAX_CLAUSES`]) and the
//! process's resident memory (`max_memory`, set by `weakc verify`). Any of them gives
//! `Unknown` with a reason naming the limit and the phase ([`limit_reason`]). Once a limit
//! is reached no further clause reaches the solver. For experiments, `WEAKC_BMC_MAX_CLAUSES`
//! replaces the clause limit (0: none) and `WEAKC_BMC_FR=cubic|clock` fixes the from-read
//! encoding of [`order`].
//!
//! # Semantics (documented choices)
//! * **Integers** are bit-vectors of their `ir::Type` width. Unsigned arithmetic wraps;
//!   **signed overflow wraps too** (two's complement, as gcc `-fwrapv`), it is not reported.
//!   Conversions truncate or sign/zero-extend by the source type; `_Bool` normalises to 0/1.
//! * **Shifts** by a negative amount or by the width or more give 0 (`>>` of a negative
//!   signed value: all sign bits). `>>` on signed types is arithmetic.
//! * **Division and remainder by zero** (undefined) yield an unconstrained value, recorded as
//!   an approximation site (see below); `INT_MIN / -1` wraps to `INT_MIN` (remainder 0);
//!   division truncates toward zero.
//! * **Floating point** is IEEE 754, bit-precise ([`fp`]): `float` binary32, `double`
//!   binary64, `long double` computed as binary64 in its 16-byte storage; round to nearest
//!   even only (`fesetround` is not modelled); subnormals, infinities, NaNs and `-0.0` as the
//!   standard says. A float-to-integer conversion out of range (undefined) is an
//!   approximation site. `<math.h>`: see `symex/math.rs`; other math functions are
//!   unmodelled calls.
//! * **Approximation sites.** Where the engine's value is not C's — undefined behaviour, the
//!   result of a function without a body or a model (other than `rand`, `random`, `time`
//!   and `__VERIFIER_nondet_*`, which are arbitrary anyway) — symbolic execution records the
//!   condition under which the path passes there. A counterexample that passes one is not
//!   reported: the solver searches again for a violation that passes none, and if there is
//!   none (or the search runs out of time) the verdict is `Unknown`, naming the site. A
//!   violation on a path that calls an unmodelled function unconditionally is thus always
//!   `Unknown`, even when it does not depend on the result.
//! * **Memory** is a set of objects made of scalar cells (see [`layout`]); pointers are
//!   (object, cell offset). Out-of-bounds and null dereferences are not checked: a read
//!   outside any object yields an unconstrained value and a write there is lost only for
//!   thread-local arrays (shared memory writes to a wild address still happen, at that
//!   address). An access through a pointer that names no object (null, a function, an id
//!   never created) is an approximation site, and so is one outside its object's cells
//!   (objects whose extent is known: variables of complete types, string literals, heap
//!   memory of a constant size, bounded by its bytes). An out-of-bounds write that a correct
//!   verdict depends on is not reported: a `Safe` verdict assumes the program has none.
//!   Byte-level type punning is not modelled (unions overlay cells at offset 0): a program
//!   that reads memory through a type of other cell widths gets `Unknown` ([`punning`]).
//!   A pointer converted to an integer keeps its cell offset: where that value may reach
//!   arithmetic ([`ptrint`]) it is an approximation site unless the pointer is at its
//!   object's start or in an object of bytes.
//! * **Uninitialised** locals are unconstrained; globals are zero unless initialised;
//!   `malloc` never fails and returns fresh, unconstrained memory (each read of a cell never
//!   written is unconstrained on its own); `calloc` memory is zero; `free` does nothing.
//! * **External functions** without a body return an unconstrained value (an approximation
//!   site when the result is used); their possible writes through pointer arguments are
//!   ignored (a warning is emitted, a `Safe` verdict is then reported as not complete, and
//!   the call is an approximation site).
//!   `scanf`, `sscanf`, `fscanf` are modelled for numeric conversions (`symex/scanf.rs`).
//! * **Threads**: `pthread_create` (also in unwound loops: each unwinding is a new thread)
//!   stores the new thread's number (1, 2, …; main is 0) in `*tid`; `pthread_join` waits for
//!   the thread with that number to finish (a number no thread has returns at once).
//!   Mutexes are cells: lock = atomically wait for 0 and write 1; unlock writes 0.
//!   Read-write locks, semaphores and barriers are counters (`symex/sync.rs`).
//!   `__VERIFIER_atomic_*` functions and `AtomicBegin/End` are indivisible.
//!   Thread-specific data (`pthread_key_create`, `_delete`, `pthread_getspecific`,
//!   `_setspecific`) is per thread, and a thread other than main runs its keys'
//!   destructors when it ends (`symex/tsd.rs`).
//! * **Every global is shared memory**, including `__unbuffered_*` ones (which the
//!   instrumentation treats as registers: on SC that distinction does not matter, but main
//!   must still see the threads' final values); address-taken locals too.
//! * **Assumptions** (`assume`, `abort`, `exit`, a lock that is never free, a join on a thread
//!   that never finishes, an unwinding assumption) stop the executing thread only: other
//!   threads run on. For reachability of a failing assertion this is exact.
//! * **Loops**: `unwind = k` executes the body at most `k` times; the loop condition is then
//!   checked once more and, if it can still hold, the *unwinding assertion* fails (or, with
//!   `unwinding_assertions = false`, the path is cut and a `Safe` verdict is not complete).
//!   Direct recursion is rejected (`Error::Unsupported`); a call through a pointer that may
//!   hold a function already running is not unwound: reaching it is a recursion unwinding
//!   assertion. A call through a pointer that holds no function ends the path (undefined
//!   behaviour, assumed not to happen, like a null dereference).

mod acyclic;
mod bv;
mod counted;
mod enumerate;
mod fp;
mod graph;
mod layout;
mod order;
mod past;
mod propagation;
mod ptrint;
mod punning;
mod sat;
mod solver;
mod spin;
pub use spin::Reduction;
pub use sat::resident_bytes;
mod symex;
#[cfg(test)]
mod tests;

pub use enumerate::{enumerate, Enumeration};
pub use graph::ExecGraph;
pub use sat::Stop;

use crate::ir::{Program, Type};
use crate::source::{Error, Loc};
use serde::Serialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct BmcOptions {
    /// Default loop bound: the body of every loop runs at most this many times.
    pub unwind: u32,
    /// Bounds for single loops, by id `"function.N"` (N counts the loops of the function
    /// in source order from 0).
    pub unwindset: HashMap<String, u32>,
    /// Check that the bounds suffice (otherwise paths beyond the bound are cut silently).
    pub unwinding_assertions: bool,
    /// Time limit of the whole check: symbolic execution, encoding and SAT solving each stop
    /// when it is reached (verdict `Unknown`, the reason naming the phase).
    pub timeout: Option<Duration>,
    /// Memory guard: the largest formula (in clauses) built before giving up with `Unknown`
    /// ([`DEFAULT_MAX_CLAUSES`] by default; `None`: no limit).
    pub max_clauses: Option<usize>,
    /// Memory guard: give up with `Unknown` when the process's resident memory reaches this
    /// many bytes (read from `/proc/self/statm`, so Linux only; `None` by default, as it
    /// measures the whole process: `weakc verify` sets [`DEFAULT_MAX_MEMORY`]).
    pub max_memory: Option<u64>,
    /// Told each phase as it starts, with the formula's size before solving (the CLI shows
    /// it on a terminal during long runs).
    pub progress: Option<fn(&str)>,
    /// The memory model the program is decided under: `None` is sequential consistency; a
    /// [`StoreBufferModel`] decides TSO/PSO executions directly (`verify --engine
    /// axiomatic`), with no instrumentation.
    pub model: Option<StoreBufferModel>,
    /// Set by another thread when its search made this one moot: symbolic execution,
    /// encoding and solving stop ([`sat::Stop::Cancelled`], verdict `Unknown`).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// A multi-copy-atomic memory model with store buffers, as partial orders (Alglave,
/// Kroening, Tautschnig, CAV 2013): read→read and read→write program order is kept, write→read
/// is relaxed (a read may take its thread's buffered write early: store forwarding), and on
/// PSO write→write between different addresses too. Fences order what their row says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreBufferModel {
    /// Write→write between different addresses is relaxed (PSO).
    pub ww_relaxed: bool,
    /// Per fence the model does not make void: the directions it waits for before it and
    /// the directions it holds back after it (every such pair is ordered).
    pub fences: Vec<(crate::ir::Fence, FenceSides)>,
    /// Models that relax pairs from reads too (RMO, AArch64): what keeps them instead. The
    /// `fences` above are then unused; these rules decide every pair ([`order`]'s `relaxed`).
    pub relaxed: Option<Relaxed>,
}

/// Program order of a model where nothing is preserved by itself: same address pairs (but
/// write→read, store forwarding), dependencies, fences and acquire/release instructions, as
/// the architecture's table says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relaxed {
    /// Per fence that orders something: the pairs it orders across it, and whether it is a
    /// strong fence (not herd's lightweight `lwsync`/`eieio`).
    pub fences: Vec<RelaxedFence>,
    pub deps: crate::arch::DepRules,
    pub acq_rel: crate::arch::AcqRelRules,
    /// Stores are multi-copy atomic (RMO, AArch64). Otherwise (Power, ARM) a write may reach
    /// some threads before others, and herd's propagation and observation axioms are checked
    /// on each candidate execution ([`propagation`]).
    pub mca: bool,
}

/// A fence of a [`Relaxed`] model.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RelaxedFence {
    pub fence: crate::ir::Fence,
    pub orders: crate::arch::PairSet,
    pub strong: bool,
    /// A- and B-cumulative (herd's `fence` in `prop`); otherwise it orders only the pairs
    /// around it, as a dependency does.
    pub cumulative: bool,
}


/// Directions a fence orders across it: every earlier access of a direction in `before`
/// comes before every later access of a direction in `after`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FenceSides {
    pub before_r: bool,
    pub before_w: bool,
    pub after_r: bool,
    pub after_w: bool,
}

impl StoreBufferModel {
    pub fn fence(&self, f: crate::ir::Fence) -> Option<FenceSides> {
        self.fences.iter().find(|(g, _)| *g == f).map(|(_, s)| *s)
    }

    /// Whether fence `f` is a block of its own: it orders something, or (an `isync`/`isb`)
    /// it completes a control dependency the model honours.
    pub fn fence_matters(&self, f: crate::ir::Fence) -> bool {
        match &self.relaxed {
            None => self.fence(f).is_some(),
            Some(r) => r.fences.iter().any(|x| x.fence == f),
        }
    }

    /// Whether symbolic execution must record dependencies.
    pub fn tracks_deps(&self) -> bool {
        self.relaxed.is_some()
    }
}

impl Default for BmcOptions {
    fn default() -> Self {
        BmcOptions {
            unwind: 2,
            unwindset: HashMap::new(),
            unwinding_assertions: true,
            timeout: None,
            max_clauses: Some(DEFAULT_MAX_CLAUSES),
            max_memory: None,
            progress: None,
            model: None,
            cancel: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// No property can fail within the bounds; `complete` when the bounds were shown
    /// sufficient (unwinding assertions hold) and nothing was approximated.
    Safe { complete: bool },
    Unsafe,
    Unknown(String),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum PropertyKind {
    Assertion,
    UnwindingAssertion,
}

#[derive(Clone, Debug, Serialize)]
pub struct Property {
    pub kind: PropertyKind,
    pub loc: Loc,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StepKind {
    /// A thread-local variable was assigned.
    Assign { lhs: String, value: String },
    /// Shared memory was read.
    Read { object: String, value: String },
    /// Shared memory was written.
    Write { object: String, value: String },
    /// A write reached memory after later accesses of its thread had been performed: it
    /// waited in the store buffer (the axiomatic route, where steps are in memory order).
    BufferedWrite { object: String, value: String },
    /// A write entered the store buffer (an external verifier's trace of the instrumented
    /// program, told in the user's terms by `backend::steps`).
    Delayed { object: String, value: String },
    /// A buffered write reached memory (ditto).
    Flushed { object: String, value: String },
    /// An assumption held (the path went on).
    Assume,
    Spawn { thread: String },
    Join { thread: String },
    AtomicBegin,
    AtomicEnd,
    Lock,
    Unlock,
    Call { function: String },
    /// The property that fails.
    Failure { message: String },
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub thread: String,
    pub loc: Loc,
    pub kind: StepKind,
    /// Position in its thread's program order. The built-in engine lists steps in memory
    /// order, where an access can come before an access of its thread that precedes it in
    /// program order; other traces give their order.
    #[serde(skip)]
    pub po: u32,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub vars: usize,
    /// Clauses of the formula solved (or built when a limit stopped the check).
    pub clauses: usize,
    /// The largest formula any symbolic execution pass built (the memory guard's measure:
    /// a collection pass, resolving nothing yet, may build a larger one than the last).
    pub peak_clauses: usize,
    pub events: usize,
    pub threads: usize,
    pub blocks: usize,
    pub properties: usize,
    pub symex_time: Duration,
    pub encode_time: Duration,
    pub solve_time: Duration,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub verdict: Verdict,
    pub failed: Option<Property>,
    /// The counterexample (empty unless `Unsafe`), in a valid SC order.
    pub trace: Vec<Step>,
    pub stats: Stats,
    /// Approximations made (external functions, …).
    pub warnings: Vec<String>,
    /// The counterexample's execution graph (po, rf, co, fr), when the engine reports one
    /// (the built-in engine does; external verifiers do not say which write a read read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<ExecGraph>,
    /// The limit that stopped the check (then the verdict is `Unknown`), if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
    /// The program's front-end warnings (`Program::warnings`: unknown inline assembly, a
    /// memory order that is not a constant) were taken as over-approximations of the paths
    /// through them, so a violation reported here goes through none of them. The built-in
    /// engine does this; an external verifier's violation may rely on any of them.
    #[serde(skip)]
    pub warnings_tracked: bool,
}

impl Outcome {
    /// Whether a memory guard (formula size or resident memory), not the clock, stopped the
    /// check: a smaller program may then still be decided.
    pub fn memory_guard_hit(&self) -> bool {
        matches!(self.stopped, Some(Stop::Size(_) | Stop::Memory(_)))
    }
}

/// A shared-memory event of a counterexample, for the execution graph.
#[derive(Clone, Debug, Serialize)]
pub struct GraphEvent {
    pub thread: String,
    /// Where the user sees it: inside an instrumentation helper, the helper's call site.
    pub loc: Loc,
    pub write: bool,
    pub object: String,
    pub value: String,
    /// Made inside an instrumentation helper (a buffer flush, a forwarded read, …).
    pub in_helper: bool,
}

/// A loop of the program and the id `--unwindset` knows it by.
#[derive(Clone, Debug, Serialize)]
pub struct LoopInfo {
    /// `FUNCTION.K`: the K-th loop (from 0, in source order, outer before inner) of FUNCTION.
    pub id: String,
    pub function: String,
    pub loc: Loc,
    /// A spin loop (entered once) or a condition-wait loop (at most twice), whatever the
    /// bound ([`spin`]).
    pub reduction: Option<Reduction>,
}

/// Every loop of `prog` with its id (the numbering symbolic execution uses for `unwindset`).
pub fn loops(prog: &Program) -> Vec<LoopInfo> {
    let spin = spin::spin_loops(prog);
    loop_stmts(prog)
        .into_iter()
        .map(|(s, f, id)| LoopInfo { id, function: f.to_string(), loc: s.loc, reduction: spin.get(&(s as *const _)).copied() })
        .collect()
}

pub(crate) fn loop_stmts(prog: &Program) -> Vec<(&crate::ir::Stmt, &str, String)> {
    let mut out = vec![];
    for f in &prog.funcs {
        if let Some(body) = &f.body {
            let mut n = 0;
            crate::ir::walk_stmts(body, &mut |s| {
                if matches!(s.kind, crate::ir::StmtKind::Loop { .. }) {
                    out.push((s, f.name.as_str(), format!("{}.{}", f.name, n)));
                    n += 1;
                }
            });
        }
    }
    out
}

/// UNKNOWN: `stop` was reached during `phase`.
fn stopped(stop: sat::Stop, phase: &str, stats: Stats) -> Outcome {
    Outcome { verdict: Verdict::Unknown(limit_reason(stop, phase)), failed: None, trace: vec![], stats, warnings: vec![], graph: None, stopped: Some(stop), warnings_tracked: true }
}

/// A program's formula: symbolic execution and the memory model's encoding, with `any`
/// the literal "some property is violated".
struct Built<'p> {
    sx: symex::Symex<'p>,
    enc: order::Encoding,
    any: sat::Lit,
    stats: Stats,
    deadline: Option<Instant>,
    max_clauses: Option<usize>,
}

/// Builds the formula of `prog`; `Err(outcome)` when a limit stopped it (UNKNOWN).
fn build<'p>(prog: &'p Program, opts: &'p BmcOptions, t0: Instant) -> Result<Result<Built<'p>, Outcome>, Error> {
    let deadline = opts.timeout.map(|t| t0 + t);
    // For experiments: WEAKC_BMC_MAX_CLAUSES=N replaces the clause limit (0: none).
    let max_clauses = match std::env::var("WEAKC_BMC_MAX_CLAUSES").ok().and_then(|v| v.parse::<usize>().ok()) {
        Some(0) => None,
        Some(n) => Some(n),
        None => opts.max_clauses,
    };
    // Symbolic execution checks the limits before every statement.
    let mut peak_clauses = 0;
    macro_rules! run {
        ($sx:expr) => {{
            $sx.sat.set_cancel(opts.cancel.clone());
            $sx.sat.set_limits(deadline, max_clauses, opts.max_memory);
            let r = $sx.run();
            peak_clauses = peak_clauses.max($sx.sat.clauses);
            if let Err(e) = r {
                if let (true, Some(stop)) = ($sx.limit_hit, $sx.sat.stopped()) {
                    let stats = Stats { vars: $sx.sat.num_vars(), clauses: $sx.sat.clauses, peak_clauses, symex_time: t0.elapsed(), ..Default::default() };
                    return Ok(Err(stopped(stop, PHASE_SYMEX, stats)));
                }
                return Err(e);
            }
            if std::env::var_os("WEAKC_BMC_DEBUG").is_some() {
                eprintln!("bmc: symbolic execution pass: {} clauses, {} events", $sx.sat.clauses, $sx.events.len());
            }
        }};
    }
    let progress = |m: &str| {
        if let Some(p) = opts.progress {
            p(m)
        }
    };
    progress("symbolic execution");
    let alias = points_to(prog).map(std::rc::Rc::new);
    let prepared = std::rc::Rc::new(symex::Prepared::of(prog));
    // Pass 1 learns what every thread writes; each later pass resolves reads of locations
    // no concurrent thread writes using what the previous pass learnt (and learns more
    // precisely, as resolved pointers make addresses constant). Should a pass create threads
    // the previous one did not predict, the final run is done without resolution.
    let mut collected: Option<symex::Collected> = None;
    let passes = if std::env::var_os("WEAKC_BMC_NO_RESOLVE").is_some() { 0 } else { RESOLVE_PASSES };
    for _ in 0..passes {
        let mut sx1 = symex::Symex::new(prog, opts, alias.clone(), prepared.clone());
        sx1.collected = collected.take();
        sx1.collecting = Some(Default::default());
        run!(sx1);
        if sx1.collected.as_ref().is_some_and(|c| c.mismatch) {
            collected = None;
            break;
        }
        let fixpoint = sx1.collected.as_ref().is_some_and(|c| same_info(c, sx1.collecting.as_ref().unwrap()));
        collected = sx1.collecting.take();
        if fixpoint {
            break;
        }
    }
    // The final pass records its writes too: the bits its reads took as known must hold for
    // them, or it is redone without known bits.
    let mut sx = symex::Symex::new(prog, opts, alias.clone(), prepared.clone());
    sx.collected = collected;
    sx.collecting = Some(Default::default());
    run!(sx);
    if sx.collected.as_ref().is_some_and(|c| c.mismatch) {
        sx = symex::Symex::new(prog, opts, alias, prepared);
        run!(sx);
    } else if !sx.known_bits_hold() {
        let collected = sx.collected.take();
        sx = symex::Symex::new(prog, opts, alias, prepared);
        sx.collected = collected;
        sx.fix_known_bits = false;
        run!(sx);
    }
    let symex_time = t0.elapsed();
    progress(if opts.model.is_some() { "encoding the memory model" } else { "encoding sequential consistency" });
    let t1 = Instant::now();
    let enc = order::encode(&mut sx);
    let viols: Vec<sat::Lit> = sx.props.iter().map(|p| p.viol).collect();
    let any = sx.sat.or_all(viols);
    let encode_time = t1.elapsed();
    let stats = Stats {
        vars: sx.sat.num_vars(),
        clauses: sx.sat.clauses,
        peak_clauses: peak_clauses.max(sx.sat.clauses),
        events: sx.events.len(),
        threads: sx.threads.len(),
        blocks: sx.blocks.len(),
        properties: sx.props.len(),
        symex_time,
        encode_time,
        solve_time: Duration::ZERO,
    };
    let enc = match (enc, sx.sat.check_limits()) {
        (Some(enc), None) => enc,
        (_, stop) => {
            let phase = if opts.model.is_some() { PHASE_ENCODE_MODEL } else { PHASE_ENCODE };
            return Ok(Err(stopped(stop.unwrap_or(sat::Stop::Time), phase, stats)));
        }
    };
    Ok(Ok(Built { sx, enc, any, stats, deadline, max_clauses }))
}

/// Decides whether some assertion (or unwinding assertion) of `prog` can fail under SC
/// within the bounds of `opts`.
///
/// `opts.timeout` bounds every phase (symbolic execution, the encoding of SC, the SAT
/// search) and `opts.max_clauses` the size of the formula: reaching either gives
/// `Unknown` with a reason naming the limit and the phase (see [`limit_reason`]).
pub fn verify(prog: &Program, opts: &BmcOptions) -> Result<Outcome, Error> {
    let t0 = Instant::now();
    let Built { mut sx, enc, any, mut stats, deadline, max_clauses } = match build(prog, opts, t0)? {
        Ok(b) => b,
        Err(stopped) => return Ok(stopped),
    };
    let progress = |m: &str| {
        if let Some(p) = opts.progress {
            p(m)
        }
    };
    let complete = sx.cuts.iter().all(|&c| c == sat::Lit::FALSE) && !sx.approximate;
    let warnings = sx.warnings.clone();
    // Memory read through a type of other widths: neither verdict is certain.
    let punned = punning::find(prog);
    let honest = |v: Verdict| match (&v, punned.first()) {
        (Verdict::Safe { .. } | Verdict::Unsafe, Some((loc, why))) => {
            Verdict::Unknown(format!("{} at line {}: {why}", if v == Verdict::Unsafe { "a violation was found, but the program reinterprets memory" } else { "no violation was found, but the program reinterprets memory" }, loc.line))
        }
        _ => v,
    };
    // "Safe" holds only where no execution reaches a place the engine does not model.
    let safe = |sx: &mut symex::Symex| {
        if !punned.is_empty() {
            return honest(Verdict::Safe { complete });
        }
        let reach = sx.sat.or_all(sx.unmodelled.iter().map(|a| a.guard).collect::<Vec<_>>());
        if reach == sat::Lit::FALSE {
            return honest(Verdict::Safe { complete });
        }
        let res = solve_valid(sx, &enc, &[reach]);
        match res {
            Some(false) => honest(Verdict::Safe { complete }),
            Some(true) => {
                let a = sx.unmodelled.iter().find(|a| sx.sat.value(a.guard)).expect("a site is reached");
                Verdict::Unknown(format!("no violation was found, but an execution {} (line {})", a.what, a.loc.line))
            }
            None => Verdict::Unknown("no violation was found, but whether an execution reaches a mixed-size access was not decided within the limits".into()),
        }
    };
    if any == sat::Lit::FALSE {
        return Ok(Outcome { verdict: safe(&mut sx), failed: None, trace: vec![], stats, warnings, graph: None, stopped: None, warnings_tracked: true });
    }
    progress(&format!(
        "solving: {} variables, {} clauses ({} shared-memory events, {} threads)",
        stats.vars, stats.clauses, stats.events, stats.threads
    ));
    let t2 = Instant::now();
    let res = solve_valid(&mut sx, &enc, &[any]);
    let first_search = t2.elapsed();
    stats.solve_time = first_search;
    match res {
        None => {
            let stop = sx.sat.stopped().unwrap_or(sat::Stop::Time);
            Ok(Outcome { warnings, ..stopped(stop, PHASE_SOLVE, stats) })
        }
        Some(false) => Ok(Outcome { verdict: safe(&mut sx), failed: None, trace: vec![], stats, warnings, graph: None, stopped: None, warnings_tracked: true }),
        Some(true) => {
            // The over-approximated value a counterexample goes through, if any: read off the
            // model that gave it, while the solver still holds that model (a later search that
            // fails leaves none).
            let relied_on = |sx: &symex::Symex| {
                let live = live_steps(sx, &enc);
                let (step, site) = failure(sx, &live);
                (counterexample(sx, &enc, live, step), site.map(|a| (a.loc, a.what.clone())))
            };
            let (mut cex, mut relied) = relied_on(&sx);
            // Prefer a violated assertion to a violated unwinding assertion (CBMC reports
            // both): a real violation within the bound is a bug whatever the bound, a failed
            // unwinding assertion only asks for a larger one. The second search gets twice the
            // first one's time (plus a second); the first counterexample stands otherwise.
            if cex.0.kind == PropertyKind::UnwindingAssertion {
                let real: Vec<sat::Lit> = sx.props.iter().filter(|p| p.kind != PropertyKind::UnwindingAssertion).map(|p| p.viol).collect();
                let real = sx.sat.or_all(real);
                if real != sat::Lit::FALSE {
                    let budget = Instant::now() + first_search * 2 + Duration::from_secs(1);
                    sx.sat.set_limits(Some(deadline.map_or(budget, |d| d.min(budget))), max_clauses, opts.max_memory);
                    if solve_valid(&mut sx, &enc, &[real]) == Some(true) {
                        (cex, relied) = relied_on(&sx);
                    }
                    sx.sat.clear_stop();
                    stats.solve_time = t2.elapsed();
                }
            }
            // A counterexample through a value the engine over-approximates (undefined
            // behaviour, an unmodelled function) is not known to be one: search again for one
            // that avoids every such value; failing that, the answer is UNKNOWN.
            if relied.is_some() {
                let guards: Vec<sat::Lit> = sx.approx_sites.iter().map(|a| a.guard).collect();
                let avoid = sx.sat.or_all(guards);
                let budget = Instant::now() + t2.elapsed() * 4 + Duration::from_secs(5);
                sx.sat.set_limits(Some(deadline.unwrap_or(budget)), max_clauses, opts.max_memory);
                if solve_valid(&mut sx, &enc, &[any, !avoid]) == Some(true) {
                    (cex, relied) = relied_on(&sx);
                }
                sx.sat.clear_stop();
                stats.solve_time = t2.elapsed();
            }
            let (failed, trace, graph) = cex;
            let verdict = match relied {
                None => honest(Verdict::Unsafe),
                Some((loc, what)) => Verdict::Unknown(format!("a violation was found, but the counterexample {what} (line {})", loc.line)),
            };
            Ok(Outcome { verdict, failed: Some(failed), trace, stats, warnings, graph: Some(graph), stopped: None, warnings_tracked: true })
        }
    }
}

/// Which search [`verify_sc_first`]'s verdict comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Among the sequentially consistent executions of the first program.
    Sc,
    /// The second program's own search (under its model, or SC of an instrumented program).
    Own,
}

/// [`verify`] of `prog` under `opts`, where the executions of `prog` include the SC
/// executions of `sc_prog` (the same program under a weak model, or the program `prog`
/// instruments): a violation of `sc_prog` under SC is then one of `prog` too, and its
/// formula is the smallest. Both searches run at once, each in its own thread and solver
/// (neither interrupted: CaDiCaL searches badly in slices). The own search's verdict is the
/// answer unless the SC search first finds a violation of a real assertion whose
/// counterexample relies on no over-approximated value ([`Found::Sc`]); then the own search
/// is stopped. Anything else the SC search ends with (the assertions hold, only an unwinding
/// assertion fails, a doubted counterexample, a limit) concludes nothing. The own search,
/// when it ends first, stops the SC one. So the verdict is the same whichever ends first
/// (both are exact); which counterexample is shown may differ.
pub fn verify_sc_first(sc_prog: &Program, prog: &Program, opts: &BmcOptions) -> Result<(Outcome, Found), Error> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let (stop_sc, stop_own) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    // Only the own search tells its phases.
    let sc_opts = BmcOptions { model: None, cancel: Some(stop_sc.clone()), progress: None, ..opts.clone() };
    let own_opts = BmcOptions { cancel: Some(stop_own.clone()), ..opts.clone() };
    std::thread::scope(|s| {
        let sc = s.spawn(|| -> Result<Option<Outcome>, Error> {
            let o = verify(sc_prog, &sc_opts)?;
            let real = o.failed.as_ref().is_some_and(|p| p.kind != PropertyKind::UnwindingAssertion);
            Ok((o.verdict == Verdict::Unsafe && real).then(|| {
                stop_own.store(true, Ordering::Relaxed);
                o
            }))
        });
        let own = verify(prog, &own_opts);
        let cancelled = own.as_ref().is_ok_and(|o| o.stopped == Some(sat::Stop::Cancelled));
        if !cancelled {
            stop_sc.store(true, Ordering::Relaxed);
        }
        let sc = sc.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        match (cancelled, sc) {
            (true, Ok(Some(o))) => Ok((o, Found::Sc)),
            _ => own.map(|o| (o, Found::Own)),
        }
    })
}

/// Solves under `assume`; on a non-multi-copy-atomic model, again until the candidate also
/// satisfies herd's propagation and observation axioms (each violating candidate excluded by
/// a clause, [`propagation`]).
fn solve_valid(sx: &mut symex::Symex, enc: &order::Encoding, assume: &[sat::Lit]) -> Option<bool> {
    let relaxed = sx.opts.model.as_ref().and_then(|m| m.relaxed.clone()).filter(|r| !r.mca);
    let mut rounds = 0;
    loop {
        let res = sx.sat.solve(assume);
        if std::env::var_os("WEAKC_BMC_DEBUG").is_some() && enc.edges {
            let (cycles, props) = sx.sat.order_stats();
            eprintln!("bmc: solve: {res:?}; order theory so far: {cycles} cycles excluded, {props} edges propagated false");
        }
        let (Some(true), Some(m)) = (res, &relaxed) else {
            if rounds > 0 && std::env::var_os("WEAKC_BMC_DEBUG").is_some() {
                eprintln!("bmc: {rounds} candidates excluded by the propagation and observation axioms");
            }
            return res;
        };
        match propagation::check(sx, enc, m) {
            None => return res,
            Some(clause) => {
                sx.sat.add_clause(&clause);
                rounds += 1;
            }
        }
    }
}

/// The phases [`verify`] names when a limit stops it.
pub const PHASE_SYMEX: &str = "symbolic execution";
pub const PHASE_ENCODE: &str = "the encoding of sequential consistency";
/// The same phase under a [`StoreBufferModel`].
pub const PHASE_ENCODE_MODEL: &str = "the encoding of the memory model";
pub const PHASE_SOLVE: &str = "SAT solving";

/// Default of [`BmcOptions::max_clauses`]: 20 million clauses take about 2.5 GB (CaDiCaL's
/// clause store plus the gate caches, ~120 bytes per clause as measured on SV-COMP tasks).
pub const DEFAULT_MAX_CLAUSES: usize = 20_000_000;

/// What `weakc verify` passes as [`BmcOptions::max_memory`]: 4 GiB resident (CaDiCaL's
/// memory grows while it solves, beyond what the clause count predicts).
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// The reason of an `Unknown` verdict when a limit stopped [`verify`] in `phase`.
pub fn limit_reason(stop: sat::Stop, phase: &str) -> String {
    match stop {
        sat::Stop::Time => format!("time limit reached during {phase}"),
        sat::Stop::Size(n) => format!("formula too large: {n} clauses reached during {phase} (memory guard)"),
        sat::Stop::Memory(b) => format!("memory limit reached: {} MiB resident during {phase} (memory guard)", b >> 20),
        sat::Stop::Cancelled => format!("stopped during {phase}: another search decided first"),
    }
}

/// Symbolic-execution passes that learn write sets before the final one.
const RESOLVE_PASSES: usize = 3;

fn same_info(a: &symex::Collected, b: &symex::Collected) -> bool {
    a.ids == b.ids && a.writes == b.writes && a.sym.len() == b.sym.len() && a.sym_on_path == b.sym_on_path && a.vals == b.vals && a.sym_vals == b.sym_vals
}


/// The points-to analysis, when the program stays within what both it and the checker model
/// the same way: no external calls with unmodelled effects (copies of pointers through
/// `memcpy`, …), no thread return values, no address-taken `__unbuffered_*` variables.
/// Accesses through pointers are then matched only against the objects it allows.
fn points_to(prog: &Program) -> Option<crate::aeg::alias::Alias> {
    use crate::ir::{walk_stmts, Callee, ExprKind, StmtKind};
    let mut ok = !prog.vars.iter().any(|v| v.address_taken && v.name.starts_with(crate::normalize::UNBUFFERED_PREFIX));
    let funcs: Vec<crate::ir::FuncId> =
        (0..prog.funcs.len()).map(|i| crate::ir::FuncId(i as u32)).filter(|f| prog.func(*f).body.is_some()).collect();
    for &f in &funcs {
        walk_stmts(prog.func(f).body.as_ref().unwrap(), &mut |s| match &s.kind {
            StmtKind::Join { ret: Some(_), .. } => ok = false,
            StmtKind::Call { callee: Callee::Direct(g), .. } => {
                let g = prog.func(*g);
                if g.body.is_none() && !crate::aeg::alias::KNOWN_EXTERNALS.contains(&g.name.as_str()) && !g.name.starts_with("__VERIFIER_nondet") && !symex::models_math(&g.name) {
                    ok = false;
                }
            }
            StmtKind::Call { callee: Callee::Indirect(_), .. } => {}
            _ => {}
        });
    }
    // String literals are not objects of the analysis: only allowed as arguments of the
    // external functions above (which read them directly, not through memory).
    for &f in &funcs {
        walk_stmts(prog.func(f).body.as_ref().unwrap(), &mut |s| {
            if let StmtKind::Call { callee: Callee::Direct(g), .. } = &s.kind {
                if prog.func(*g).body.is_none() {
                    return;
                }
            }
            crate::ir::for_each_expr(s, &mut |e| {
                e.visit(&mut |x| {
                    if matches!(x.kind, ExprKind::Str(_)) {
                        ok = false;
                    }
                })
            })
        });
    }
    fn init_has_str(i: &crate::ir::Init) -> bool {
        match i {
            crate::ir::Init::Expr(e) => {
                let mut found = false;
                e.visit(&mut |x| found |= matches!(x.kind, ExprKind::Str(_)));
                found
            }
            crate::ir::Init::List(l) => l.iter().any(init_has_str),
        }
    }
    if prog.vars.iter().any(|v| v.init.as_ref().is_some_and(init_has_str)) {
        ok = false;
    }
    if std::env::var_os("WEAKC_BMC_DEBUG").is_some() {
        eprintln!("bmc: points-to analysis {}", if ok { "used" } else { "not applicable" });
    }
    if !ok || std::env::var_os("WEAKC_BMC_NO_ALIAS").is_some() {
        return None;
    }
    Some(crate::aeg::alias::Alias::analyze(prog, &funcs, Default::default()))
}

fn model_value(sx: &symex::Symex, v: &[sat::Lit]) -> u128 {
    let mut x = 0u128;
    for (i, l) in v.iter().enumerate().take(128) {
        if sx.sat.value(*l) {
            x |= 1 << i;
        }
    }
    x
}

fn format_value(sx: &symex::Symex, v: &[sat::Lit], ty: &Type) -> String {
    let x = model_value(sx, v);
    let w = v.len();
    match ty {
        Type::Int { signed: true, .. } if w > 0 && w < 128 => {
            let s = if x >> (w - 1) & 1 == 1 { x as i128 - (1i128 << w) } else { x as i128 };
            s.to_string()
        }
        Type::Float { bits } if w == *bits as usize => {
            let v = fp::Format::of_width(w).to_f64(x);
            // `{:?}` keeps a decimal point and round-trips; C spells the specials so.
            match v {
                _ if v.is_nan() => "NAN".into(),
                _ if v.is_infinite() => (if v < 0.0 { "-INFINITY" } else { "INFINITY" }).into(),
                _ => format!("{v:?}"),
            }
        }
        Type::Ptr(_) | Type::Func(_) if w == layout::PTR_BITS => {
            if x == 0 {
                return "NULL".into();
            }
            let obj = x >> layout::OFF_BITS;
            let off = x & ((1u128 << layout::OFF_BITS) - 1);
            let name = if obj >= layout::FUNC_BASE {
                sx.prog.funcs.get((obj - layout::FUNC_BASE) as usize).map(|f| f.name.clone())
            } else {
                sx.objects.get(obj as usize).map(|o| o.name.clone())
            };
            match name {
                Some(n) if off == 0 => format!("&{n}"),
                Some(n) => format!("&{n}+{off}"),
                None => format!("{x:#x}"),
            }
        }
        _ => x.to_string(),
    }
}

/// The object (and cell, when not the first) an address of the model points to: what an
/// access through a pointer (`*p` in a helper of the instrumentation) really touched.
fn object_at(sx: &symex::Symex, addr: &[sat::Lit]) -> Option<String> {
    let x = model_value(sx, addr);
    let (obj, off) = (x >> layout::OFF_BITS, x & ((1u128 << layout::OFF_BITS) - 1));
    let name = &sx.objects.get(usize::try_from(obj).ok()?)?.name;
    Some(if off == 0 { name.clone() } else { format!("{name}[cell {off}]") })
}

/// The live steps of the model in trace order (memory order; program order within a block).
fn live_steps<'s>(sx: &'s symex::Symex, enc: &order::Encoding) -> Vec<(usize, &'s symex::RawStep)> {
    let ranks = enc.ranks(sx);
    let clock = |b: u32| ranks[b as usize];
    let mut live: Vec<(usize, &symex::RawStep)> = sx.steps.iter().enumerate().filter(|(_, s)| sx.sat.value(s.guard)).collect();
    live.sort_by_key(|(_, s)| (clock(s.block), s.thread, s.po));
    live
}

/// Which failure of the model to report (its `Fail` step), and the over-approximated value
/// in its causal past it relies on, if any ([`past`]). A violated assertion comes before a
/// violated unwinding assertion; among those, one that relies on nothing, then trace order.
fn failure<'s>(sx: &'s symex::Symex, live: &[(usize, &symex::RawStep)]) -> (Option<usize>, Option<&'s symex::ApproxSite>) {
    let real_failed = sx.props.iter().any(|p| p.kind != PropertyKind::UnwindingAssertion && sx.sat.value(p.viol));
    let mut first = None;
    for &(i, s) in live {
        let symex::RawKind::Fail { prop } = s.kind else { continue };
        if !sx.sat.value(sx.props[prop].viol) || real_failed && sx.props[prop].kind == PropertyKind::UnwindingAssertion {
            continue;
        }
        let past = past::of(sx, s.thread, s.po);
        let site = sx.approx_sites.iter().find(|a| sx.sat.value(a.guard) && past.contains(a.at));
        if site.is_none() {
            return (Some(i), None);
        }
        first = first.or(Some((Some(i), site)));
    }
    // (No step of the failure is live: every site counts, as without the past.)
    first.unwrap_or_else(|| (None, sx.approx_sites.iter().find(|a| sx.sat.value(a.guard))))
}

/// The failing property (the one of step `fail`), the trace up to it and its execution graph;
/// `live` as [`live_steps`] gives them.
fn counterexample(sx: &symex::Symex, enc: &order::Encoding, live: Vec<(usize, &symex::RawStep)>, fail: Option<usize>) -> (Property, Vec<Step>, ExecGraph) {
    let mut failed = None;
    let mut trace = vec![];
    // Graph events, and per thread the last user-visible location and whether the steps
    // now belong to an instrumentation helper (line 0) called from there.
    let (mut nodes, mut kinds) = (vec![], vec![]);
    // Per (thread, address) the last event there: a re-read in an atomic section takes its
    // value from it (a write: rf from it; a read: the same rf).
    let mut last_access: HashMap<(usize, u128), usize> = HashMap::new();
    let mut user_loc: HashMap<usize, Loc> = HashMap::new();
    // Per thread the last access performed so far in program order (steps are in memory
    // order: under a weak model a write can come after its thread's later accesses).
    let mut later_done: HashMap<usize, u32> = HashMap::new();
    for (i, s) in live {
        let thread = sx.threads[s.thread].name.clone();
        if s.loc.line > 0 {
            user_loc.insert(s.thread, s.loc);
        }
        let in_helper = s.loc.line == 0;
        let node_loc = if in_helper { user_loc.get(&s.thread).copied().unwrap_or(s.loc) } else { s.loc };
        match &s.kind {
            symex::RawKind::Read { ev, ty } | symex::RawKind::Write { ev, ty } => {
                let e = &sx.events[*ev];
                nodes.push(GraphEvent {
                    thread: thread.clone(),
                    loc: node_loc,
                    write: e.write,
                    object: object_at(sx, &e.addr).unwrap_or_else(|| e.label.clone()),
                    value: format_value(sx, &e.val, ty),
                    in_helper,
                });
                kinds.push(graph::Node::Event(*ev));
                last_access.insert((s.thread, model_value(sx, &e.addr)), *ev);
            }
            symex::RawKind::ReadValue { label, val, ty, reused: Some(a) } => {
                if let Some(&src) = last_access.get(&(s.thread, *a)) {
                    nodes.push(GraphEvent {
                        thread: thread.clone(),
                        loc: node_loc,
                        write: false,
                        object: object_at(sx, &sx.events[src].addr).unwrap_or_else(|| label.clone()),
                        value: format_value(sx, val, ty),
                        in_helper,
                    });
                    kinds.push(graph::Node::Reread(src));
                }
            }
            _ => {}
        }
        let kind = match &s.kind {
            symex::RawKind::Assign { lhs, val, ty } => StepKind::Assign { lhs: lhs.clone(), value: format_value(sx, val, ty) },
            symex::RawKind::ReadValue { label, val, ty, .. } => StepKind::Read { object: label.clone(), value: format_value(sx, val, ty) },
            symex::RawKind::Read { ev, ty } => {
                let e = &sx.events[*ev];
                StepKind::Read { object: e.label.clone(), value: format_value(sx, &e.val, ty) }
            }
            symex::RawKind::Write { ev, ty } => {
                let e = &sx.events[*ev];
                let (object, value) = (e.label.clone(), format_value(sx, &e.val, ty));
                if later_done.get(&s.thread).is_some_and(|&po| po > s.po) {
                    StepKind::BufferedWrite { object, value }
                } else {
                    StepKind::Write { object, value }
                }
            }
            symex::RawKind::Assume => StepKind::Assume,
            symex::RawKind::Spawn { thread } => StepKind::Spawn { thread: sx.threads[*thread].name.clone() },
            symex::RawKind::Join { tid } => {
                let k = model_value(sx, tid) as usize;
                StepKind::Join { thread: sx.threads.get(k).map(|t| t.name.clone()).unwrap_or_else(|| k.to_string()) }
            }
            symex::RawKind::AtomicBegin => StepKind::AtomicBegin,
            symex::RawKind::AtomicEnd => StepKind::AtomicEnd,
            symex::RawKind::Lock => StepKind::Lock,
            symex::RawKind::Unlock => StepKind::Unlock,
            symex::RawKind::Call { func } => StepKind::Call { function: func.clone() },
            symex::RawKind::Fail { prop } => {
                if Some(i) == fail {
                    let p = &sx.props[*prop];
                    failed = Some(Property { kind: p.kind, loc: p.loc, message: p.msg.clone() });
                    trace.push(Step { thread, loc: s.loc, kind: StepKind::Failure { message: p.msg.clone() }, po: s.po });
                    break;
                }
                continue;
            }
        };
        if matches!(s.kind, symex::RawKind::Read { .. } | symex::RawKind::Write { .. }) {
            let done = later_done.entry(s.thread).or_default();
            *done = (*done).max(s.po);
        }
        trace.push(Step { thread, loc: s.loc, kind, po: s.po });
    }
    let failed = failed.unwrap_or_else(|| {
        let p = sx
            .props
            .iter()
            .filter(|p| sx.sat.value(p.viol))
            .min_by_key(|p| p.kind == PropertyKind::UnwindingAssertion)
            .expect("a failing property");
        Property { kind: p.kind, loc: p.loc, message: p.msg.clone() }
    });
    let graph = graph::build(sx, enc, nodes, &kinds);
    (failed, trace, graph)
}
