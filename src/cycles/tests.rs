use super::*;
use crate::aeg::{Deps, Event, Instances, Object, ObjId, Site, SiteId, Thread, ThreadId};
use crate::arch::by_name;
use crate::ir::{Fence, FuncId};
use crate::source::Loc;
use std::collections::HashMap;

/// Builds abstract event graphs by hand.
#[derive(Default)]
pub(crate) struct Builder {
    pub aeg: Aeg,
    objs: HashMap<String, ObjId>,
}

impl Builder {
    pub fn thread(&mut self, name: &str, instances: Instances) -> ThreadId {
        let id = ThreadId(self.aeg.threads.len() as u32);
        self.aeg.threads.push(Thread { name: name.into(), func: FuncId(id.0), instances, loc: Loc::default() });
        id
    }
    /// Objects whose name starts with `arr` or `heap` are inexact.
    pub fn obj(&mut self, name: &str) -> ObjId {
        if let Some(&o) = self.objs.get(name) {
            return o;
        }
        let id = ObjId(self.aeg.objects.len() as u32);
        let exact = !(name.starts_with("arr") || name.starts_with("heap"));
        self.aeg.objects.push(Object { name: name.into(), exact, var: None });
        self.objs.insert(name.into(), id);
        id
    }
    pub fn ev(&mut self, t: ThreadId, dir: Dir, obj: &str) -> EventId {
        let obj = self.obj(obj);
        let id = EventId(self.aeg.events.len() as u32);
        let site = SiteId(self.aeg.sites.len() as u32);
        let loc = Loc { line: id.0 + 1, ..Loc::default() };
        self.aeg.sites.push(Site { func: FuncId(t.0), stmt: id.0, dir, atomic: false, in_loop: false, loc });
        self.aeg.events.push(Event { thread: t, dir, obj, site, loc });
        id
    }
    pub fn pair(&mut self, a: EventId, b: EventId, info: PairInfo) {
        self.aeg.pairs.insert((a, b), info);
    }
    /// com edges between every two events on the same object, at least one a write, on
    /// different threads or on a thread with several instances (then also `(w, w)`).
    pub fn com_all(&mut self) {
        let evs = &self.aeg.events;
        for a in 0..evs.len() {
            for b in a..evs.len() {
                let (x, y) = (&evs[a], &evs[b]);
                let multi = self.aeg.threads[x.thread.0 as usize].instances != Instances::Count(1);
                if x.obj != y.obj || (x.dir == Dir::R && y.dir == Dir::R) {
                    continue;
                }
                if x.thread != y.thread || multi {
                    if a == b && x.dir != Dir::W {
                        continue;
                    }
                    self.aeg.com.push((EventId(a as u32), EventId(b as u32)));
                }
            }
        }
    }
}

/// A litmus test: one string per thread, accesses (`Wx`, `Ry`) and, between them, fences
/// (`mfence`, `sync`, `lwsync`, `eieio`, `dmb`, `dmbst`, `isync`, `isb`, `acqrel`) and
/// dependencies to the next access (`addr`, `data`, `ctrl`, `ctrlisync`).
pub(crate) fn litmus(threads: &[&str]) -> Aeg {
    let ts: Vec<(&str, Instances)> = threads.iter().map(|t| (*t, Instances::Count(1))).collect();
    litmus_inst(&ts)
}

pub(crate) fn litmus_inst(threads: &[(&str, Instances)]) -> Aeg {
    let mut b = Builder::default();
    for (i, (src, inst)) in threads.iter().enumerate() {
        let t = b.thread(&format!("P{i}"), *inst);
        // (event, fences before it since the previous access, deps from the previous access)
        let mut accesses: Vec<(EventId, Vec<Fence>, Deps)> = Vec::new();
        let mut fences = Vec::new();
        let mut deps = Deps::default();
        for tok in src.split_whitespace() {
            let f = match tok {
                "mfence" => Some(Fence::Mfence),
                "sync" => Some(Fence::Sync),
                "lwsync" => Some(Fence::Lwsync),
                "eieio" => Some(Fence::Eieio),
                "dmb" => Some(Fence::Dmb),
                "dmbst" => Some(Fence::DmbSt),
                "isync" => Some(Fence::Isync),
                "isb" => Some(Fence::Isb),
                "acqrel" => Some(Fence::AcqRel),
                _ => None,
            };
            if let Some(f) = f {
                fences.push(f);
                continue;
            }
            match tok {
                "addr" => deps.addr = true,
                "data" => deps.data = true,
                "ctrl" => deps.ctrl = true,
                "ctrlisync" => {
                    deps.ctrl = true;
                    deps.ctrl_isync = true
                }
                _ => {
                    let dir = match &tok[..1] {
                        "W" => Dir::W,
                        "R" => Dir::R,
                        _ => panic!("bad token {tok}"),
                    };
                    let e = b.ev(t, dir, &tok[1..]);
                    accesses.push((e, std::mem::take(&mut fences), std::mem::take(&mut deps)));
                }
            }
        }
        for i in 0..accesses.len() {
            for j in i + 1..accesses.len() {
                let mut info = PairInfo::default();
                for acc in &accesses[i + 1..=j] {
                    info.fences.extend(acc.1.iter().copied());
                }
                if j == i + 1 {
                    info.deps = accesses[j].2;
                }
                b.pair(accesses[i].0, accesses[j].0, info);
            }
        }
    }
    b.com_all();
    b.aeg
}

