//! Every value a set of variables takes at the end of the program: all solutions of one
//! formula, each new one excluded by a blocking clause over the variables' bits (CheckFence's
//! specification mining, PLDI 2007 §3.2.1), with the SAT solver kept incremental.

use super::symex::RawKind;
use super::{build, model_value, punning, sat, solve_valid, Built, BmcOptions, Stats, PHASE_SOLVE};
use crate::ir::{Program, Type};
use crate::source::{Error, Loc};
use std::time::Instant;

/// What [`enumerate`] found.
#[derive(Clone, Debug, Default)]
pub struct Enumeration {
    /// The distinct vectors of values of the watched variables, in the order found.
    pub values: Vec<Vec<i128>>,
    /// The solver proved there is no other vector.
    pub exhausted: bool,
    /// Why the enumeration ended before that (a limit, or `max` vectors).
    pub stopped: Option<String>,
    /// With unwinding assertions: a loop can run past its bound (its location and message);
    /// nothing is enumerated then (the caller unwinds further).
    pub beyond_bound: Option<(Loc, String)>,
    /// A vector found through a value the engine over-approximates (undefined behaviour, an
    /// unmodelled function), or memory read through another type: the set may hold vectors C
    /// cannot produce.
    pub approximate: Option<(Loc, String)>,
    pub stats: Stats,
}

