//! The protocol's shape and the sequential harness that drives it with the observers.
//!
//! A protocol is C: state in globals, one function per guarded command and an `enabled_NAME`
//! guard with the same parameters for each. `int read(int p, int l)` and `void write(int p,
//! int l, int d)` are the memory events; every other guarded function is an internal event.
//! A parameter named `p…` ranges over the processors, `l…` over the locations; `d` is the
//! value written. `void init(void)`, when defined, runs once first.
//!
//! The harness runs `depth` steps; each picks an enabled command and its parameters
//! nondeterministically (or does nothing, so every shorter run is a prefix). Written values
//! are distinct and increase (the paper's data independence makes any unambiguous renaming
//! as good), so the simple witness orders two events of a location by their values alone: an
//! event with a smaller value first, and at equal values the write before the reads of it.
//! That is what the observer of Qadeer §8 checks for a k-nice cycle, one pair of events per
//! processor edge: `a_i` then `b_i` on processor `P_i`, `a_i` at location `L_{i-1}`, `b_i`
//! at `L_i`, and `b_i` before `a_{i+1}` in `L_i`'s order. The observer picks its events as
//! the run goes (a nondeterministic choice per event), so the formula grows with the depth
//! only linearly.

use crate::ir::Program;
use crate::source::{Error, Loc};

