//! `weakc fences`: the cheapest fences that restore the guarantees a program needs, verified.
//!
//! **Static mode** (restore SC): every critical cycle must become non-critical, i.e. every
//! unsafe relation of every cycle must become safe. Candidates are pairs (program point,
//! fence of the architecture's menu, [`Arch::menu`]); a point is a gap between two
//! statements of the normalised IR that has a place in the user's source text. Which
//! program-order pairs a point lies on *every* path of is measured, not guessed: a full
//! fence is inserted there and the event graph rebuilt ([`Problem::new`]). Whether a
//! candidate makes a relation of a cycle safe is then decided by the cycle search's own
//! rules ([`crate::cycles::rejudge`]: fence orders, dependencies, A-/B-cumulativity for rfe),
//! so the answer and the final check agree. Each relation's safety is a disjunction over
//! single fences (every predicate of [`Arch`] asks whether *some* fence between the events
//! qualifies), so the problem is a weighted set cover — one element per unsafe relation,
//! one set per candidate — solved with the integer program of [`crate::select`]
//! (good_lp/microlp, warm-started from and never worse than the greedy cover).
//!
//! **Property mode** (`--property`, FOIL §7.3 / CheckFence, automated): verify with the
//! built-in BMC; from a counterexample, take the critical cycles whose unsafe relations start
//! at the accesses the trace delayed (its weak-memory events); choose the cheapest placement
//! breaking every cycle seen so far; verify again, until the assertions hold or the round
//! limit is reached.
//!
//! **Every answer is checked**: the placement is inserted into the IR and the cycle search
//! (static) or the verifier (property) run again; then the patched *source text* is parsed
//! and checked the same way. An answer that fails either check is an internal error (exit
//! 4), never a success.

mod gaps;
mod orders;
mod patch;
mod property;

pub use gaps::Gap;
pub use orders::Strengthen;
pub use patch::{unified_diff, Anchor, Edit, Idiom, Scan};

use crate::aeg::{self, Aeg, Dir, EventId, PairInfo};
use crate::arch::{Arch, Insertable};
use crate::cycles::{self, Cycle, EdgeKind};
use crate::ir::{Fence, Program, StmtKind};
use crate::pipeline::{self, Analysis};
use crate::source::{render_diagnostic, Error, Severity, SourceMap};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

/// Rounds of the static mode's cover-and-check loop before it gives up.
const MAX_LAZY_ROUNDS: usize = 50;
/// Critical cycles one lazy round's search of the fenced program collects at most.
const LAZY_ROUND_CYCLES: usize = 2000;
/// ... and through each relation still unsafe.
const LAZY_PER_RELATION: usize = 20;

/// Exit codes of `weakc fences` (see README).
pub const EXIT_NO_ANSWER: u8 = 5;
pub const EXIT_SC_VIOLATION: u8 = 10;
pub const EXIT_INCOMPLETE: u8 = 6;

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutFormat {
    Text,
    Json,
    /// SARIF 2.1.0 (one result per placement, with its fix).
    Sarif,
}

/// Flags of `weakc fences`.
#[derive(clap::Args, Clone, Debug)]
pub struct FenceArgs {
    /// Insert only the fences the program's assertions need (verify → counterexample →
    /// cycles → cheapest fences, repeated).
    #[arg(long)]
    pub property: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutFormat::Text)]
    pub format: OutFormat,
    /// Text: one line per fence placement (`FILE:LINE:COL: insert …`), and one for an answer
    /// that did not verify.
    #[arg(long)]
    pub quiet: bool,
    /// Write a unified diff against the input file to PATCH.
    #[arg(long, value_name = "PATCH")]
    pub patch: Option<PathBuf>,
    /// Write the patched source to OUT.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// --property: loop unwinding bound of the verifier.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub unwind: u32,
    /// --property: give up after this many verification rounds.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_rounds: u32,
    /// --property: solver time limit per verification, in seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// --property: write-buffer depth of the instrumented program the verifier checks
    /// (smaller: faster, fewer weak behaviours explored).
    #[arg(long, value_name = "N", default_value_t = crate::rewrite::DEFAULT_BUFFER_SIZE)]
    pub buffer_size: u32,
}

impl Default for FenceArgs {
    fn default() -> Self {
        FenceArgs {
            property: false,
            format: OutFormat::Text,
            quiet: false,
            patch: None,
            output: None,
            unwind: 2,
            max_rounds: 20,
            timeout: None,
            buffer_size: crate::rewrite::DEFAULT_BUFFER_SIZE,
        }
    }
}

/// A candidate: a fence of the menu at a gap, or an atomic operation at a stronger order.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub what: What,
    pub cost: u32,
}

#[derive(Copy, Clone, Debug)]
pub enum What {
    /// `gap`: index into [`Problem::gaps`].
    Fence { gap: usize, ins: Insertable },
    /// Index into [`Problem::orders`].
    Order(usize),
}

/// The set-cover instance of one solve (exposed for tests and benchmarks).
#[derive(Clone, Debug, Default)]
pub struct Cover {
    /// Candidates considered (indices into [`Problem::candidates`]) with their costs.
    pub cands: Vec<usize>,
    pub costs: Vec<u32>,
    /// One entry per unsafe relation: (cycle index, edge index, local candidates making it safe).
    pub elements: Vec<(usize, usize, Vec<usize>)>,
}

/// One placement of an answer.
#[derive(Clone, Debug, Serialize)]
pub struct Placement {
    /// The translation unit it edits (as given).
    pub file: String,
    #[serde(skip)]
    pub file_id: u32,
    /// `fence`, or `order` (an atomic operation's `memory_order` strengthened).
    pub kind: &'static str,
    /// The fence, or the order the operation gets (as the file spells it).
    pub fence: String,
    /// `order`: the order the operation had.
    pub from: Option<String>,
    pub cost: u32,
    pub function: String,
    pub line_before: Option<u32>,
    pub line_after: Option<u32>,
    /// The statement inserted into the source.
    pub text: String,
    /// Where it is inserted: line (1-based) and byte column of the original file.
    pub line: u32,
    pub col: u32,
    /// Cycles it helps break (name and events).
    pub cycles: Vec<String>,
    /// A cheaper alternative the code may allow (dependencies), when there is one.
    pub alternative: Option<String>,
    #[serde(skip)]
    pub what: What,
}

#[derive(Clone, Debug)]
pub struct Solution {
    /// Indices into [`Problem::candidates`].
    pub chosen: Vec<usize>,
    pub cost: u32,
    pub optimal: bool,
    pub note: Option<String>,
    pub cover: Cover,
    /// Cycles (index, relation, why) no fence at a source position breaks: left out of the
    /// cover.
    pub unbreakable: Vec<(usize, usize, Unbreakable)>,
}

