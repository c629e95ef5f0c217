//! Does herd's `ppc.cat` forbid a cycle? Decides its propagation and observation axioms on
//! the cycle alone, for the one question the ESOP tables cannot answer: whether a
//! lightweight fence (`lwsync`, `eieio`) helps to forbid it (see
//! `cycles::weaken_light_fences`).
//!
//! herd (Alglave, Maranget, Tautschnig, "Herding cats", TOPLAS 2014, Power):
//!
//! ```text
//! hb        = ppo | fence | rfe
//! prop-base = (fence | rfe; fence); hb*
//! prop      = (prop-base & W*W) | (chapo?; prop-base*; ffence; hb*)
//! chapo     = rfe | fre | coe | fre; rfe | coe; rfe
//! propagation: acyclic(co | prop)        observation: irreflexive(fre; prop; hb*)
//! no thin air: acyclic(hb)
//! ```
//!
//! The cycle's events and edges are the whole execution considered, so a relation holds
//! between two positions of the loop exactly when the path between them matches its
//! expression. Paths are `(start, len)` over the loop of `n` edges.

use crate::aeg::Dir;

/// One edge of the loop, as herd sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Lab {
    /// A program-order pair: kept by the model or a dependency (`ppo`), ordered by a
    /// lightweight fence, by a strong fence (`ffence`).
    Po { ppo: bool, light: bool, strong: bool },
    Rfe,
    Fre,
    Coe,
}

impl Lab {
    fn hb(self) -> bool {
        match self {
            Lab::Po { ppo, light, strong } => ppo || light || strong,
            Lab::Rfe => true,
            _ => false,
        }
    }
    fn fence(self) -> bool {
        matches!(self, Lab::Po { light: true, .. } | Lab::Po { strong: true, .. })
    }
    fn ffence(self) -> bool {
        matches!(self, Lab::Po { strong: true, .. })
    }
}

/// `labs` with every lightweight fence made strong (`lwsync` as `sync`).
pub(super) fn strengthened(labs: &[Lab]) -> Vec<Lab> {
    labs.iter()
        .map(|&l| match l {
            Lab::Po { ppo, light: true, .. } => Lab::Po { ppo, light: false, strong: true },
            l => l,
        })
        .collect()
}

/// `labs[i]` goes from the event of direction `dirs[i]` to that of `dirs[(i + 1) % n]`.
pub(super) fn forbids(labs: &[Lab], dirs: &[Dir]) -> bool {
    let n = labs.len();
    if n == 0 || dirs.len() != n {
        return false;
    }
    let lab = |s: usize, k: usize| labs[(s + k) % n];
    // table[s][len]: the path of `len` edges from position `s` is in the relation
    let table = |f: &dyn Fn(usize, usize) -> bool| -> Vec<Vec<bool>> {
        (0..n).map(|s| (0..=n).map(|len| f(s, len)).collect()).collect()
    };
    let hb_star = table(&|s, len| (0..len).all(|k| lab(s, k).hb()));
    // concatenation: a[s][i] && b[s + i][len - i] for some split i
    let cat = |a: &Vec<Vec<bool>>, b: &Vec<Vec<bool>>| -> Vec<Vec<bool>> {
        table(&|s, len| (0..=len).any(|i| a[s][i] && b[(s + i) % n][len - i]))
    };
    let head = table(&|s, len| match len {
        1 => lab(s, 0).fence(),
        2 => lab(s, 0) == Lab::Rfe && lab(s, 1).fence(),
        _ => false,
    });
    let prop_base = cat(&head, &hb_star);
    // prop-base*: closure by concatenation, by increasing length
    let mut pb_star = vec![vec![false; n + 1]; n];
    for s in 0..n {
        pb_star[s][0] = true;
    }
    for len in 1..=n {
        for s in 0..n {
            pb_star[s][len] = (1..=len).any(|i| prop_base[s][i] && pb_star[(s + i) % n][len - i]);
        }
    }
    let chapo_opt = table(&|s, len| match len {
        0 => true,
        1 => matches!(lab(s, 0), Lab::Rfe | Lab::Fre | Lab::Coe),
        2 => matches!(lab(s, 0), Lab::Fre | Lab::Coe) && lab(s, 1) == Lab::Rfe,
        _ => false,
    });
    let ffence = table(&|s, len| len == 1 && lab(s, 0).ffence());
    let prop2 = cat(&cat(&cat(&chapo_opt, &pb_star), &ffence), &hb_star);
    let prop1 = table(&|s, len| len > 0 && prop_base[s][len] && dirs[s] == Dir::W && dirs[(s + len) % n] == Dir::W);
    let prop = table(&|s, len| len > 0 && (prop2[s][len] || prop1[s][len]));
    // propagation: the whole loop is a sequence of coe and prop steps
    let step = table(&|s, len| prop[s][len] || len == 1 && lab(s, 0) == Lab::Coe);
    let propagation = (0..n).any(|s| {
        let mut ok = vec![false; n + 1];
        ok[0] = true;
        for len in 1..=n {
            ok[len] = (0..len).any(|i| ok[i] && step[(s + i) % n][len - i]);
        }
        ok[n]
    });
    // observation: the loop is fre; prop; hb*
    let observation = (0..n).any(|s| {
        lab(s, 0) == Lab::Fre && (1..n).any(|a| prop[(s + 1) % n][a] && hb_star[(s + 1 + a) % n][n - 1 - a])
    });
    // no thin air: acyclic(hb)
    let thin_air = labs.iter().all(|l| l.hb());
    propagation || observation || thin_air
}