fn cycles(aeg: &Aeg, arch: &str) -> CycleSet {
    let set = critical_cycles(aeg, by_name(arch).unwrap(), &Limits::default());
    assert!(set.limit_hit.is_none());
    set
}

fn names(aeg: &Aeg, arch: &str) -> Vec<String> {
    cycles(aeg, arch).cycles.into_iter().map(|c| c.name).collect()
}

const WEAK: [&str; 5] = ["tso", "pso", "rmo", "power-esop", "arm"];

#[test]
fn sb() {
    let aeg = litmus(&["Wx Ry", "Wy Rx"]);
    for a in WEAK {
        assert_eq!(names(&aeg, a), vec!["sb"], "{a}");
    }
    assert!(names(&aeg, "sc").is_empty());
    let c = &cycles(&aeg, "tso").cycles[0];
    assert_eq!(c.diy, "PodWR Fre PodWR Fre");
    assert_eq!(c.events.len(), 4);
    assert_eq!(c.unsafe_edges().count(), 2);
    assert!(c.unsafe_edges().all(|e| matches!(e.kind, EdgeKind::Po { .. })));
    // the canonical rotation starts at the smallest event
    assert_eq!(c.events[0], EventId(0));
    for (i, e) in c.edges.iter().enumerate() {
        assert_eq!(e.from, c.events[i]);
        assert_eq!(e.to, c.events[(i + 1) % c.events.len()]);
    }
}

