//! `weakc litmus-gen`: litmus tests from critical cycles written in diy's edge vocabulary,
//! built the way diy7 builds them.
//!
//! **Edges.** A cycle is a space-separated list of edges:
//!
//! ```text
//! Pod|Pos XY            program order, different/same location      PodWR, PosRR
//! Rfe Rfi               read-from (W→R), external/internal            same location
//! Fre Fri               from-read (R→W)
//! Wse Wsi (Coe Coi)     coherence (W→W)
//! FENCE d|s XY          fence between the two accesses               MFencedWR, LwSyncdRW,
//!                         X86: MFence; PPC: Sync LwSync Eieio ISync   DMB.STdWW, ISyncdRR
//!                         ARM: DMB DSB DMB.ST DSB.ST ISB
//!                         AArch64: DMB.SY (=DMB) DMB.ST DMB.LD DSB.SY (=DSB) DSB.ST ISB
//! Dp KIND d|s Y         dependency from a read: Addr (R/W), Data (W), DpAddrdR, DpDatadW,
//!                         Ctrl (R/W), CtrlIsync / CtrlIsb (R/W)       DpCtrlIsyncdR
//! ```
//!
//! **Consistency** (diy's rules): the target direction of each edge is the source direction
//! of the next one (cyclically); communication edges ending in `e` change thread, every other
//! edge stays on its thread; `d`/`s` edges go to a different/the same location (com edges
//! always stay on their location). The cycle needs an external edge, and a location cannot
//! be left by exactly one `d` edge (it would have to differ from itself). Dependencies do not
//! exist on X86.
//!
//! **The test.** The cycle is rotated so that it starts at the beginning of a thread (of the
//! classic shape's first thread when it is one of SB, MP, LB, S, R, 2+2W, WRC, RWC, ISA2,
//! IRIW); each run of same-location events gets its own location (`x`, `y`, `z`, `a`…);
//! writes to a location get the values 1, 2 in coherence order (the order the cycle's `Ws`
//! edges and `Rf`;`Fr` paths impose, program order otherwise); a read that is the target of
//! an `Rf` edge must see that write's value, one that is the source of an `Fr` edge the value
//! of the write coherence-before the `Fr` target (0: the initial value), and a location with
//! two writes ordered by the cycle must end with the coherence-last value. The conjunction of
//! these is the `exists` condition — exactly the cycle's outcome. More than two writes to one
//! location are refused: their coherence order cannot be observed in the final state alone.
//!
//! Dependencies are realised as diy does: `xor r3,r1,r1` + `lwzx`/`stwx` (PPC address),
//! `xor` + `addi` (data), `cmpw r1,r1` + `beq LC00` (+ `isync`) for control; ARM `EOR` +
//! `[Rn,Rm]`, `CMP`/`BNE` (+ `ISB`); AArch64 `EOR W`, `[Xn,Wm,SXTW]`, `CBNZ` (+ `ISB`).

use super::parse::{Atom, Condition, InitItem, Instr, LitArch, Litmus, Place, Prop, Quant, Thread, Value};
use crate::source::{write_atomically, Error, Loc};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Direction of an access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    R,
    W,
}

impl Dir {
    fn letter(self) -> char {
        match self {
            Dir::R => 'R',
            Dir::W => 'W',
        }
    }
    fn of(c: char) -> Option<Dir> {
        match c {
            'R' => Some(Dir::R),
            'W' => Some(Dir::W),
            _ => None,
        }
    }
}

/// Communication relations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Com {
    Rf,
    Fr,
    Ws,
}

/// Dependencies (from a read).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dep {
    Addr,
    Data,
    Ctrl,
    /// Control dependency followed by `isync` (Power) / `ISB` (ARM, AArch64).
    CtrlIsync,
}

/// The fences of diy's vocabulary.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FenceName {
    MFence,
    Sync,
    LwSync,
    Eieio,
    ISync,
    Dmb,
    DmbSt,
    DmbLd,
    Dsb,
    DsbSt,
    Isb,
}

/// (diy spelling, fence); longest spellings first so that `DMB.ST` is not read as `DMB`.
const FENCE_SPELLINGS: &[(&str, FenceName)] = &[
    ("DMB.SY", FenceName::Dmb),
    ("DMB.ST", FenceName::DmbSt),
    ("DMB.LD", FenceName::DmbLd),
    ("DSB.SY", FenceName::Dsb),
    ("DSB.ST", FenceName::DsbSt),
    ("MFence", FenceName::MFence),
    ("LwSync", FenceName::LwSync),
    ("HwSync", FenceName::Sync),
    ("ISync", FenceName::ISync),
    ("Eieio", FenceName::Eieio),
    ("Sync", FenceName::Sync),
    ("DMB", FenceName::Dmb),
    ("DSB", FenceName::Dsb),
    ("ISB", FenceName::Isb),
];

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Po,
    Fence(FenceName),
    Dep(Dep),
    Com(Com),
}

/// One edge of a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub kind: EdgeKind,
    /// Communication edges: between threads (`e`) or inside one (`i`).
    pub external: bool,
    pub same_loc: bool,
    pub src: Dir,
    pub tgt: Dir,
    /// As written.
    pub text: String,
}

fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(msg.into())
}

/// `d`/`s` followed by the given number of direction letters.
fn loc_and_dirs(rest: &str, n: usize) -> Option<(bool, Vec<Dir>)> {
    let mut c = rest.chars();
    let same = match c.next()? {
        'd' => false,
        's' => true,
        _ => return None,
    };
    let dirs: Vec<Dir> = c.map(Dir::of).collect::<Option<Vec<_>>>()?;
    (dirs.len() == n).then_some((same, dirs))
}