#[cfg(test)]
mod tests {
    use super::*;
    use Dir::{R, W};

    const PPO: Lab = Lab::Po { ppo: true, light: false, strong: false };
    const LW: Lab = Lab::Po { ppo: false, light: true, strong: false };
    const SYNC: Lab = Lab::Po { ppo: false, light: false, strong: true };
    const PO: Lab = Lab::Po { ppo: false, light: false, strong: false };

    /// A cycle as (label, direction of the edge's source event).
    fn forbid(c: &[(Lab, Dir)]) -> bool {
        let (labs, dirs): (Vec<Lab>, Vec<Dir>) = c.iter().copied().unzip();
        forbids(&labs, &dirs)
    }

    #[test]
    fn message_passing() {
        // MP: Wx -f-> Wy -rfe-> Ry -f'-> Rx -fre-> Wx
        let mp = |f, g| forbid(&[(f, W), (Lab::Rfe, W), (g, R), (Lab::Fre, R)]);
        assert!(mp(LW, PPO), "MP+lwsync+addr");
        assert!(mp(SYNC, LW), "MP+sync+lwsync");
        assert!(!mp(PO, PPO), "MP+po+addr");
        assert!(!mp(LW, PO), "MP+lwsync+po");
    }

    #[test]
    fn coherence_through_lightweight_fences() {
        // R: Wx -f-> Wy -coe-> Wy' -g-> Rx -fre-> Wx
        let r = |f, g| forbid(&[(f, W), (Lab::Coe, W), (g, W), (Lab::Fre, R)]);
        assert!(!r(LW, SYNC), "R+lwsync+sync is allowed");
        assert!(r(SYNC, SYNC), "R+syncs");
        // 2+2W: only co, lwsync suffices
        assert!(forbid(&[(LW, W), (Lab::Coe, W), (LW, W), (Lab::Coe, W)]), "2+2W+lwsyncs");
        // S: Wx -lwsync-> Wy -rfe-> Ry -addr-> Wx' -coe-> Wx
        assert!(forbid(&[(LW, W), (Lab::Rfe, W), (PPO, R), (Lab::Coe, W)]), "S+lwsync+addr");
    }

    #[test]
    fn two_from_reads_need_a_strong_fence() {
        // W+RWC: Wx -f-> Wy -rfe-> Ry -addr-> Rz -fre-> Wz -g-> Rx -fre-> Wx
        let wrwc = |f, g| forbid(&[(f, W), (Lab::Rfe, W), (PPO, R), (Lab::Fre, R), (g, W), (Lab::Fre, R)]);
        assert!(!wrwc(LW, SYNC), "W+RWC+lwsync+addr+sync is allowed");
        assert!(wrwc(SYNC, SYNC), "W+RWC+sync+addr+sync");
        // SB
        let sb = |f| forbid(&[(f, W), (Lab::Fre, R), (f, W), (Lab::Fre, R)]);
        assert!(sb(SYNC) && !sb(PO));
        // IRIW+lwsyncs: Wx -rfe-> Rx -lw-> Ry -fre-> Wy -rfe-> Ry' -lw-> Rx' -fre-> Wx
        assert!(!forbid(&[(Lab::Rfe, W), (LW, R), (Lab::Fre, R), (Lab::Rfe, W), (LW, R), (Lab::Fre, R)]), "IRIW+lwsyncs");
        assert!(forbid(&[(Lab::Rfe, W), (SYNC, R), (Lab::Fre, R), (Lab::Rfe, W), (SYNC, R), (Lab::Fre, R)]), "IRIW+syncs");
    }

    #[test]
    fn z6_3_needs_two_syncs() {
        // Z6.3: Wy -coe-> Wy' -f-> Wz -rfe-> Rz -addr-> Rx -fre-> Wx -g-> Wy
        let z = |f, g| forbid(&[(Lab::Coe, W), (f, W), (Lab::Rfe, W), (PPO, R), (Lab::Fre, R), (g, W)]);
        assert!(z(SYNC, SYNC), "Z6.3+sync+sync+addr");
        assert!(!z(LW, LW), "Z6.3+lwsync+lwsync+addr");
    }

    #[test]
    fn cumulativity() {
        // WRC+lwsync+addr: Wx -rfe-> Rx -lwsync-> Wy -rfe-> Ry -addr-> Rx' -fre-> Wx
        assert!(forbid(&[(Lab::Rfe, W), (LW, R), (Lab::Rfe, W), (PPO, R), (Lab::Fre, R)]));
        // WRC+addrs is allowed
        assert!(!forbid(&[(Lab::Rfe, W), (PPO, R), (Lab::Rfe, W), (PPO, R), (Lab::Fre, R)]));
    }

    #[test]
    fn no_thin_air() {
        // LB: Rx -f-> Wy -rfe-> Ry -g-> Wx -rfe-> Rx
        let lb = |f, g| forbid(&[(f, R), (Lab::Rfe, W), (g, R), (Lab::Rfe, W)]);
        assert!(lb(LW, LW) && lb(PPO, LW), "LB+lwsyncs, LB+data+lwsync");
        assert!(!lb(PO, LW), "LB+po+lwsync");
    }
}
