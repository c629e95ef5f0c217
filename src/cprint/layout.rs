//! The file's layout: header comment, struct definitions in dependency order, prototypes,
//! globals, function definitions with all their locals at the top, and `#line` directives.
//!
//! Separate because it decides what is printed where and in which order; how single
//! statements look is in `stmt`.

use super::literals::{c_string, comment_text};
use super::names::{is_thread_local, reserved_file_scope, sanitize, unique};
use super::Printer;
use crate::ir::*;
use crate::source::Loc;
use std::collections::HashSet;

fn init_exprs<'e>(init: &'e Init, f: &mut impl FnMut(&'e Expr)) {
    match init {
        Init::Expr(e) => e.visit(f),
        Init::List(items) => items.iter().for_each(|i| init_exprs(i, f)),
    }
}

struct StructState {
    declared: Vec<bool>,
    done: Vec<bool>,
    visiting: Vec<bool>,
}

impl Printer<'_> {
    /// Prints a `#line` directive if the compiler would otherwise attribute the next line
    /// to another place than `loc`.
    pub(super) fn at(&mut self, loc: Loc) {
        if !self.opts.line_directives {
            return;
        }
        if loc.line == 0 {
            return self.at_generated();
        }
        let Some(file) = self.map.files.get(loc.file as usize) else {
            return;
        };
        if self.out.cur == Some((loc.file, loc.line)) {
            return;
        }
        let d = format!("#line {} {}\n", loc.line, c_string(file.name.as_bytes()));
        self.out.text.push_str(&d);
        self.out.lines += 1;
        self.out.cur = Some((loc.file, loc.line));
    }

    /// Code without a source location (the instrumentation's) after user code: a `#line`
    /// to the output file itself, at its real line.
    fn at_generated(&mut self) {
        if self.out.cur.is_none_or(|(f, _)| f == super::GENERATED_FILE) {
            return;
        }
        let name = if self.opts.generated_name.is_empty() { super::GENERATED_NAME } else { &self.opts.generated_name };
        // The directive is line `lines + 1`; it names the line after it.
        let next = self.out.lines + 2;
        let d = format!("#line {next} {}", c_string(name.as_bytes()));
        self.out.text.push_str(&d);
        self.out.text.push('\n');
        self.out.lines += 1;
        self.out.cur = Some((super::GENERATED_FILE, next));
    }

    pub(super) fn print(&mut self) {
        if !self.opts.header.is_empty() {
            self.out.line("/*");
            for l in self.opts.header.lines() {
                let l = comment_text(l);
                if l.is_empty() {
                    self.out.line(" *");
                } else {
                    self.out.line(&format!(" * {l}"));
                }
            }
            self.out.line(" */");
        }
        self.out.line("#include \"weakc.h\"");
        self.print_structs();
        self.print_prototypes();
        self.print_globals();
        for i in 0..self.prog.funcs.len() {
            if self.prog.funcs[i].body.is_some() && self.owns(self.prog.funcs[i].loc) {
                self.print_function(FuncId(i as u32));
            }
        }
    }

    /// The definition at `loc` goes in the file being printed (always, unless split).
    fn owns(&self, loc: crate::source::Loc) -> bool {
        self.unit.is_none_or(|(k, unit_of)| unit_of(loc.file) == k)
    }

    // ---------------------------------------------------------------------- structs

    fn used_structs(&self) -> Vec<bool> {
        let mut used = vec![false; self.prog.structs.len()];
        fn note(prog: &Program, ty: &Type, used: &mut Vec<bool>) {
            match ty {
                Type::Struct(s) => {
                    let i = s.0 as usize;
                    if i < used.len() && !used[i] {
                        used[i] = true;
                        for f in &prog.structs[i].fields {
                            note(prog, &f.ty, used);
                        }
                    }
                }
                Type::Ptr(t) | Type::Array(t, _) => note(prog, t, used),
                Type::Func(ft) => {
                    note(prog, &ft.ret, used);
                    ft.params.iter().for_each(|p| note(prog, p, used));
                }
                _ => {}
            }
        }
        let prog = self.prog;
        for v in &prog.vars {
            note(prog, &v.ty, &mut used);
            if let Some(init) = &v.init {
                init_exprs(init, &mut |e| note(prog, &e.ty, &mut used));
            }
        }
        for f in &prog.funcs {
            note(prog, &f.ty.ret, &mut used);
            f.ty.params.iter().for_each(|p| note(prog, p, &mut used));
            if let Some(body) = &f.body {
                walk_stmts(body, &mut |s| {
                    for_each_expr(s, &mut |e| e.visit(&mut |e| note(prog, &e.ty, &mut used)))
                });
            }
        }
        used
    }

    fn print_structs(&mut self) {
        let used = self.used_structs();
        if !used.iter().any(|u| *u) {
            return;
        }
        self.out.blank();
        let n = self.prog.structs.len();
        let mut st = StructState {
            declared: vec![false; n],
            done: vec![false; n],
            visiting: vec![false; n],
        };
        for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            self.emit_struct(i, &mut st);
        }
    }

    fn emit_struct(&mut self, i: usize, st: &mut StructState) {
        if st.done[i] || st.visiting[i] {
            return;
        }
        let sd = &self.prog.structs[i];
        if !sd.complete {
            if !st.declared[i] {
                self.out.line(&format!("{};", self.struct_names[i]));
                st.declared[i] = true;
            }
            st.done[i] = true;
            return;
        }
        st.visiting[i] = true;
        fn deps(ty: &Type, by_value: bool, val: &mut Vec<usize>, ptr: &mut Vec<usize>) {
            match ty {
                Type::Struct(s) => {
                    if by_value {
                        val.push(s.0 as usize)
                    } else {
                        ptr.push(s.0 as usize)
                    }
                }
                // An array type needs a complete element type even behind a pointer.
                Type::Array(t, _) => deps(t, true, val, ptr),
                Type::Ptr(t) => deps(t, false, val, ptr),
                Type::Func(ft) => {
                    deps(&ft.ret, false, val, ptr);
                    ft.params.iter().for_each(|p| deps(p, false, val, ptr));
                }
                _ => {}
            }
        }
        let (mut val, mut ptr) = (Vec::new(), Vec::new());
        for f in &sd.fields {
            deps(&f.ty, true, &mut val, &mut ptr);
        }
        for d in val {
            if d < st.done.len() {
                if st.visiting[d] {
                    // A by-value cycle (not valid C): declare it at least.
                    ptr.push(d);
                } else {
                    self.emit_struct(d, st);
                }
            }
        }
        for d in ptr {
            if d < st.done.len() && d != i && !st.declared[d] && !st.done[d] {
                self.out.line(&format!("{};", self.struct_names[d]));
                st.declared[d] = true;
            }
        }
        self.out.line(&format!("{} {{", self.struct_names[i]));
        self.out.indent += 1;
        for (j, f) in sd.fields.iter().enumerate() {
            let attr = field_attribute(sd, j);
            match sd.bitfields.get(j).copied().flatten() {
                // An unnamed bit-field (padding, or `: 0` closing a run) stays unnamed.
                Some(b) if sd.unnamed_bitfield(j) => {
                    let d = self.decl(&f.ty, "");
                    self.out.line(&format!("{} : {}{attr};", d.trim_end(), b.width));
                }
                Some(b) => {
                    let d = self.decl(&f.ty, &self.field_names[i][j]);
                    self.out.line(&format!("{d} : {}{attr};", b.width));
                }
                None => {
                    let d = self.decl(&f.ty, &self.field_names[i][j]);
                    self.out.line(&format!("{d}{attr};"));
                }
            }
        }
        self.out.indent -= 1;
        match sd.packing.as_ref().filter(|p| p.align > 1) {
            Some(p) => self.out.line(&format!("}} __attribute__((aligned({})));", p.align)),
            None => self.out.line("};"),
        }
        st.visiting[i] = false;
        st.done[i] = true;
        st.declared[i] = true;
    }

    // ---------------------------------------------------------------------- declarations

    fn print_prototypes(&mut self) {
        let mut first = true;
        for (i, f) in self.prog.funcs.iter().enumerate() {
            if self.skip_proto[i] {
                continue;
            }
            if first {
                self.out.blank();
                first = false;
            }
            // External functions are libc's and the like, declared with plain `char`: say so,
            // so that the prototype agrees with the compiler's builtin one (GCC warns by
            // default about `int puts(signed char *)`).
            self.plain_char.set(f.body.is_none());
            let d = self.decl(&Type::Func(Box::new(f.ty.clone())), &self.func_names[i]);
            self.plain_char.set(false);
            self.out.line(&format!("{d};"));
        }
    }

    fn print_globals(&mut self) {
        if self.global_order.is_empty() && self.spawn_tid_order.is_empty() {
            return;
        }
        self.out.blank();
        let mut printed: HashSet<VarId> = HashSet::new();
        let order = self.global_order.clone();
        for g in order {
            let var = self.prog.var(g);
            if let Some(init) = &var.init {
                // Globals the initialiser refers to that come later: declare them first.
                let mut refs = Vec::new();
                init_exprs(init, &mut |e| {
                    if let ExprKind::Var(r) = e.kind {
                        if r != g && self.global_names.contains_key(&r) && !refs.contains(&r) {
                            refs.push(r);
                        }
                    }
                });
                for r in refs {
                    if printed.insert(r) {
                        let rv = self.prog.var(r);
                        let d = self.decl(&rv.ty, &self.global_names[&r]);
                        let tl = if is_thread_local(rv) {
                            "_Thread_local "
                        } else {
                            ""
                        };
                        self.out.line(&format!("extern {tl}{d};"));
                    }
                }
            }
            printed.insert(g);
            self.at(var.loc);
            let mut d = self.decl(&var.ty, &self.global_names[&g]);
            if is_thread_local(var) {
                d = format!("_Thread_local {d}");
            }
            if !self.owns(var.loc) {
                self.out.line(&format!("extern {d};"));
                continue;
            }
            match &var.init {
                Some(init) => {
                    let i = self.init(init, Some(&var.ty));
                    self.out.line(&format!("{d} = {i};"));
                }
                None => self.out.line(&format!("{d};")),
            }
        }
        // (thread ids of spawns: with the first file's definitions)
        let ext = if self.unit.is_some_and(|(k, _)| k != 0) { "extern " } else { "" };
        for t in self.spawn_tid_order.clone() {
            self.out.line(&format!("{ext}pthread_t {t};"));
        }
    }

    // ---------------------------------------------------------------------- functions

    fn print_function(&mut self, fid: FuncId) {
        let prog = self.prog;
        let f = prog.func(fid);
        let body = f.body.as_ref().expect("defined function");

        // File-scope names this function refers to: its locals must not hide them, since
        // they are all declared at the top of the body.
        let mut taken = reserved_file_scope();
        let note_expr = |e: &Expr, taken: &mut HashSet<String>| {
            e.visit(&mut |e| match e.kind {
                ExprKind::Var(v) => {
                    if let Some(n) = self.global_names.get(&v) {
                        taken.insert(n.clone());
                    }
                }
                ExprKind::FuncAddr(g) => {
                    taken.insert(self.func_name(g));
                }
                _ => {}
            })
        };
        walk_stmts(body, &mut |s| {
            for_each_expr(s, &mut |e| note_expr(e, &mut taken));
            if let StmtKind::Call {
                callee: Callee::Direct(g),
                ..
            } = &s.kind
            {
                taken.insert(self.func_name(*g));
            }
            if let Some(t) = self.spawn_tids.get(&(s as *const Stmt)) {
                taken.insert(t.clone());
            }
        });
        let owned: Vec<VarId> = self
            .owned
            .get(&fid)
            .map(|vs| {
                vs.iter()
                    .copied()
                    .filter(|v| !f.params.contains(v))
                    .collect()
            })
            .unwrap_or_default();
        for &v in &owned {
            if let Some(init) = &prog.var(v).init {
                init_exprs(init, &mut |e| note_expr(e, &mut taken));
            }
        }
        self.locals.clear();
        let mut param_names = Vec::new();
        for &p in &f.params {
            let n = unique(sanitize(&prog.var(p).name), &mut taken);
            self.locals.insert(p, n.clone());
            param_names.push(n);
        }
        // A definition needs a name for every parameter, even one the IR has no variable for.
        for i in param_names.len()..f.ty.params.len() {
            param_names.push(unique(format!("__weakc_param{i}"), &mut taken));
        }
        for &v in &owned {
            let n = unique(sanitize(&prog.var(v).name), &mut taken);
            self.locals.insert(v, n);
        }

        // Labels.
        self.labels.clear();
        self.label_stmts.clear();
        self.label_taken.clear();
        self.loops.clear();
        self.next_continue = 0;
        walk_stmts(body, &mut |s| {
            if let StmtKind::Label(id, name) = &s.kind {
                let base = if name.trim().is_empty() {
                    format!("__weakc_label{}", id.0)
                } else {
                    sanitize(name)
                };
                let n = unique(base, &mut self.label_taken);
                self.labels.entry(*id).or_insert_with(|| n.clone());
                self.label_stmts.insert(s as *const Stmt, n);
            }
        });

        // Header: use the parameters' own types when they are known.
        let mut ft = f.ty.clone();
        for (i, &p) in f.params.iter().enumerate() {
            if let Some(t) = ft.params.get_mut(i) {
                *t = prog.var(p).ty.clone();
            }
        }
        self.out.blank();
        self.at(f.loc);
        let params = self.param_list(&ft, Some(&param_names));
        let head = self.decl(
            &ft.ret,
            &format!("{}({params})", self.func_names[fid.0 as usize]),
        );
        self.out.line(&head);
        self.out.line("{");
        self.out.indent += 1;
        for &v in &owned {
            let var = prog.var(v);
            // A temporary's declaration does nothing: no directive for it.
            if var.loc.line != 0 {
                self.at(var.loc);
            }
            let d = self.decl(&var.ty, &self.locals[&v]);
            match &var.init {
                Some(init) => {
                    let i = self.init(init, Some(&var.ty));
                    self.out.line(&format!("{d} = {i};"));
                }
                None => self.out.line(&format!("{d};")),
            }
        }
        self.block(body);
        self.out.indent -= 1;
        self.out.line("}");
        self.locals.clear();
    }
}

/// The attribute that gives field `j` of `sd` the alignment layout attributes gave it (GCC
/// lowers a member's alignment only with `packed`; a bit-field takes no `aligned`).
fn field_attribute(sd: &StructDef, j: usize) -> String {
    let Some(f) = sd.packing.as_ref().and_then(|p| p.fields.get(j)) else { return String::new() };
    let bit = sd.bitfields.get(j).is_some_and(Option::is_some);
    match (f.actual.cmp(&f.natural), bit) {
        (std::cmp::Ordering::Equal, _) => String::new(),
        (std::cmp::Ordering::Less, true) => " __attribute__((packed))".into(),
        (std::cmp::Ordering::Less, false) if f.actual == 1 => " __attribute__((packed))".into(),
        (std::cmp::Ordering::Less, false) => format!(" __attribute__((packed, aligned({})))", f.actual),
        (std::cmp::Ordering::Greater, _) => format!(" __attribute__((aligned({})))", f.actual),
    }
}
