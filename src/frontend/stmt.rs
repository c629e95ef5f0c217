//! Statements and local declarations.

use super::expr::negate;
use super::lower::{field_children, named_children, Ctx, Lowerer, Ord, R};
use super::types::{declarator_name, is_prototyped, storage_flags};
use crate::ir::*;
use crate::source::Error;
use tree_sitter::Node;

impl<'t> Lowerer<'t> {
    fn fs_mut(&mut self) -> &mut super::lower::FnState {
        self.fs.as_mut().expect("inside a function")
    }

    /// Lowers statement `n` into the current block.
    pub fn stmt(&mut self, n: Node<'t>) -> R<()> {
        self.nested(n, |l| l.stmt_inner(n))
    }

    fn stmt_inner(&mut self, n: Node<'t>) -> R<()> {
        let loc = self.loc(n);
        match n.kind() {
            "compound_statement" => {
                let b = self.block_of(n)?;
                self.emit(StmtKind::Block(b), loc);
                Ok(())
            }
            "declaration" => self.local_declaration(n),
            "type_definition" => self.type_definition(n),
            "struct_specifier" | "union_specifier" | "enum_specifier" => self.spec_type(n, n).map(|_| ()),
            "expression_statement" => match named_children(n).into_iter().next() {
                Some(e) => self.effect(e),
                None => Ok(()),
            },
            "if_statement" => {
                let cn = n.child_by_field_name("condition").ok_or_else(|| self.syntax_err(n))?;
                let c = self.rvalue(cn)?;
                let then_ = self.block_of(n.child_by_field_name("consequence").ok_or_else(|| self.syntax_err(n))?)?;
                let else_ = match n.child_by_field_name("alternative") {
                    Some(alt) => {
                        let s = named_children(alt).into_iter().next().ok_or_else(|| self.syntax_err(alt))?;
                        self.block_of(s)?
                    }
                    None => Vec::new(),
                };
                self.emit_if(c, then_, else_, loc);
                Ok(())
            }
            "while_statement" => {
                let cn = n.child_by_field_name("condition").ok_or_else(|| self.syntax_err(n))?;
                let body = n.child_by_field_name("body").ok_or_else(|| self.syntax_err(n))?;
                self.push_block();
                let r = (|| {
                    self.loop_test(cn)?;
                    self.loop_body(body)
                })();
                let b = self.pop_block();
                r?;
                self.emit(StmtKind::Loop { body: b, latch: vec![] }, loc);
                Ok(())
            }
            "do_statement" => {
                let cn = n.child_by_field_name("condition").ok_or_else(|| self.syntax_err(n))?;
                let body = n.child_by_field_name("body").ok_or_else(|| self.syntax_err(n))?;
                self.push_block();
                let r = self.loop_body(body);
                let b = self.pop_block();
                r?;
                self.push_block();
                let r = self.loop_test(cn);
                let latch = self.pop_block();
                r?;
                self.emit(StmtKind::Loop { body: b, latch }, loc);
                Ok(())
            }
            "for_statement" => {
                self.scopes.push(Default::default());
                let r = self.for_loop(n);
                self.scopes.pop();
                r
            }
            "break_statement" | "continue_statement" => {
                let brk = n.kind() == "break_statement";
                let mut through_goto_loop = false;
                let mut k = None;
                for c in self.fs_mut().ctx.iter().rev() {
                    match c {
                        Ctx::Switch(end) if brk => {
                            k = Some(StmtKind::Goto(*end));
                            break;
                        }
                        Ctx::Switch(_) => {}
                        Ctx::GotoLoop(_) => through_goto_loop = true,
                        Ctx::Loop => {
                            k = Some(if brk { StmtKind::Break } else { StmtKind::Continue });
                            break;
                        }
                    }
                }
                let word = if brk { "break" } else { "continue" };
                match k {
                    None if brk => return Err(Error::syntax(loc, "`break` outside a loop or switch")),
                    None => return Err(Error::syntax(loc, "`continue` outside a loop")),
                    Some(StmtKind::Goto(end)) => self.emit(StmtKind::Goto(end), loc),
                    Some(j) if !through_goto_loop => self.emit(j, loc),
                    Some(_) => {
                        return Err(Error::unsupported(loc, format!("`{word}` crossing a loop formed by a backward goto")));
                    }
                }
                Ok(())
            }
            "return_statement" => {
                let ret = self.fs_mut().ret.clone();
                match named_children(n).into_iter().next() {
                    None => self.emit(StmtKind::Return(None), loc),
                    Some(e) if ret == Type::Void => {
                        self.effect(e)?;
                        self.emit(StmtKind::Return(None), loc);
                    }
                    Some(e) => {
                        let v = self.rvalue(e)?;
                        let v = self.conv(v, &ret);
                        self.emit(StmtKind::Return(Some(v)), loc);
                    }
                }
                Ok(())
            }
            "goto_statement" => {
                let l = n.child_by_field_name("label").ok_or_else(|| self.syntax_err(n))?;
                let name = self.text(l);
                let found = self.fs_mut().labels.get(name).copied();
                let (id, pos) =
                    found.ok_or_else(|| Error::syntax(self.loc(l), format!("label `{name}` is not defined in this function")))?;
                if pos < n.start_byte() {
                    return self.backward_goto(n, name);
                }
                self.emit(StmtKind::Goto(id), loc);
                Ok(())
            }
            "labeled_statement" => self.labeled(n),
            "switch_statement" => self.switch(n),
            "case_statement" => Err(Error::unsupported(loc, "`case` label nested inside a statement of the switch body")),
            "attributed_statement" => {
                for c in named_children(n) {
                    if c.kind() != "attribute_declaration" {
                        self.stmt(c)?;
                    }
                }
                Ok(())
            }
            "function_definition" => Err(Error::unsupported(loc, "nested function definition")),
            "ERROR" => Err(self.syntax_err(n)),
            k if k.starts_with("preproc_") => Ok(()),
            k => Err(Error::unsupported(loc, format!("statement `{}` ({})", self.text(n).lines().next().unwrap_or(""), k.replace('_', " ")))),
        }
    }