/// What one cycle asks of a placement ([`Problem::need`]).
#[derive(Clone, Debug)]
pub enum Need {
    /// Nothing: it is not critical in the original program.
    Nothing,
    /// No candidate breaks it: (relation, why).
    Unbreakable(usize, Unbreakable),
    /// Set-cover elements (relation, or `edges.len()` for "herd's axioms must forbid it"),
    /// each with the candidates that meet it.
    Cover(Vec<(usize, Vec<usize>)>),
}

/// Why a cycle cannot be broken by fences at source positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unbreakable {
    /// The relation lies between two accesses of one statement.
    OneStatement,
    /// Fences at every relaxed relation still leave the cycle allowed by herd's axioms.
    HerdAllows,
}

impl Solution {
    /// Describes the unbreakable cycles for the user.
    pub fn unbreakable_note(&self, aeg: &Aeg, cycles: &[Cycle]) -> Option<String> {
        unbreakable_note(aeg, cycles, &self.unbreakable)
    }
}

/// Describes `unbreakable` (cycle index into `cycles`, relation, why) for the user.
pub fn unbreakable_note(aeg: &Aeg, cycles: &[Cycle], unbreakable: &[(usize, usize, Unbreakable)]) -> Option<String> {
    if unbreakable.is_empty() {
        return None;
    }
    let list: Vec<String> = unbreakable
        .iter()
        .take(5)
        .map(|&(ci, i, why)| {
            let c = &cycles[ci];
            let why = match why {
                Unbreakable::OneStatement => "the relation lies between two accesses of one statement (split the statement to allow a fence)",
                Unbreakable::HerdAllows => "herd's axioms allow the cycle even with the strongest fence on every relaxed relation",
            };
            format!("{} ({} → {}): {why}", cycle_label(aeg, c), aeg.describe(c.edges[i].from), aeg.describe(c.edges[i].to))
        })
        .collect();
    Some(format!(
        "{} cycle(s) cannot be broken by a fence at a source position: {}{}",
        unbreakable.len(),
        list.join("; "),
        if unbreakable.len() > 5 { "; …" } else { "" }
    ))
}

/// A translation unit the fences may edit: its file id in the analysis' source map, its
/// name (as given), its text and its front-end options.
#[derive(Clone, Debug)]
pub struct Unit {
    pub id: u32,
    pub name: String,
    pub text: String,
    pub opts: crate::frontend::Options,
}

impl Unit {
    /// The units of `base` as `units` (path and options, as the program was loaded) name
    /// them, with the texts the front end registered.
    pub fn of(base: &Analysis, units: &[(PathBuf, crate::frontend::Options)]) -> Result<Vec<Unit>, Error> {
        units
            .iter()
            .map(|(path, opts)| {
                let name = path.display().to_string();
                let id = base.map.find(&name).ok_or_else(|| Error::Internal(format!("{name} is not among the analysed files")))?;
                let text = base.map.files[id as usize].text.clone().ok_or_else(|| Error::Internal(format!("the source text of {name} is not available")))?;
                Ok(Unit { id, name, text, opts: opts.clone() })
            })
            .collect()
    }
}

/// The program of `units` (linked when several), each unit's text from `texts`.
fn load_units<'t>(units: &[Unit], texts: impl IntoIterator<Item = &'t str>, map: &mut SourceMap) -> Result<Program, Error> {
    let list: Vec<(&str, &str, &crate::frontend::Options)> = units.iter().zip(texts).map(|(u, t)| (u.name.as_str(), t, &u.opts)).collect();
    crate::frontend::load_texts(&list, map)
}

/// The analysis of the original program and the candidate placements.
pub struct Problem<'a> {
    pub arch: &'a Arch,
    pub base: &'a Analysis,
    pub opts: pipeline::Options,
    /// Gaps that have a place in the source text, with that place.
    pub gaps: Vec<(Vec<Gap>, Anchor)>,
    pub candidates: Vec<Candidate>,
    /// Per gap, the program-order pairs of the event graph it lies on every path of.
    on_path: Vec<HashSet<(EventId, EventId)>>,
    /// Order strengthenings of the source's atomic operations (C11, GCC builtins).
    pub orders: Vec<Strengthen>,
    /// The source program before atomics are compiled (what `orders` change).
    raw: Option<Program>,
    /// Functions whose gaps are candidates.
    funcs: Vec<crate::ir::FuncId>,
    /// The translation units, the first the program's main file (the report's).
    pub units: Vec<Unit>,
}

fn event_key(aeg: &Aeg, e: usize) -> (u32, Dir, u32, u32, u32, u32) {
    let ev = &aeg.events[e];
    (ev.thread.0, ev.dir, ev.obj.0, ev.loc.file, ev.loc.line, ev.loc.col)
}

/// The event graphs have the same events with the same ids.
fn same_events(a: &Aeg, b: &Aeg) -> bool {
    a.events.len() == b.events.len() && (0..a.events.len()).all(|i| event_key(a, i) == event_key(b, i))
}

/// The places in the text where a fence can go, each with the gaps of `funcs` it stands for:
/// one gap, or one per inlined copy of the function whose text it is in (their statements
/// keep the callee's lines, and a fence written there is in every copy). The function whose
/// own text holds the place comes first when it is in `funcs`.
fn anchored_gaps(prog: &Program, funcs: &[crate::ir::FuncId], units: &[Unit]) -> Vec<(Vec<Gap>, Anchor)> {
    let scans: Vec<Scan> = units.iter().map(|u| Scan::new(&u.text)).collect();
    let mut out: Vec<(Vec<Gap>, Anchor)> = vec![];
    let mut at: HashMap<(usize, usize), usize> = HashMap::new();
    for g in gaps::all_gaps(prog, funcs) {
        let Some(unit) = units.iter().position(|u| u.id == prog.func(g.func).loc.file) else { continue };
        let Some(mut a) = patch::anchor(&scans[unit], prog, &g, units[unit].id) else { continue };
        a.unit = unit;
        let Some(&k) = at.get(&(unit, a.offset)) else {
            at.insert((unit, a.offset), out.len());
            out.push((vec![g], a));
            continue;
        };
        // Gaps of one function that anchor at one place (the end of a block the normaliser
        // made and the point after it) are one: a fence written there parses back to the
        // outermost of them. Gaps of other functions are inlined copies of the place.
        let group = &mut out[k].0;
        match group.iter().position(|h| h.func == g.func) {
            Some(i) if group[i].path.len() <= g.path.len() => {}
            Some(i) => group[i] = g,
            None => group.push(g),
        }
    }
    // the home function first: its own text holds the place (it starts last before it)
    let starts: Vec<Vec<(usize, crate::ir::FuncId)>> = units
        .iter()
        .zip(&scans)
        .map(|(u, scan)| {
            let mut v: Vec<_> = (0..prog.funcs.len() as u32)
                .map(crate::ir::FuncId)
                .filter(|&f| prog.func(f).body.is_some() && prog.func(f).loc.file == u.id)
                .filter_map(|f| Some((scan.offset(prog.func(f).loc)?, f)))
                .collect();
            v.sort();
            v
        })
        .collect();
    for (group, a) in &mut out {
        let s = &starts[a.unit];
        let home = s[..s.partition_point(|&(o, _)| o <= a.offset)].last().map(|&(_, f)| f);
        if let Some(i) = group.iter().position(|g| Some(g.func) == home) {
            group.swap(0, i);
        }
    }
    out
}

