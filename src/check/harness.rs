//! The C harness that runs a test against a library: the initial calls in `main`, one
//! pthread per test thread, then `main` joins them and reads the observation (every
//! argument the test left open and every return value) into locals. For the observation
//! set each call is an atomic section (CheckFence's serial executions: operations
//! interleave but never overlap); for the inclusion check the calls run concurrently and
//! `main` asserts that the observation is one of the set's.

use super::test::{Arg, Call, Test};
use crate::ir::{Program, Type};
use crate::source::{Error, Loc};

/// The names the harness's own identifiers start with.
pub const PREFIX: &str = "__weakc_chk_";

/// The name of the local holding observed value `i` at the end of `main`.
pub fn observed(i: usize) -> String {
    format!("{PREFIX}o{i}")
}

/// The global that thread code writes observed value `i` to.
pub fn global(i: usize) -> String {
    format!("{PREFIX}obs{i}")
}

/// An operation of the library as a test calls it.
#[derive(Clone, Debug)]
pub struct Op {
    pub name: String,
    pub params: Vec<Type>,
    pub ret: Type,
}

/// One observed value: which call, and which of its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// `None`: the initial sequence; `Some(t)`: thread t.
    pub thread: Option<usize>,
    /// Index of the call in its sequence.
    pub call: usize,
    /// `Some(i)`: argument i; `None`: the return value.
    pub arg: Option<usize>,
}

/// A test checked against the library: each call's operation, and the observed values.
#[derive(Clone, Debug)]
pub struct Plan {
    pub test: Test,
    pub ops: Vec<Op>,
    /// Per call (initial sequence first, then thread by thread), its operation in `ops`.
    pub call_ops: Vec<usize>,
    pub slots: Vec<Slot>,
    pub init: String,
    pub commits: Commits,
}

/// What `--commit-points` adds to the harness.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Commits {
    Off,
    /// An observation also holds each thread call's place in the linearization order, after
    /// the slots' values (serial: the order the calls ran in; concurrent: the order of their
    /// commit points, and each call must pass one).
    Order,
    /// Each call must pass one commit point; the observation is the slots' alone (no single
    /// memory order to read a commit order from: Power, ARM).
    Once,
}

fn c_type(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Void => "void",
        Type::Bool => "_Bool",
        Type::Int { bits: 8, signed: true } => "signed char",
        Type::Int { bits: 8, signed: false } => "unsigned char",
        Type::Int { bits: 16, signed: true } => "short",
        Type::Int { bits: 16, signed: false } => "unsigned short",
        Type::Int { bits: 32, signed: true } => "int",
        Type::Int { bits: 32, signed: false } => "unsigned int",
        Type::Int { bits: 64, signed: true } => "long long",
        Type::Int { bits: 64, signed: false } => "unsigned long long",
        _ => return None,
    })
}