#[test]
fn sb_fenced() {
    let aeg = litmus(&["Wx mfence Ry", "Wy mfence Rx"]);
    assert!(names(&aeg, "tso").is_empty());
    let aeg = litmus(&["Wx mfence Ry", "Wy Rx"]);
    let set = cycles(&aeg, "tso");
    assert_eq!(set.cycles.len(), 1);
    assert_eq!(set.cycles[0].name, "sb");
    assert_eq!(set.cycles[0].diy, "MFencedWR Fre PodWR Fre");
    assert_eq!(set.cycles[0].unsafe_edges().count(), 1);
    // lwsync does not order W→R
    let aeg = litmus(&["Wx lwsync Ry", "Wy lwsync Rx"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["sb"]);
    assert_eq!(cycles(&aeg, "power-esop").cycles[0].diy, "LwSyncdWR Fre LwSyncdWR Fre");
    let aeg = litmus(&["Wx sync Ry", "Wy sync Rx"]);
    assert!(names(&aeg, "power-esop").is_empty());
}

#[test]
fn mp() {
    let aeg = litmus(&["Wx Wy", "Ry Rx"]);
    for a in ["pso", "rmo", "power-esop", "arm"] {
        assert_eq!(names(&aeg, a), vec!["mp"], "{a}");
    }
    assert!(names(&aeg, "tso").is_empty());
    assert!(names(&aeg, "sc").is_empty());
}

#[test]
fn mp_lwsync_addr() {
    let aeg = litmus(&["Wx lwsync Wy", "Ry addr Rx"]);
    assert!(names(&aeg, "power").is_empty());
    // the ESOP model's lwsync is not cumulative: the rfe stays relaxed
    assert_eq!(names(&aeg, "power-esop"), vec!["mp"]);
    let aeg = litmus(&["Wx lwsync Wy", "Ry Rx"]);
    let set = cycles(&aeg, "power");
    assert_eq!(set.cycles.len(), 1);
    let c = &set.cycles[0];
    assert_eq!(c.name, "mp");
    assert_eq!(c.diy, "LwSyncdWW Rfe PodRR Fre");
    // herd's ppc.cat allows MP+lwsync+po through the read-read pair alone (MP+sync+po too):
    // the lwsync keeps its ordering and its cumulativity for the rfe
    assert_eq!(c.unsafe_edges().count(), 1);
    assert!(matches!(c.unsafe_edges().next().unwrap().kind, EdgeKind::Po { .. }));
    assert_eq!(c.diy, "LwSyncdWW Rfe PodRR Fre");
    // R+lwsync+sync: allowed by ppc.cat only because the lwsync is lightweight (R+syncs is
    // forbidden): the lwsync is relaxed in the cycle
    let aeg = litmus(&["Wx lwsync Wy", "Wy sync Rx"]);
    let set = cycles(&aeg, "power");
    assert_eq!(set.cycles.len(), 1);
    let c = &set.cycles[0];
    let po_unsafe: Vec<_> = c.unsafe_edges().filter(|e| matches!(e.kind, EdgeKind::Po { .. })).collect();
    assert_eq!(po_unsafe.len(), 1, "{}", c.describe(&aeg));
    assert_eq!(aeg.event(po_unsafe[0].from).dir, Dir::W);
    assert_eq!(aeg.event(po_unsafe[0].to).dir, Dir::W);
    // R+syncs is forbidden: no cycle
    assert!(names(&litmus(&["Wx sync Wy", "Wy sync Rx"]), "power").is_empty());
    // without the fence, the rfe is unsafe too
    let aeg = litmus(&["Wx Wy", "Ry addr Rx"]);
    let c = &cycles(&aeg, "power-esop").cycles[0];
    assert_eq!(c.diy, "PodWW Rfe DpAddrdR Fre");
    assert_eq!(c.unsafe_edges().count(), 2);
    // on ARM: dmb st + ctrl;isb
    let aeg = litmus(&["Wx dmbst Wy", "Ry ctrlisync Rx"]);
    assert!(names(&aeg, "arm").is_empty());
    let aeg = litmus(&["Wx dmbst Wy", "Ry ctrl Rx"]);
    assert_eq!(cycles(&aeg, "arm").cycles[0].diy, "DMB.STdWW Rfe DpCtrldR Fre");
}

#[test]
fn iriw() {
    let aeg = litmus(&["Wx", "Rx Ry", "Ry Rx", "Wy"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["iriw"]);
    assert!(names(&aeg, "tso").is_empty());
    assert!(names(&aeg, "pso").is_empty());
    assert_eq!(names(&aeg, "rmo"), vec!["iriw"]);
    // iriw+addrs: still critical on Power (non-atomic stores), not on RMO
    let aeg = litmus(&["Wx", "Rx addr Ry", "Ry addr Rx", "Wy"]);
    let set = cycles(&aeg, "power-esop");
    assert_eq!(set.cycles.len(), 1);
    assert!(set.cycles[0].unsafe_edges().all(|e| e.kind == EdgeKind::Rfe));
    assert_eq!(set.cycles[0].unsafe_edges().count(), 2);
    assert!(names(&aeg, "rmo").is_empty());
    // iriw+syncs forbidden, iriw+lwsyncs allowed on Power
    let aeg = litmus(&["Wx", "Rx sync Ry", "Ry sync Rx", "Wy"]);
    assert!(names(&aeg, "power-esop").is_empty());
    let aeg = litmus(&["Wx", "Rx lwsync Ry", "Ry lwsync Rx", "Wy"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["iriw"]);
}

#[test]
fn lb_and_thin_air() {
    let aeg = litmus(&["Rx Wy", "Ry Wx"]);
    for a in ["power-esop", "rmo", "arm"] {
        assert_eq!(names(&aeg, a), vec!["lb"], "{a}");
    }
    assert!(names(&aeg, "tso").is_empty());
    assert!(names(&aeg, "pso").is_empty());
    // lb+datas / lb+addrs: thin air, dropped even though rfe is relaxed on Power
    for deps in [("data", "data"), ("addr", "addr"), ("addr", "data")] {
        let aeg = litmus(&[&format!("Rx {} Wy", deps.0), &format!("Ry {} Wx", deps.1)]);
        assert!(names(&aeg, "power-esop").is_empty(), "{deps:?}");
    }
    // lb+data+po: not thin air
    let aeg = litmus(&["Rx data Wy", "Ry Wx"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["lb"]);
}

#[test]
fn two_plus_two_w_and_friends() {
    let aeg = litmus(&["Wx Wy", "Wy Wx"]);
    assert_eq!(names(&aeg, "pso"), vec!["2+2w"]);
    assert!(names(&aeg, "tso").is_empty());
    let aeg = litmus(&["Wx Wy", "Ry Wx"]);
    assert_eq!(names(&aeg, "pso"), vec!["s"]);
    assert!(names(&aeg, "tso").is_empty());
    let aeg = litmus(&["Wx Wy", "Wy Rx"]);
    assert_eq!(names(&aeg, "tso"), vec!["r"]);
    let aeg = litmus(&["Wx Wy", "Ry Wz", "Rz Rx"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["isa2"]);
    assert!(names(&aeg, "tso").is_empty());
    let aeg = litmus(&["Wx", "Rx Ry", "Wy Rx"]);
    assert_eq!(names(&aeg, "tso"), vec!["rwc"]);
}

#[test]
fn wrc() {
    let aeg = litmus(&["Wx", "Rx Wy", "Ry Rx"]);
    assert_eq!(names(&aeg, "power-esop"), vec!["wrc"]);
    assert!(names(&aeg, "tso").is_empty());
    assert!(names(&aeg, "pso").is_empty());
    // wrc+lwsync+addr is forbidden on Power by herd (A- and B-cumulativity), allowed by the
    // ESOP model (lwsync not cumulative)
    let aeg = litmus(&["Wx", "Rx lwsync Wy", "Ry addr Rx"]);
    assert!(names(&aeg, "power").is_empty());
    assert_eq!(names(&aeg, "power-esop"), vec!["wrc"]);
    // wrc+addrs is allowed (dependencies are not cumulative)
    let aeg = litmus(&["Wx", "Rx addr Wy", "Ry addr Rx"]);
    let set = cycles(&aeg, "power-esop");
    assert_eq!(set.cycles.len(), 1);
    assert_eq!(set.cycles[0].name, "wrc");
    assert!(set.cycles[0].unsafe_edges().all(|e| e.kind == EdgeKind::Rfe));
}

#[test]
fn diy_names_for_other_shapes() {
    let aeg = litmus(&["Wx Ry", "Wy Rz", "Wz Rx"]);
    let set = cycles(&aeg, "tso");
    assert_eq!(set.cycles.len(), 1);
    assert_eq!(set.cycles[0].name, "PodWR Fre PodWR Fre PodWR Fre");
}

#[test]
fn uniproc_dropped() {
    for t in [&["Wx Rx", "Wx"][..], &["Wx Wx", "Rx Rx"], &["Rx Wx", "Wx"], &["Wx", "Rx", "Wx"]] {
        let aeg = litmus(t);
        for a in Arch::names() {
            assert!(names(&aeg, a).is_empty(), "{t:?} {a}");
        }
    }
}

#[test]
fn footnote4_shapes_enforced() {
    // the fr-then-rf chain r-w-r' through a one-event write segment is kept (rwc)
    // but three writes to x, or w-r-w' chains, are not critical shapes
    let aeg = litmus(&["Wx Wy", "Wx", "Ry Rx"]);
    let set = cycles(&aeg, "pso");
    for c in &set.cycles {
        let xs = c.events.iter().filter(|e| aeg.object(aeg.event(**e).obj).name == "x").count();
        assert!(xs <= 3);
    }
    // w-r-w' through a one-event read: P0: Wx Wy | P1: Ry | ... never used as a chain
    let aeg = litmus(&["Wx Wy", "Ry", "Wy Rx"]);
    for c in cycles(&aeg, "tso").cycles {
        let single_read_mid = c.edges.windows(2).any(|w| w[0].kind == EdgeKind::Rfe && w[1].kind == EdgeKind::Fre);
        assert!(!single_read_mid, "{}", c.describe(&aeg));
    }
}

#[test]
fn inexact_objects() {
    // mp on two elements of one array: allowed because the object is inexact
    let aeg = litmus(&["Warr Warr", "Rarr Rarr"]);
    let set = cycles(&aeg, "pso");
    assert!(set.cycles.iter().any(|c| c.name == "mp"), "{:?}", set.cycles);
    assert!(names(&aeg, "tso").is_empty());
    let aeg = litmus(&["Wx Wx", "Rx Rx"]);
    assert!(names(&aeg, "pso").is_empty());
}

#[test]
fn back_edge_pair() {
    // P0: loop { arr[i] = 1 }  P1: loop { r = arr[j] }: the back-edge pairs (e, e) give mp
    let mut b = Builder::default();
    let t0 = b.thread("P0", Instances::Count(1));
    let t1 = b.thread("P1", Instances::Count(1));
    let w = b.ev(t0, Dir::W, "arr");
    let r = b.ev(t1, Dir::R, "arr");
    let back = PairInfo { via_back_edge: true, ..PairInfo::default() };
    b.pair(w, w, back.clone());
    b.pair(r, r, back);
    b.com_all();
    let set = cycles(&b.aeg, "pso");
    assert_eq!(set.cycles.len(), 1);
    assert_eq!(set.cycles[0].name, "mp");
    assert_eq!(set.cycles[0].events, vec![w, w, r, r]);
    // the same on an exact object is uniproc
    let mut b = Builder::default();
    let t0 = b.thread("P0", Instances::Count(1));
    let t1 = b.thread("P1", Instances::Count(1));
    let w = b.ev(t0, Dir::W, "x");
    let r = b.ev(t1, Dir::R, "x");
    b.pair(w, w, PairInfo::default());
    b.pair(r, r, PairInfo::default());
    b.com_all();
    assert!(cycles(&b.aeg, "power-esop").cycles.is_empty());
}

/// `worker(id) { if (id) { x = 1; r = y; } else { y = 1; r = x; } }`, spawned `inst` times.
fn worker_sb(inst: Instances) -> Aeg {
    let mut b = Builder::default();
    let t = b.thread("worker", inst);
    let wx = b.ev(t, Dir::W, "x");
    let ry = b.ev(t, Dir::R, "y");
    let wy = b.ev(t, Dir::W, "y");
    let rx = b.ev(t, Dir::R, "x");
    b.pair(wx, ry, PairInfo::default());
    b.pair(wy, rx, PairInfo::default());
    b.com_all();
    b.aeg
}

#[test]
fn unbounded_thread_forms_sb_with_itself() {
    assert_eq!(names(&worker_sb(Instances::Unbounded), "tso"), vec!["sb"]);
    assert_eq!(names(&worker_sb(Instances::Count(2)), "tso"), vec!["sb"]);
    assert!(names(&worker_sb(Instances::Count(1)), "tso").is_empty());
    assert!(names(&worker_sb(Instances::Unbounded), "sc").is_empty());
}

#[test]
fn same_event_in_two_instances() {
    // worker: x = 1; y = 1; r = x;  two instances give the R idiom with the write of y
    // ending one segment and starting the other (ws between the instances).
    let aeg = litmus_inst(&[("Wx Wy Rx", Instances::Unbounded)]);
    let set = cycles(&aeg, "tso");
    let r = set.cycles.iter().find(|c| c.name == "r").expect("r idiom");
    assert_eq!(r.events, vec![EventId(0), EventId(1), EventId(1), EventId(2)]);
    assert!(litmus_inst(&[("Wx Wy Rx", Instances::Count(1))]).com.is_empty());
}

#[test]
fn limits() {
    // many overlapping sb cycles
    let aeg = litmus(&["Wx Ry", "Wx Ry", "Wx Ry", "Wy Rx", "Wy Rx", "Wy Rx"]);
    let all = cycles(&aeg, "tso");
    assert_eq!(all.cycles.len(), 9);
    let set = critical_cycles(&aeg, by_name("tso").unwrap(), &Limits { max_cycles: 3, ..Limits::default() });
    assert_eq!(set.cycles.len(), 3);
    let msg = set.limit_hit.expect("limit hit");
    assert!(msg.contains("unsound"), "{msg}");
    let set = critical_cycles(&aeg, by_name("tso").unwrap(), &Limits { max_cycles: 9, ..Limits::default() });
    assert!(set.limit_hit.is_none());
    let set = critical_cycles(&aeg, by_name("tso").unwrap(), &Limits { time_budget: Duration::ZERO, ..Limits::default() });
    assert!(set.limit_hit.expect("time limit").contains("time budget"));
}

/// A step budget stops the search from start nodes after the same work however many
/// threads search, says so, and keeps what a larger budget keeps first.
#[test]
fn step_budget_is_work_not_time() {
    let aeg = litmus(&["Wx Ry Wz Rw", "Wy Rx Wz Rw", "Wz Rx Wy Rw", "Ww Rz Wx Ry", "Wx Wy Rz Rw"]);
    let arch = by_name("tso").unwrap();
    let all = critical_cycles(&aeg, arch, &Limits::default());
    assert!(all.limit_hit.is_none() && all.cycles.len() > 20, "{}", all.cycles.len());
    let with = |steps: u64, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| critical_cycles(&aeg, arch, &Limits { step_budget: Some(steps), ..Limits::default() }))
    };
    let small = with(2000, 1);
    let msg = small.limit_hit.clone().expect("the budget binds");
    assert!(msg.contains("step budget of 2000") && msg.contains("unsound"), "{msg}");
    assert!(!small.cycles.is_empty() && small.cycles.len() < all.cycles.len(), "{} of {}", small.cycles.len(), all.cycles.len());
    for t in [2, 4] {
        assert_eq!(with(2000, t).cycles, small.cycles, "{t} threads");
    }
    // every cycle found is one of the full search's
    assert!(small.cycles.iter().all(|c| all.cycles.contains(c)));
    // a budget that does not bind changes nothing
    let big = with(1 << 30, 2);
    assert!(big.limit_hit.is_none());
    assert_eq!(big.cycles, all.cycles);
}

#[test]
fn deterministic() {
    let aeg = litmus(&["Wx Ry Wz", "Wy Rx Rz", "Wz Rx Wy", "Rz Wx"]);
    for a in Arch::names() {
        let one = cycles(&aeg, a);
        for _ in 0..3 {
            assert_eq!(cycles(&aeg, a).cycles, one.cycles, "{a}");
        }
        let mut keys: Vec<_> = one.cycles.iter().map(|c| (c.events.clone(), c.diy.clone())).collect();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}

/// Deterministic pseudo-random litmus programs.
fn random_aeg(seed: u64) -> Aeg {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    let nthreads = 2 + next(3) as usize;
    let annots = ["", "", "", "sync ", "lwsync ", "addr ", "data ", "mfence "];
    let mut threads = Vec::new();
    for _ in 0..nthreads {
        let len = 1 + next(3);
        let mut t = String::new();
        for k in 0..len {
            if k > 0 {
                t.push_str(annots[next(annots.len() as u64) as usize]);
            }
            t.push(if next(2) == 0 { 'W' } else { 'R' });
            t.push(["x", "y", "z", "arr"][next(4) as usize].chars().next().unwrap());
            t.push(' ');
        }
        threads.push(t);
    }
    let refs: Vec<&str> = threads.iter().map(|s| s.as_str()).collect();
    litmus(&refs)
}

#[test]
fn never_critical_under_sc_and_invariants() {
    for seed in 0..200 {
        let aeg = random_aeg(seed);
        assert!(cycles(&aeg, "sc").cycles.is_empty());
        for a in WEAK {
            let arch = by_name(a).unwrap();
            for c in cycles(&aeg, a).cycles {
                assert!(c.unsafe_edges().count() >= 1);
                assert_eq!(c.events.len(), c.edges.len());
                // at most two events per segment, each segment a different instance
                let segs = c.edges.iter().filter(|e| !matches!(e.kind, EdgeKind::Po { .. })).count();
                assert!(segs >= 2);
                for e in &c.edges {
                    if let EdgeKind::Po { info } = &e.kind {
                        let (x, y) = (aeg.event(e.from), aeg.event(e.to));
                        assert_eq!(x.thread, y.thread);
                        // a pair is relaxed beyond the table only across a lightweight
                        // fence, in a cycle herd's ppc.cat allows (`herd`)
                        assert!(!e.safe || arch.po_pair_safe(x.dir, y.dir, info));
                        if !e.safe && arch.po_pair_safe(x.dir, y.dir, info) {
                            assert!(!arch.po_pair_safe_by(x.dir, y.dir, info, true));
                        }
                        assert!(!(x.obj == y.obj && aeg.object(x.obj).exact));
                    } else {
                        assert_ne!(aeg.event(e.from).thread, aeg.event(e.to).thread);
                    }
                }
            }
        }
    }
}

#[test]
fn weaker_models_have_more_cycles() {
    // every cycle critical on TSO is critical on PSO, on RMO, and on Power
    for seed in 0..100 {
        let aeg = random_aeg(seed);
        let sets: Vec<Vec<Vec<EventId>>> = ["tso", "pso", "rmo", "power-esop"]
            .iter()
            .map(|a| cycles(&aeg, a).cycles.iter().map(|c| c.events.clone()).collect())
            .collect();
        for w in sets.windows(2) {
            for c in &w[0] {
                assert!(w[1].contains(c), "seed {seed}: {c:?}");
            }
        }
    }
}

/// Brute force: every sequence of segments (one event, or a pair not on one exact object)
/// joined by com edges, each port used once, within the instance bounds, classified by the
/// same a-posteriori checks. The Johnson-style search must find exactly these.
fn brute_force(aeg: &Aeg, arch: &Arch) -> Vec<Vec<(u32, u32, bool)>> {
    let mut segs: Vec<Seg> = Vec::new();
    for i in 0..aeg.events.len() {
        let e = EventId(i as u32);
        segs.push(Seg { first: e, last: e, pair: None });
    }
    let mut keys: Vec<_> = aeg.pairs.keys().copied().collect();
    keys.sort();
    for (a, b) in keys {
        let (oa, ob) = (aeg.event(a).obj, aeg.event(b).obj);
        if oa == ob && aeg.object(oa).exact {
            continue;
        }
        segs.push(Seg { first: a, last: b, pair: Some(&aeg.pairs[&(a, b)]) });
    }
    let com = |a: EventId, b: EventId| {
        let (da, db) = (aeg.event(a).dir, aeg.event(b).dir);
        !(da == Dir::R && db == Dir::R) && aeg.com.iter().any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    };
    let max_inst = |t: crate::aeg::ThreadId| match aeg.thread(t).instances {
        Instances::Count(n) => n as usize,
        Instances::Unbounded => usize::MAX,
    };
    let mut out = Vec::new();
    fn rec<'a>(
        path: &mut Vec<Seg<'a>>,
        segs: &[Seg<'a>],
        aeg: &Aeg,
        arch: &Arch,
        com: &dyn Fn(EventId, EventId) -> bool,
        max_inst: &dyn Fn(crate::aeg::ThreadId) -> usize,
        out: &mut Vec<Vec<(u32, u32, bool)>>,
    ) {
        let last = path.last().unwrap().last;
        let first = path[0].first;
        if path.len() >= 2 && com(last, first) {
            if let Some(c) = classify(aeg, arch, path) {
                out.push(c.edges.iter().map(|e| (e.from.0, e.to.0, matches!(e.kind, EdgeKind::Po { .. }))).collect());
            }
        }
        if path.len() >= 8 {
            return;
        }
        for s in segs {
            // the first segment's In port is the smallest In port: its first event
            if s.first <= first || !com(last, s.first) {
                continue;
            }
            if path.iter().any(|p| p.first == s.first || p.last == s.last) {
                continue;
            }
            let t = aeg.event(s.first).thread;
            if path.iter().filter(|p| aeg.event(p.first).thread == t).count() + 1 > max_inst(t) {
                continue;
            }
            path.push(*s);
            rec(path, segs, aeg, arch, com, max_inst, out);
            path.pop();
        }
    }
    for s in &segs {
        let mut path = vec![*s];
        rec(&mut path, &segs, aeg, arch, &com, &max_inst, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

fn random_aeg_inst(seed: u64) -> Aeg {
    let mut s = seed.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    let nthreads = 1 + next(4) as usize;
    let annots = ["", "", "", "sync ", "lwsync ", "addr ", "data ", "ctrl "];
    let mut threads = Vec::new();
    for _ in 0..nthreads {
        let len = 1 + next(3);
        let mut t = String::new();
        for k in 0..len {
            if k > 0 {
                t.push_str(annots[next(annots.len() as u64) as usize]);
            }
            t.push(if next(2) == 0 { 'W' } else { 'R' });
            t.push_str(["x", "y", "z", "arr"][next(4) as usize]);
            t.push(' ');
        }
        let inst = match next(4) {
            0 => Instances::Unbounded,
            1 => Instances::Count(2),
            _ => Instances::Count(1),
        };
        threads.push((t, inst));
    }
    let refs: Vec<(&str, Instances)> = threads.iter().map(|(s, i)| (s.as_str(), *i)).collect();
    litmus_inst(&refs)
}

#[test]
fn search_equals_brute_force() {
    let mut total = 0;
    for seed in 0..300 {
        let aeg = random_aeg_inst(seed);
        for a in Arch::names() {
            let arch = by_name(a).unwrap();
            let got: Vec<Vec<(u32, u32, bool)>> = cycles(&aeg, a)
                .cycles
                .iter()
                .map(|c| c.edges.iter().map(|e| (e.from.0, e.to.0, matches!(e.kind, EdgeKind::Po { .. }))).collect())
                .collect();
            let want = brute_force(&aeg, arch);
            assert_eq!(got, want, "seed {seed} arch {a}");
            total += got.len();
        }
    }
    eprintln!("brute-force comparison: {total} cycles");
    assert!(total > 100, "too few cycles to be a meaningful test: {total}");
}

/// On graphs too large for the brute force (tens of thousands of cycles), the search through
/// each relation that may be unsafe (the lazy selection's check) finds exactly the cycles the
/// search from each start node finds. (Cycle counts and rates are `scripts/bench-select`'s.)
#[test]
fn through_relations_finds_what_from_starts_finds() {
    for (nthreads, len, nvars) in [(4, 6, 4), (6, 8, 4), (4, 12, 3)] {
        let mut s = 12345u64;
        let mut next = |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        let mut threads = Vec::new();
        for _ in 0..nthreads {
            let mut t = String::new();
            for _ in 0..len {
                t.push(if next(2) == 0 { 'W' } else { 'R' });
                t.push_str(&format!("v{} ", next(nvars)));
            }
            threads.push(t);
        }
        let refs: Vec<&str> = threads.iter().map(|s| s.as_str()).collect();
        let aeg = litmus(&refs);
        for a in ["tso", "power-esop"] {
            let arch = by_name(a).unwrap();
            let limits = Limits { max_cycles: 1_000_000, time_budget: Duration::from_secs(60), ..Limits::default() };
            let start = critical_cycles(&aeg, arch, &limits);
            let through = critical_cycles_where(&SearchGraph::new(&aeg, arch), &limits, &|_, _| false, &|_, _| false, &|_| true, usize::MAX, None, None);
            assert!(start.limit_hit.is_none() && through.limit_hit.is_none());
            let keys = |set: &CycleSet| set.cycles.iter().map(Cycle::key).collect::<std::collections::BTreeSet<_>>();
            assert_eq!(keys(&start), keys(&through), "{nthreads}x{len} on {nvars} vars, {a}");
            assert!(!start.cycles.is_empty());
        }
    }
}

/// A search whose tasks report one cycle each runs them in slices until it has enough
/// cycles: it keeps the same cycles (the first distinct ones in task order) and says the
/// same of its limit as a search that runs every task at once.
#[test]
fn slices_of_tasks_keep_the_cycles_all_tasks_keep() {
    let aeg = litmus(&["Wx Ry Wz Rw Rx Wy", "Wy Rx Ww Rz Wx Ry", "Wz Rx Wy Rw", "Ww Ry Rz Wx"]);
    for arch in ["tso", "pso", "power"] {
        let g = SearchGraph::new(&aeg, by_name(arch).unwrap());
        for (max_cycles, per_edge) in [(1, 1), (7, 1), (40, 1), (1000, 1), (7, usize::MAX)] {
            let limits = Limits { max_cycles, ..Limits::default() };
            let q = search::Query { mode: search::Mode::Through, skip: &|_, _| false, chosen_rfe: &|_, _| false, keep: &|_| true, per_edge, exhausted: None, budget: None };
            let whole = search::run_sliced(&g, &limits, &q, usize::MAX);
            let sliced = search::run_sliced(&g, &limits, &q, 1);
            let keys = |set: &CycleSet| set.cycles.iter().map(Cycle::key).collect::<Vec<_>>();
            assert_eq!(keys(&whole), keys(&sliced), "{arch}, {max_cycles} cycles, {per_edge} per relation");
            assert_eq!(whole.limit_hit, sliced.limit_hit, "{arch}, {max_cycles} cycles");
            assert!(!whole.cycles.is_empty());
            if max_cycles == 7 && per_edge == 1 {
                assert!(whole.limit_hit.is_some() && sliced.candidates < whole.candidates, "{arch}: slices ran every task");
            }
        }
    }
}

/// Relations whose circuits ran out are skipped by later searches, and only those: checks
/// that each accept one new cycle per relation and remember the relations that ran out
/// still find, together, every critical cycle (a relation marked after stopping at its
/// per-relation limit would lose the cycles it had left).
#[test]
fn searches_skip_only_relations_that_ran_out() {
    let aeg = litmus(&["Wx Ry Wz Rw", "Wy Rx Ww Rz", "Wz Rx Wy", "Ww Ry"]);
    for arch in ["tso", "power"] {
        let arch = by_name(arch).unwrap();
        let all: std::collections::BTreeSet<_> = critical_cycles(&aeg, arch, &Limits::default()).cycles.iter().map(Cycle::key).collect();
        assert!(all.len() > 10, "{}: {} cycles", arch.name, all.len());
        let known = std::sync::Mutex::new(std::collections::BTreeSet::new());
        let exhausted = std::sync::Mutex::new(std::collections::HashSet::new());
        let mut checks = 0;
        loop {
            checks += 1;
            let keep = |c: &Cycle| !known.lock().unwrap().contains(&c.key());
            let found = critical_cycles_where(&SearchGraph::new(&aeg, arch), &Limits::default(), &|_, _| false, &|_, _| false, &keep, 1, Some(&exhausted), None);
            if found.cycles.is_empty() {
                break;
            }
            known.lock().unwrap().extend(found.cycles.iter().map(Cycle::key));
        }
        assert_eq!(*known.lock().unwrap(), all, "{}", arch.name);
        assert!(checks > 2 && !exhausted.lock().unwrap().is_empty(), "{}: {checks} checks", arch.name);
        // once every relation ran out, a search has nothing left to try
        let found = critical_cycles_where(&SearchGraph::new(&aeg, arch), &Limits::default(), &|_, _| false, &|_, _| false, &|_| true, usize::MAX, Some(&exhausted), None);
        assert!(found.cycles.is_empty() && found.candidates == 0, "{}", arch.name);
    }
}