/// Enumerates the values the scalar locals `watch` are assigned (each by one assignment on
/// the path that reaches it) in the executions that reach all of those assignments. At most
/// `max` vectors; `found` is told the count after each one.
pub fn enumerate(prog: &Program, opts: &BmcOptions, watch: &[String], max: usize, found: &mut dyn FnMut(usize)) -> Result<Enumeration, Error> {
    let t0 = Instant::now();
    let Built { mut sx, enc, stats, .. } = match build(prog, opts, t0)? {
        Ok(b) => b,
        Err(o) => {
            let why = match o.verdict {
                super::Verdict::Unknown(w) => w,
                v => format!("{v:?}"),
            };
            return Ok(Enumeration { stopped: Some(why), stats: o.stats, ..Default::default() });
        }
    };
    let mut out = Enumeration { stats, ..Default::default() };
    // Per watched variable, its assignments: (path guard, value, type).
    let mut sites: Vec<Vec<(sat::Lit, Vec<sat::Lit>, Type)>> = vec![vec![]; watch.len()];
    for st in &sx.steps {
        if let RawKind::Assign { lhs, val, ty } = &st.kind {
            if let Some(i) = watch.iter().position(|w| w == lhs) {
                sites[i].push((st.guard, val.to_vec(), ty.clone()));
            }
        }
    }
    let mut reach = sat::Lit::TRUE;
    for s in &sites {
        let any = sx.sat.or_all(s.iter().map(|x| x.0));
        reach = sx.sat.and(reach, any);
    }
    let t2 = Instant::now();
    if opts.unwinding_assertions {
        let unwind: Vec<(sat::Lit, Loc, String)> =
            sx.props.iter().filter(|p| p.kind == super::PropertyKind::UnwindingAssertion).map(|p| (p.viol, p.loc, p.msg.clone())).collect();
        let any = sx.sat.or_all(unwind.iter().map(|u| u.0));
        if any != sat::Lit::FALSE {
            match solve_valid(&mut sx, &enc, &[any]) {
                None => {
                    out.stopped = Some(super::limit_reason(sx.sat.stopped().unwrap_or(sat::Stop::Time), PHASE_SOLVE));
                    out.stats.solve_time = t2.elapsed();
                    return Ok(out);
                }
                Some(true) => {
                    out.beyond_bound = unwind.iter().find(|u| sx.sat.value(u.0)).map(|u| (u.1, u.2.clone()));
                    out.stats.solve_time = t2.elapsed();
                    return Ok(out);
                }
                Some(false) => {}
            }
        }
    }
    if let Some((loc, why)) = punning::find(prog).into_iter().next() {
        out.approximate = Some((loc, format!("the program reinterprets memory: {why}")));
    }
    loop {
        if out.values.len() >= max {
            out.stopped = Some(format!("more than {max} distinct observations"));
            break;
        }
        match solve_valid(&mut sx, &enc, &[reach]) {
            None => {
                out.stopped = Some(super::limit_reason(sx.sat.stopped().unwrap_or(sat::Stop::Time), PHASE_SOLVE));
                break;
            }
            Some(false) => {
                out.exhausted = true;
                break;
            }
            Some(true) => {}
        }
        // The model first: adding the blocking clause leaves the solver's satisfied state.
        let mut vector = Vec::with_capacity(watch.len());
        let mut taken = vec![];
        for s in &sites {
            let Some((_, val, ty)) = s.iter().find(|x| sx.sat.value(x.0)) else { continue };
            let x = model_value(&sx, val);
            vector.push(super::bv::signed(x, val.len(), ty));
            taken.push((s, x));
        }
        if out.approximate.is_none() {
            out.approximate = sx.approx_sites.iter().find(|a| sx.sat.value(a.guard)).map(|a| (a.loc, a.what.clone()));
        }
        let mut block = vec![];
        for (s, x) in taken {
            // This variable differs from x on whichever assignment the path takes.
            let mut eq = sat::Lit::FALSE;
            for (g, val, _) in s {
                let k = super::bv::constant(x, val.len());
                let same = sx.sat.bv_eq(val, &k);
                let hit = sx.sat.and(*g, same);
                eq = sx.sat.or(eq, hit);
            }
            block.push(!eq);
        }
        out.values.push(vector);
        found(out.values.len());
        if block.is_empty() {
            // Nothing watched: one vector, the empty one.
            out.exhausted = true;
            break;
        }
        sx.sat.add_clause(&block);
    }
    out.stats.solve_time = t2.elapsed();
    out.stats.vars = sx.sat.num_vars();
    out.stats.clauses = sx.sat.clauses;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    const SB: &str = r#"
#include <pthread.h>
int x, y, r0, r1;
void *t0(void *a) { x = 1; r0 = y; return 0; }
void *t1(void *a) { y = 1; r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  int o0 = r0;
  int o1 = r1;
  return 0;
}
"#;

    fn outcomes(text: &str, model: Option<&str>, watch: &[&str]) -> Enumeration {
        let mut map = SourceMap::default();
        let prog = crate::frontend::load_str("t.c", text, &Default::default(), &mut map).unwrap();
        let model = model.map(|m| crate::verify::store_buffer_model(crate::arch::lookup(m).unwrap()).unwrap());
        let opts = BmcOptions { unwind: 2, unwinding_assertions: true, model, ..Default::default() };
        let watch: Vec<String> = watch.iter().map(|w| w.to_string()).collect();
        let mut n = 0;
        let e = enumerate(&prog, &opts, &watch, 100, &mut |k| n = k).unwrap();
        assert_eq!(n, e.values.len());
        e
    }

    #[test]
    fn every_outcome_of_store_buffering_once_per_model() {
        let e = outcomes(SB, None, &["o0", "o1"]);
        assert!(e.exhausted && e.stopped.is_none() && e.beyond_bound.is_none());
        let mut v = e.values.clone();
        v.sort();
        assert_eq!(v, vec![vec![0, 1], vec![1, 0], vec![1, 1]]);
        let mut v = outcomes(SB, Some("tso"), &["o0", "o1"]).values;
        v.sort();
        assert_eq!(v, vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
    }

    #[test]
    fn values_are_signed_bounded_and_loops_past_the_bound_reported() {
        let prog = "extern int __VERIFIER_nondet_int(void);\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  __VERIFIER_assume(-2 <= x && x < 3);\n  int o = x * 2;\n  return 0;\n}\n";
        let mut v = outcomes(prog, None, &["o"]).values;
        v.sort();
        assert_eq!(v, vec![vec![-4], vec![-2], vec![0], vec![2], vec![4]]);
        let spin = "int main(void) {\n  int i = 0;\n  while (i < 5) i++;\n  int o = i;\n  return 0;\n}\n";
        let e = outcomes(spin, None, &["o"]);
        assert!(e.beyond_bound.is_some() && e.values.is_empty(), "{e:?}");
    }
}