/// A guarded command of the protocol.
#[derive(Clone, Debug)]
pub struct Command {
    pub name: String,
    pub params: Vec<Param>,
    pub kind: CmdKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmdKind {
    Read,
    Write,
    Internal,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub range: Range,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Range {
    Processor,
    Location,
    /// The value a write writes (chosen by the harness).
    Data,
}

/// The protocol's commands (memory events first) and whether it has `init`.
#[derive(Clone, Debug)]
pub struct Shape {
    pub commands: Vec<Command>,
    pub init: bool,
}

/// What to build the harness for.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub processors: usize,
    pub locations: usize,
    pub depth: usize,
    /// The cycle's size: k processor edges and k location edges.
    pub k: usize,
    /// Processors and locations of the cycle fixed to 0..k in order (the paper's canonical
    /// cycles, enough for a protocol symmetric in processor and location ids); otherwise any
    /// k distinct ones, in any order.
    pub canonical: bool,
}

/// The names the harness's variables start with (the run is read back from their writes).
pub const PREFIX: &str = "__weakc_ms_";

fn file_loc(prog: &Program) -> Loc {
    prog.funcs.iter().find(|f| f.body.is_some()).map(|f| Loc { line: 1, col: 0, len: 0, ..f.loc }).unwrap_or_default()
}

/// Reads the protocol's guarded commands from `prog` (the protocol loaded on its own).
pub fn shape(prog: &Program) -> Result<Shape, Error> {
    let defined = |n: &str| prog.funcs.iter().find(|f| f.name == n && f.body.is_some());
    let mut commands = vec![];
    for (name, kind) in [("read", CmdKind::Read), ("write", CmdKind::Write)] {
        if defined(name).is_none() {
            return Err(Error::unsupported(
                file_loc(prog),
                format!("the protocol defines no `{name}` command (expected `{}`)", if kind == CmdKind::Read { "int read(int p, int l)" } else { "void write(int p, int l, int d)" }),
            ));
        }
    }
    let mut names: Vec<&str> = prog.funcs.iter().filter(|f| f.body.is_some()).map(|f| f.name.as_str()).collect();
    names.sort_by_key(|n| (*n != "read", *n != "write", prog.funcs.iter().position(|f| f.name == *n)));
    for name in names {
        if name.starts_with("enabled_") || name == "init" || name.starts_with(PREFIX) || name == "main" {
            continue;
        }
        let f = defined(name).expect("defined");
        let Some(g) = defined(&format!("enabled_{name}")) else {
            if name == "read" || name == "write" {
                return Err(Error::unsupported(f.loc, format!("`{name}` has no guard: define `int enabled_{name}(…)` with the same parameters")));
            }
            // A helper function, not a command.
            continue;
        };
        let kind = match name {
            "read" => CmdKind::Read,
            "write" => CmdKind::Write,
            _ => CmdKind::Internal,
        };
        let pnames: Vec<String> = f.params.iter().map(|v| prog.var(*v).name.clone()).collect();
        let gnames: Vec<String> = g.params.iter().map(|v| prog.var(*v).name.clone()).collect();
        if pnames != gnames {
            return Err(Error::unsupported(g.loc, format!("`enabled_{name}` must take the parameters of `{name}` ({})", pnames.join(", "))));
        }
        if !g.ty.ret.is_integral() {
            return Err(Error::unsupported(g.loc, format!("`enabled_{name}` must return an integer (non-zero: enabled)")));
        }
        let mut params = vec![];
        for (i, v) in f.params.iter().enumerate() {
            let var = prog.var(*v);
            if !var.ty.is_integral() {
                return Err(Error::unsupported(var.loc, format!("parameter `{}` of `{name}` is not an integer", var.name)));
            }
            let range = match (kind, i, var.name.chars().next()) {
                (CmdKind::Write, 2, _) => Range::Data,
                (_, _, Some('p')) => Range::Processor,
                (_, _, Some('l')) => Range::Location,
                _ => {
                    return Err(Error::unsupported(
                        var.loc,
                        format!("parameter `{}` of `{name}`: a command's parameters are processors (named p…) or locations (named l…)", var.name),
                    ))
                }
            };
            params.push(Param { name: var.name.clone(), range });
        }
        let want: &[Range] = match kind {
            CmdKind::Read => &[Range::Processor, Range::Location],
            CmdKind::Write => &[Range::Processor, Range::Location, Range::Data],
            CmdKind::Internal => &[],
        };
        if kind != CmdKind::Internal && params.iter().map(|p| p.range).collect::<Vec<_>>() != want {
            let sig = if kind == CmdKind::Read { "int read(int p, int l)" } else { "void write(int p, int l, int d)" };
            return Err(Error::unsupported(f.loc, format!("`{name}` must be `{sig}`")));
        }
        if kind == CmdKind::Read && !f.ty.ret.is_integral() {
            return Err(Error::unsupported(f.loc, "`read` must return the value read, an integer"));
        }
        commands.push(Command { name: name.to_string(), params, kind });
    }
    let init = match defined("init") {
        Some(f) if !f.params.is_empty() => return Err(Error::unsupported(f.loc, "`init` takes no parameters")),
        Some(_) => true,
        None => false,
    };
    Ok(Shape { commands, init })
}

/// The harness for `shape` within `b`: a C unit linked with the protocol. The run is
/// logged in the harness's globals (command, arguments, value) and the observer's choices
/// in `…mark`, for [`super::run`] to read back from the counterexample. The runs in
/// `exclude` (their commands and arguments, command by command, as [`super::run`] reads a
/// run back) are assumed away: runs found before whose cycle was no witness.
pub fn harness(shape: &Shape, b: &Bounds, exclude: &[super::run::Run]) -> String {
    let (n, m, k, d) = (b.processors, b.locations, b.k, b.depth);
    let p = PREFIX;
    let mut s = String::new();
    s += "/* weakc memsys harness (generated) */\n";
    s += "extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assume(int);\nextern void __assert_fail(const char *, const char *, unsigned int, const char *);\n";
    for c in &shape.commands {
        let ps: Vec<String> = c.params.iter().map(|x| format!("int {}", x.name)).collect();
        let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
        let ret = if c.kind == CmdKind::Read { "int" } else { "void" };
        s += &format!("extern {ret} {}({ps});\nextern int enabled_{}({ps});\n", c.name, c.name);
    }
    if shape.init {
        s += "extern void init(void);\n";
    }
    // Values written so far (value v > 0 is the v-th write, to location wloc[v]).
    s += &format!("int {p}writes;\nint {p}wloc[{}];\n", d + 1);
    s += &format!("int {p}cmd, {p}arg0, {p}arg1, {p}arg2, {p}value, {p}mark;\n");
    s += &format!("int {p}proc[{k}], {p}loc[{k}];\n");
    if !exclude.is_empty() {
        s += &format!("int {p}logged, {p}log_c[{d}], {p}log_a0[{d}], {p}log_a1[{d}], {p}log_a2[{d}];\n");
    }
    s += &format!("int {p}a_set[{k}], {p}a_w[{k}], {p}a_v[{k}], {p}b_set[{k}], {p}b_w[{k}], {p}b_v[{k}];\n");
    s += &format!("int {p}nondet_in(int n) {{ int x = __VERIFIER_nondet_int(); __VERIFIER_assume(0 <= x && x < n); return x; }}\n");
    // The observer: per processor edge, pick a (at L_{i-1}) then b (at L_i) on P_i.
    s += &format!("void {p}observe(int w, int proc, int loc, int v) {{\n");
    for i in 0..k {
        let prev = (i + k - 1) % k;
        s += &format!(
            "  if (proc == {p}proc[{i}] && loc == {p}loc[{prev}] && !{p}a_set[{i}] && __VERIFIER_nondet_int()) {{ {p}a_set[{i}] = 1; {p}a_w[{i}] = w; {p}a_v[{i}] = v; {p}mark = {}; }}\n",
            2 * i + 1
        );
        s += &format!(
            "  else if (proc == {p}proc[{i}] && loc == {p}loc[{i}] && {p}a_set[{i}] && !{p}b_set[{i}] && __VERIFIER_nondet_int()) {{ {p}b_set[{i}] = 1; {p}b_w[{i}] = w; {p}b_v[{i}] = v; {p}mark = {}; }}\n",
            2 * i + 2
        );
    }
    s += "}\n";
    s += "int main(void) {\n";
    for i in 0..k {
        if b.canonical {
            s += &format!("  {p}proc[{i}] = {i}; {p}loc[{i}] = {i};\n");
        } else {
            s += &format!("  {p}proc[{i}] = {p}nondet_in({n}); {p}loc[{i}] = {p}nondet_in({m});\n");
            for j in 0..i {
                s += &format!("  __VERIFIER_assume({p}proc[{i}] != {p}proc[{j}] && {p}loc[{i}] != {p}loc[{j}]);\n");
            }
        }
    }
    if shape.init {
        s += "  init();\n";
    }
    s += &format!("  for (int step = 0; step < {d}; step++) {{\n");
    s += &format!("    int c = __VERIFIER_nondet_int();\n");
    for (ci, c) in shape.commands.iter().enumerate() {
        let kw = if ci == 0 { "if" } else { "else if" };
        s += &format!("    {kw} (c == {ci}) {{\n");
        let mut args = vec![];
        for x in &c.params {
            match x.range {
                Range::Processor => s += &format!("      int {} = {p}nondet_in({n});\n", x.name),
                Range::Location => s += &format!("      int {} = {p}nondet_in({m});\n", x.name),
                Range::Data => s += &format!("      int {} = {p}writes + 1;\n", x.name),
            }
            args.push(x.name.clone());
        }
        let a = args.join(", ");
        s += &format!("      __VERIFIER_assume(enabled_{}({a}));\n", c.name);
        s += &format!("      {p}cmd = {ci};\n");
        for (i, x) in args.iter().enumerate().take(3) {
            s += &format!("      {p}arg{i} = {x};\n");
        }
        if !exclude.is_empty() {
            s += &format!("      {p}log_c[{p}logged] = {ci};\n");
            for (i, x) in args.iter().enumerate().take(3) {
                s += &format!("      {p}log_a{i}[{p}logged] = {x};\n");
            }
            s += &format!("      {p}logged++;\n");
        }
        match c.kind {
            CmdKind::Read => {
                let (pp, ll) = (&args[0], &args[1]);
                s += &format!("      int v = {}({a});\n      {p}value = v;\n", c.name);
                s += &format!(
                    "      if (!(v == 0 || (1 <= v && v <= {p}writes && {p}wloc[v] == {ll}))) __assert_fail(\"causality: a read returns a value no write to its location wrote before\", \"memsys\", 0, \"read\");\n"
                );
                s += &format!("      {p}observe(0, {pp}, {ll}, v);\n");
            }
            CmdKind::Write => {
                let (pp, ll, dd) = (&args[0], &args[1], &args[2]);
                s += &format!("      {}({a});\n      {p}writes = {dd};\n      {p}wloc[{dd}] = {ll};\n", c.name);
                s += &format!("      {p}observe(1, {pp}, {ll}, {dd});\n");
            }
            CmdKind::Internal => s += &format!("      {}({a});\n", c.name),
        }
        s += "    }\n";
    }
    s += "  }\n";
    // b_i before a_{i+1} in L_i's order, for every i.
    let mut conj = vec![];
    for i in 0..k {
        let j = (i + 1) % k;
        conj.push(format!(
            "{p}a_set[{i}] && {p}b_set[{i}] && ({p}b_v[{i}] < {p}a_v[{j}] || ({p}b_v[{i}] == {p}a_v[{j}] && {p}b_w[{i}] && !{p}a_w[{j}]))"
        ));
    }
    for run in exclude {
        let mut same = vec![format!("{p}logged == {}", run.steps.len())];
        for (j, st) in run.steps.iter().enumerate() {
            same.push(format!("{p}log_c[{j}] == {}", st.cmd));
            for (i, a) in st.args.iter().enumerate().take(3) {
                same.push(format!("{p}log_a{i}[{j}] == {a}"));
            }
        }
        s += &format!("  __VERIFIER_assume(!({}));\n", same.join(" && "));
    }
    s += &format!("  if ({}) __assert_fail(\"a {k}-nice cycle\", \"memsys\", 0, \"cycle\");\n", conj.join(" && "));
    s += "  return 0;\n}\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observer_has_a_pair_per_processor_edge_and_a_conjunct_per_location_edge() {
        let param = |name: &str, range| Param { name: name.into(), range };
        let shape = Shape {
            commands: vec![
                Command { name: "read".into(), params: vec![param("p", Range::Processor), param("l", Range::Location)], kind: CmdKind::Read },
                Command { name: "write".into(), params: vec![param("p", Range::Processor), param("l", Range::Location), param("d", Range::Data)], kind: CmdKind::Write },
            ],
            init: false,
        };
        for k in 1..=3 {
            let h = harness(&shape, &Bounds { processors: 3, locations: 3, depth: 5, k, canonical: false }, &[]);
            // Per processor edge i: a_i on P_i at L_{i-1}, b_i on P_i at L_i.
            for i in 0..k {
                let prev = (i + k - 1) % k;
                assert!(h.contains(&format!("proc == {PREFIX}proc[{i}] && loc == {PREFIX}loc[{prev}] && !{PREFIX}a_set[{i}]")), "{h}");
                assert!(h.contains(&format!("proc == {PREFIX}proc[{i}] && loc == {PREFIX}loc[{i}] && {PREFIX}a_set[{i}] && !{PREFIX}b_set[{i}]")), "{h}");
                // Location edge i: b_i before a_{i+1}.
                assert!(h.contains(&format!("{PREFIX}b_v[{i}] < {PREFIX}a_v[{}]", (i + 1) % k)), "{h}");
            }
            assert_eq!(h.matches("mark = ").count(), 2 * k);
            // Distinct processors and locations: one constraint per pair.
            assert_eq!(h.matches("__VERIFIER_assume(__weakc_ms_proc[").count(), k * (k - 1) / 2);
            assert!(h.contains(&format!("a {k}-nice cycle")));
            // Canonical: processor edge i on processor i, location edge i on location i.
            let c = harness(&shape, &Bounds { processors: 3, locations: 3, depth: 5, k, canonical: true }, &[]);
            for i in 0..k {
                assert!(c.contains(&format!("{PREFIX}proc[{i}] = {i}; {PREFIX}loc[{i}] = {i};")), "{c}");
            }
            assert!(!c.contains("nondet_in(3); "), "{c}");
        }
    }
}