/// Parses one edge.
pub fn parse_edge(tok: &str) -> Result<Edge, String> {
    let mk = |kind, external, same_loc, src, tgt| Edge { kind, external, same_loc, src, tgt, text: tok.to_string() };
    let com = match tok {
        "Rfe" => Some((Com::Rf, true)),
        "Rfi" => Some((Com::Rf, false)),
        "Fre" => Some((Com::Fr, true)),
        "Fri" => Some((Com::Fr, false)),
        "Wse" | "Coe" => Some((Com::Ws, true)),
        "Wsi" | "Coi" => Some((Com::Ws, false)),
        _ => None,
    };
    if let Some((c, ext)) = com {
        let (s, t) = match c {
            Com::Rf => (Dir::W, Dir::R),
            Com::Fr => (Dir::R, Dir::W),
            Com::Ws => (Dir::W, Dir::W),
        };
        return Ok(mk(EdgeKind::Com(c), ext, true, s, t));
    }
    if let Some(rest) = tok.strip_prefix("Pod").map(|r| ("d", r)).or_else(|| tok.strip_prefix("Pos").map(|r| ("s", r))) {
        let (ds, dirs) = rest;
        let (same, d) = loc_and_dirs(&format!("{ds}{dirs}"), 2).ok_or_else(|| format!("`{tok}`: program-order edges are Pod or Pos followed by two directions (PodWR, PosRR)"))?;
        return Ok(mk(EdgeKind::Po, false, same, d[0], d[1]));
    }
    if let Some(rest) = tok.strip_prefix("Dp") {
        let kinds = [("CtrlIsync", Dep::CtrlIsync), ("CtrlIsb", Dep::CtrlIsync), ("Addr", Dep::Addr), ("Data", Dep::Data), ("Ctrl", Dep::Ctrl)];
        let (dep, rest) = kinds
            .iter()
            .find_map(|(s, d)| rest.strip_prefix(s).map(|r| (*d, r)))
            .ok_or_else(|| format!("`{tok}`: unknown dependency (DpAddr, DpData, DpCtrl, DpCtrlIsync, DpCtrlIsb)"))?;
        let (same, d) = loc_and_dirs(rest, 1).ok_or_else(|| format!("`{tok}`: a dependency is followed by d or s and the target's direction (DpAddrdR, DpDatadW)"))?;
        if dep == Dep::Data && d[0] == Dir::R {
            return Err(format!("`{tok}`: a data dependency goes to a write (DpDatadW)"));
        }
        return Ok(mk(EdgeKind::Dep(dep), false, same, Dir::R, d[0]));
    }
    if let Some((f, rest)) = FENCE_SPELLINGS.iter().find_map(|(s, f)| tok.strip_prefix(s).map(|r| (*f, r))) {
        let (same, d) = loc_and_dirs(rest, 2).ok_or_else(|| format!("`{tok}`: a fence edge is the fence followed by d or s and two directions (SyncdWR, LwSyncsRW)"))?;
        return Ok(mk(EdgeKind::Fence(f), false, same, d[0], d[1]));
    }
    Err(format!(
        "unknown edge `{tok}` (expected Pod/Pos + XY, Rfe, Rfi, Fre, Fri, Wse, Wsi, a fence such as MFencedWR, SyncdWW, LwSyncdRR, DMB.STdWW, or a dependency such as DpAddrdR, DpDatadW, DpCtrlIsyncdR)"
    ))
}

/// Parses a cycle and checks diy's consistency rules (independent of the architecture).
pub fn parse_cycle(text: &str) -> Result<Vec<Edge>, Error> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let bad = |m: String| usage(format!("cycle `{}`: {m}", toks.join(" ")));
    if toks.len() < 2 {
        return Err(usage(format!("cycle `{}`: a cycle needs at least two edges (e.g. `PodWR Fre PodWR Fre`)", text.trim())));
    }
    let mut edges = vec![];
    for (i, t) in toks.iter().enumerate() {
        edges.push(parse_edge(t).map_err(|m| bad(format!("edge {}: {m}", i + 1)))?);
    }
    let n = edges.len();
    for i in 0..n {
        let (a, b) = (&edges[i], &edges[(i + 1) % n]);
        if a.tgt != b.src {
            let what = |d: Dir| if d == Dir::R { "a read" } else { "a write" };
            return Err(bad(format!(
                "edge {} `{}` ends at {} but edge {} `{}` starts from {}",
                i + 1,
                a.text,
                what(a.tgt),
                (i + 1) % n + 1,
                b.text,
                what(b.src)
            )));
        }
    }
    if !edges.iter().any(|e| e.external) {
        return Err(bad("no external communication edge (Rfe, Fre, Wse): all events would be on one thread".into()));
    }
    if edges.iter().filter(|e| !e.same_loc).count() == 1 {
        return Err(bad("exactly one edge changes location (`d`): it would have to lead from a location to a different one and back to itself".into()));
    }
    Ok(edges)
}

/// The classic shapes: per thread the directions of its accesses, then the external
/// communication relation to the next thread. Matched up to rotation.
const IDIOMS: &[(&str, &[&str])] = &[
    ("SB", &["WR", "Fr", "WR", "Fr"]),
    ("MP", &["WW", "Rf", "RR", "Fr"]),
    ("LB", &["RW", "Rf", "RW", "Rf"]),
    ("S", &["WW", "Rf", "RW", "Ws"]),
    ("R", &["WW", "Ws", "WR", "Fr"]),
    ("2+2W", &["WW", "Ws", "WW", "Ws"]),
    ("WRC", &["W", "Rf", "RW", "Rf", "RR", "Fr"]),
    ("RWC", &["W", "Rf", "RR", "Fr", "WR", "Fr"]),
    ("ISA2", &["WW", "Rf", "RW", "Rf", "RR", "Fr"]),
    ("IRIW", &["W", "Rf", "RR", "Fr", "W", "Rf", "RR", "Fr"]),
];

fn com_name(c: Com) -> &'static str {
    match c {
        Com::Rf => "Rf",
        Com::Fr => "Fr",
        Com::Ws => "Ws",
    }
}

/// Litmus architecture for `--arch`: a litmus architecture or a weakc memory model.
pub fn lit_arch(name: &str) -> Option<LitArch> {
    if let Some(a) = LitArch::from_header(name) {
        return Some(a);
    }
    match crate::arch::by_name(name)?.name {
        "sc" | "tso" | "pso" | "rmo" => Some(LitArch::X86),
        "power" | "power-esop" => Some(LitArch::Ppc),
        "arm" => Some(LitArch::Arm),
        "aarch64" => Some(LitArch::AArch64),
        _ => None,
    }
}