impl<'a> Problem<'a> {
    pub fn new(base: &'a Analysis, arch: &'a Arch, opts: &pipeline::Options, units: Vec<Unit>) -> Result<Problem<'a>, Error> {
        if units.is_empty() {
            return Err(Error::Internal("no translation unit".into()));
        }
        let prog = &base.program;
        // Functions that hold an access of an event that can be on a cycle.
        let stmts: HashSet<u32> = base.aeg.sites.iter().map(|s| s.stmt).collect();
        let mut funcs = gaps::funcs_with_stmts(prog, &stmts);
        for t in &base.aeg.threads {
            if !funcs.contains(&t.func) {
                funcs.push(t.func);
            }
        }
        funcs.sort();
        let gaps = anchored_gaps(prog, &funcs, &units);
        // Only gaps that can matter are measured: those of threads with a cycle.
        let cycle_pairs: HashSet<(EventId, EventId)> = base
            .cycles
            .cycles
            .iter()
            .flat_map(|c| c.edges.iter().filter(|e| matches!(e.kind, EdgeKind::Po { .. })).map(|e| (e.from, e.to)))
            .collect();
        let mut on_path = Vec::with_capacity(gaps.len());
        for (group, _) in &gaps {
            let mut set = HashSet::new();
            if !cycle_pairs.is_empty() {
                let full: Vec<(Gap, Fence)> = group.iter().map(|g| (g.clone(), Fence::Full)).collect();
                let p = gaps::insert(prog, &full).map_err(Error::Internal)?;
                let aeg2 = aeg::build(&p, &opts.build)?;
                if same_events(&base.aeg, &aeg2) {
                    for (&(x, y), info) in &aeg2.pairs {
                        let before = base.aeg.pair(x, y);
                        if info.fences.contains(&Fence::Full) && before.is_some_and(|b| !b.fences.contains(&Fence::Full)) {
                            set.insert((x, y));
                        }
                    }
                }
            }
            on_path.push(set);
        }
        let mut candidates = vec![];
        for (gi, set) in on_path.iter().enumerate() {
            if set.is_empty() {
                continue;
            }
            for ins in arch.fence_menu() {
                candidates.push(Candidate { what: What::Fence { gap: gi, ins }, cost: arch.fence_rule(ins.fence).cost });
            }
        }
        let (raw, orders) = if cycle_pairs.is_empty() {
            (None, vec![])
        } else {
            let (raw, orders) = orders::candidates(base, arch, opts, &units, |g| same_events(&base.aeg, g))?;
            (Some(raw), orders)
        };
        for (i, o) in orders.iter().enumerate() {
            candidates.push(Candidate { what: What::Order(i), cost: o.cost });
        }
        Ok(Problem { arch, base, opts: opts.clone(), gaps, candidates, on_path, orders, raw, funcs, units })
    }

    /// Whether candidate `k` changes what orders some pair of `pairs`.
    fn touches(&self, k: usize, pairs: &HashSet<(EventId, EventId)>) -> bool {
        match self.candidates[k].what {
            What::Fence { gap, .. } => !self.on_path[gap].is_disjoint(pairs),
            What::Order(o) => pairs.iter().any(|p| self.orders[o].changed.contains_key(p)),
        }
    }

    /// Whether candidate `k` is (or adds) a lightweight fence, whose effect herd's axioms decide.
    fn light(&self, k: usize) -> bool {
        match self.candidates[k].what {
            What::Fence { ins, .. } => self.arch.fence_rule(ins.fence).light,
            What::Order(o) => self.orders[o].light,
        }
    }

    /// The cost the integer program minimises: the candidate's cost, scaled so that a fence
    /// wins a tie with an order strengthening of the same cost (an order is proposed only
    /// when it is cheaper).
    fn weight(&self, k: usize) -> u32 {
        let scale = self.candidates.len() as u32 + 1;
        self.candidates[k].cost * scale + u32::from(matches!(self.candidates[k].what, What::Order(_)))
    }

    /// Program-order information of `(a, b)` in the original program.
    fn base_info(&self, c: &Cycle, i: usize) -> PairInfo {
        let e = &c.edges[i];
        match (&e.kind, self.base.aeg.pair(e.from, e.to)) {
            (_, Some(p)) => p.clone(),
            (EdgeKind::Po { info }, None) => info.clone(),
            _ => PairInfo::default(),
        }
    }

    /// The relations of `c` judged with the fences of `cands` added (original program).
    pub fn judge(&self, c: &Cycle, cands: &[usize]) -> Option<cycles::Rejudged> {
        cycles::rejudge(&self.base.aeg, self.arch, c, &|i| {
            let e = &c.edges[i];
            let mut info = self.base_info(c, i);
            for &k in cands {
                match self.candidates[k].what {
                    What::Fence { gap, ins } => {
                        if self.on_path[gap].contains(&(e.from, e.to)) {
                            info.fences.insert(ins.fence);
                        }
                    }
                    What::Order(o) => {
                        if let Some(more) = self.orders[o].changed.get(&(e.from, e.to)) {
                            orders::merge(&mut info, more);
                        }
                    }
                }
            }
            info
        })
    }

    /// What cycle `c` asks of a placement: per relation the table decides which candidates
    /// order it. A lightweight fence (`lwsync`) counts only where herd's axioms then forbid
    /// the cycle (`cycles::herd`): when even the cheapest covering fence on every relation
    /// leaves the cycle allowed, one of the strong candidates that make it forbidden is
    /// required too (an extra set-cover element, edge index `c.edges.len()`).
    pub fn need(&self, c: &Cycle) -> Result<Need, Error> {
        let base = self.judge(c, &[]).ok_or_else(|| Error::Internal(format!("cycle {} cannot be re-judged", c.name)))?;
        if base.safe().iter().all(|&s| s) {
            return Ok(Need::Nothing); // not critical in the original program
        }
        let pairs: HashSet<(EventId, EventId)> =
            c.edges.iter().filter(|e| matches!(e.kind, EdgeKind::Po { .. })).map(|e| (e.from, e.to)).collect();
        // per relation unsafe by the table: the candidates that order it
        let mut makes_safe: Vec<Vec<usize>> = vec![vec![]; c.edges.len()];
        // per relation ordered only by a lightweight fence: the candidates that order it
        // without one
        let mut strengthens: Vec<Vec<usize>> = vec![vec![]; c.edges.len()];
        let mut relevant = vec![];
        let mut elements = vec![];
        for k in (0..self.candidates.len()).filter(|&k| self.touches(k, &pairs)) {
            let Some(j) = self.judge(c, &[k]) else { continue };
            relevant.push(k);
            for i in 0..c.edges.len() {
                if !base.tables[i] && j.tables[i] {
                    makes_safe[i].push(k);
                }
                if base.light_only[i] && j.tables[i] && !j.light_only[i] {
                    strengthens[i].push(k);
                }
            }
        }
        // A relation no candidate makes safe (e.g. two reads inside one expression):
        // the cycle cannot be broken by a fence at a source position.
        if let Some(i) = (0..c.edges.len()).find(|&i| !base.tables[i] && makes_safe[i].is_empty()) {
            return Ok(Need::Unbreakable(i, Unbreakable::OneStatement));
        }
        // the cheapest cover of every relation: do herd's axioms then forbid the cycle?
        let cheapest: Vec<usize> =
            makes_safe.iter().filter_map(|set| set.iter().copied().min_by_key(|&k| self.weight(k))).collect();
        let forbidden = |extra: &[usize]| {
            let all: Vec<usize> = cheapest.iter().chain(extra).copied().collect();
            self.judge(c, &all).is_some_and(|j| j.herd_forbids)
        };
        let light = |k: usize| self.light(k);
        let light_involved = base.light_only.contains(&true) || cheapest.iter().any(|&k| light(k));
        if light_involved && !forbidden(&[]) {
            let strong: Vec<usize> = relevant
                .iter()
                .copied()
                .filter(|&k| !light(k) && forbidden(&[k]))
                .collect();
            if strong.is_empty() {
                // No single strong fence does it (two lwsyncs over `ws`, say): order every
                // relaxed relation, and every one only a lightweight fence orders, with a
                // strong fence, if that does (Z6.3+lwsync+lwsync+addr needs both lwsyncs
                // made syncs).
                let strong_sets: Vec<(usize, Vec<usize>)> = (0..c.edges.len())
                    .filter_map(|i| {
                        let set = if !base.tables[i] {
                            &makes_safe[i]
                        } else if base.light_only[i] {
                            &strengthens[i]
                        } else {
                            return None;
                        };
                        Some((i, set.iter().copied().filter(|&k| !light(k)).collect()))
                    })
                    .collect();
                let each: Option<Vec<usize>> = strong_sets.iter().map(|(_, set)| set.iter().copied().min_by_key(|&k| self.weight(k))).collect();
                if each.is_some_and(|ks| self.judge(c, &ks).is_some_and(|j| j.herd_forbids)) {
                    return Ok(Need::Cover(strong_sets));
                }
                // (reported as the first relaxed relation)
                let first = base.safe().iter().position(|&s| !s).unwrap_or(0);
                return Ok(Need::Unbreakable(first, Unbreakable::HerdAllows));
            }
            elements.push((c.edges.len(), strong));
        }
        for (i, set) in makes_safe.into_iter().enumerate() {
            if !base.tables[i] {
                elements.push((i, set));
            }
        }
        Ok(Need::Cover(elements))
    }

    /// The cheapest candidates making every relation of every cycle of `cycles` safe.
    pub fn solve(&self, cycles: &[Cycle]) -> Result<Solution, Error> {
        let needs = cycles.iter().map(|c| self.need(c)).collect::<Result<Vec<_>, _>>()?;
        Ok(self.solve_needs(&needs))
    }

    /// The cheapest candidates meeting every need (one per cycle, as [`Problem::need`]).
    pub fn solve_needs(&self, needs: &[Need]) -> Solution {
        let mut cover = Cover::default();
        let mut unbreakable = vec![];
        let mut local: HashMap<usize, usize> = HashMap::new();
        for (ci, need) in needs.iter().enumerate() {
            match need {
                Need::Nothing => {}
                &Need::Unbreakable(i, why) => unbreakable.push((ci, i, why)),
                Need::Cover(elements) => {
                    for (i, set) in elements {
                        let set = set
                            .iter()
                            .map(|&k| {
                                *local.entry(k).or_insert_with(|| {
                                    cover.cands.push(k);
                                    cover.costs.push(self.weight(k));
                                    cover.cands.len() - 1
                                })
                            })
                            .collect();
                        cover.elements.push((ci, *i, set));
                    }
                }
            }
        }
        // one set per distinct element
        let mut sets: Vec<Vec<usize>> = cover.elements.iter().map(|e| e.2.clone()).collect();
        sets.sort();
        sets.dedup();
        let (pick, optimal, note) = crate::select::solve_cover(&cover.costs, &sets, Duration::from_secs(30));
        let chosen: Vec<usize> = cover.cands.iter().zip(&pick).filter(|(_, &p)| p).map(|(&k, _)| k).collect();
        let cost = chosen.iter().map(|&k| self.candidates[k].cost).sum();
        Solution { chosen, cost, optimal, note, cover, unbreakable }
    }

    /// The cheapest candidates meeting every group of `groups` by meeting at least one of its
    /// needs (property mode: a group is what the cycles one counterexample realises ask, and
    /// breaking any one of them forbids that execution). A group none of whose needs is a
    /// cover asks nothing; `cover` and `unbreakable` are empty.
    pub fn solve_groups(&self, groups: &[Vec<Need>]) -> Solution {
        let mut local: HashMap<usize, usize> = HashMap::new();
        let (mut cands, mut costs) = (vec![], vec![]);
        let mut reqs: Vec<crate::select::Alternatives> = vec![];
        for g in groups {
            let alts: crate::select::Alternatives = g
                .iter()
                .filter_map(|n| match n {
                    Need::Cover(elements) => Some(elements),
                    _ => None,
                })
                .map(|elements| {
                    elements
                        .iter()
                        .map(|(_, set)| {
                            set.iter()
                                .map(|&k| {
                                    *local.entry(k).or_insert_with(|| {
                                        cands.push(k);
                                        costs.push(self.weight(k));
                                        cands.len() - 1
                                    })
                                })
                                .collect()
                        })
                        .collect()
                })
                .collect();
            if !alts.is_empty() {
                reqs.push(alts);
            }
        }
        let (pick, optimal, note) = crate::select::solve_alternatives(&costs, &reqs, Duration::from_secs(30));
        let chosen: Vec<usize> = cands.iter().zip(&pick).filter(|(_, &p)| p).map(|(&k, _)| k).collect();
        let cost = chosen.iter().map(|&k| self.candidates[k].cost).sum();
        Solution { chosen, cost, optimal, note, cover: Cover::default(), unbreakable: vec![] }
    }

    /// The original (normalised) program with candidates `chosen` inserted.
    pub fn apply_ir(&self, chosen: &[usize]) -> Result<Program, Error> {
        let mut set = vec![];
        let mut fences = vec![];
        for &k in chosen {
            match self.candidates[k].what {
                What::Fence { gap, ins } => fences.push((gap, ins.fence)),
                What::Order(o) => set.push((self.orders[o].op_index, self.orders[o].to)),
            }
        }
        let Some(raw) = self.raw.as_ref().filter(|_| !set.is_empty()) else {
            let pl: Vec<(Gap, Fence)> = fences.into_iter().flat_map(|(g, f)| self.gaps[g].0.iter().map(move |x| (x.clone(), f))).collect();
            return gaps::insert(&self.base.program, &pl).map_err(Error::Internal);
        };
        // Stronger orders compile to other statements: the gaps of that program are found
        // again by their place in the source text.
        let program = orders::compiled_with(raw, self.arch, &self.opts, &set);
        let there = anchored_gaps(&program, &self.funcs, &self.units);
        let mut pl = vec![];
        for (g, f) in fences {
            let a = &self.gaps[g].1;
            let Some((group, _)) = there.iter().find(|(_, b)| b == a) else {
                return Err(Error::Internal(format!("no fence point at byte {} with the stronger orders", a.offset)));
            };
            pl.extend(group.iter().map(|x| (x.clone(), f)));
        }
        gaps::insert(&program, &pl).map_err(Error::Internal)
    }

    /// Event graph and critical cycles of the original program with `chosen` inserted,
    /// checked to have the original's events.
    pub fn analyse_with(&self, chosen: &[usize]) -> Result<Analysis, Error> {
        self.analyse_with_limits(chosen, &self.opts.limits, None)
    }

    /// [`Problem::analyse_with`] with the cycle search's limits given, and with
    /// `per_relation`, only up to that many cycles through each relation that may be unsafe.
    pub fn analyse_with_limits(&self, chosen: &[usize], limits: &cycles::Limits, per_relation: Option<usize>) -> Result<Analysis, Error> {
        let program = self.apply_ir(chosen)?;
        let aeg = aeg::build(&program, &self.opts.build)?;
        if !same_events(&self.base.aeg, &aeg) {
            return Err(Error::Internal("inserting fences changed the program's events".into()));
        }
        let cycles = match per_relation {
            // circuits through each relation still unsafe, a few per relation: complete for
            // "is any critical cycle left", and fast when few relations are left unsafe
            Some(n) => cycles::critical_cycles_where(&cycles::SearchGraph::new(&aeg, self.arch), limits, &|_, _| false, &|_, _| false, &|_| true, n, None, None),
            None => cycles::critical_cycles(&aeg, self.arch, limits),
        };
        Ok(Analysis { map: self.base.map.clone(), program, aeg, cycles, timings: Default::default(), lines: self.base.lines, limits: limits.clone(), lazy: false, deferred: None })
    }

    /// Each unit's source text with `chosen` inserted, in the file's own idiom.
    pub fn patched_texts(&self, chosen: &[usize]) -> Vec<String> {
        let sorted = self.sorted(chosen);
        self.units
            .iter()
            .enumerate()
            .map(|(u, unit)| {
                let idiom = Idiom::of(&self.base.program, &unit.text, unit.id);
                let edits: Vec<Edit> = sorted
                    .iter()
                    .filter(|&&k| self.unit_of(k) == u)
                    .map(|&k| match self.candidates[k].what {
                        What::Fence { gap, .. } => Edit::Insert(self.gaps[gap].1.clone(), self.spell(&idiom, k)),
                        What::Order(o) => Edit::Replace(self.orders[o].span.clone(), self.orders[o].new_text.clone()),
                    })
                    .collect();
                patch::apply(&unit.text, &edits)
            })
            .collect()
    }

    /// The first unit's name, the report's.
    pub fn file(&self) -> &str {
        &self.units[0].name
    }

    /// The units' texts as they are.
    pub fn texts(&self) -> Vec<String> {
        self.units.iter().map(|u| u.text.clone()).collect()
    }

    /// The unit candidate `k` edits.
    fn unit_of(&self, k: usize) -> usize {
        match self.candidates[k].what {
            What::Fence { gap, .. } => self.gaps[gap].1.unit,
            What::Order(o) => self.orders[o].unit,
        }
    }

    fn spell(&self, idiom: &Idiom, k: usize) -> String {
        match self.candidates[k].what {
            What::Fence { gap, ins } => {
                let a = &self.gaps[gap].1;
                idiom.spell(self.arch, &ins, a.line_before.or(a.line_after).unwrap_or(u32::MAX))
            }
            What::Order(o) => self.orders[o].new_text.clone(),
        }
    }

    /// Where candidate `k` edits the source text.
    fn offset(&self, k: usize) -> usize {
        match self.candidates[k].what {
            What::Fence { gap, .. } => self.gaps[gap].1.offset,
            What::Order(o) => self.orders[o].span.start,
        }
    }

    fn sorted(&self, chosen: &[usize]) -> Vec<usize> {
        let mut v = chosen.to_vec();
        v.sort_by_key(|&k| (self.unit_of(k), self.offset(k), k));
        v
    }

    /// Parse `texts` as the units' and analyse them like the original.
    pub fn analyse_texts(&self, texts: &[String]) -> Result<Analysis, Error> {
        self.analyse_texts_with(texts, &self.opts.limits, None)
    }

    /// [`Problem::analyse_texts`], the cycles searched as [`Problem::analyse_with_limits`] does.
    pub fn analyse_texts_with(&self, texts: &[String], limits: &cycles::Limits, per_relation: Option<usize>) -> Result<Analysis, Error> {
        let mut map = SourceMap::default();
        let mut prog = load_units(&self.units, texts.iter().map(String::as_str), &mut map)?;
        // (searching through each relation, the pipeline's own search only seeds: its
        // cycles are replaced)
        let opts = pipeline::Options { lazy_seed: per_relation.map(|_| 1), limits: limits.clone(), ..self.opts.clone() };
        let lines = texts.iter().map(|t| t.lines().count()).sum();
        let mut a = pipeline::analyze_program(&mut prog, self.arch, &opts, map, Duration::ZERO, lines)?;
        if let Some(n) = per_relation {
            a.cycles = cycles::critical_cycles_where(&cycles::SearchGraph::new(&a.aeg, self.arch), limits, &|_, _| false, &|_, _| false, &|_| true, n, None, None);
        }
        Ok(a)
    }

    /// The placements of `chosen` for the report, with the cycles (of `cycles`) they help break.
    pub fn placements(&self, chosen: &[usize], cycles: &[Cycle]) -> Vec<Placement> {
        let idioms: Vec<Idiom> = self.units.iter().map(|u| Idiom::of(&self.base.program, &u.text, u.id)).collect();
        let aeg = &self.base.aeg;
        // per cycle: its program-order pairs and how it is judged without candidates
        let judged: Vec<(HashSet<(EventId, EventId)>, Option<cycles::Rejudged>)> = cycles
            .iter()
            .map(|c| (c.edges.iter().filter(|e| matches!(e.kind, EdgeKind::Po { .. })).map(|e| (e.from, e.to)).collect(), self.judge(c, &[])))
            .collect();
        self.sorted(chosen)
            .into_iter()
            .map(|k| {
                let c = &self.candidates[k];
                let helps: Vec<&Cycle> = cycles
                    .iter()
                    .zip(&judged)
                    .filter(|(cy, (pairs, base))| {
                        self.touches(k, pairs)
                            && match (base, self.judge(cy, &[k])) {
                                (Some(b), Some(s)) => b.tables.iter().zip(&s.tables).any(|(x, y)| !x && *y) || !b.herd_forbids && s.herd_forbids,
                                _ => false,
                            }
                    })
                    .map(|(cy, _)| cy)
                    .collect();
                let labels = helps.iter().map(|cy| cycle_label(aeg, cy)).collect::<BTreeSet<_>>().into_iter().collect();
                let (gap, ins) = match c.what {
                    What::Fence { gap, ins } => (gap, ins),
                    What::Order(o) => {
                        let st = &self.orders[o];
                        let unit = &self.units[st.unit];
                        return Placement {
                            file: unit.name.clone(),
                            file_id: unit.id,
                            kind: "order",
                            fence: st.new_text.clone(),
                            from: Some(st.old_text.clone()),
                            cost: c.cost,
                            function: st.function.clone(),
                            line_before: Some(st.line),
                            line_after: Some(st.line),
                            text: st.new_text.clone(),
                            line: st.line,
                            col: st.col,
                            cycles: labels,
                            alternative: None,
                            what: c.what,
                        };
                    }
                };
                let (group, a) = &self.gaps[gap];
                // the pairs from a read it orders: a dependency may do instead
                let ordered: Vec<(EventId, EventId)> = helps
                    .iter()
                    .flat_map(|cy| cy.edges.iter())
                    .filter(|e| matches!(e.kind, EdgeKind::Po { .. }) && self.on_path[gap].contains(&(e.from, e.to)))
                    .map(|e| (e.from, e.to))
                    .collect();
                let alternative = dependency_alternative(aeg, self.arch, &ordered);
                let unit = &self.units[a.unit];
                let before = &unit.text[..a.offset];
                let line = before.matches('\n').count() as u32 + 1;
                let col = (a.offset - before.rfind('\n').map_or(0, |i| i + 1)) as u32;
                Placement {
                    file: unit.name.clone(),
                    file_id: unit.id,
                    kind: "fence",
                    line,
                    col,
                    fence: ins.fence.name().to_string(),
                    from: None,
                    cost: c.cost,
                    function: self.base.program.func(group[0].func).name.clone(),
                    line_before: a.line_before,
                    line_after: a.line_after,
                    text: self.spell(&idioms[a.unit], k),
                    cycles: labels,
                    alternative,
                    what: c.what,
                }
            })
            .collect()
    }
}