    /// Lowers a list of statements (a block's items). A label that later statements of the
    /// list jump back to starts a loop: `L: s1; …; goto L; …` becomes
    /// `loop { L: s1; …; continue; …; break; }`.
    pub fn stmts(&mut self, items: &[Node<'t>]) -> R<()> {
        for (i, &it) in items.iter().enumerate() {
            if it.kind() == "labeled_statement" {
                if let Some(l) = it.child_by_field_name("label") {
                    let name = self.text(l);
                    if !name.starts_with("__CPROVER_ASYNC_") && has_goto_to(&items[i..], self.src, name, it.start_byte()) {
                        return self.goto_loop(name.to_string(), &items[i..]);
                    }
                }
            }
            self.stmt(it)?;
        }
        Ok(())
    }

    fn goto_loop(&mut self, name: String, region: &[Node<'t>]) -> R<()> {
        let loc = self.loc(region[0]);
        let k = {
            let fs = self.fs_mut();
            fs.goto_loops.push(name);
            let k = fs.goto_loops.len() - 1;
            fs.ctx.push(Ctx::GotoLoop(k));
            fs.depth += 1;
            k
        };
        let _ = k;
        self.push_block();
        let r = self.stmt(region[0]).and_then(|_| self.stmts(&region[1..]));
        let mut body = self.pop_block();
        {
            let fs = self.fs_mut();
            fs.depth -= 1;
            fs.ctx.pop();
        }
        r?;
        body.push(Stmt::new(StmtKind::Break, loc));
        self.emit(StmtKind::Loop { body, latch: vec![] }, loc);
        Ok(())
    }

    /// A backward `goto`: `continue` of the loop its label started, or (for a label whose
    /// statement ends the path, like SV-COMP's `ERROR: { reach_error(); abort(); }`) a copy of
    /// that statement. Anything else is unsupported.
    fn backward_goto(&mut self, n: Node<'t>, name: &str) -> R<()> {
        let loc = self.loc(n);
        let mut blocked = false;
        let mut found = false;
        {
            let fs = self.fs.as_ref().expect("fn state");
            for c in fs.ctx.iter().rev() {
                match c {
                    Ctx::GotoLoop(k) if fs.goto_loops[*k] == name => {
                        found = true;
                        break;
                    }
                    Ctx::GotoLoop(_) | Ctx::Loop => blocked = true,
                    Ctx::Switch(_) => {}
                }
            }
        }
        if found && !blocked {
            self.emit(StmtKind::Continue, loc);
            return Ok(());
        }
        if let Some(target) = self.label_nodes.get(name).copied() {
            let l = target.child_by_field_name("label");
            if let Some(inner) = named_children(target).into_iter().find(|c| Some(c.id()) != l.map(|l| l.id())) {
                self.push_block();
                let r = self.stmt(inner);
                let b = self.pop_block();
                if r.is_ok() && ends_path(&b) {
                    let copy = match <[Stmt; 1]>::try_from(b) {
                        Ok([s]) if matches!(s.kind, StmtKind::Block(_)) => s.kind,
                        Ok([s]) => StmtKind::Block(vec![s]),
                        Err(b) => StmtKind::Block(b),
                    };
                    self.emit(copy, loc);
                    return Ok(());
                }
            }
        }
        let why = if found { " from inside a nested loop" } else { "" };
        Err(Error::unsupported(loc, format!("backward goto to `{name}`{why} (only forward gotos and gotos back to a label of an enclosing block are supported)")))
    }

    /// Lowers a statement into a new block in its own scope (nested one level deeper).
    pub fn block_of(&mut self, n: Node<'t>) -> R<Block> {
        self.scopes.push(Default::default());
        self.fs_mut().depth += 1;
        self.push_block();
        let r = if n.kind() == "compound_statement" {
            self.stmts(&named_children(n))
        } else {
            self.stmt(n)
        };
        let b = self.pop_block();
        self.fs_mut().depth -= 1;
        self.scopes.pop();
        r.map(|_| b)
    }

    /// `if (!c) break;` (nothing for a constant true condition).
    fn loop_test(&mut self, cn: Node<'t>) -> R<()> {
        let c = self.rvalue(cn)?;
        if let ExprKind::Const(v) = c.kind {
            if v != 0 {
                return Ok(());
            }
        }
        let loc = self.loc(cn);
        self.emit(StmtKind::If { cond: negate(c), then_: vec![Stmt::new(StmtKind::Break, loc)], else_: vec![] }, loc);
        Ok(())
    }

    /// A loop body (its statements go into the current block).
    fn loop_body(&mut self, body: Node<'t>) -> R<()> {
        self.fs_mut().ctx.push(Ctx::Loop);
        let r = self.block_of(body);
        self.fs_mut().ctx.pop();
        let b = r?;
        if let Some(fs) = self.fs.as_mut() {
            fs.blocks.last_mut().expect("block").extend(b);
        }
        Ok(())
    }

    fn for_loop(&mut self, n: Node<'t>) -> R<()> {
        let loc = self.loc(n);
        if let Some(init) = n.child_by_field_name("initializer") {
            if init.kind() == "declaration" {
                self.local_declaration(init)?;
            } else {
                self.effect(init)?;
            }
        }
        let body = n.child_by_field_name("body").ok_or_else(|| self.syntax_err(n))?;
        self.push_block();
        let r = (|| {
            if let Some(c) = n.child_by_field_name("condition") {
                self.loop_test(c)?;
            }
            self.loop_body(body)
        })();
        let b = self.pop_block();
        r?;
        self.push_block();
        let r = match n.child_by_field_name("update") {
            Some(u) => self.effect(u),
            None => Ok(()),
        };
        let latch = self.pop_block();
        r?;
        self.emit(StmtKind::Loop { body: b, latch }, loc);
        Ok(())
    }

    fn labeled(&mut self, n: Node<'t>) -> R<()> {
        let l = n.child_by_field_name("label").ok_or_else(|| self.syntax_err(n))?;
        let name = self.text(l).to_string();
        let inner = named_children(n).into_iter().find(|c| c.id() != l.id());
        if name.starts_with("__CPROVER_ASYNC_") {
            let call = inner
                .filter(|s| s.kind() == "expression_statement")
                .and_then(|s| named_children(s).into_iter().next())
                .map(super::expr::strip_parens)
                .filter(|c| c.kind() == "call_expression")
                .ok_or_else(|| self.unsupported(n, format!("`{name}:` must label a function call")))?;
            return self.async_spawn(call);
        }
        let found = self.fs_mut().labels.get(&name).copied();
        let (id, _) = found.ok_or_else(|| self.syntax_err(l))?;
        self.emit(StmtKind::Label(id, name), self.loc(l));
        match inner {
            Some(s) => self.stmt(s),
            None => Ok(()),
        }
    }

    /// CBMC's `__CPROVER_ASYNC_n: f(arg);`.
    fn async_spawn(&mut self, call: Node<'t>) -> R<()> {
        let loc = self.loc(call);
        let fnode = call.child_by_field_name("function").ok_or_else(|| self.syntax_err(call))?;
        let args = call.child_by_field_name("arguments").map(named_children).unwrap_or_default();
        if args.len() > 1 {
            return Err(self.unsupported(call, "a thread started with `__CPROVER_ASYNC` takes at most one argument"));
        }
        let func = self.rvalue(fnode)?;
        let is_fn = matches!(func.kind, ExprKind::FuncAddr(_)) || matches!(&func.ty, Type::Ptr(p) if matches!(**p, Type::Func(_)));
        if !is_fn {
            return Err(Error::syntax(self.loc(fnode), format!("`{}` is not a function", self.text(fnode))));
        }
        let vp = Type::ptr_to(Type::Void);
        let arg = match args.first() {
            Some(a) => {
                let v = self.rvalue(*a)?;
                self.conv(v, &vp)
            }
            None => Expr::new(ExprKind::Const(0), vp),
        };
        self.emit(StmtKind::Spawn { tid: None, func, arg }, loc);
        Ok(())
    }

    fn switch(&mut self, n: Node<'t>) -> R<()> {
        let loc = self.loc(n);
        let cn = n.child_by_field_name("condition").ok_or_else(|| self.syntax_err(n))?;
        let body = n.child_by_field_name("body").ok_or_else(|| self.syntax_err(n))?;
        let v = self.rvalue(cn)?;
        if !v.ty.is_integral() {
            return Err(Error::syntax(self.loc(cn), "switch on a non-integer value"));
        }
        let ty = super::types::promote(&v.ty);
        let v = self.conv(v, &ty);
        let t = self.new_temp(ty.clone(), cn)?;
        let tv = Expr::var(t, ty.clone());
        self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: v }, self.loc(cn));
        let items = named_children(body);
        let end = self.fresh_label();
        let mut case_labels = Vec::new();
        let mut default = None;
        for (k, item) in items.iter().enumerate() {
            if item.kind() != "case_statement" {
                continue;
            }
            let id = self.fresh_label();
            match item.child_by_field_name("value") {
                Some(vn) => {
                    let c = self.const_eval(vn)?;
                    let c = super::types::wrap(c, &ty);
                    let cond = Expr::new(
                        ExprKind::Binary(BinOp::Eq, Box::new(tv.clone()), Box::new(Expr::new(ExprKind::Const(c), ty.clone()))),
                        Type::INT,
                    );
                    let l = self.loc(*item);
                    self.emit(StmtKind::If { cond, then_: vec![Stmt::new(StmtKind::Goto(id), l)], else_: vec![] }, l);
                    case_labels.push((k, id, format!("__weakc_case{}", id.0)));
                }
                None => {
                    default = Some(id);
                    case_labels.push((k, id, format!("__weakc_default{}", id.0)));
                }
            }
        }
        self.emit(StmtKind::Goto(default.unwrap_or(end)), loc);
        self.fs_mut().ctx.push(Ctx::Switch(end));
        self.scopes.push(Default::default());
        self.fs_mut().depth += 1;
        let r = (|| {
            for (k, item) in items.iter().enumerate() {
                if item.kind() != "case_statement" {
                    self.stmt(*item)?;
                    continue;
                }
                let (_, id, name) = case_labels.iter().find(|c| c.0 == k).cloned().expect("case label");
                self.emit(StmtKind::Label(id, name), self.loc(*item));
                let value = item.child_by_field_name("value").map(|v| v.id());
                for s in named_children(*item) {
                    if Some(s.id()) != value {
                        self.stmt(s)?;
                    }
                }
            }
            Ok(())
        })();
        self.fs_mut().depth -= 1;
        self.scopes.pop();
        self.fs_mut().ctx.pop();
        r?;
        self.emit(StmtKind::Label(end, format!("__weakc_switch_end{}", end.0)), loc);
        Ok(())
    }

