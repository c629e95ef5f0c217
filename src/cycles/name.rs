//! Names of cycles: litmus idioms when the abstract shape matches, diy edge lists otherwise.

use super::{CycleEdge, EdgeKind, Seg};
use crate::aeg::{Aeg, Dir, PairInfo};
use crate::arch::Arch;

/// Classic idioms by abstract shape: per segment its directions (one letter for a one-event
/// segment), then the com relation to the next segment. Matched up to rotation; fences and
/// dependencies do not matter (mp+lwsync+addr is an `mp`).
const IDIOMS: &[(&str, &[&str])] = &[
    ("sb", &["WR", "Fre", "WR", "Fre"]),
    ("mp", &["WW", "Rfe", "RR", "Fre"]),
    ("lb", &["RW", "Rfe", "RW", "Rfe"]),
    ("s", &["WW", "Rfe", "RW", "Wse"]),
    ("r", &["WW", "Wse", "WR", "Fre"]),
    ("2+2w", &["WW", "Wse", "WW", "Wse"]),
    ("wrc", &["W", "Rfe", "RW", "Rfe", "RR", "Fre"]),
    ("rwc", &["W", "Rfe", "RR", "Fre", "WR", "Fre"]),
    ("isa2", &["WW", "Rfe", "RW", "Rfe", "RR", "Fre"]),
    ("iriw", &["W", "Rfe", "RR", "Fre", "W", "Rfe", "RR", "Fre"]),
];

fn com_token(a: Dir, b: Dir) -> &'static str {
    match (a, b) {
        (Dir::W, Dir::R) => "Rfe",
        (Dir::R, Dir::W) => "Fre",
        (Dir::W, Dir::W) => "Wse",
        (Dir::R, Dir::R) => "?",
    }
}

/// The idiom the cycle's abstract shape matches, if any.
pub(super) fn idiom(aeg: &Aeg, segs: &[Seg]) -> Option<&'static str> {
    let dir = |e| aeg.event(e).dir;
    let n = segs.len();
    let mut tokens: Vec<String> = Vec::with_capacity(2 * n);
    for (i, s) in segs.iter().enumerate() {
        let mut t = String::new();
        t.push(dir(s.first).letter());
        if s.pair.is_some() {
            t.push(dir(s.last).letter());
        }
        tokens.push(t);
        tokens.push(com_token(dir(s.last), dir(segs[(i + 1) % n].first)).to_string());
    }
    IDIOMS.iter().find_map(|(name, pat)| {
        if pat.len() != tokens.len() {
            return None;
        }
        let m = tokens.len();
        (0..m)
            .step_by(2)
            .any(|r| (0..m).all(|k| tokens[(r + k) % m] == pat[k]))
            .then_some(*name)
    })
}

/// diy spelling of a program-order edge: the fence that orders it (`SyncdWW`), else a
/// dependency (`DpAddrdR`), else a fence that does not order it (`LwSyncdWR`), else
/// `Pod`/`Pos` (same object) with the directions.
fn po_name(arch: &Arch, a: Dir, b: Dir, same_obj: bool, info: &PairInfo) -> String {
    let dirs = format!("{}{}", a.letter(), b.letter());
    if let Some(f) = arch.fenced(a, b, info) {
        return format!("{}d{}", arch.fence_rule(f).diy, dirs);
    }
    let d = &info.deps;
    let honours = |set: crate::arch::PairSet| set.contains(a, b);
    let rules = &arch.deps;
    let candidates = [
        (d.addr, honours(rules.addr), "DpAddr".to_string()),
        (d.data, honours(rules.data), "DpData".to_string()),
        (d.ctrl_isync, honours(rules.ctrl_isync), format!("DpCtrl{}", rules.isync_diy)),
        (d.ctrl, honours(rules.ctrl), "DpCtrl".to_string()),
    ];
    let dep = candidates
        .iter()
        .find(|c| c.0 && c.1)
        .or_else(|| candidates.iter().find(|c| c.0));
    if let Some(c) = dep {
        return format!("{}d{}", c.2, b.letter());
    }
    if let Some(&f) = info.fences.iter().next() {
        return format!("{}d{}", arch.fence_rule(f).diy, dirs);
    }
    format!("{}{}", if same_obj { "Pos" } else { "Pod" }, dirs)
}

/// The diy edge list of a cycle (`PodWR Fre PodWR Fre`).
pub(super) fn diy_name(aeg: &Aeg, arch: &Arch, edges: &[CycleEdge]) -> String {
    let dir = |e| aeg.event(e).dir;
    edges
        .iter()
        .map(|e| match &e.kind {
            EdgeKind::Po { info } => {
                let same = aeg.event(e.from).obj == aeg.event(e.to).obj;
                po_name(arch, dir(e.from), dir(e.to), same, info)
            }
            EdgeKind::Rfe => "Rfe".to_string(),
            EdgeKind::Fre => "Fre".to_string(),
            EdgeKind::Wse => "Wse".to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