/// The file name of `path` without its directories, as placements are described.
pub fn short_name(path: &str) -> String {
    std::path::Path::new(path).file_name().map_or_else(|| path.to_string(), |f| f.to_string_lossy().to_string())
}

impl Placement {
    /// `lwsync between line 11 and line 12 of pgsql.c`, `memory_order_acquire (was
    /// memory_order_relaxed) on line 12 of mp.c`.
    pub fn describe(&self, file: &str) -> String {
        match &self.from {
            Some(from) => format!("{} (was {from}) {}", self.fence, self.position(file)),
            None => format!("{} {}", self.fence, self.position(file)),
        }
    }

    /// `between line 11 and line 12 of pgsql.c`, `on line 18 of pgsql.c`, ….
    pub fn position(&self, file: &str) -> String {
        match (self.line_before, self.line_after) {
            (Some(a), Some(b)) if a == b => format!("on line {a} of {file}"),
            (Some(a), Some(b)) => format!("between line {a} and line {b} of {file}"),
            (Some(a), None) => format!("after line {a} of {file} (end of {})", self.function),
            (None, Some(b)) => format!("before line {b} of {file} (start of {})", self.function),
            (None, None) => format!("in {}", self.function),
        }
    }
}

/// `mp (Wdata, Wflag | Rflag, Rdata)`: the cycle's name and its accesses per thread.
pub fn cycle_label(aeg: &Aeg, c: &Cycle) -> String {
    let mut groups: Vec<Vec<String>> = vec![];
    let mut last_thread = None;
    for (i, &e) in c.events.iter().enumerate() {
        let ev = aeg.event(e);
        let txt = format!("{}{}", ev.dir.letter(), aeg.object(ev.obj).name);
        // a new group after every com edge
        let starts = i == 0 || !matches!(c.edges[i - 1].kind, EdgeKind::Po { .. });
        if starts || last_thread != Some(ev.thread) {
            groups.push(vec![txt]);
        } else if let Some(g) = groups.last_mut() {
            g.push(txt);
        }
        last_thread = Some(ev.thread);
    }
    format!("{} ({})", c.name, groups.iter().map(|g| g.join(", ")).collect::<Vec<_>>().join(" | "))
}