/// Instruction and short (test-name) spelling of a fence on an architecture; None when the
/// architecture has no such fence.
fn fence_on(arch: LitArch, f: FenceName) -> Option<(&'static str, &'static str)> {
    use FenceName::*;
    Some(match (arch, f) {
        (LitArch::X86, MFence) => ("MFENCE", "mfence"),
        (LitArch::Ppc, Sync) => ("sync", "sync"),
        (LitArch::Ppc, LwSync) => ("lwsync", "lwsync"),
        (LitArch::Ppc, Eieio) => ("eieio", "eieio"),
        (LitArch::Ppc, ISync) => ("isync", "isync"),
        (LitArch::Arm, Dmb) => ("DMB", "dmb"),
        (LitArch::Arm, DmbSt) => ("DMB ST", "dmb.st"),
        (LitArch::Arm, Dsb) => ("DSB", "dsb"),
        (LitArch::Arm, DsbSt) => ("DSB ST", "dsb.st"),
        (LitArch::Arm, Isb) => ("ISB", "isb"),
        (LitArch::AArch64, Dmb) => ("DMB SY", "dmb.sy"),
        (LitArch::AArch64, DmbSt) => ("DMB ST", "dmb.st"),
        (LitArch::AArch64, DmbLd) => ("DMB LD", "dmb.ld"),
        (LitArch::AArch64, Dsb) => ("DSB SY", "dsb.sy"),
        (LitArch::AArch64, DsbSt) => ("DSB ST", "dsb.st"),
        (LitArch::AArch64, Isb) => ("ISB", "isb"),
        _ => return None,
    })
}

fn fences_of(arch: LitArch) -> &'static str {
    match arch {
        LitArch::X86 => "MFence",
        LitArch::Ppc => "Sync, LwSync, Eieio, ISync",
        LitArch::Arm => "DMB, DMB.ST, DSB, DSB.ST, ISB",
        LitArch::AArch64 => "DMB.SY (DMB), DMB.ST, DMB.LD, DSB.SY (DSB), DSB.ST, ISB",
    }
}

/// Short name of a program-order edge in test names (`lwsync`, `addr`, `po`).
fn short(arch: LitArch, e: &Edge) -> String {
    match e.kind {
        EdgeKind::Po => if e.same_loc { "pos" } else { "po" }.into(),
        EdgeKind::Fence(f) => fence_on(arch, f).map_or("fence", |x| x.1).into(),
        EdgeKind::Dep(Dep::Addr) => "addr".into(),
        EdgeKind::Dep(Dep::Data) => "data".into(),
        EdgeKind::Dep(Dep::Ctrl) => "ctrl".into(),
        EdgeKind::Dep(Dep::CtrlIsync) => if arch == LitArch::Ppc { "ctrlisync" } else { "ctrlisb" }.into(),
        EdgeKind::Com(_) => "com".into(),
    }
}