    /// A declaration inside a function.
    pub fn local_declaration(&mut self, n: Node<'t>) -> R<()> {
        let tnode = n.child_by_field_name("type").ok_or_else(|| self.syntax_err(n))?;
        let flags = storage_flags(self, n);
        if tnode.kind() == "type_identifier" && self.text(tnode) == "__auto_type" && !self.is_typedef_name("__auto_type") {
            return self.auto_type_declaration(n);
        }
        let base = self.spec_type(tnode, n)?;
        for d in field_children(n, "declarator") {
            let (decl, init) = if d.kind() == "init_declarator" {
                (d.child_by_field_name("declarator").unwrap_or(d), d.child_by_field_name("value"))
            } else {
                (d, None)
            };
            let Some(name_node) = declarator_name(decl) else { continue };
            let name = self.text(name_node).to_string();
            self.vla_sizes = Some(Vec::new());
            let r = self.declarator(base.clone(), decl);
            let vla = self.vla_sizes.take().unwrap_or_default();
            let (_, ty) = r?;
            let loc = self.loc(name_node);
            if !vla.is_empty() {
                self.vla_local(&name, ty, &vla, loc, d)?;
                continue;
            }
            if let Type::Func(ft) = ty {
                let proto = is_prototyped(decl);
                self.declare_function(&name, Ok(*ft), proto, None, loc, false);
                continue;
            }
            if flags.is_extern {
                self.declare_global(&name, ty, None, loc, flags.is_thread, false, d.start_byte());
                continue;
            }
            if flags.is_static || flags.is_thread {
                self.static_local(&name, ty, init, loc, flags.is_thread, d)?;
                continue;
            }
            if let Type::Struct(id) = &ty {
                if !self.prog.structs[id.0 as usize].complete {
                    return Err(Error::syntax(loc, format!("variable `{name}` has incomplete type")));
                }
            }
            let v = self.new_local(&name, ty.clone(), loc, true);
            if super::types::declares_atomic(self, n, d) {
                self.prog.atomic_vars.push(v);
            }
            let lv = Expr::var(v, ty.clone());
            match init {
                Some(init) => {
                    if init.kind() == "initializer_list" || matches!(ty, Type::Array(..)) {
                        let (p, ty2) = self.build_init(&ty, init)?;
                        self.prog.vars[v.0 as usize].ty = ty2.clone();
                        let lv = Expr::var(v, ty2.clone());
                        self.local_init(&ty2, lv, &p, self.loc(d))?;
                    } else {
                        self.assign_into(lv, init, self.loc(d))?;
                    }
                }
                None => {
                    if matches!(ty, Type::Array(_, None)) {
                        return Err(Error::syntax(loc, format!("array `{name}` has no size")));
                    }
                    if ty.is_scalar() {
                        self.emit(StmtKind::Assign { lhs: lv, rhs: Expr::new(ExprKind::Nondet, ty) }, loc);
                    }
                }
            }
        }
        Ok(())
    }