/// When every pair a fence is needed for goes from a read to an access whose address (or,
/// for a write, value) the architecture lets a dependency order, say so.
fn dependency_alternative(aeg: &Aeg, arch: &Arch, pairs: &[(EventId, EventId)]) -> Option<String> {
    if pairs.is_empty() {
        return None;
    }
    let mut kinds = vec![];
    for &(a, b) in pairs {
        let (ea, eb) = (aeg.event(a), aeg.event(b));
        if ea.dir != Dir::R {
            return None;
        }
        let d = &arch.deps;
        let k = if d.addr.contains(Dir::R, eb.dir) {
            "an address dependency"
        } else if d.data.contains(Dir::R, eb.dir) {
            "a data dependency"
        } else if d.ctrl_isync.contains(Dir::R, eb.dir) {
            "a control dependency and isync"
        } else {
            return None;
        };
        kinds.push(format!(
            "{k} from the read of {} (line {}) to the access to {} (line {})",
            aeg.object(ea.obj).name,
            ea.loc.line,
            aeg.object(eb.obj).name,
            eb.loc.line
        ));
    }
    kinds.sort();
    kinds.dedup();
    Some(format!("or, at no fence cost, {}", kinds.join("; ")))
}

/// How the answer was checked.
#[derive(Clone, Debug, Serialize)]
pub struct Round {
    pub round: u32,
    pub fences: usize,
    /// Atomic operations at a stronger order.
    pub orders: usize,
    pub cost: u32,
    pub cycles: usize,
    pub verdict: String,
    /// Cycles the counterexample used (labels).
    pub used: Vec<String>,
    /// The fences this round checked (`lwsync on line 18 of pgsql.c`).
    pub placed: Vec<String>,
}

