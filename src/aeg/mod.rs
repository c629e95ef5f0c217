//! Abstract event graph (ESOP 2013 §4.2).
//!
//! An abstract event summarises every concrete event with the same thread, program point
//! (access *site*), direction and abstract object. Per thread, `po` is kept as the immediate
//! successor relation of the thread's control flow (both branches of an `if`, loop
//! back-edges), and [`Aeg::pairs`] holds its transitive closure for the events that can take
//! part in a cycle, annotated with what lies between them on **every** path (fences,
//! dependencies) — only must-information may make a pair safe. `com` edges are undirected
//! and relate events of different threads on the same object when at least one is a write.

mod build;
mod dataflow;
pub use build::{build, reachable_funcs, BuildOptions};
pub mod alias;
mod joins;
pub use joins::full_everywhere;



use crate::ir::{Fence, FuncId, VarId};
use crate::source::Loc;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct EventId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ThreadId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ObjId(pub u32);
/// An access site: one shared read or write in the normalised IR (see [`Site`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SiteId(pub u32);

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Dir {
    R,
    W,
}

impl Dir {
    pub fn letter(self) -> char {
        match self {
            Dir::R => 'R',
            Dir::W => 'W',
        }
    }
}

/// How many concrete threads an abstract thread stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Instances {
    /// Exactly this many (1 for `main` and for a thread spawned once outside loops).
    Count(u32),
    /// Spawned inside a loop or recursion-free but unbounded: any number.
    Unbounded,
}

#[derive(Clone, Debug, Serialize)]
pub struct Thread {
    /// `main`, or the thread function's name (`P0`, `worker`).
    pub name: String,
    pub func: FuncId,
    pub instances: Instances,
    /// Where it is spawned (the `main` thread: the function's location).
    pub loc: Loc,
}

/// An abstract memory object: what the alias analysis distinguishes.
#[derive(Clone, Debug, Serialize)]
pub struct Object {
    /// Printable name: `x`, `latch` (whole array), `a[2]` (split element), `s.f`, `*malloc@12`.
    pub name: String,
    /// The object is one concrete location (a scalar variable, a field of one, or a split
    /// array element): two accesses to it are certainly to the same address. Arrays taken as
    /// one object, heap objects and "anything" are inexact.
    pub exact: bool,
    /// The global variable the object lives in, when there is one.
    pub var: Option<VarId>,
}

/// A shared-memory access in the normalised program: where the rewriter will act.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub func: FuncId,
    /// Id of the statement performing the access (see [`crate::ir::number_stmts`]).
    pub stmt: u32,
    pub dir: Dir,
    /// Read-modify-write or inside an atomic section: never delayed.
    pub atomic: bool,
    /// Inside a loop of some thread: may execute more than once per thread.
    pub in_loop: bool,
    pub loc: Loc,
}

#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub thread: ThreadId,
    pub dir: Dir,
    pub obj: ObjId,
    pub site: SiteId,
    pub loc: Loc,
}

/// What lies between two program-ordered events on every path from the first to the second.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PairInfo {
    /// Fences crossed on every path.
    pub fences: BTreeSet<Fence>,
    /// Dependencies from the first event (a read) to the second.
    pub deps: Deps,
    /// The second event is reached only through a loop back-edge (an event copy, §4.2).
    pub via_back_edge: bool,
    /// Objects written (by one definite write) on every path strictly between the two
    /// events: a read of such an object after them reads that write or a later one.
    /// (The three sets are shared between pairs: a thread of n accesses has n² pairs, while
    /// the sets change only at the few places a path writes a new object or crosses a
    /// barrier, so copies would dominate the graph's memory.)
    pub writes_between: Arc<BTreeSet<ObjId>>,
    /// Acquire/release instructions at the ends of the pair.
    pub hw: HwPair,
    /// Statements on *some* path strictly between the two events that the rewriter
    /// simulates with more ordering than the architecture has (see [`Aeg::points`]).
    pub crosses: Arc<BTreeSet<u32>>,
    /// Write sites on some path strictly between the two events, each with a fence that
    /// lies before it on that path.
    pub fenced_writes: Arc<BTreeSet<(Fence, SiteId)>>,
}

/// The acquire/release instructions at the two ends of a program-order pair (what they
/// order is [`crate::arch::AcqRelRules`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HwPair {
    /// The first event is an acquire read (`LDAR`, `LDAPR`).
    pub acquire: bool,
    /// The second event is a release write (`STLR`).
    pub release: bool,
    /// The first is a release write and the second an RCsc acquire read (`STLR; LDAR`).
    pub release_acquire: bool,
}