    /// `__auto_type x = e, ...;`: each variable takes the type of its initialiser's value
    /// (after array and function decay, as GCC does), evaluated once, in order.
    fn auto_type_declaration(&mut self, n: Node<'t>) -> R<()> {
        let flags = storage_flags(self, n);
        if flags.is_static || flags.is_extern || flags.is_thread {
            return Err(self.unsupported(n, "`__auto_type` with a storage class"));
        }
        for d in field_children(n, "declarator") {
            let (Some(decl), Some(init)) = (d.child_by_field_name("declarator"), d.child_by_field_name("value")) else {
                return Err(Error::syntax(self.loc(d), "`__auto_type` needs an initialiser"));
            };
            if decl.kind() != "identifier" || init.kind() == "initializer_list" {
                return Err(self.unsupported(d, "`__auto_type` declares a plain variable with an expression initialiser"));
            }
            let e = self.rvalue(init)?;
            let ty = e.ty.clone();
            let loc = self.loc(decl);
            let name = self.text(decl).to_string();
            let v = self.new_local(&name, ty.clone(), loc, true);
            if super::types::specifiers_atomic(self, n) {
                self.prog.atomic_vars.push(v);
            }
            self.emit(StmtKind::Assign { lhs: Expr::var(v, ty), rhs: e }, self.loc(d));
        }
        Ok(())
    }