/// What `weakc fences` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub file: String,
    pub arch: String,
    pub mode: &'static str,
    pub cycles: usize,
    pub placements: Vec<Placement>,
    pub total_cost: u32,
    pub optimal: bool,
    /// `verified`, `partial` (static: only cycles no fence at a source position can break
    /// are left), `sc-violation`, `round-limit`, `unknown`, `incomplete`.
    pub status: &'static str,
    pub verification: String,
    pub rounds: Vec<Round>,
    pub notes: Vec<String>,
}

/// What the CLI prints and writes.
pub struct Output {
    pub stdout: String,
    pub files: Vec<(PathBuf, String)>,
    pub code: u8,
    pub map: SourceMap,
}

type Failure = (Error, SourceMap);

/// `weakc fences`: choose, verify, report.
///
/// `units` are the program's translation units as they were loaded (path and front-end
/// options); the fences may go into any of them, and `--patch` is one diff covering every
/// unit changed. `-o` writes one patched file: it takes one unit.
pub fn run(base: Analysis, arch: &Arch, opts: &pipeline::Options, args: &FenceArgs, units: &[(PathBuf, crate::frontend::Options)]) -> Result<Output, Failure> {
    let map = base.map.clone();
    let fail = |e: Error| (e, map.clone());
    if args.output.is_some() && units.len() > 1 {
        return Err(fail(Error::Usage("fences -o writes one patched file; with several translation units use --patch (one diff for every unit)".into())));
    }
    let units = Unit::of(&base, units).map_err(fail)?;
    let report_and_text = if args.property { property::run(&base, arch, opts, args, &units) } else { static_mode(&base, arch, opts, &units) }.map_err(fail)?;
    let (report, texts) = report_and_text;
    let mut files = vec![];
    if let Some(p) = &args.patch {
        let diff: String = units.iter().zip(&texts).filter(|(u, t)| u.text != **t).map(|(u, t)| unified_diff(&u.name, &u.text, t)).collect();
        files.push((p.clone(), diff));
    }
    if let (Some(o), Some(text)) = (&args.output, texts.first()) {
        files.push((o.clone(), text.clone()));
    }
    let code = match report.status {
        "verified" => 0,
        "sc-violation" => EXIT_SC_VIOLATION,
        "incomplete" => EXIT_INCOMPLETE,
        _ => EXIT_NO_ANSWER,
    };
    // No file is written unless the answer verified (or is partial, and says so).
    if code != 0 && report.status != "partial" {
        files.clear();
    }
    let stdout = match args.format {
        OutFormat::Json => serde_json::to_string_pretty(&report).map_err(|e| fail(Error::Internal(e.to_string())))? + "\n",
        OutFormat::Sarif => {
            let j = serde_json::to_value(&report).map_err(|e| fail(Error::Internal(e.to_string())))?;
            serde_json::to_string_pretty(&crate::sarif::fences(&j, &crate::sarif::Base::current())).map_err(|e| fail(Error::Internal(e.to_string())))? + "\n"
        }
        OutFormat::Text if args.quiet => quiet_text(&report),
        OutFormat::Text => render_text(&report, &base, &files),
    };
    Ok(Output { stdout, files, code, map })
}