/// Location names in order of appearance (diy's).
const LOC_NAMES: &[&str] = &["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "q", "s", "t", "u", "v", "w"];

/// The generated test with what it was made from.
#[derive(Clone, Debug)]
pub struct Generated {
    pub litmus: Litmus,
    /// The classic family, when the shape is one.
    pub family: Option<&'static str>,
    /// The cycle as rotated for the test (the `Cycle=` key).
    pub cycle: String,
}

/// Per-thread code generation state.
struct Gen {
    arch: LitArch,
    tid: usize,
    next: u32,
    addr_regs: BTreeMap<usize, String>,
    code: Vec<String>,
    init: Vec<(String, String)>,
}

impl Gen {
    fn reg_name(&self, n: u32, wide: bool) -> String {
        match self.arch {
            LitArch::X86 => ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"][n as usize].to_string(),
            LitArch::Ppc => format!("r{n}"),
            LitArch::Arm => format!("R{n}"),
            LitArch::AArch64 => format!("{}{n}", if wide { 'X' } else { 'W' }),
        }
    }
    fn alloc(&mut self) -> Result<u32, Error> {
        let (first, last) = match self.arch {
            LitArch::X86 => (0, 5),
            LitArch::Ppc => (1, 31),
            LitArch::Arm => (0, 12),
            LitArch::AArch64 => (0, 28),
        };
        let n = self.next.max(first);
        if n > last {
            return Err(usage(format!("thread P{} needs more registers than {} has for a litmus test; use a shorter cycle", self.tid, self.arch.herd_name())));
        }
        self.next = n + 1;
        Ok(n)
    }
    /// The register holding the address of location `loc` (declared in the initial state).
    fn addr(&mut self, loc: usize) -> Result<String, Error> {
        if let Some(r) = self.addr_regs.get(&loc) {
            return Ok(r.clone());
        }
        let n = self.alloc()?;
        let r = self.reg_name(n, true);
        self.init.push((r.clone(), LOC_NAMES[loc].to_string()));
        self.addr_regs.insert(loc, r.clone());
        Ok(r)
    }
    fn emit(&mut self, s: impl Into<String>) {
        self.code.push(s.into());
    }
}

/// Generates the litmus test of `cycle` for `arch`; `name` overrides diy's name.
pub fn generate(cycle: &str, arch: LitArch, name: Option<&str>) -> Result<Generated, Error> {
    let edges = parse_cycle(cycle)?;
    let original = edges.iter().map(|e| e.text.as_str()).collect::<Vec<_>>().join(" ");
    let bad = |m: String| usage(format!("cycle `{original}`: {m}"));
    // Architecture checks.
    for (i, e) in edges.iter().enumerate() {
        match e.kind {
            EdgeKind::Dep(_) if arch == LitArch::X86 => {
                return Err(bad(format!("edge {} `{}`: X86 has no dependencies that order accesses (TSO keeps read→read and read→write order anyway: use Pod)", i + 1, e.text)))
            }
            EdgeKind::Fence(f) if fence_on(arch, f).is_none() => {
                return Err(bad(format!("edge {} `{}`: not a fence of {} (its fences: {})", i + 1, e.text, arch.herd_name(), fences_of(arch))))
            }
            _ => {}
        }
    }
    let n = edges.len();
    // Rotate to start at a thread's first event: after an external edge.
    let start = (0..n).find(|&i| edges[(i + n - 1) % n].external).expect("parse_cycle checked an external edge");
    let mut edges: Vec<Edge> = (0..n).map(|k| edges[(start + k) % n].clone()).collect();
    // Threads: maximal runs of events joined by internal edges.
    let threads_of = |edges: &[Edge]| -> Vec<Vec<usize>> {
        let mut ts: Vec<Vec<usize>> = vec![vec![0]];
        for i in 0..n - 1 {
            if edges[i].external {
                ts.push(vec![]);
            }
            ts.last_mut().expect("non-empty").push(i + 1);
        }
        ts
    };
    let mut threads = threads_of(&edges);
    // The classic shape, rotated so that its first thread comes first.
    let shape: Vec<String> = threads
        .iter()
        .flat_map(|t| {
            let dirs: String = t.iter().map(|&e| edges[e].src.letter()).collect();
            let last = *t.last().expect("non-empty");
            let c = match edges[last].kind {
                EdgeKind::Com(c) => com_name(c),
                _ => "?",
            };
            [dirs, c.to_string()]
        })
        .collect();
    let internal_com = edges.iter().any(|e| matches!(e.kind, EdgeKind::Com(_)) && !e.external);
    let mut family = None;
    if !internal_com {
        'idioms: for (fam, pat) in IDIOMS {
            if pat.len() != shape.len() {
                continue;
            }
            for r in (0..shape.len()).step_by(2) {
                if (0..shape.len()).all(|k| shape[(r + k) % shape.len()] == pat[k]) {
                    family = Some(*fam);
                    let first_event = threads[r / 2][0];
                    edges = (0..n).map(|k| edges[(first_event + k) % n].clone()).collect();
                    threads = threads_of(&edges);
                    break 'idioms;
                }
            }
        }
    }
    // Locations: runs of same-location events, each its own location.
    let mut loc = vec![0usize; n];
    let mut next_loc = 1;
    for i in 0..n - 1 {
        loc[i + 1] = if edges[i].same_loc {
            loc[i]
        } else {
            next_loc += 1;
            next_loc - 1
        };
    }
    if edges[n - 1].same_loc {
        let last = loc[n - 1];
        for l in loc.iter_mut() {
            if *l == last {
                *l = 0;
            }
        }
    }
    // Renumber in order of appearance.
    let mut renum: BTreeMap<usize, usize> = BTreeMap::new();
    for l in loc.iter_mut() {
        let k = renum.len();
        *l = *renum.entry(*l).or_insert(k);
    }
    let nlocs = renum.len();
    if nlocs > LOC_NAMES.len() {
        return Err(bad(format!("{nlocs} locations; at most {} are supported", LOC_NAMES.len())));
    }
    // Coherence: the order of the writes to each location that the cycle imposes.
    let dir = |e: usize| edges[e].src;
    let prev = |e: usize| (e + n - 1) % n;
    let mut cons: Vec<(usize, usize)> = vec![];
    for i in 0..n {
        let to = (i + 1) % n;
        match edges[i].kind {
            EdgeKind::Com(Com::Ws) => cons.push((i, to)),
            EdgeKind::Com(Com::Fr) if edges[prev(i)].kind == EdgeKind::Com(Com::Rf) => cons.push((prev(i), to)),
            _ => {}
        }
    }
    let mut value = vec![0i64; n];
    let mut co: Vec<Vec<usize>> = vec![vec![]; nlocs];
    let mut final_val: Vec<Option<i64>> = vec![None; nlocs];
    for (l, order) in co.iter_mut().enumerate() {
        let mut ws: Vec<usize> = (0..n).filter(|&e| loc[e] == l && dir(e) == Dir::W).collect();
        if ws.len() > 2 {
            return Err(bad(format!(
                "{} writes to location {}: the coherence order of more than two writes cannot be observed in the final state",
                ws.len(),
                LOC_NAMES[l]
            )));
        }
        let lc: Vec<(usize, usize)> = cons.iter().copied().filter(|(a, b)| loc[*a] == l && loc[*b] == l && a != b).collect();
        // Topological order, ties by position in the cycle.
        while !ws.is_empty() {
            let Some(k) = ws.iter().position(|&w| !lc.iter().any(|&(a, b)| b == w && ws.contains(&a))) else {
                return Err(bad(format!("the communication edges order the writes to {} cyclically", LOC_NAMES[l])));
            };
            order.push(ws.remove(k));
        }
        for (k, &w) in order.iter().enumerate() {
            value[w] = k as i64 + 1;
        }
        if order.len() == 2 && !lc.is_empty() {
            final_val[l] = Some(2);
        }
    }
    // What each read must see.
    let mut observed: Vec<Option<i64>> = vec![None; n];
    for e in 0..n {
        if dir(e) != Dir::R {
            continue;
        }
        if edges[prev(e)].kind == EdgeKind::Com(Com::Rf) && edges[e].kind == EdgeKind::Com(Com::Fr) && prev(e) == (e + 1) % n {
            return Err(bad("the read would read from the very write it is fr-before".into()));
        }
        if edges[prev(e)].kind == EdgeKind::Com(Com::Rf) {
            observed[e] = Some(value[prev(e)]);
        } else if edges[e].kind == EdgeKind::Com(Com::Fr) {
            let w = (e + 1) % n;
            let pos = co[loc[w]].iter().position(|&x| x == w).expect("a write of its location");
            observed[e] = Some(pos as i64);
        }
    }
    // Code.
    let mut init = vec![];
    let mut lthreads = vec![];
    let mut atoms_regs: Vec<(u32, String, i64)> = vec![];
    let mut label = 0;
    for (tid, evs) in threads.iter().enumerate() {
        let mut g = Gen { arch, tid, next: 0, addr_regs: BTreeMap::new(), code: vec![], init: vec![] };
        let mut dest: BTreeMap<usize, String> = BTreeMap::new();
        for (k, &e) in evs.iter().enumerate() {
            let l = loc[e];
            let x = LOC_NAMES[l];
            let incoming = if k > 0 { Some(edges[prev(e)].kind) } else { None };
            let mut index: Option<String> = None;
            let mut data: Option<String> = None;
            match incoming {
                Some(EdgeKind::Fence(f)) => g.emit(fence_on(arch, f).expect("checked").0),
                Some(EdgeKind::Dep(d)) => {
                    let src = dest.get(&prev(e)).cloned().expect("a dependency starts at a read");
                    match d {
                        Dep::Addr | Dep::Data => {
                            let t = g.alloc()?;
                            let tr = g.reg_name(t, false);
                            match arch {
                                LitArch::Ppc => g.emit(format!("xor {tr},{src},{src}")),
                                _ => g.emit(format!("EOR {tr},{src},{src}")),
                            }
                            if d == Dep::Addr {
                                index = Some(tr);
                            } else {
                                let v = value[e];
                                match arch {
                                    LitArch::Ppc => g.emit(format!("addi {tr},{tr},{v}")),
                                    _ => g.emit(format!("ADD {tr},{tr},#{v}")),
                                }
                                data = Some(tr);
                            }
                        }
                        Dep::Ctrl | Dep::CtrlIsync => {
                            let lab = format!("LC{label:02}");
                            label += 1;
                            match arch {
                                LitArch::Ppc => {
                                    g.emit(format!("cmpw {src},{src}"));
                                    g.emit(format!("beq {lab}"));
                                }
                                LitArch::Arm => {
                                    g.emit(format!("CMP {src},{src}"));
                                    g.emit(format!("BNE {lab}"));
                                }
                                LitArch::AArch64 => g.emit(format!("CBNZ {src},{lab}")),
                                LitArch::X86 => unreachable!("dependencies are refused on X86"),
                            }
                            g.emit(format!("{lab}:"));
                            if d == Dep::CtrlIsync {
                                g.emit(if arch == LitArch::Ppc { "isync" } else { "ISB" });
                            }
                        }
                    }
                }
                _ => {}
            }
            match dir(e) {
                Dir::W => {
                    let v = value[e];
                    match arch {
                        LitArch::X86 => g.emit(format!("MOV [{x}],${v}")),
                        _ => {
                            let vr = match data.take() {
                                Some(r) => r,
                                None => {
                                    let r = g.alloc()?;
                                    let r = g.reg_name(r, false);
                                    match arch {
                                        LitArch::Ppc => g.emit(format!("li {r},{v}")),
                                        _ => g.emit(format!("MOV {r},#{v}")),
                                    }
                                    r
                                }
                            };
                            let a = g.addr(l)?;
                            g.emit(match (arch, &index) {
                                (LitArch::Ppc, None) => format!("stw {vr},0({a})"),
                                (LitArch::Ppc, Some(i)) => format!("stwx {vr},{i},{a}"),
                                (LitArch::Arm, None) => format!("STR {vr},[{a}]"),
                                (LitArch::Arm, Some(i)) => format!("STR {vr},[{i},{a}]"),
                                (_, None) => format!("STR {vr},[{a}]"),
                                (_, Some(i)) => format!("STR {vr},[{a},{i},SXTW]"),
                            });
                        }
                    }
                }
                Dir::R => {
                    let r = g.alloc()?;
                    let rd = g.reg_name(r, false);
                    match arch {
                        LitArch::X86 => g.emit(format!("MOV {rd},[{x}]")),
                        _ => {
                            let a = g.addr(l)?;
                            g.emit(match (arch, &index) {
                                (LitArch::Ppc, None) => format!("lwz {rd},0({a})"),
                                (LitArch::Ppc, Some(i)) => format!("lwzx {rd},{i},{a}"),
                                (LitArch::Arm, None) => format!("LDR {rd},[{a}]"),
                                (LitArch::Arm, Some(i)) => format!("LDR {rd},[{i},{a}]"),
                                (_, None) => format!("LDR {rd},[{a}]"),
                                (_, Some(i)) => format!("LDR {rd},[{a},{i},SXTW]"),
                            });
                        }
                    }
                    if let Some(v) = observed[e] {
                        atoms_regs.push((tid as u32, g.reg_name(r, true), v));
                    }
                    dest.insert(e, rd);
                }
            }
        }
        for (r, x) in &g.init {
            init.push(InitItem { place: Place::Reg { thread: Some(tid as u32), reg: r.clone() }, ty: None, val: Some(Value::Sym(x.clone())), loc: Loc::default() });
        }
        lthreads.push(Thread { name: format!("P{tid}"), code: g.code.into_iter().map(|text| Instr { text, loc: Loc::default() }).collect() });
    }
    // The outcome: final values, then the registers thread by thread.
    let mut atoms: Vec<Prop> = vec![];
    for (l, v) in final_val.iter().enumerate() {
        if let Some(v) = v {
            atoms.push(Prop::Atom(Atom { place: Place::Mem(LOC_NAMES[l].into()), val: Value::Int(*v), loc: Loc::default() }));
        }
    }
    for (t, r, v) in atoms_regs {
        atoms.push(Prop::Atom(Atom { place: Place::Reg { thread: Some(t), reg: r }, val: Value::Int(v), loc: Loc::default() }));
    }
    let prop = atoms.into_iter().reduce(|a, b| Prop::And(Box::new(a), Box::new(b))).unwrap_or(Prop::True);
    let rotated = edges.iter().map(|e| e.text.as_str()).collect::<Vec<_>>().join(" ");
    let name = match name {
        Some(s) => s.to_string(),
        None => default_name(arch, family, &edges, &threads),
    };
    if name.trim().is_empty() || name.contains(char::is_whitespace) {
        return Err(usage(format!("test name `{name}`: a litmus test name is one word")));
    }
    let litmus = Litmus {
        arch,
        arch_name: arch.herd_name().to_string(),
        name,
        doc: Some(original.clone()),
        keys: vec![("Cycle".into(), rotated.clone()), ("Generator".into(), format!("weakc litmus-gen {}", env!("CARGO_PKG_VERSION")))],
        init,
        threads: lthreads,
        locations: vec![],
        cond: Condition { quant: Quant::Exists, prop, loc: Loc::default() },
        header_loc: Loc::default(),
    };
    Ok(Generated { litmus, family, cycle: rotated })
}