    /// A variable-length array `T a[n]`: a pointer `T *a` to `__builtin_alloca(n * sizeof(T))`
    /// (indexing and decay behave the same; `sizeof a` does not).
    fn vla_local(&mut self, name: &str, ty: Type, sizes: &[Node<'t>], loc: crate::source::Loc, at: Node<'t>) -> R<()> {
        let elem = match &ty {
            Type::Array(e, None) if sizes.len() == 1 && !has_unknown_array(e) => (**e).clone(),
            _ => return Err(Error::unsupported(loc, format!("variable-length array `{name}` with more than one variable dimension"))),
        };
        if !matches!(ty, Type::Array(..)) {
            return Err(Error::unsupported(loc, format!("pointer to a variable-length array (`{name}`)")));
        }
        let (esize, _) = self.size_align(&elem, at)?;
        let n = self.rvalue(sizes[0])?;
        let n = self.conv(n, &Type::ULONG);
        let bytes = self.arith(BinOp::Mul, n, Expr::new(ExprKind::Const(esize as i128), Type::ULONG), at)?;
        let vp = Type::ptr_to(Type::Void);
        let alloca = match self.scopes[0].ords.get("__builtin_alloca").cloned() {
            Some(Ord::Func(i)) => i,
            _ => {
                let ft = FuncType { ret: vp.clone(), params: vec![Type::ULONG], variadic: false };
                self.declare_function("__builtin_alloca", Ok(ft), true, None, loc, true)
            }
        };
        let f = self.func_id(alloca, at)?;
        let pty = Type::ptr_to(elem);
        let v = self.new_local(name, pty.clone(), loc, true);
        let t = self.new_temp(vp.clone(), at)?;
        self.emit(StmtKind::Call { dest: Some(Expr::var(t, vp.clone())), callee: Callee::Direct(f), args: vec![bytes] }, loc);
        let rhs = self.conv(Expr::var(t, vp), &pty);
        self.emit(StmtKind::Assign { lhs: Expr::var(v, pty), rhs }, loc);
        Ok(())
    }

    /// A `static` local: a global named `func$name`.
    fn static_local(&mut self, name: &str, ty: crate::ir::Type, init: Option<Node<'t>>, loc: crate::source::Loc, thread: bool, at: Node<'t>) -> R<()> {
        let fname = self.fs_mut().name.clone();
        let mut gname = format!("{fname}${name}");
        let mut k = 1;
        while self.prog.vars.iter().any(|v| v.name == gname && !matches!(v.storage, Storage::Local { .. } | Storage::Temp { .. })) {
            gname = format!("{fname}${name}${k}");
            k += 1;
        }
        let storage = if thread { Storage::ThreadLocal } else { Storage::Global };
        let id = self.prog.add_var(Var { name: gname, ty: ty.clone(), storage, init: None, address_taken: false, loc });
        self.bind_ord(name, Ord::Var(id));
        self.global_order.insert(id, at.start_byte());
        if let Some(init) = init {
            let saved = self.fs.take();
            let r = self.static_init(&ty, init);
            self.fs = saved;
            let (init, ty) = r?;
            let v = &mut self.prog.vars[id.0 as usize];
            v.init = Some(init);
            v.ty = ty;
        }
        Ok(())
    }
}

/// Whether a `goto name` appears in `items` after byte `after`.
fn has_goto_to(items: &[Node], src: &str, name: &str, after: usize) -> bool {
    let mut stack: Vec<Node> = items.to_vec();
    while let Some(n) = stack.pop() {
        if n.kind() == "goto_statement" && n.start_byte() > after {
            if let Some(l) = n.child_by_field_name("label") {
                if src.get(l.byte_range()) == Some(name) {
                    return true;
                }
            }
        }
        stack.extend(named_children(n));
    }
    false
}

/// A block that never completes normally and holds no jumps, labels or variables: safe to
/// duplicate.
fn ends_path(b: &[Stmt]) -> bool {
    let mut clean = true;
    walk_stmts(b, &mut |s| {
        let ok = match &s.kind {
            StmtKind::Label(..) | StmtKind::Goto(_) | StmtKind::Break | StmtKind::Continue | StmtKind::Loop { .. } => false,
            StmtKind::Assert { cond, .. } | StmtKind::Assume(cond) => matches!(cond.kind, ExprKind::Const(_)),
            StmtKind::Return(e) => e.as_ref().map(|e| matches!(e.kind, ExprKind::Const(_))).unwrap_or(true),
            StmtKind::Block(_) | StmtKind::Skip | StmtKind::Fence(_) => true,
            StmtKind::Call { dest: None, args, .. } => args.iter().all(|a| matches!(a.kind, ExprKind::Const(_) | ExprKind::Str(_))),
            _ => false,
        };
        clean &= ok;
    });
    fn last_ends(b: &[Stmt]) -> bool {
        match b.last().map(|s| &s.kind) {
            Some(StmtKind::Assume(Expr { kind: ExprKind::Const(0), .. })) | Some(StmtKind::Return(_)) => true,
            Some(StmtKind::Block(inner)) => last_ends(inner),
            _ => false,
        }
    }
    clean && last_ends(b)
}

fn has_unknown_array(t: &Type) -> bool {
    match t {
        Type::Array(_, None) => true,
        Type::Array(e, _) => has_unknown_array(e),
        _ => false,
    }
}