/// `--quiet`: one line per placement, as a compiler places a diagnostic, and the status when
/// the answer is not verified.
fn quiet_text(r: &Report) -> String {
    let mut out = String::new();
    for p in &r.placements {
        let what = match &p.from {
            Some(from) => format!("strengthen {from} to {}", p.fence),
            None => format!("insert {}", p.fence),
        };
        out.push_str(&format!("{}:{}:{}: {what} (cost {}, {}): breaks {}\n", p.file, p.line, p.col + 1, p.cost, r.arch, p.cycles.join("; ")));
    }
    if r.status != "verified" {
        out.push_str(&format!("{}: fences {}: {}\n", r.file, r.status, r.verification));
    }
    out
}

/// The report and each unit's patched text.
type ModeResult = Result<(Report, Vec<String>), Error>;

fn static_mode(base: &Analysis, arch: &Arch, opts: &pipeline::Options, units: &[Unit]) -> ModeResult {
    let problem = Problem::new(base, arch, opts, units.to_vec())?;
    let mut report = Report {
        file: problem.file().to_string(),
        arch: arch.name.to_string(),
        mode: "static",
        cycles: base.cycles.cycles.len(),
        placements: vec![],
        total_cost: 0,
        optimal: true,
        status: "verified",
        verification: String::new(),
        rounds: vec![],
        notes: vec![],
    };
    // Cover and check: solve for the cycles known, search the fenced program for critical
    // cycles the answer leaves breakable, add them, repeat. When the first search was
    // complete the first answer must pass (anything else is an internal error); when it
    // stopped at a limit, the loop completes the placement without the full list.
    let lazy = base.cycles.limit_hit.clone();
    // In lazy rounds the search of the fenced program stops early: each round adds a
    // bounded number of cycles, and the last round's search is complete.
    let round_limits = match &lazy {
        Some(_) => cycles::Limits { max_cycles: opts.limits.max_cycles.min(LAZY_ROUND_CYCLES), ..opts.limits.clone() },
        None => opts.limits.clone(),
    };
    let mut cycles = base.cycles.cycles.clone();
    let mut needs = cycles.iter().map(|c| problem.need(c)).collect::<Result<Vec<_>, _>>()?;
    let mut index: HashMap<Vec<(u32, u32, bool)>, usize> = cycles.iter().enumerate().map(|(i, c)| (c.key(), i)).collect();
    let mut rounds = 0;
    let (sol, left) = loop {
        rounds += 1;
        let sol = problem.solve_needs(&needs);
        // Check 1: in the IR, no critical cycle is left but the unbreakable ones.
        let after = problem.analyse_with_limits(&sol.chosen, &round_limits, lazy.as_ref().map(|_| LAZY_PER_RELATION))?;
        let mut new = vec![];
        let mut unbroken = vec![];
        for c in &after.cycles.cycles {
            match index.get(&c.key()) {
                Some(&i) if matches!(needs[i], Need::Unbreakable(..)) => {}
                Some(_) => unbroken.push(c),
                None => new.push((c.clone(), problem.need(c)?)),
            }
        }
        let new_breakable = new.iter().any(|(_, n)| matches!(n, Need::Cover(_)));
        if after.cycles.limit_hit.is_none() && unbroken.is_empty() && !new_breakable {
            break (sol, after.cycles.cycles.len());
        }
        // the answer should have broken these: the judge and the search disagree
        if !unbroken.is_empty() || (lazy.is_none() && new_breakable) {
            let first = unbroken.first().copied().or(new.first().map(|n| &n.0));
            return Err(Error::Internal(format!(
                "the chosen placement leaves {} breakable critical cycle(s) in the IR (first: {})",
                unbroken.len() + new.len(),
                first.map(|c| c.describe(&after.aeg)).unwrap_or_default()
            )));
        }
        if let Some(why) = &lazy {
            // only unbreakable cycles before the search's limit, or no end in sight
            if !new_breakable || rounds >= MAX_LAZY_ROUNDS {
                report.status = "incomplete";
                report.verification = format!(
                    "the cycle search was incomplete ({why}); {rounds} round(s) of placing fences and searching the fenced program again did not end with a complete search: no placement can be proven to break every cycle"
                );
                return Ok((report, problem.texts()));
            }
        }
        for (c, n) in new {
            index.insert(c.key(), cycles.len());
            cycles.push(c);
            needs.push(n);
        }
    };
    report.cycles = cycles.len();
    if lazy.is_some() {
        report.notes.push(format!(
            "the cycle search stopped at its limit after {} critical cycle(s); the placement was completed lazily: {rounds} round(s), {} critical cycle(s) used, and a last search of the fenced program (through every relation still unsafe) found no critical cycle it leaves breakable",
            base.cycles.cycles.len(),
            cycles.len()
        ));
    }
    // Optimal for the cycles used, it is optimal for all: every placement breaking all of
    // them breaks these.
    report.optimal = sol.optimal;
    report.notes.extend(sol.note.clone());
    report.notes.extend(sol.unbreakable_note(&base.aeg, &cycles));
    // Check 2: the patched source, parsed again, has no more.
    let text = problem.patched_texts(&sol.chosen);
    let re = problem.analyse_texts_with(&text, &round_limits, lazy.as_ref().map(|_| LAZY_PER_RELATION))?;
    if re.cycles.limit_hit.is_some() || re.cycles.cycles.len() != left {
        return Err(Error::Internal(format!(
            "the patched source has {} critical cycle(s), the IR with the same fences {left} (first: {}; fences: {})",
            re.cycles.cycles.len(),
            re.cycles.cycles.first().map(|c| c.describe(&re.aeg)).unwrap_or_default(),
            problem.placements(&sol.chosen, &[]).iter().map(|p| p.describe(&short_name(&p.file))).collect::<Vec<_>>().join("; ")
        )));
    }
    report.placements = problem.placements(&sol.chosen, &cycles);
    report.total_cost = sol.cost;
    if left == 0 {
        report.verification = format!(
            "verified: with the fences inserted, the cycle search finds no critical cycle for {} (in the IR and in the patched source)",
            arch.name
        );
    } else {
        report.status = "partial";
        report.verification = format!(
            "not verified: {left} critical cycle(s) are left for {}, each with a relation no fence at a source position can order (see the note); every other cycle is broken (checked in the IR and in the patched source)",
            arch.name
        );
    }
    Ok((report, text))
}