/// diy's naming: `FAMILY+a+b` with one annotation per thread that has a program-order
/// edge (`MP+lwsync+addr`), `FAMILY+as` when they are all the same (`SB+mfences`), `FAMILY`
/// when they are all plain `po`; the edges joined by `+` for other shapes.
fn default_name(arch: LitArch, family: Option<&str>, edges: &[Edge], threads: &[Vec<usize>]) -> String {
    let Some(fam) = family else {
        return edges.iter().map(|e| e.text.as_str()).collect::<Vec<_>>().join("+");
    };
    let anns: Vec<String> = threads.iter().filter(|t| t.len() == 2).map(|t| short(arch, &edges[t[0]])).collect();
    if anns.iter().all(|a| a == "po") {
        fam.to_string()
    } else if anns.len() > 1 && anns.iter().all(|a| *a == anns[0]) {
        format!("{fam}+{}s", anns[0])
    } else {
        format!("{fam}+{}", anns.join("+"))
    }
}

/// herd text laid out as diy does: one line of initial state per thread, an aligned thread
/// table, a flat condition. Parses back to the same test as [`Litmus::to_herd`].
pub fn herd_text(l: &Litmus) -> String {
    let mut s = format!("{} {}\n", l.arch_name, l.name);
    if let Some(d) = &l.doc {
        s += &format!("\"{d}\"\n");
    }
    for (k, v) in &l.keys {
        s += &format!("{k}={v}\n");
    }
    s += "{\n";
    let mut by_thread: BTreeMap<Option<u32>, Vec<String>> = BTreeMap::new();
    for i in &l.init {
        let (t, place) = match &i.place {
            Place::Mem(x) => (None, x.clone()),
            p @ Place::Reg { thread, .. } => (*thread, p.to_string()),
        };
        let ty = i.ty.as_ref().map(|t| format!("{t} ")).unwrap_or_default();
        by_thread.entry(t).or_default().push(match &i.val {
            Some(v) => format!("{ty}{place}={v};"),
            None => format!("{ty}{place};"),
        });
    }
    for items in by_thread.values() {
        s += &items.join(" ");
        s += "\n";
    }
    s += "}\n";
    let rows = l.threads.iter().map(|t| t.code.len()).max().unwrap_or(0);
    let width: Vec<usize> = l.threads.iter().map(|t| t.code.iter().map(|i| i.text.len()).chain([t.name.len()]).max().unwrap_or(0)).collect();
    let row = |cells: Vec<&str>| -> String {
        let padded: Vec<String> = cells.iter().zip(&width).map(|(c, w)| format!(" {c:<w$} ")).collect();
        format!("{};\n", padded.join("|"))
    };
    s += &row(l.threads.iter().map(|t| t.name.as_str()).collect());
    for r in 0..rows {
        s += &row(l.threads.iter().map(|t| t.code.get(r).map_or("", |i| i.text.as_str())).collect());
    }
    let atoms: Vec<String> = l.cond.prop.atoms().iter().map(|a| Prop::Atom((*a).clone()).to_string()).collect();
    let flat_and = {
        let mut p = &l.cond.prop;
        let mut ok = true;
        while let Prop::And(a, b) = p {
            ok &= matches!(**b, Prop::Atom(_));
            p = a;
        }
        ok && matches!(p, Prop::Atom(_))
    };
    if flat_and {
        s += &format!("{} ({})\n", l.cond.quant.keyword(), atoms.join(" /\\ "));
    } else {
        s += &format!("{} {}\n", l.cond.quant.keyword(), l.cond.prop);
    }
    s
}