/// Checks the test against the library `lib` (loaded on its own): every operation defined,
/// with integer parameters and an integer or `void` result, called with as many arguments
/// as it has; the init function defined without parameters.
pub fn plan(lib: &Program, test: &Test, init: &str, init_loc: Loc) -> Result<Plan, Error> {
    let defined = |name: &str| lib.funcs.iter().find(|f| f.name == name && f.body.is_some());
    let Some(f) = defined(init) else {
        return Err(Error::syntax(
            init_loc,
            format!("the library defines no init function `{init}` (it runs before the test; name another one with --init)"),
        ));
    };
    if !f.ty.params.is_empty() {
        return Err(Error::unsupported(f.loc, format!("the init function `{init}` must take no parameters")));
    }
    let mut ops: Vec<Op> = vec![];
    let mut call_ops = vec![];
    let mut slots = vec![];
    let seqs: Vec<(Option<usize>, &Vec<Call>)> = std::iter::once((None, &test.init)).chain(test.threads.iter().enumerate().map(|(i, t)| (Some(i), t))).collect();
    for (thread, calls) in seqs {
        for (ci, c) in calls.iter().enumerate() {
            let Some(f) = defined(&c.name) else {
                let known: Vec<&str> = lib.funcs.iter().filter(|f| f.body.is_some() && f.name != "main").map(|f| f.name.as_str()).collect();
                return Err(Error::syntax(c.loc, format!("unknown operation `{}`: the library defines {}", c.name, known.join(", "))));
            };
            if f.ty.variadic {
                return Err(Error::unsupported(c.loc, format!("operation `{}` is variadic", c.name)));
            }
            if let Some(p) = f.ty.params.iter().find(|p| !p.is_integral()) {
                return Err(Error::unsupported(
                    c.loc,
                    format!(
                        "operation `{}` takes a parameter of type `{}`: a test passes integers only (wrap it in a function with integer parameters)",
                        c.name,
                        crate::frontend::dump::type_str(lib, p)
                    ),
                ));
            }
            if c_type(&f.ty.ret).is_none() || f.ty.params.iter().any(|p| c_type(p).is_none()) {
                return Err(Error::unsupported(c.loc, format!("operation `{}` returns `{}`: an observation is made of integers (return one)", c.name, crate::frontend::dump::type_str(lib, &f.ty.ret))));
            }
            if let Some(a) = &c.args {
                if a.len() != f.ty.params.len() {
                    return Err(Error::syntax(c.loc, format!("operation `{}` takes {} argument(s), the test gives {}", c.name, f.ty.params.len(), a.len())));
                }
            }
            let oi = match ops.iter().position(|o| o.name == c.name) {
                Some(i) => i,
                None => {
                    ops.push(Op { name: c.name.clone(), params: f.ty.params.clone(), ret: f.ty.ret.clone() });
                    ops.len() - 1
                }
            };
            call_ops.push(oi);
            for (ai, _) in f.ty.params.iter().enumerate() {
                let open = c.args.as_ref().is_none_or(|a| a[ai] == Arg::Any);
                if open {
                    slots.push(Slot { thread, call: ci, arg: Some(ai) });
                }
            }
            if f.ty.ret != Type::Void {
                slots.push(Slot { thread, call: ci, arg: None });
            }
        }
    }
    Ok(Plan { test: test.clone(), ops, call_ops, slots, init: init.to_string(), commits: Commits::Off })
}

/// How the harness runs the calls.
pub enum Mode<'a> {
    /// Each call an atomic section, for the observation set.
    Serial,
    /// Concurrently, asserting that the observation is one of `set`.
    Inclusion { set: &'a [Vec<i128>] },
}

/// The message of the inclusion assertion (a counterexample is recognised by it).
pub const OUTSIDE: &str = "the observation is not one of the observation set's";

/// The message of the assertion that every call passed one commit point (`--commit-points`).
pub const COMMIT_ONCE: &str = "every call of the test passes exactly one commit point, after an access of its own";

/// The global a thread writes the stamp of its `k`-th call's commit point to.
pub fn stamp(k: usize) -> String {
    format!("{PREFIX}cp{k}")
}

impl Plan {
    /// The calls of a sequence with their index in `call_ops`.
    fn sequences(&self) -> Vec<(Option<usize>, &[Call], usize)> {
        let mut v = vec![(None, self.test.init.as_slice(), 0)];
        let mut base = self.test.init.len();
        for (t, calls) in self.test.threads.iter().enumerate() {
            v.push((Some(t), calls.as_slice(), base));
            base += calls.len();
        }
        v
    }

    /// A call as the test wrote it, with its observed values: `e(1)`, `d() = 0`.
    fn describe(&self, slot_values: Option<&[i128]>, thread: Option<usize>, ci: usize, call: &Call) -> String {
        let slot = |arg: Option<usize>| {
            self.slots.iter().position(|s| s.thread == thread && s.call == ci && s.arg == arg).map(|i| slot_values.map_or("*".to_string(), |v| v[i].to_string()))
        };
        let op = &self.ops[self.call_ops[self.sequences().iter().find(|s| s.0 == thread).map_or(0, |s| s.2) + ci]];
        let args: Vec<String> = (0..op.params.len())
            .map(|a| match (slot(Some(a)), call.args.as_ref().map(|v| &v[a])) {
                (Some(v), _) => v,
                (None, Some(Arg::Value(v))) => v.to_string(),
                _ => "*".into(),
            })
            .collect();
        let ret = match slot(None) {
            Some(v) if slot_values.is_some() => format!(" = {v}"),
            _ => String::new(),
        };
        format!("{}({}){ret}", call.name, args.join(", "))
    }

    /// The observation as the test with values: `[ e(1) ] ( e(0) d() = 1 | d() = 0 )`.
    pub fn show(&self, values: &[i128]) -> String {
        self.show_with(Some(values))
    }

    /// The test as written, open arguments as `*`.
    pub fn show_open(&self) -> String {
        self.show_with(None)
    }