fn render_text(r: &Report, base: &Analysis, files: &[(PathBuf, String)]) -> String {
    let mut s = format!("weakc fences: {} ({}, {} mode, {} critical cycles)\n", r.file, r.arch, r.mode, r.cycles);
    for p in &r.placements {
        let wher = p.position(&short_name(&p.file));
        let msg = match &p.from {
            Some(from) => format!("strengthen {from} to {} {wher}: breaks {}", p.fence, p.cycles.join(", ")),
            None => format!("insert {} {wher}: breaks {}", p.fence, p.cycles.join(", ")),
        };
        let (line, col) = (p.line, p.col);
        let loc = crate::source::Loc { file: p.file_id, line, col, len: 1 };
        let mut label = format!("`{}` (cost {})", p.text, p.cost);
        if let Some(alt) = &p.alternative {
            label.push_str(&format!("; {alt}"));
        }
        s.push_str(&render_diagnostic(&base.map, Severity::Note, (line > 0).then_some(loc), &msg, &label, false));
    }
    for n in &r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    for rd in &r.rounds {
        s.push_str(&format!(
            "round {}: {} fence(s){}, cost {}, {} critical cycle(s) left, {}{}{}\n",
            rd.round,
            rd.fences,
            if rd.orders > 0 { format!(", {} order(s) strengthened", rd.orders) } else { String::new() },
            rd.cost,
            rd.cycles,
            if rd.placed.is_empty() { String::new() } else { format!("[{}] ", rd.placed.join("; ")) },
            rd.verdict,
            if rd.used.is_empty() {
                String::new()
            } else {
                let more = if rd.used.len() > 4 { format!(" and {} more", rd.used.len() - 4) } else { String::new() };
                format!(" (counterexample uses {}{more})", rd.used.iter().take(4).cloned().collect::<Vec<_>>().join(", "))
            }
        ));
    }
    let fences: Vec<&Placement> = r.placements.iter().filter(|p| p.from.is_none()).collect();
    let kinds: BTreeMap<&str, usize> = fences.iter().fold(BTreeMap::new(), |mut m, p| {
        *m.entry(p.fence.as_str()).or_default() += 1;
        m
    });
    let by_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let orders = r.placements.len() - fences.len();
    s.push_str(&format!(
        "{} fence(s){}{}, total cost {}{}\n",
        fences.len(),
        if by_kind.is_empty() { String::new() } else { format!(" ({})", by_kind.join(", ")) },
        if orders > 0 { format!(", {orders} order(s) strengthened") } else { String::new() },
        r.total_cost,
        if r.optimal { " (optimal)" } else { "" }
    ));
    for (p, _) in files {
        s.push_str(&format!("wrote {}\n", p.display()));
    }
    s.push_str(&format!("{}\n", r.verification));
    s
}

/// Whether the statement is a fence (used by tests counting fences in programs).
pub fn is_fence(k: &StmtKind) -> bool {
    matches!(k, StmtKind::Fence(_))
}

#[cfg(test)]
mod tests;