/// Output formats of `weakc litmus-gen`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GenFormat {
    /// herd `.litmus` text.
    Litmus,
    /// The C translation `weakc litmus` would verify.
    C,
}

#[derive(clap::Args, Clone, Debug)]
pub struct GenArgs {
    /// Architecture: X86, PPC, ARM, AArch64, or a memory model (sc/tso/pso/rmo → X86,
    /// power/power-esop → PPC, arm → ARM, aarch64 → AArch64).
    #[arg(long, value_name = "ARCH")]
    pub arch: String,
    /// The cycle in diy's edge vocabulary, e.g. "PodWR Fre PodWR Fre".
    #[arg(long, value_name = "EDGES")]
    pub cycle: String,
    /// Output file (default: standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GenFormat::Litmus)]
    pub format: GenFormat,
    /// Test name (default: diy's, e.g. MP+lwsync+addr).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// The text `weakc litmus-gen` writes.
pub fn render(args: &GenArgs) -> Result<String, Error> {
    let arch = lit_arch(&args.arch).ok_or_else(|| {
        usage(format!(
            "unknown architecture `{}`; known: X86, PPC, ARM, AArch64, or a memory model ({})",
            args.arch,
            crate::arch::Arch::names().join(", ")
        ))
    })?;
    let g = generate(&args.cycle, arch, args.name.as_deref())?;
    Ok(match args.format {
        GenFormat::Litmus => herd_text(&g.litmus),
        GenFormat::C => super::translate(&g.litmus)?.c,
    })
}

/// `weakc litmus-gen`.
pub fn main(args: GenArgs) -> Result<u8, Error> {
    let text = render(&args)?;
    match &args.output {
        Some(p) => write_atomically(p, &text)?,
        None => crate::output::stdout(&text),
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    fn gen(cycle: &str, arch: LitArch) -> Generated {
        generate(cycle, arch, None).unwrap_or_else(|e| panic!("{cycle}: {e}"))
    }

    fn usage_msg(cycle: &str, arch: LitArch) -> String {
        match generate(cycle, arch, None) {
            Ok(g) => panic!("{cycle} was accepted:\n{}", herd_text(&g.litmus)),
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                assert!(matches!(e, Error::Usage(_)), "{e:?}");
                e.to_string()
            }
        }
    }

    /// The generated text parses back to the same test (both printers).
    fn reparse(l: &Litmus) -> Litmus {
        let mut map = SourceMap::default();
        let a = crate::litmus::parse_str("gen", &herd_text(l), &mut map).unwrap_or_else(|e| panic!("{}\n{}", e.render(&map, false), herd_text(l)));
        assert!(a.same_as(l), "{}", herd_text(l));
        let b = crate::litmus::parse_str("gen2", &l.to_herd(), &mut map).unwrap();
        assert!(b.same_as(l));
        a
    }

    fn cond(l: &Litmus) -> String {
        l.cond.prop.atoms().iter().map(|a| Prop::Atom((*a).clone()).to_string()).collect::<Vec<_>>().join(" /\\ ")
    }

    #[test]
    fn parses_the_edge_vocabulary() {
        let e = parse_edge("PodWR").unwrap();
        assert_eq!((e.kind, e.same_loc, e.src, e.tgt, e.external), (EdgeKind::Po, false, Dir::W, Dir::R, false));
        let e = parse_edge("PosRR").unwrap();
        assert!(e.same_loc);
        assert_eq!(parse_edge("Rfe").unwrap().kind, EdgeKind::Com(Com::Rf));
        assert!(parse_edge("Rfe").unwrap().external && !parse_edge("Rfi").unwrap().external);
        assert_eq!(parse_edge("Coe").unwrap(), Edge { text: "Coe".into(), ..parse_edge("Wse").unwrap() });
        let e = parse_edge("Fri").unwrap();
        assert_eq!((e.src, e.tgt), (Dir::R, Dir::W));
        assert_eq!(parse_edge("LwSyncdRR").unwrap().kind, EdgeKind::Fence(FenceName::LwSync));
        assert_eq!(parse_edge("SyncsWR").unwrap().kind, EdgeKind::Fence(FenceName::Sync));
        assert!(parse_edge("SyncsWR").unwrap().same_loc);
        assert_eq!(parse_edge("ISyncdRR").unwrap().kind, EdgeKind::Fence(FenceName::ISync));
        assert_eq!(parse_edge("DMB.STdWW").unwrap().kind, EdgeKind::Fence(FenceName::DmbSt));
        assert_eq!(parse_edge("DMBdWW").unwrap().kind, EdgeKind::Fence(FenceName::Dmb));
        assert_eq!(parse_edge("DMB.SYdWR").unwrap().kind, EdgeKind::Fence(FenceName::Dmb));
        assert_eq!(parse_edge("MFencedWR").unwrap().kind, EdgeKind::Fence(FenceName::MFence));
        let e = parse_edge("DpAddrdW").unwrap();
        assert_eq!((e.kind, e.src, e.tgt), (EdgeKind::Dep(Dep::Addr), Dir::R, Dir::W));
        assert_eq!(parse_edge("DpCtrlIsyncdR").unwrap().kind, EdgeKind::Dep(Dep::CtrlIsync));
        assert_eq!(parse_edge("DpCtrlIsbdR").unwrap().kind, EdgeKind::Dep(Dep::CtrlIsync));
        assert_eq!(parse_edge("DpCtrldW").unwrap().kind, EdgeKind::Dep(Dep::Ctrl));
        for bad in ["PodXR", "Pod", "PodWRW", "Rf", "Frx", "DpDatadR", "DpAddrxR", "DpFoodR", "LwSyncWW", "SyncdW", "Hello", "podwr"] {
            assert!(parse_edge(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn rejects_inconsistent_cycles() {
        let m = usage_msg("PodWR Rfe PodWR Fre", LitArch::X86);
        assert!(m.contains("edge 1 `PodWR` ends at a read but edge 2 `Rfe` starts from a write"), "{m}");
        let m = usage_msg("PodWW Fre PodWR Fre", LitArch::X86);
        assert!(m.contains("ends at a read") || m.contains("ends at a write"), "{m}");
        assert!(usage_msg("PodWR Fri", LitArch::X86).contains("no external communication edge"));
        assert!(usage_msg("PodWR Fre PosWR Fre", LitArch::X86).contains("exactly one edge changes location"));
        assert!(usage_msg("Fre", LitArch::X86).contains("at least two edges"));
        assert!(usage_msg("", LitArch::X86).contains("at least two edges"));
        assert!(usage_msg("PodWR Fre PodWR Frx", LitArch::X86).contains("edge 4: unknown edge `Frx`"));
        // Architecture: no dependencies on X86, fences of the architecture only.
        assert!(usage_msg("PodWW Rfe DpAddrdR Fre", LitArch::X86).contains("X86 has no dependencies"));
        assert!(usage_msg("LwSyncdWW Rfe PodRR Fre", LitArch::X86).contains("not a fence of X86"));
        assert!(usage_msg("MFencedWR Fre MFencedWR Fre", LitArch::Ppc).contains("not a fence of PPC"));
        assert!(usage_msg("DMB.LDdRR Fre PodWW Rfe", LitArch::Arm).contains("not a fence of ARM"));
        // More than two writes to one location.
        assert!(usage_msg("Wse Wse Wse", LitArch::X86).contains("more than two writes"));
        assert!(usage_msg("Rfe Fre", LitArch::X86).contains("fr-before"));
        assert!(usage_msg("Wse Wse", LitArch::X86).contains("cyclically"));
        // Unknown architecture through the command's entry point.
        let args = GenArgs { arch: "mips".into(), cycle: "PodWR Fre PodWR Fre".into(), output: None, format: GenFormat::Litmus, name: None };
        assert!(matches!(render(&args), Err(Error::Usage(m)) if m.contains("unknown architecture `mips`")));
    }

    #[test]
    fn sb_on_x86() {
        let g = gen("PodWR Fre PodWR Fre", LitArch::X86);
        let l = reparse(&g.litmus);
        assert_eq!(g.family, Some("SB"));
        assert_eq!(l.name, "SB");
        assert_eq!(l.threads.len(), 2);
        let code: Vec<Vec<&str>> = l.threads.iter().map(|t| t.code.iter().map(|i| i.text.as_str()).collect()).collect();
        assert_eq!(code, vec![vec!["MOV [x],$1", "MOV EAX,[y]"], vec!["MOV [y],$1", "MOV EAX,[x]"]]);
        assert!(herd_text(&l).contains("exists (0:EAX=0 /\\ 1:EAX=0)"), "{}", herd_text(&l));
        assert_eq!(l.cond.quant, Quant::Exists);
        assert_eq!(generate("MFencedWR Fre MFencedWR Fre", LitArch::X86, None).unwrap().litmus.name, "SB+mfences");
    }

    #[test]
    fn mp_lwsync_addr_on_power_is_diys() {
        // Rotated to start with the writer; the same text as diy's MP+lwsync+addr.
        let g = gen("Rfe DpAddrdR Fre LwSyncdWW", LitArch::Ppc);
        let l = reparse(&g.litmus);
        assert_eq!(l.name, "MP+lwsync+addr");
        assert_eq!(g.cycle, "LwSyncdWW Rfe DpAddrdR Fre");
        let code: Vec<Vec<&str>> = l.threads.iter().map(|t| t.code.iter().map(|i| i.text.as_str()).collect()).collect();
        assert_eq!(code[0], vec!["li r1,1", "stw r1,0(r2)", "lwsync", "li r3,1", "stw r3,0(r4)"]);
        assert_eq!(code[1], vec!["lwz r1,0(r2)", "xor r3,r1,r1", "lwzx r4,r3,r5"]);
        assert_eq!(cond(&l), "1:r1=1 /\\ 1:r4=0");
        let init: Vec<String> = l.init.iter().map(|i| format!("{}={}", i.place, i.val.as_ref().unwrap())).collect();
        assert_eq!(init, vec!["0:r2=x", "0:r4=y", "1:r2=y", "1:r5=x"]);
    }

    #[test]
    fn coherence_values_and_final_state() {
        // 2+2W: each location written twice; the Wse target is coherence-last.
        let l = reparse(&gen("PodWW Wse PodWW Wse", LitArch::X86).litmus);
        assert_eq!(l.name, "2+2W");
        // diy's 2+2W: MOV [x],$2; MOV [y],$1 | MOV [y],$2; MOV [x],$1.
        assert_eq!(l.threads[0].code[0].text, "MOV [x],$2");
        assert_eq!(l.threads[0].code[1].text, "MOV [y],$1");
        assert_eq!(l.threads[1].code[0].text, "MOV [y],$2");
        assert_eq!(l.threads[1].code[1].text, "MOV [x],$1");
        assert_eq!(cond(&l), "[x]=2 /\\ [y]=2");
        // S: the read sees P0's y=1, P1's x write is coherence-before P0's.
        let l = reparse(&gen("PodWW Rfe PodRW Wse", LitArch::Ppc).litmus);
        assert_eq!(l.name, "S");
        assert_eq!(cond(&l), "[x]=2 /\\ 1:r1=1");
        // Internal edges: rfi reads its own thread's write.
        let l = reparse(&gen("Rfi PodRW Coe MFencedWR Fre", LitArch::X86).litmus);
        assert_eq!(cond(&l), "[y]=2 /\\ 0:EAX=1 /\\ 1:EAX=0");
        // A single-location cycle (CoRR): one write, the second read sees the initial value.
        let l = reparse(&gen("Rfe PosRR Fre", LitArch::X86).litmus);
        assert_eq!(l.threads.len(), 2);
        assert_eq!(cond(&l), "1:EAX=1 /\\ 1:EBX=0");
        // CoWW: program order against the coherence the Wse edge claims.
        let l = reparse(&gen("PosWW Wse", LitArch::X86).litmus);
        assert_eq!(l.threads.len(), 1);
        assert_eq!(l.threads[0].code[0].text, "MOV [x],$2");
        assert_eq!(l.threads[0].code[1].text, "MOV [x],$1");
        assert_eq!(cond(&l), "[x]=2");
    }

    #[test]
    fn dependencies_per_architecture() {
        let arm = reparse(&gen("DMBdWW Rfe DpAddrdR Fre", LitArch::Arm).litmus);
        assert_eq!(arm.name, "MP+dmb+addr");
        let p1: Vec<&str> = arm.threads[1].code.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(p1, vec!["LDR R0,[R1]", "EOR R2,R0,R0", "LDR R3,[R2,R4]"]);
        let v8 = reparse(&gen("DpDatadW Rfe DpCtrlIsbdR Fre PodWW Rfe", LitArch::AArch64).litmus);
        let all: Vec<&str> = v8.threads.iter().flat_map(|t| t.code.iter().map(|i| i.text.as_str())).collect();
        for want in ["EOR W2,W0,W0", "ADD W2,W2,#1", "STR W2,[X3]", "CBNZ W0,LC00", "LC00:", "ISB"] {
            assert!(all.contains(&want), "{want} missing in {all:?}");
        }
        let ppc = reparse(&gen("PodWW Rfe DpCtrlIsyncdR Fre", LitArch::Ppc).litmus);
        let p1: Vec<&str> = ppc.threads[1].code.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(p1, vec!["lwz r1,0(r2)", "cmpw r1,r1", "beq LC00", "LC00:", "isync", "lwz r3,0(r4)"]);
        assert_eq!(ppc.name, "MP+po+ctrlisync");
        let addr_w = reparse(&gen("DpAddrdW Rfe DpAddrdW Rfe", LitArch::AArch64).litmus);
        assert_eq!(addr_w.name, "LB+addrs");
        assert!(addr_w.threads[0].code.iter().any(|i| i.text == "STR W3,[X4,W2,SXTW]"), "{}", herd_text(&addr_w));
    }

    #[test]
    fn names_and_c_output() {
        assert_eq!(gen("Rfe SyncdRR Fre Rfe SyncdRR Fre", LitArch::Ppc).litmus.name, "IRIW+syncs");
        assert_eq!(gen("Rfe LwSyncdRW Rfe DpAddrdR Fre", LitArch::Ppc).litmus.name, "WRC+lwsync+addr");
        assert_eq!(gen("DpDatadW Rfe DpDatadW Rfe", LitArch::Ppc).litmus.name, "LB+datas");
        assert_eq!(gen("PodWW Rfe PodRW Rfe PodRR Fre", LitArch::Arm).litmus.name, "ISA2");
        assert_eq!(gen("Rfi PodRR Fre Rfi PodRR Fre", LitArch::X86).litmus.name, "Rfi+PodRR+Fre+Rfi+PodRR+Fre");
        assert_eq!(generate("PodWR Fre PodWR Fre", LitArch::X86, Some("mine")).unwrap().litmus.name, "mine");
        assert!(generate("PodWR Fre PodWR Fre", LitArch::X86, Some("two words")).is_err());
        let args = GenArgs { arch: "tso".into(), cycle: "MFencedWR Fre MFencedWR Fre".into(), output: None, format: GenFormat::C, name: None };
        let c = render(&args).unwrap();
        assert!(c.contains("asm(\"mfence\");") && c.contains("__CPROVER_assert"), "{c}");
    }
}