    fn show_with(&self, values: Option<&[i128]>) -> String {
        let seq = |thread: Option<usize>, calls: &[Call]| -> String {
            calls.iter().enumerate().map(|(i, c)| self.describe(values, thread, i, c)).collect::<Vec<_>>().join(" ")
        };
        let threads: Vec<String> = self.test.threads.iter().enumerate().map(|(t, c)| seq(Some(t), c)).collect();
        let init = if self.test.init.is_empty() { String::new() } else { format!("{} ", seq(None, &self.test.init)) };
        format!("{init}( {} )", threads.join(" | "))
    }

    /// The harness's C text.
    pub fn harness(&self, mode: &Mode, values: &[i64]) -> String {
        let p = PREFIX;
        let mut s = String::from("/* weakc check: the test's harness (generated) */\n#include <pthread.h>\n");
        s += "extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assume(int);\nextern void __VERIFIER_atomic_begin(void);\nextern void __VERIFIER_atomic_end(void);\n";
        s += &format!("extern void {}(void);\n", self.init);
        for op in &self.ops {
            let ps: Vec<&str> = op.params.iter().map(|t| c_type(t).unwrap_or("int")).collect();
            let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
            s += &format!("extern {} {}({ps});\n", c_type(&op.ret).unwrap_or("int"), op.name);
        }
        for i in 0..self.slots.len() {
            s += &format!("long long {p}obs{i};\n");
        }
        let range = values.iter().map(|v| format!("x == {v}")).collect::<Vec<_>>().join(" || ");
        s += &format!("static int {p}any(void) {{ int x = __VERIFIER_nondet_int(); __VERIFIER_assume({range}); return x; }}\n");
        let serial = matches!(mode, Mode::Serial);
        let ranked = self.ranked_calls();
        if self.commits != Commits::Off {
            if serial {
                s += &format!("int {p}clk;\n");
                for k in 0..ranked {
                    s += &format!("int {p}ord{k};\n");
                }
            } else {
                s += "extern void __weakc_commit(void);\nextern int __weakc_commit_take(void);\n";
                for k in 0..ranked {
                    s += &format!("int {};\n", stamp(k));
                }
            }
        }
        let first_thread_call = self.test.init.len();
        let body = |thread: Option<usize>, calls: &[Call], base: usize| -> String {
            let mut b = String::new();
            for (ci, c) in calls.iter().enumerate() {
                let op = &self.ops[self.call_ops[base + ci]];
                let slot = |arg: Option<usize>| self.slots.iter().position(|s| s.thread == thread && s.call == ci && s.arg == arg);
                let mut args = vec![];
                for a in 0..op.params.len() {
                    let name = format!("{p}a{}_{ci}_{a}", thread.map_or("i".to_string(), |t| t.to_string()));
                    match (slot(Some(a)), c.args.as_ref().map(|v| &v[a])) {
                        (Some(si), _) => {
                            b += &format!("  int {name} = {p}any();\n  {p}obs{si} = {name};\n");
                            args.push(name);
                        }
                        (None, Some(Arg::Value(v))) => args.push(v.to_string()),
                        (None, _) => args.push("0".into()),
                    }
                }
                let call = format!("{}({})", op.name, args.join(", "));
                let stmt = match slot(None) {
                    Some(si) => format!("{p}obs{si} = {call};"),
                    None => format!("{call};"),
                };
                // Thread call k in order of the sequences (`ranked_calls`).
                let k = (thread.is_some() && self.commits != Commits::Off).then(|| base + ci - first_thread_call);
                b += &match (serial, k) {
                    (true, Some(k)) => format!("  __VERIFIER_atomic_begin();\n  {stmt}\n  {p}ord{k} = {p}clk;\n  {p}clk = {p}clk + 1;\n  __VERIFIER_atomic_end();\n"),
                    (true, None) => format!("  __VERIFIER_atomic_begin();\n  {stmt}\n  __VERIFIER_atomic_end();\n"),
                    (false, Some(k)) => format!("  __weakc_commit_take();\n  {stmt}\n  {} = __weakc_commit_take();\n", stamp(k)),
                    (false, None) => format!("  {stmt}\n"),
                };
            }
            b
        };
        let seqs = self.sequences();
        for (thread, calls, base) in &seqs[1..] {
            s += &format!("void *{p}thread{}(void *arg) {{\n{}  return 0;\n}}\n", thread.unwrap_or(0), body(*thread, calls, *base));
        }
        let n = self.test.threads.len();
        s += &format!("int main(void) {{\n  pthread_t {p}tid[{n}];\n  {}();\n", self.init);
        s += &body(None, seqs[0].1, 0);
        for t in 0..n {
            s += &format!("  pthread_create(&{p}tid[{t}], 0, {p}thread{t}, 0);\n");
        }
        for t in 0..n {
            s += &format!("  pthread_join({p}tid[{t}], 0);\n");
        }
        for i in 0..self.slots.len() {
            s += &format!("  long long {} = {p}obs{i};\n", observed(i));
        }
        let n_slots = self.slots.len();
        let once: Vec<String> = (0..ranked).map(|k| format!("{p}c{k} >= 0")).collect();
        if self.commits == Commits::Order && serial {
            for k in 0..ranked {
                s += &format!("  long long {} = {p}ord{k};\n", observed(n_slots + k));
            }
        } else if self.commits != Commits::Off && !serial {
            for k in 0..ranked {
                s += &format!("  int {p}c{k} = {};\n", stamp(k));
            }
            s += &format!("  __CPROVER_assert({}, \"{COMMIT_ONCE}\");\n", if once.is_empty() { "1".into() } else { once.join(" && ") });
        }
        if self.commits == Commits::Order && !serial {
            // A call's place: how many calls committed before it.
            // Equal clocks are blocks the memory order may take either way round (they do
            // not conflict): each such execution has twins with the stamps apart, so only
            // those are kept, and an execution's commit order is never a tie.
            for k in 0..ranked {
                for j in 0..k {
                    s += &format!("  __VERIFIER_assume({p}c{j} < 0 || {p}c{k} < 0 || {p}c{j} != {p}c{k});\n");
                }
            }
            for k in 0..ranked {
                let before: Vec<String> = (0..ranked).filter(|&j| j != k).map(|j| format!("({p}c{j} < {p}c{k})")).collect();
                s += &format!("  long long {} = {};\n", observed(n_slots + k), if before.is_empty() { "0".into() } else { before.join(" + ") });
            }
        }
        // Reached by every execution that completes the test.
        s += &format!("  long long {} = 1;\n", observed(self.width()));
        if let Mode::Inclusion { set } = mode {
            s += &format!("  int {p}ok = 0;\n");
            for o in set.iter() {
                let conj: Vec<String> = o.iter().enumerate().map(|(i, v)| format!("{} == {v}LL", observed(i))).collect();
                let cond = if conj.is_empty() { "1".to_string() } else { conj.join(" && ") };
                s += &format!("  if ({cond}) {p}ok = 1;\n");
            }
            if self.commits != Commits::Off && ranked > 0 {
                // Without a commit point per call there is no commit order (the assertion
                // above fails instead).
                s += &format!("  if ({}) __CPROVER_assert({p}ok, \"{OUTSIDE}\");\n", once.join(" && "));
            } else {
                s += &format!("  __CPROVER_assert({p}ok, \"{OUTSIDE}\");\n");
            }
        }
        s + "  return 0;\n}\n"
    }