/// A statement the rewriter simulates with more ordering than the architecture gives it:
/// a delay pair across it may not be simulated (see `pipeline::approximations`).
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub kind: PointKind,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum PointKind {
    /// A release write (`STLR`): the thread's earlier writes and reads complete before it.
    Release,
    /// A lock release: the thread's earlier writes are flushed before it.
    Unlock,
    /// An atomic read-modify-write on these objects: the thread's pending reads of them
    /// complete before it.
    Rmw(BTreeSet<ObjId>),
}

/// Must-dependencies from a read to a later event.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Deps {
    /// The second event's address is computed from the read value.
    pub addr: bool,
    /// The second event (a write) stores a value computed from the read value.
    pub data: bool,
    /// A conditional branch on the read value precedes the second event.
    pub ctrl: bool,
    /// ... and an `isync`/`isb` lies between that branch and the second event.
    pub ctrl_isync: bool,
    /// An access whose address is computed from the read value lies between the two (herd's
    /// `addr; po`: Power and ARM do not perform a write before the addresses of earlier
    /// accesses are known).
    pub addr_po: bool,
    /// Dependencies of the second event on a read between the two (on every path) that
    /// itself depends on the first read by its address or by a branch and an
    /// `isync`/`isb` (or through more such reads): a chain the critical cycles skip.
    pub chained: Links,
    /// The same through reads that depend on the first by their addresses only (where
    /// an architecture orders reads by address dependencies and knows no `isync`).
    pub chained_addr: Links,
}

/// The dependencies of an event on the value of a read ([`Deps::chained`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Links {
    pub addr: bool,
    pub data: bool,
    pub ctrl: bool,
    pub ctrl_isync: bool,
}

impl Links {
    fn meet(&mut self, o: &Links) {
        self.addr &= o.addr;
        self.data &= o.data;
        self.ctrl &= o.ctrl;
        self.ctrl_isync &= o.ctrl_isync;
    }

    pub fn join(&mut self, o: &Links) {
        self.addr |= o.addr;
        self.data |= o.data;
        self.ctrl |= o.ctrl;
        self.ctrl_isync |= o.ctrl_isync;
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Aeg {
    pub threads: Vec<Thread>,
    pub objects: Vec<Object>,
    pub sites: Vec<Site>,
    pub events: Vec<Event>,
    /// Immediate program-order successors (per thread, following both branches and loop
    /// back-edges); for drawing and for the `all` strategy.
    pub po: Vec<(EventId, EventId)>,
    /// Transitive program order between events that have a `com` edge, with what lies between.
    pub pairs: HashMap<(EventId, EventId), PairInfo>,
    /// Undirected communication edges, stored once with `a <= b`; `(w, w)` relates two
    /// instances of one write when its thread runs more than once.
    pub com: Vec<(EventId, EventId)>,
    /// Diagnostics the construction wants the user to see (e.g. imprecise aliasing).
    pub notes: Vec<(Loc, String)>,
    /// Per event (indexed by id; may be empty): the threads certainly finished before it on
    /// every path (joined). A com step from the event to such a thread is impossible; see
    /// [`Aeg::com_step_possible`] and the `joins` module.
    pub after: Vec<Vec<ThreadId>>,
    /// Statements (by id) the rewriter simulates with more ordering than the architecture.
    pub points: HashMap<u32, Point>,
    /// The read and the write of each atomic read-modify-write (same thread, statement and
    /// object), each mapped to the other.
    pub rmw_partner: HashMap<EventId, EventId>,
}

impl Aeg {
    pub fn event(&self, e: EventId) -> &Event {
        &self.events[e.0 as usize]
    }
    pub fn object(&self, o: ObjId) -> &Object {
        &self.objects[o.0 as usize]
    }
    pub fn thread(&self, t: ThreadId) -> &Thread {
        &self.threads[t.0 as usize]
    }
    pub fn site(&self, s: SiteId) -> &Site {
        &self.sites[s.0 as usize]
    }
    /// `po+` information for `(a, b)`, when `b` follows `a` in program order.
    pub fn pair(&self, a: EventId, b: EventId) -> Option<&PairInfo> {
        self.pairs.get(&(a, b))
    }
    /// Can a cycle go by a com edge from `from` to `to`? Not when `to`'s thread was joined
    /// before `from` (all its events precede `from`: `from` is never read by, coherence-before
    /// or reading before any of them). The opposite direction stays possible.
    pub fn com_step_possible(&self, from: EventId, to: EventId) -> bool {
        let t = self.event(to).thread;
        !self.after.get(from.0 as usize).is_some_and(|v| v.contains(&t))
    }
    /// Short printable name of an event: `P0:Wx@12`.
    pub fn describe(&self, e: EventId) -> String {
        let ev = self.event(e);
        format!(
            "{}:{}{}@{}",
            self.thread(ev.thread).name,
            ev.dir.letter(),
            self.object(ev.obj).name,
            ev.loc.line
        )
    }
}