    /// The names of the locals `main` ends with, for [`crate::bmc::enumerate`] (the last one
    /// marks that the test completed).
    pub fn watched(&self) -> Vec<String> {
        (0..=self.width()).map(observed).collect()
    }

    /// The calls of the threads (not the initial sequence), which `--commit-points` orders.
    pub fn ranked_calls(&self) -> usize {
        self.test.threads.iter().map(|t| t.len()).sum()
    }

    /// Values per observation: the slots', then with `--commit-points` each thread call's
    /// place in the order.
    pub fn width(&self) -> usize {
        self.slots.len() + if self.commits == Commits::Order { self.ranked_calls() } else { 0 }
    }

    /// The thread calls in the order `ranks` gives them (`--commit-points`): `e(1) < d()`.
    pub fn show_order(&self, ranks: &[i128]) -> String {
        let mut calls: Vec<(i128, String)> = vec![];
        let mut k = 0;
        for (t, seq) in self.test.threads.iter().enumerate() {
            for (ci, c) in seq.iter().enumerate() {
                calls.push((ranks.get(k).copied().unwrap_or(0), format!("{} (thread {t})", self.describe(None, Some(t), ci, c))));
                k += 1;
            }
        }
        calls.sort_by_key(|c| c.0);
        calls.into_iter().map(|c| c.1).collect::<Vec<_>>().join(" < ")
    }
}
