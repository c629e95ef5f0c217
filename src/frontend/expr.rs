//! Expressions: CST → side-effect-free [`Expr`] plus statements emitted before it.

use super::lower::{named_children, Lowerer, Ord, R};
use super::types::{promote, typedesc_base, typedesc_ident, usual_arith, wrap};
use crate::ir::*;
use crate::source::{Error, Loc};
use tree_sitter::Node;

/// Where the value of a call-like expression goes.
#[derive(Clone, Debug)]
pub(super) enum Dest {
    /// Evaluated for its effects only.
    Discard,
    /// The value is needed as an expression.
    Value,
    /// The value is stored into this lvalue.
    Into(Expr),
}

pub(super) enum Number {
    Int(i128, Type),
    Float(String, Type),
}

/// Parses a C number literal (decimal, hex, octal, binary; `u`/`l` suffixes; floats).
pub(super) fn parse_number(s: &str) -> Option<Number> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix('-') {
        return match parse_number(rest)? {
            Number::Int(v, ty) => Some(Number::Int(wrap(v.wrapping_neg(), &ty), ty)),
            Number::Float(f, ty) => Some(Number::Float(format!("-{f}"), ty)),
        };
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    let t = s.replace('\'', "");
    let lower = t.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = if is_hex { lower.contains('p') } else { lower.contains('.') || lower.contains('e') };
    if is_float || (!is_hex && lower.ends_with('f') && !lower.starts_with("0b")) {
        let bits = if lower.ends_with('f') {
            32
        } else if lower.ends_with('l') {
            128
        } else {
            64
        };
        return Some(Number::Float(t.to_string(), Type::Float { bits }));
    }
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let suffix = &lower[digits_end..];
    let body = &lower[..digits_end];
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = body.strip_prefix("0b") {
        (2, b)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let v = u128::from_str_radix(digits, radix).ok()? as i128;
    let unsigned = suffix.contains('u');
    let long = suffix.contains('l');
    let ty = if unsigned {
        if !long && v <= u32::MAX as i128 {
            Type::UINT
        } else {
            Type::ULONG
        }
    } else if long {
        if v <= i64::MAX as i128 || radix == 10 {
            Type::LONG
        } else {
            Type::ULONG
        }
    } else if v <= i32::MAX as i128 {
        Type::INT
    } else if radix != 10 && v <= u32::MAX as i128 {
        Type::UINT
    } else if v <= i64::MAX as i128 || radix == 10 {
        Type::LONG
    } else {
        Type::ULONG
    };
    Some(Number::Int(v, ty))
}

/// Decodes the escapes of the text between quotes.
fn unescape(body: &str) -> Vec<u8> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                let mut k = 0;
                while k < 2 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    k += 1;
                }
                out.push(v as u8);
            }
            b'x' => {
                let mut v = 0u32;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v.wrapping_mul(16) + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                }
                out.push(v as u8);
            }
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' => out.push(27),
            other => out.push(other),
        }
    }
    out
}

/// The value of a character constant (an `int`: a single byte goes through plain `char`,
/// signed or not as `char_signed` says, as GCC converts it).
pub(super) fn char_value(s: &str, char_signed: bool) -> Option<i128> {
    let start = s.find('\'')?;
    let body = s.get(start + 1..s.len().checked_sub(1)?)?;
    let bytes = unescape(body);
    if bytes.len() == 1 && start == 0 {
        return Some(if char_signed { bytes[0] as i8 as i128 } else { bytes[0] as i128 });
    }
    // Multi-character or wide constants: gcc's value.
    if start > 0 {
        return body.chars().next().map(|c| c as i128);
    }
    Some(bytes.iter().fold(0i128, |a, &c| (a << 8) | c as i128))
}

/// Bytes of a string literal node's text (one literal, with its quotes and prefix).
pub(super) fn string_bytes(s: &str) -> Vec<u8> {
    let start = s.find('"').map(|i| i + 1).unwrap_or(0);
    let end = s.rfind('"').unwrap_or(s.len()).max(start);
    unescape(&s[start..end])
}

/// `v`, a value of a bit-field of `width` (`None`: not a bit-field), as a read of the field
/// gives it ([`Lowerer::read_bitfield`]'s promotion): for the value of an assignment to it or
/// of an increment of it.
fn as_read(width: Option<u32>, v: Expr) -> Expr {
    let ty = read_type(width, &v.ty);
    if ty == v.ty { v } else { Expr::new(ExprKind::Cast(Box::new(v)), ty) }
}

/// The type of a read of a bit-field of `width` declared `ty` (see [`as_read`]).
fn read_type(width: Option<u32>, ty: &Type) -> Type {
    match (width, ty) {
        // (GCC: a `long` or `long long` field of at most 32 bits too; wider ones keep
        // their type)
        (Some(w), Type::Int { .. }) if w < 32 => Type::INT,
        (Some(32), Type::Int { bits, signed }) if *bits > 32 => if *signed { Type::INT } else { Type::UINT },
        _ => ty.clone(),
    }
}

/// The value an assignment of `v` to a bit-field of `width` (`None`: not a bit-field) gives:
/// `v` itself, but cut to the width (`(s.f = 98)` with `int f : 6` is -30), as the field then
/// holds it.
fn assigned_value(width: Option<u32>, v: Expr) -> Expr {
    let Some(w) = width else { return v };
    let (bits, signed) = match &v.ty {
        Type::Int { bits, signed } if u32::from(*bits) > w => (u32::from(*bits), *signed),
        _ => return v,
    };
    let ty = v.ty.clone();
    let k = |c: i128| Box::new(Expr::new(ExprKind::Const(c), ty.clone()));
    if signed {
        // Sign-extend from bit w - 1: shift it to the top and back.
        let up = Expr::new(ExprKind::Binary(BinOp::Shl, Box::new(v), k(i128::from(bits - w))), ty.clone());
        Expr::new(ExprKind::Binary(BinOp::Shr, Box::new(up), k(i128::from(bits - w))), ty)
    } else {
        Expr::new(ExprKind::Binary(BinOp::BitAnd, Box::new(v), k((1i128 << w) - 1)), ty)
    }
}

pub(super) fn is_null_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(0) => true,
        ExprKind::Cast(inner) => e.ty.is_pointer() && is_null_const(inner),
        _ => false,
    }
}

/// The truth value of `e` as an `int` 0/1.
pub(super) fn truth(e: Expr) -> Expr {
    match &e.kind {
        ExprKind::Binary(op, _, _) if op.is_comparison() => e,
        ExprKind::Unary(UnOp::Not, _) => e,
        _ => {
            let zero = Expr::new(ExprKind::Const(0), e.ty.clone());
            Expr::new(ExprKind::Binary(BinOp::Ne, Box::new(e), Box::new(zero)), Type::INT)
        }
    }
}

/// `!e`, removing a double negation.
pub(super) fn negate(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Unary(UnOp::Not, inner) => truth(*inner),
        ExprKind::Const(v) => Expr::int((v == 0) as i128),
        kind => Expr::new(ExprKind::Unary(UnOp::Not, Box::new(Expr::new(kind, e.ty))), Type::INT),
    }
}

/// Folds a binary operation on two integer constants (C semantics, wrapped to the type).
fn fold(e: Expr) -> Expr {
    let ExprKind::Binary(op, a, b) = &e.kind else { return e };
    let (ExprKind::Const(x), ExprKind::Const(y)) = (&a.kind, &b.kind) else { return e };
    if !a.ty.is_integral() || !b.ty.is_integral() || !e.ty.is_integral() {
        return e;
    }
    let (x, y) = (*x, *y);
    let bits = match &a.ty {
        Type::Int { bits, .. } => *bits as i128,
        _ => 1,
    };
    use BinOp::*;
    let v = match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Div | Rem if y == 0 => return e,
        Div => x.wrapping_div(y),
        Rem => x.wrapping_rem(y),
        Shl | Shr if y < 0 || y >= bits => return e,
        Shl => x.wrapping_shl(y as u32),
        Shr => x >> y,
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Eq => (x == y) as i128,
        Ne => (x != y) as i128,
        Lt => (x < y) as i128,
        Le => (x <= y) as i128,
        Gt => (x > y) as i128,
        Ge => (x >= y) as i128,
        LogAnd => (x != 0 && y != 0) as i128,
        LogOr => (x != 0 || y != 0) as i128,
    };
    let ty = e.ty.clone();
    Expr::new(ExprKind::Const(wrap(v, &ty)), ty)
}

fn binop_of(op: &str) -> Option<BinOp> {
    use BinOp::*;
    Some(match op {
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "<<" => Shl,
        ">>" => Shr,
        "&" => BitAnd,
        "|" => BitOr,
        "^" => BitXor,
        "==" => Eq,
        "!=" => Ne,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "&&" => LogAnd,
        "||" => LogOr,
        _ => return None,
    })
}

/// A chain of binary operators grouped again (see `Lowerer::regroup_misparsed`).
enum Regrouped<'t> {
    /// The name tree-sitter took for a type (a `type_identifier` node).
    Name(Node<'t>),
    Leaf(Node<'t>),
    Binary(&'t str, Box<Regrouped<'t>>, Box<Regrouped<'t>>),
}

/// C's binding strength of a binary operator (higher binds tighter).
fn precedence(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | "<=" | ">" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => 0,
    }
}

/// Strips parentheses around an expression node.
pub(super) fn strip_parens(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match named_children(n).as_slice() {
            [inner] if inner.kind() != "compound_statement" => n = *inner,
            _ => break,
        }
    }
    n
}

impl<'t> Lowerer<'t> {
    /// Converts `e` to type `ty` (implicit or explicit conversion).
    pub fn conv(&self, e: Expr, ty: &Type) -> Expr {
        if &e.ty == ty {
            return e;
        }
        match (&e.kind, ty) {
            (_, Type::Void) | (_, Type::Struct(_)) | (_, Type::Array(..)) | (_, Type::Func(_)) => e,
            (ExprKind::Const(v), t) if t.is_integral() => Expr::new(ExprKind::Const(wrap(*v, t)), t.clone()),
            (ExprKind::Const(v), Type::Ptr(_)) => Expr::new(ExprKind::Const(*v), ty.clone()),
            _ => Expr::new(ExprKind::Cast(Box::new(e)), ty.clone()),
        }
    }

    /// Array-to-pointer decay (`a` → `&a[0]`).
    pub fn decay(&mut self, e: Expr) -> Expr {
        match &e.ty {
            Type::Array(t, _) => {
                let elem = (**t).clone();
                self.mark_address_taken(&e);
                let idx = Expr::new(ExprKind::Index(Box::new(e), Box::new(Expr::new(ExprKind::Const(0), Type::LONG))), elem.clone());
                Expr::new(ExprKind::AddrOf(Box::new(idx)), Type::ptr_to(elem))
            }
            _ => e,
        }
    }

    /// Whether evaluating `e` reads a global or memory through a pointer.
    pub fn reads_shared(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(v) => self.prog.vars[v.0 as usize].is_global(),
            ExprKind::Deref(_) => true,
            ExprKind::AddrOf(a) => self.addr_reads(a),
            ExprKind::Index(a, i) => self.reads_shared(a) || self.reads_shared(i),
            ExprKind::Member(a, _) | ExprKind::Unary(_, a) | ExprKind::Cast(a) => self.reads_shared(a),
            ExprKind::Binary(_, a, b) => self.reads_shared(a) || self.reads_shared(b),
            ExprKind::Cond(c, a, b) => self.reads_shared(c) || self.reads_shared(a) || self.reads_shared(b),
            ExprKind::Const(_) | ExprKind::FloatConst(_) | ExprKind::Str(_) | ExprKind::FuncAddr(_) | ExprKind::Nondet => false,
        }
    }

    fn addr_reads(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(_) => false,
            ExprKind::Deref(p) => self.reads_shared(p),
            ExprKind::Index(a, i) => self.addr_reads(a) || self.reads_shared(i),
            ExprKind::Member(a, _) => self.addr_reads(a),
            _ => self.reads_shared(e),
        }
    }

    /// Keeps left-to-right evaluation: when statements were emitted after `mark`, a value
    /// computed before them that reads memory is saved in a temporary at `mark`.
    pub fn spill(&mut self, e: Expr, mark: usize, at: Node) -> R<Expr> {
        if self.mark() <= mark || !self.reads_shared(&e) {
            return Ok(e);
        }
        let t = self.new_temp(e.ty.clone(), at)?;
        let ty = e.ty.clone();
        let loc = self.loc(at);
        let s = Stmt::new(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: e }, loc);
        if let Some(fs) = self.fs.as_mut() {
            let b = fs.blocks.last_mut().expect("block");
            b.insert(mark.min(b.len()), s);
        }
        Ok(Expr::var(t, ty))
    }

    /// Lowers a list of expressions left to right.
    pub fn rvalues(&mut self, nodes: &[Node<'t>]) -> R<Vec<Expr>> {
        let mut out: Vec<Expr> = Vec::new();
        for &n in nodes {
            let m = self.mark();
            let e = self.rvalue(n)?;
            if self.mark() > m {
                // Values computed before `n`'s statements must not see their effects.
                let mut pos = m;
                for prev in out.iter_mut() {
                    if self.reads_shared(prev) {
                        let old = std::mem::replace(prev, Expr::int(0));
                        *prev = self.spill_at(old, pos, n)?;
                        pos += 1;
                    }
                }
            }
            out.push(e);
        }
        Ok(out)
    }

    /// Saves `e` into a temporary inserted at position `pos` of the current block.
    fn spill_at(&mut self, e: Expr, pos: usize, at: Node) -> R<Expr> {
        let t = self.new_temp(e.ty.clone(), at)?;
        let ty = e.ty.clone();
        let loc = self.loc(at);
        let s = Stmt::new(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: e }, loc);
        if let Some(fs) = self.fs.as_mut() {
            let b = fs.blocks.last_mut().expect("block");
            b.insert(pos.min(b.len()), s);
        }
        Ok(Expr::var(t, ty))
    }

    /// A value (arrays decayed to pointers).
    pub fn rvalue(&mut self, n: Node<'t>) -> R<Expr> {
        let e = self.value(n)?;
        let e = self.decay(e);
        Ok(self.read_bitfield(e))
    }

    /// The declared width of the bit-field `e` designates, if it is one.
    fn bitfield_width(&self, e: &Expr) -> Option<u32> {
        let ExprKind::Member(inner, idx) = &e.kind else { return None };
        let Type::Struct(s) = &inner.ty else { return None };
        self.prog.strukt(*s).bitfield(*idx).map(|b| b.width)
    }

    /// A bit-field read as C promotes it (C11 6.3.1.1p2): one narrower than `int` — an
    /// `unsigned` one included, whose values all fit — is an `int`; so, as GCC has it, is
    /// a `long` one of up to 32 bits (`unsigned long f : 32` an `unsigned int`).
    fn read_bitfield(&self, e: Expr) -> Expr {
        let width = self.bitfield_width(&e);
        as_read(width, e)
    }

    /// An lvalue expression (`Var`, `Deref`, `Index`, `Member`).
    pub fn lvalue(&mut self, n: Node<'t>) -> R<Expr> {
        let e = self.value(n)?;
        match e.kind {
            ExprKind::Var(_) | ExprKind::Deref(_) | ExprKind::Index(..) | ExprKind::Member(..) => Ok(e),
            _ => Err(Error::syntax(self.loc(n), format!("`{}` is not assignable", self.text(n)))),
        }
    }

    /// The value of `n` without array decay.
    pub fn value(&mut self, n: Node<'t>) -> R<Expr> {
        self.nested(n, |l| l.value_inner(n))
    }

    fn value_inner(&mut self, n: Node<'t>) -> R<Expr> {
        match n.kind() {
            "parenthesized_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| self.syntax_err(n))?;
                if inner.kind() == "compound_statement" {
                    return self.stmt_expr(inner, true);
                }
                self.value(inner)
            }
            "identifier" => self.ident(n),
            "number_literal" => match parse_number(self.text(n)) {
                Some(Number::Int(v, ty)) => Ok(Expr::new(ExprKind::Const(v), ty)),
                Some(Number::Float(s, ty)) => Ok(Expr::new(ExprKind::FloatConst(s), ty)),
                None => Err(Error::syntax(self.loc(n), format!("bad number `{}`", self.text(n)))),
            },
            "char_literal" => {
                let v = char_value(self.text(n), self.char_signed).ok_or_else(|| Error::syntax(self.loc(n), "bad character constant"))?;
                Ok(Expr::int(v))
            }
            "string_literal" | "concatenated_string" => {
                let bytes = self.string_literal_bytes(n)?;
                Ok(Expr::new(ExprKind::Str(bytes), Type::ptr_to(self.plain_char())))
            }
            "true" => Ok(Expr::int(1)),
            "false" => Ok(Expr::int(0)),
            "null" => Ok(Expr::new(ExprKind::Const(0), Type::ptr_to(Type::Void))),
            "field_expression" => self.field(n),
            "subscript_expression" => self.subscript(n),
            "pointer_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let arg = n.child_by_field_name("argument").ok_or_else(|| self.syntax_err(n))?;
                if op == "&" {
                    return self.addr_of(arg);
                }
                let p = self.rvalue(arg)?;
                self.deref(p, n)
            }
            "unary_expression" => self.unary(n),
            "binary_expression" => self.binary(n),
            "conditional_expression" => self.conditional(n, true).map(|e| e.expect("value")),
            "assignment_expression" => self.assignment(n, true).map(|e| e.expect("value")),
            "update_expression" => self.update(n, true).map(|e| e.expect("value")),
            "call_expression" => Ok(self.call(n, Dest::Value)?.expect("value")),
            "cast_expression" => self.cast(n),
            "sizeof_expression" | "alignof_expression" | "offsetof_expression" => {
                let v = self.const_eval(n)?;
                Ok(Expr::new(ExprKind::Const(v), Type::ULONG))
            }
            "comma_expression" => {
                let l = n.child_by_field_name("left").ok_or_else(|| self.syntax_err(n))?;
                let r = n.child_by_field_name("right").ok_or_else(|| self.syntax_err(n))?;
                self.effect(l)?;
                self.value(r)
            }
            "compound_literal_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| self.syntax_err(n))?;
                let vn = n.child_by_field_name("value").ok_or_else(|| self.syntax_err(n))?;
                let ty = self.type_descriptor(tn)?;
                let (pinit, ty) = self.build_init(&ty, vn)?;
                let t = self.new_temp(ty.clone(), n)?;
                let lv = Expr::var(t, ty.clone());
                self.local_init(&ty, lv.clone(), &pinit, self.loc(n))?;
                Ok(lv)
            }
            "extension_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| self.syntax_err(n))?;
                self.value(inner)
            }
            "gnu_asm_expression" => Err(self.unsupported(n, "inline assembly used as a value")),
            "generic_expression" => Err(self.unsupported(n, "_Generic")),
            "initializer_list" => Err(self.unsupported(n, "braced initialiser used as an expression")),
            "ERROR" => Err(self.syntax_err(n)),
            k => Err(self.unsupported(n, format!("expression `{}` ({})", self.text(n), k.replace('_', " ")))),
        }
    }

    pub fn string_literal_bytes(&self, n: Node) -> R<Vec<u8>> {
        if n.kind() == "string_literal" {
            return Ok(string_bytes(self.text(n)));
        }
        let mut out = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "string_literal" => out.extend(string_bytes(self.text(c))),
                _ => return Err(self.unsupported(c, format!("`{}` in a string literal (macro not expanded?)", self.text(c)))),
            }
        }
        Ok(out)
    }

    fn ident(&mut self, n: Node<'t>) -> R<Expr> {
        let name = self.text(n);
        match self.lookup_ord(name).cloned() {
            Some(Ord::Var(v)) => Ok(Expr::var(v, self.prog.vars[v.0 as usize].ty.clone())),
            Some(Ord::Global(i)) => {
                let v = self.global_var(i, n)?;
                Ok(Expr::var(v, self.prog.vars[v.0 as usize].ty.clone()))
            }
            Some(Ord::Func(i)) => {
                let id = self.func_id(i, n)?;
                let ft = self.prog.funcs[id.0 as usize].ty.clone();
                Ok(Expr::new(ExprKind::FuncAddr(id), Type::ptr_to(Type::Func(Box::new(ft)))))
            }
            Some(Ord::Enum(v, ty)) => Ok(Expr::new(ExprKind::Const(v), ty)),
            Some(Ord::Typedef(_)) => Err(Error::syntax(self.loc(n), format!("type name `{name}` used as a value"))),
            Some(Ord::Poison(p)) => Err(self.poison_at_use(&p, n)),
            None => match super::builtins::builtin_constant(name) {
                Some(v) => Ok(Expr::int(v)),
                None => Err(Error::syntax(self.loc(n), format!("undeclared identifier `{name}`{}", self.header_note()))),
            },
        }
    }

    pub fn deref(&mut self, p: Expr, at: Node) -> R<Expr> {
        match &p.ty {
            Type::Ptr(t) if matches!(**t, Type::Func(_)) => Ok(p),
            Type::Ptr(t) => {
                let t = (**t).clone();
                Ok(Expr::new(ExprKind::Deref(Box::new(p)), t))
            }
            _ => Err(Error::syntax(self.loc(at), format!("`{}` is not a pointer", self.text(at)))),
        }
    }

    pub(super) fn addr_of(&mut self, arg: Node<'t>) -> R<Expr> {
        let e = self.value(arg)?;
        match e.kind {
            ExprKind::Deref(p) => {
                let ty = Type::ptr_to(e.ty);
                Ok(self.conv(*p, &ty))
            }
            ExprKind::FuncAddr(_) => Ok(e),
            ExprKind::Var(_) | ExprKind::Index(..) | ExprKind::Member(..) => {
                self.mark_address_taken(&e);
                let ty = Type::ptr_to(e.ty.clone());
                Ok(Expr::new(ExprKind::AddrOf(Box::new(e)), ty))
            }
            ExprKind::Str(_) => Ok(e),
            _ => Err(Error::syntax(self.loc(arg), format!("cannot take the address of `{}`", self.text(arg)))),
        }
    }

    fn field(&mut self, n: Node<'t>) -> R<Expr> {
        let arg = n.child_by_field_name("argument").ok_or_else(|| self.syntax_err(n))?;
        let fnode = n.child_by_field_name("field").ok_or_else(|| self.syntax_err(n))?;
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or(".");
        let base = if op == "->" {
            let p = self.rvalue(arg)?;
            self.deref(p, arg)?
        } else {
            self.value(arg)?
        };
        let Type::Struct(id) = base.ty else {
            return Err(Error::syntax(self.loc(arg), format!("`{}` is not a struct or union", self.text(arg))));
        };
        self.member(base, id, fnode)
    }

    pub fn member(&mut self, base: Expr, id: StructId, fnode: Node) -> R<Expr> {
        let name = self.text(fnode);
        if !self.prog.structs[id.0 as usize].complete {
            let tag = self.prog.structs[id.0 as usize].tag.clone();
            return Err(Error::syntax(self.loc(fnode), format!("`struct {tag}` is incomplete (no field `{name}`)")));
        }
        let path = self.field_path(id, name).ok_or_else(|| {
            Error::syntax(self.loc(fnode), format!("no field `{name}` in `{}`", self.prog.structs[id.0 as usize].tag))
        })?;
        let mut e = base;
        let mut cur = id;
        for i in path {
            let fty = self.prog.structs[cur.0 as usize].fields[i].ty.clone();
            if let Type::Struct(s) = fty {
                cur = s;
            }
            e = Expr::new(ExprKind::Member(Box::new(e), i), fty);
        }
        Ok(e)
    }

    fn subscript(&mut self, n: Node<'t>) -> R<Expr> {
        let an = n.child_by_field_name("argument").ok_or_else(|| self.syntax_err(n))?;
        let inode = n.child_by_field_name("index").ok_or_else(|| self.syntax_err(n))?;
        let a = self.value(an)?;
        let m = self.mark();
        let i = self.rvalue(inode)?;
        let a = if matches!(a.ty, Type::Array(..)) { a } else { self.spill(a, m, an)? };
        match &a.ty {
            Type::Array(t, _) => {
                let t = (**t).clone();
                if !i.ty.is_integral() {
                    return Err(Error::syntax(self.loc(inode), "array index is not an integer"));
                }
                Ok(Expr::new(ExprKind::Index(Box::new(a), Box::new(i)), t))
            }
            Type::Ptr(_) => {
                let p = self.arith(BinOp::Add, a, i, n)?;
                self.deref(p, n)
            }
            _ if i.ty.is_pointer() || matches!(i.ty, Type::Array(..)) => {
                let i = self.decay(i);
                let p = self.arith(BinOp::Add, i, a, n)?;
                self.deref(p, n)
            }
            _ => Err(Error::syntax(self.loc(an), format!("`{}` is not an array or pointer", self.text(an)))),
        }
    }

    fn unary(&mut self, n: Node<'t>) -> R<Expr> {
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
        let arg = n.child_by_field_name("argument").ok_or_else(|| self.syntax_err(n))?;
        let a = self.rvalue(arg)?;
        match op {
            "!" => Ok(match a.kind {
                ExprKind::Const(v) => Expr::int((v == 0) as i128),
                _ => Expr::new(ExprKind::Unary(UnOp::Not, Box::new(a)), Type::INT),
            }),
            "+" => {
                let ty = promote(&a.ty);
                Ok(self.conv(a, &ty))
            }
            "-" | "~" => {
                let ty = promote(&a.ty);
                if let ExprKind::Const(v) = a.kind {
                    let v = if op == "-" { v.wrapping_neg() } else { !v };
                    return Ok(Expr::new(ExprKind::Const(wrap(v, &ty)), ty));
                }
                if let (ExprKind::FloatConst(s), "-") = (&a.kind, op) {
                    // `-(-1.5)`: the sign flips (a second `-` would not parse).
                    let neg = s.strip_prefix('-').map_or_else(|| format!("-{s}"), str::to_string);
                    return Ok(Expr::new(ExprKind::FloatConst(neg), ty));
                }
                let a = self.conv(a, &ty);
                let u = if op == "-" { UnOp::Neg } else { UnOp::BitNot };
                Ok(Expr::new(ExprKind::Unary(u, Box::new(a)), ty))
            }
            _ => Err(self.unsupported(n, format!("operator `{op}`"))),
        }
    }

    fn binary(&mut self, n: Node<'t>) -> R<Expr> {
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
        let ln = n.child_by_field_name("left").ok_or_else(|| self.syntax_err(n))?;
        let rn = n.child_by_field_name("right").ok_or_else(|| self.syntax_err(n))?;
        if let Some(tree) = self.regroup_misparsed(n) {
            return self.lower_regrouped(&tree, n);
        }
        if op == "&&" || op == "||" {
            return self.logical(n, op == "&&", ln, rn);
        }
        let bop = binop_of(op).ok_or_else(|| self.unsupported(n, format!("operator `{op}`")))?;
        let l = self.rvalue(ln)?;
        let m = self.mark();
        let r = self.rvalue(rn)?;
        let l = self.spill(l, m, ln)?;
        self.arith(bop, l, r, n)
    }

    /// A binary operation on two lowered operands, with C's conversions.
    pub fn arith(&mut self, op: BinOp, l: Expr, r: Expr, at: Node) -> R<Expr> {
        use BinOp::*;
        let lp = l.ty.is_pointer();
        let rp = r.ty.is_pointer();
        let bad = |s: &Self| Error::syntax(s.loc(at), format!("invalid operands to `{}`", op.c_str()));
        let mk = |op, a: Expr, b: Expr, ty: Type| fold(Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty));
        match op {
            Add | Sub if lp || rp => {
                if lp && rp {
                    if op == Sub {
                        return Ok(mk(Sub, l, r, Type::LONG));
                    }
                    return Err(bad(self));
                }
                if rp {
                    // int + ptr: put the pointer first.
                    if op == Sub {
                        return Err(bad(self));
                    }
                    let ty = r.ty.clone();
                    return Ok(mk(Add, r, l, ty));
                }
                if !r.ty.is_integral() {
                    return Err(bad(self));
                }
                let ty = l.ty.clone();
                Ok(mk(op, l, r, ty))
            }
            Shl | Shr => {
                let lt = promote(&l.ty);
                let rt = promote(&r.ty);
                let (l, r) = (self.conv(l, &lt), self.conv(r, &rt));
                Ok(mk(op, l, r, lt))
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                if lp || rp {
                    let (l, r) = if lp && !rp {
                        let t = l.ty.clone();
                        (l, self.conv(r, &t))
                    } else if rp && !lp {
                        let t = r.ty.clone();
                        (self.conv(l, &t), r)
                    } else if l.ty != r.ty {
                        let t = l.ty.clone();
                        (l, self.conv(r, &t))
                    } else {
                        (l, r)
                    };
                    return Ok(mk(op, l, r, Type::INT));
                }
                if !l.ty.is_scalar() || !r.ty.is_scalar() {
                    return Err(bad(self));
                }
                let ty = usual_arith(&l.ty, &r.ty);
                let (l, r) = (self.conv(l, &ty), self.conv(r, &ty));
                Ok(mk(op, l, r, Type::INT))
            }
            LogAnd | LogOr => Ok(mk(op, l, r, Type::INT)),
            _ => {
                if !l.ty.is_scalar() || !r.ty.is_scalar() || lp || rp {
                    return Err(bad(self));
                }
                let ty = usual_arith(&l.ty, &r.ty);
                let (l, r) = (self.conv(l, &ty), self.conv(r, &ty));
                Ok(mk(op, l, r, ty))
            }
        }
    }

    fn logical(&mut self, n: Node<'t>, and: bool, ln: Node<'t>, rn: Node<'t>) -> R<Expr> {
        let l = self.rvalue(ln)?;
        self.push_block();
        let r = self.rvalue(rn);
        let stmts = self.pop_block();
        let r = r?;
        let op = if and { BinOp::LogAnd } else { BinOp::LogOr };
        if stmts.is_empty() && !self.reads_shared(&r) {
            return Ok(Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), Type::INT));
        }
        let loc = self.loc(n);
        let t = self.new_temp(Type::INT, n)?;
        let tv = Expr::var(t, Type::INT);
        let mut rb = stmts;
        rb.push(Stmt::new(StmtKind::Assign { lhs: tv.clone(), rhs: truth(r) }, self.loc(rn)));
        let konst = Stmt::new(StmtKind::Assign { lhs: tv.clone(), rhs: Expr::int(if and { 0 } else { 1 }) }, loc);
        let (then_, else_) = if and { (rb, vec![konst]) } else { (vec![konst], rb) };
        self.emit(StmtKind::If { cond: l, then_, else_ }, loc);
        Ok(tv)
    }

    /// The common type of the branches of `?:`.
    fn cond_type(&self, a: &Expr, b: &Expr) -> Type {
        if a.ty == b.ty {
            return a.ty.clone();
        }
        if a.ty == Type::Void || b.ty == Type::Void {
            return Type::Void;
        }
        if a.ty.is_pointer() && (is_null_const(b) || !b.ty.is_pointer()) {
            return a.ty.clone();
        }
        if b.ty.is_pointer() && (is_null_const(a) || !a.ty.is_pointer()) {
            return b.ty.clone();
        }
        if a.ty.is_pointer() && b.ty.is_pointer() {
            // Differently-typed pointers: `void *` wins, as in C.
            if b.ty == Type::ptr_to(Type::Void) {
                return b.ty.clone();
            }
            return a.ty.clone();
        }
        if a.ty.is_scalar() && b.ty.is_scalar() {
            return usual_arith(&a.ty, &b.ty);
        }
        a.ty.clone()
    }

    /// `c ? a : b`; `want` says whether the value is used (returns it then).
    pub fn conditional(&mut self, n: Node<'t>, want: bool) -> R<Option<Expr>> {
        let cn = n.child_by_field_name("condition").ok_or_else(|| self.syntax_err(n))?;
        let an = n.child_by_field_name("consequence");
        let bn = n.child_by_field_name("alternative").ok_or_else(|| self.syntax_err(n))?;
        let loc = self.loc(n);
        let mut c = self.rvalue(cn)?;
        if an.is_none() && want && self.reads_shared(&c) {
            // GNU `c ?: b`: c is evaluated once.
            let t = self.new_temp(c.ty.clone(), cn)?;
            let ty = c.ty.clone();
            self.emit(StmtKind::Assign { lhs: Expr::var(t, ty.clone()), rhs: c }, self.loc(cn));
            c = Expr::var(t, ty);
        }
        if !want {
            self.push_block();
            let ra = match an {
                Some(a) => self.effect(a),
                None => Ok(()),
            };
            let sa = self.pop_block();
            ra?;
            self.push_block();
            let rb = self.effect(bn);
            let sb = self.pop_block();
            rb?;
            if !(sa.is_empty() && sb.is_empty()) {
                self.emit_if(c, sa, sb, loc);
            }
            return Ok(None);
        }
        self.push_block();
        let ra = match an {
            Some(a) => self.rvalue(a),
            None => Ok(c.clone()),
        };
        let sa = self.pop_block();
        let a = ra?;
        self.push_block();
        let rb = self.rvalue(bn);
        let sb = self.pop_block();
        let b = rb?;
        let ty = self.cond_type(&a, &b);
        if ty == Type::Void {
            if !(sa.is_empty() && sb.is_empty()) {
                self.emit_if(c, sa, sb, loc);
            }
            return Ok(Some(Expr::new(ExprKind::Const(0), Type::Void)));
        }
        if sa.is_empty() && sb.is_empty() && !self.reads_shared(&a) && !self.reads_shared(&b) {
            let (a, b) = (self.conv(a, &ty), self.conv(b, &ty));
            return Ok(Some(Expr::new(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)), ty)));
        }
        let t = self.new_temp(ty.clone(), n)?;
        let tv = Expr::var(t, ty.clone());
        let (mut sa, mut sb) = (sa, sb);
        let a = self.conv(a, &ty);
        let b = self.conv(b, &ty);
        sa.push(Stmt::new(StmtKind::Assign { lhs: tv.clone(), rhs: a }, an.map(|a| self.loc(a)).unwrap_or(loc)));
        sb.push(Stmt::new(StmtKind::Assign { lhs: tv.clone(), rhs: b }, self.loc(bn)));
        self.emit(StmtKind::If { cond: c, then_: sa, else_: sb }, loc);
        Ok(Some(tv))
    }

    /// Emits `if (c) then_ else else_`, recognising the assertion idioms
    /// `if (c) ; else assert(0)` → `assert(c)` and `if (c) assert(0)` → `assert(!c)`.
    pub fn emit_if(&mut self, c: Expr, then_: Block, else_: Block, loc: Loc) {
        let assert_false = |b: &Block| -> Option<String> {
            match b.as_slice() {
                [Stmt { kind: StmtKind::Assert { cond: Expr { kind: ExprKind::Const(0), .. }, msg, .. }, .. }] => Some(msg.clone()),
                _ => None,
            }
        };
        if then_.is_empty() {
            if let Some(msg) = assert_false(&else_) {
                self.emit(StmtKind::Assert { cond: c, msg, ctrl: true }, loc);
                return;
            }
        }
        if else_.is_empty() {
            if let Some(msg) = assert_false(&then_) {
                self.emit(StmtKind::Assert { cond: negate(c), msg, ctrl: true }, loc);
                return;
            }
        }
        self.emit(StmtKind::If { cond: c, then_, else_ }, loc);
    }

    /// Assignment expressions; returns the assigned value when `want`.
    pub fn assignment(&mut self, n: Node<'t>, want: bool) -> R<Option<Expr>> {
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("=");
        let ln = n.child_by_field_name("left").ok_or_else(|| self.syntax_err(n))?;
        let rn = n.child_by_field_name("right").ok_or_else(|| self.syntax_err(n))?;
        let loc = self.loc(n);
        let lv = self.lvalue(ln)?;
        let width = self.bitfield_width(&lv);
        if matches!(lv.ty, Type::Array(..)) {
            return Err(Error::syntax(self.loc(ln), "assignment to an array"));
        }
        if op == "=" {
            if !want {
                self.assign_into(lv, rn, loc)?;
                return Ok(None);
            }
            let e = self.rvalue(rn)?;
            let v = self.conv(e, &lv.ty.clone());
            let v = assigned_value(width, v);
            let stable = match &v.kind {
                ExprKind::Const(_) => true,
                ExprKind::Var(x) => matches!(self.prog.vars[x.0 as usize].storage, Storage::Temp { .. }),
                _ => false,
            };
            if stable {
                self.emit(StmtKind::Assign { lhs: lv, rhs: v.clone() }, loc);
                return Ok(Some(as_read(width, v)));
            }
            let t = self.new_temp(lv.ty.clone(), n)?;
            let tv = Expr::var(t, lv.ty.clone());
            self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: v }, loc);
            self.emit(StmtKind::Assign { lhs: lv, rhs: tv.clone() }, loc);
            return Ok(Some(as_read(width, tv)));
        }
        let bop = binop_of(op.trim_end_matches('=')).ok_or_else(|| self.unsupported(n, format!("operator `{op}`")))?;
        let r = self.rvalue(rn)?;
        let cur = self.decay(lv.clone());
        let cur = self.read_bitfield(cur);
        let newv = self.arith(bop, cur, r, n)?;
        let newv = self.conv(newv, &lv.ty.clone());
        let newv = assigned_value(width, newv);
        if !want {
            self.emit(StmtKind::Assign { lhs: lv, rhs: newv }, loc);
            return Ok(None);
        }
        let t = self.new_temp(lv.ty.clone(), n)?;
        let tv = Expr::var(t, lv.ty.clone());
        self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: newv }, loc);
        self.emit(StmtKind::Assign { lhs: lv, rhs: tv.clone() }, loc);
        Ok(Some(as_read(width, tv)))
    }

    /// `x++`, `--x`…
    pub fn update(&mut self, n: Node<'t>, want: bool) -> R<Option<Expr>> {
        let arg = n.child_by_field_name("argument").ok_or_else(|| self.syntax_err(n))?;
        let op = n.child_by_field_name("operator").ok_or_else(|| self.syntax_err(n))?;
        let prefix = op.start_byte() < arg.start_byte();
        let bop = if self.text(op) == "++" { BinOp::Add } else { BinOp::Sub };
        let loc = self.loc(n);
        let lv = self.lvalue(arg)?;
        let width = self.bitfield_width(&lv);
        let ty = lv.ty.clone();
        if !ty.is_scalar() {
            return Err(Error::syntax(self.loc(arg), "increment of a non-scalar"));
        }
        let one = if matches!(ty, Type::Float { .. }) { Expr::new(ExprKind::FloatConst("1".into()), ty.clone()) } else { Expr::int(1) };
        if !want {
            let newv = self.arith(bop, lv.clone(), one, n)?;
            let newv = self.conv(newv, &ty);
            self.emit(StmtKind::Assign { lhs: lv, rhs: newv }, loc);
            return Ok(None);
        }
        let t = self.new_temp(ty.clone(), n)?;
        let tv = Expr::var(t, ty.clone());
        if prefix {
            let cur = self.read_bitfield(lv.clone());
            let newv = self.arith(bop, cur, one, n)?;
            let newv = self.conv(newv, &ty);
            let newv = assigned_value(width, newv);
            self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: newv }, loc);
            self.emit(StmtKind::Assign { lhs: lv, rhs: tv.clone() }, loc);
        } else {
            self.emit(StmtKind::Assign { lhs: tv.clone(), rhs: lv.clone() }, loc);
            let newv = self.arith(bop, tv.clone(), one, n)?;
            let newv = self.conv(newv, &ty);
            self.emit(StmtKind::Assign { lhs: lv, rhs: newv }, loc);
        }
        Ok(Some(as_read(width, tv)))
    }

    fn cast(&mut self, n: Node<'t>) -> R<Expr> {
        let tn = n.child_by_field_name("type").ok_or_else(|| self.syntax_err(n))?;
        let vn = n.child_by_field_name("value").ok_or_else(|| self.syntax_err(n))?;
        // `(x) - y` where x is a variable: tree-sitter may read it as a cast.
        if let Some((left, op, y)) = self.misparsed_parts(n) {
            return self.lower_regrouped(&Regrouped::Binary(op, Box::new(left), Box::new(Regrouped::Leaf(y))), n);
        }
        if let Some(id) = typedesc_ident(tn) {
            let name = self.text(id);
            if self.names_a_value(name) {
                return Err(Error::syntax(self.loc(n), format!("`{name}` is not a type")));
            }
        }
        let ty = self.type_descriptor(tn)?;
        self.cast_to(ty, vn, n)
    }

    /// The type `(T)` names when tree-sitter read the cast `(T)(x)` as a call of `(T)`: `T` a
    /// typedef name, or `_Bool` (which it takes for an identifier).
    pub(super) fn cast_misread_as_call(&self, fnode: Node<'t>, args: &[Node<'t>]) -> Option<Type> {
        if fnode.kind() != "parenthesized_expression" || args.len() != 1 {
            return None;
        }
        let id = strip_parens(fnode);
        if id.kind() != "identifier" {
            return None;
        }
        match self.lookup_ord(self.text(id)) {
            Some(Ord::Typedef(t)) => Some(t.clone()),
            None if self.text(id) == "_Bool" => Some(Type::Bool),
            _ => None,
        }
    }

    /// `(ty) vn`, the cast expression `n`.
    pub(super) fn cast_to(&mut self, ty: Type, vn: Node<'t>, n: Node<'t>) -> R<Expr> {
        if ty == Type::Void {
            self.effect(vn)?;
            return Ok(Expr::new(ExprKind::Const(0), Type::Void));
        }
        let e = self.rvalue(vn)?;
        if matches!(ty, Type::Struct(_) | Type::Array(..)) {
            if e.ty == ty {
                return Ok(e);
            }
            return Err(self.unsupported(n, "cast to a struct, union or array type"));
        }
        Ok(match (&e.kind, &ty) {
            (ExprKind::Const(v), t) if t.is_integral() => Expr::new(ExprKind::Const(wrap(*v, t)), ty),
            (ExprKind::Const(v), Type::Ptr(_)) if e.ty.is_integral() || e.ty.is_pointer() => Expr::new(ExprKind::Const(*v), ty),
            _ if e.ty == ty => e,
            _ => Expr::new(ExprKind::Cast(Box::new(e)), ty),
        })
    }

    /// A cast tree-sitter made of `(x) - y` or `(g * (x)) * y` (see [`Self::cast`]): the
    /// left operand, the binary operator the unary one really is, and its right operand.
    fn misparsed_parts(&self, n: Node<'t>) -> Option<(Regrouped<'t>, &'t str, Node<'t>)> {
        if n.kind() != "cast_expression" {
            return None;
        }
        let tn = n.child_by_field_name("type")?;
        let base = typedesc_base(tn)?;
        let name = self.text(base);
        if !self.names_a_value(name) {
            return None;
        }
        let vn = n.child_by_field_name("value")?;
        if !matches!(vn.kind(), "unary_expression" | "pointer_expression") {
            return None;
        }
        let op = self.text(vn.child_by_field_name("operator")?);
        let operand = vn.child_by_field_name("argument")?;
        if !matches!(op, "-" | "+" | "*" | "&") {
            return None;
        }
        let left = match typedesc_ident(tn) {
            Some(id) => Regrouped::Name(id),
            // `g * (x)` read as the type `g (*)(x)`: what the parentheses hold is an
            // expression after all.
            None => Regrouped::Leaf(self.reparsed(n.start_byte(), tn.next_sibling().filter(|p| p.kind() == ")")?.end_byte())?),
        };
        Some((left, op, operand))
    }

    /// The text `(…)` from byte `start` to `end` parsed again, alone, as an expression (where
    /// tree-sitter, not knowing that `g` is a variable, read `(g * (x))` as a type). The text
    /// keeps its rows, columns and byte offsets in the new tree, so locations and
    /// [`Self::text`] of its nodes are those of the original.
    pub(super) fn reparsed(&self, start: usize, end: usize) -> Option<Node<'t>> {
        if let Some(&found) = self.reparsed_at.borrow().get(&start) {
            return found;
        }
        let found = (|| {
            // The original's rows before the text, blanked, with a function header written
            // where whole tokens fit: the text's rows and columns stay where they were.
            let mut text: Vec<u8> = self.src.as_bytes().get(..start)?.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }).collect();
            let mut at = 0;
            for tok in ["int", "f", "(", ")", "{"] {
                loop {
                    let row_end = text[at..].iter().position(|&b| b == b'\n').map_or(text.len(), |k| at + k);
                    if row_end - at > tok.len() {
                        break;
                    }
                    at = (row_end < text.len()).then_some(row_end + 1)?;
                }
                text[at..at + tok.len()].copy_from_slice(tok.as_bytes());
                at += tok.len() + 1;
            }
            text.extend_from_slice(self.src.get(start..end)?.as_bytes());
            text.extend_from_slice(b";}");
            let tree: &'t tree_sitter::Tree = self.reparses.alloc(super::parse_c(std::str::from_utf8(&text).ok()?)?);
            let e = tree.root_node().descendant_for_byte_range(start, end)?;
            (e.kind() == "parenthesized_expression" && e.byte_range() == (start..end) && !e.has_error()).then_some(e)
        })();
        self.reparsed_at.borrow_mut().insert(start, found);
        found
    }

    /// `(x) - y * z` reaches us as `((x) -y) * z`: the misread cast binds tighter than the
    /// operators after it. When the leftmost operand of the chain of binary operators at `n`
    /// is such a cast and an operator after it binds tighter than the one the cast hides,
    /// the chain is grouped again by C's precedences (operands other than `x` and `y` are
    /// whole subtrees already).
    fn regroup_misparsed(&self, n: Node<'t>) -> Option<Regrouped<'t>> {
        let mut rights = vec![];
        let mut cur = n;
        while cur.kind() == "binary_expression" {
            let op = self.text(cur.child_by_field_name("operator")?);
            if matches!(op, "&&" | "||") {
                // Lowered with short-circuits; their left operand is regrouped on its own.
                return None;
            }
            rights.push((op, cur.child_by_field_name("right")?));
            cur = cur.child_by_field_name("left")?;
        }
        let (left, op1, y) = self.misparsed_parts(cur)?;
        rights.reverse();
        if precedence(rights.first()?.0) <= precedence(op1) {
            return None;
        }
        // Operator-precedence parsing of x op1 y op2 r2 ... (all left-associative).
        let mut operands = vec![left, Regrouped::Leaf(y)];
        let mut ops: Vec<&'t str> = vec![op1];
        let reduce = |operands: &mut Vec<Regrouped<'t>>, ops: &mut Vec<&'t str>| {
            let (b, a, op) = (operands.pop().unwrap(), operands.pop().unwrap(), ops.pop().unwrap());
            operands.push(Regrouped::Binary(op, Box::new(a), Box::new(b)));
        };
        for (op, r) in rights {
            while ops.last().is_some_and(|top| precedence(top) >= precedence(op)) {
                reduce(&mut operands, &mut ops);
            }
            ops.push(op);
            operands.push(Regrouped::Leaf(r));
        }
        while !ops.is_empty() {
            reduce(&mut operands, &mut ops);
        }
        operands.pop()
    }

    fn lower_regrouped(&mut self, t: &Regrouped<'t>, at: Node<'t>) -> R<Expr> {
        match t {
            Regrouped::Leaf(n) => self.rvalue(*n),
            Regrouped::Name(n) => self.ident(*n),
            Regrouped::Binary(op, a, b) => {
                let bop = binop_of(op).ok_or_else(|| self.unsupported(at, format!("operator `{op}`")))?;
                let l = self.lower_regrouped(a, at)?;
                let m = self.mark();
                let r = self.lower_regrouped(b, at)?;
                let l = self.spill(l, m, at)?;
                self.arith(bop, l, r, at)
            }
        }
    }

    /// `({ ...; e; })`: the statements are emitted, the last expression is the value.
    pub fn stmt_expr(&mut self, body: Node<'t>, want: bool) -> R<Expr> {
        if self.fs.is_none() {
            return Err(self.unsupported(body, "statement expression outside a function"));
        }
        self.scopes.push(Default::default());
        let r = (|| {
            let items = named_children(body);
            let Some((last, init)) = items.split_last() else {
                return Ok(Expr::new(ExprKind::Const(0), Type::Void));
            };
            for &s in init {
                self.stmt(s)?;
            }
            if last.kind() == "expression_statement" {
                if let Some(e) = named_children(*last).into_iter().next() {
                    if want {
                        return self.rvalue(e);
                    }
                    self.effect(e)?;
                    return Ok(Expr::new(ExprKind::Const(0), Type::Void));
                }
            }
            self.stmt(*last)?;
            Ok(Expr::new(ExprKind::Const(0), Type::Void))
        })();
        self.scopes.pop();
        r
    }

    /// Evaluates `n` for its side effects only.
    pub fn effect(&mut self, n: Node<'t>) -> R<()> {
        self.nested(n, |l| l.effect_inner(n))
    }

    fn effect_inner(&mut self, n: Node<'t>) -> R<()> {
        match n.kind() {
            "assignment_expression" => self.assignment(n, false).map(|_| ()),
            "update_expression" => self.update(n, false).map(|_| ()),
            "call_expression" => self.call(n, Dest::Discard).map(|_| ()),
            "comma_expression" => {
                let l = n.child_by_field_name("left").ok_or_else(|| self.syntax_err(n))?;
                let r = n.child_by_field_name("right").ok_or_else(|| self.syntax_err(n))?;
                self.effect(l)?;
                self.effect(r)
            }
            "conditional_expression" => self.conditional(n, false).map(|_| ()),
            "parenthesized_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| self.syntax_err(n))?;
                if inner.kind() == "compound_statement" {
                    return self.stmt_expr(inner, false).map(|_| ());
                }
                self.effect(inner)
            }
            "extension_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| self.syntax_err(n))?;
                self.effect(inner)
            }
            "cast_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| self.syntax_err(n))?;
                let vn = n.child_by_field_name("value").ok_or_else(|| self.syntax_err(n))?;
                if self.misparsed_parts(n).is_none() && (typedesc_ident(tn).is_none() || self.type_descriptor(tn).is_ok()) {
                    return self.effect(vn);
                }
                self.rvalue(n).map(|_| ())
            }
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                if op == "&&" || op == "||" {
                    let ln = n.child_by_field_name("left").ok_or_else(|| self.syntax_err(n))?;
                    let rn = n.child_by_field_name("right").ok_or_else(|| self.syntax_err(n))?;
                    let l = self.rvalue(ln)?;
                    self.push_block();
                    let r = self.effect(rn);
                    let stmts = self.pop_block();
                    r?;
                    if !stmts.is_empty() {
                        let loc = self.loc(n);
                        if op == "&&" {
                            self.emit_if(l, stmts, vec![], loc);
                        } else {
                            self.emit_if(l, vec![], stmts, loc);
                        }
                    }
                    return Ok(());
                }
                self.rvalue(n).map(|_| ())
            }
            "gnu_asm_expression" => self.asm(n),
            _ => self.rvalue(n).map(|_| ()),
        }
    }

    /// Evaluates `n` and stores it into `dest` (calls and builtins write `dest` directly).
    pub fn assign_into(&mut self, dest: Expr, n: Node<'t>, loc: Loc) -> R<()> {
        let s = strip_parens(n);
        if s.kind() == "call_expression" {
            self.call(s, Dest::Into(dest))?;
            return Ok(());
        }
        let e = self.rvalue(n)?;
        if e.ty == Type::Void {
            return Err(Error::syntax(self.loc(n), "void value assigned"));
        }
        let rhs = self.conv(e, &dest.ty);
        self.emit(StmtKind::Assign { lhs: dest, rhs }, loc);
        Ok(())
    }

    /// Delivers a computed value to `dest`: returns it (`Value`), stores it (`Into`), or drops it.
    pub fn deliver(&mut self, e: Expr, dest: Dest, loc: Loc) -> Option<Expr> {
        match dest {
            Dest::Discard => None,
            Dest::Value => Some(e),
            Dest::Into(lv) => {
                let rhs = self.conv(e, &lv.ty);
                self.emit(StmtKind::Assign { lhs: lv, rhs }, loc);
                None
            }
        }
    }

    /// Where a statement producing a value of type `ty` should write: the lvalue itself when
    /// types match, else a fresh temporary (then [`Self::finish_dest`] copies it).
    pub fn dest_for(&mut self, dest: &Dest, ty: &Type, at: Node) -> R<Option<Expr>> {
        match dest {
            Dest::Discard => Ok(None),
            Dest::Into(lv) if &lv.ty == ty => Ok(Some(lv.clone())),
            _ if *ty == Type::Void => Ok(None),
            _ => {
                let t = self.new_temp(ty.clone(), at)?;
                Ok(Some(Expr::var(t, ty.clone())))
            }
        }
    }

    /// Completes [`Self::dest_for`]: the value for `Dest::Value`, the copy for a mismatched
    /// `Dest::Into`.
    pub fn finish_dest(&mut self, dest: Dest, written: Option<Expr>, ty: &Type, loc: Loc) -> Option<Expr> {
        match (dest, written) {
            (Dest::Discard, _) => None,
            (Dest::Value, Some(w)) => Some(w),
            (Dest::Value, None) => Some(Expr::new(ExprKind::Const(0), ty.clone())),
            (Dest::Into(lv), Some(w)) => {
                // `dest_for` returned the lvalue itself when the types match.
                if lv.ty != w.ty {
                    let rhs = self.conv(w, &lv.ty);
                    self.emit(StmtKind::Assign { lhs: lv, rhs }, loc);
                }
                None
            }
            (Dest::Into(_), None) => None,
        }
    }

    // ----- static typing (for sizeof) -----

    /// The C type of an expression, without lowering it (no side effects).
    pub fn expr_type(&mut self, n: Node<'t>) -> R<Type> {
        self.nested(n, |l| l.expr_type_inner(n))
    }

    /// The declared type of the member `n` (a `field_expression`) and its width if it is a
    /// bit-field.
    fn field_type(&mut self, n: Node<'t>) -> R<(Type, Option<u32>)> {
        let err = |s: &Self| s.unsupported(n, format!("cannot determine the type of `{}`", s.text(n)));
        let arg = n.child_by_field_name("argument").ok_or_else(|| err(self))?;
        let f = n.child_by_field_name("field").ok_or_else(|| err(self))?;
        let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or(".");
        let mut t = self.expr_type(arg)?;
        if op == "->" {
            t = t.pointee().cloned().ok_or_else(|| err(self))?;
        }
        let Type::Struct(id) = t else { return Err(err(self)) };
        let path = self.field_path(id, self.text(f)).ok_or_else(|| err(self))?;
        let (mut cur, mut ty, mut width) = (id, Type::Void, None);
        for i in path {
            ty = self.prog.structs[cur.0 as usize].fields[i].ty.clone();
            width = self.prog.strukt(cur).bitfield(i).map(|b| b.width);
            if let Type::Struct(s) = ty {
                cur = s;
            }
        }
        Ok((ty, width))
    }

    /// The type of `n` as an operand, whose value is read: a bit-field's as read
    /// ([`read_type`]).
    fn operand_type(&mut self, n: Node<'t>) -> R<Type> {
        let m = strip_parens(n);
        if m.kind() == "field_expression" {
            let (ty, width) = self.field_type(m)?;
            return Ok(read_type(width, &ty));
        }
        self.expr_type(n)
    }

    fn expr_type_inner(&mut self, n: Node<'t>) -> R<Type> {
        let err = |s: &Self| s.unsupported(n, format!("cannot determine the type of `{}`", s.text(n)));
        match n.kind() {
            "parenthesized_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| err(self))?;
                if inner.kind() == "compound_statement" {
                    return Err(err(self));
                }
                self.expr_type(inner)
            }
            "identifier" => {
                let name = self.text(n);
                match self.lookup_ord(name).cloned() {
                    Some(Ord::Var(v)) => Ok(self.prog.vars[v.0 as usize].ty.clone()),
                    // `int a[] = {1, 2, 3}`: the initialiser completes the type (`sizeof a`).
                    Some(Ord::Global(i)) if matches!(self.globals[i].ty, Ok(Type::Array(_, None))) && self.globals[i].init.is_some() => {
                        let v = self.global_var(i, n)?;
                        Ok(self.prog.vars[v.0 as usize].ty.clone())
                    }
                    Some(Ord::Global(i)) => self.globals[i].ty.clone().map_err(|p| p.err()),
                    Some(Ord::Func(i)) => self.fdecls[i].ty.clone().map(|f| Type::Func(Box::new(f))).map_err(|p| p.err()),
                    Some(Ord::Enum(_, ty)) => Ok(ty),
                    Some(Ord::Poison(p)) => Err(p.err()),
                    Some(Ord::Typedef(t)) => Ok(t),
                    // `sizeof(_Bool)` may parse as an expression.
                    None => super::types::int_of_name(name, self.char_signed)
                        .ok_or_else(|| Error::syntax(self.loc(n), format!("undeclared identifier `{name}`"))),
                }
            }
            "number_literal" => match parse_number(self.text(n)) {
                Some(Number::Int(_, t)) | Some(Number::Float(_, t)) => Ok(t),
                None => Err(err(self)),
            },
            "char_literal" | "true" | "false" => Ok(Type::INT),
            "null" => Ok(Type::ptr_to(Type::Void)),
            "string_literal" | "concatenated_string" => {
                let b = self.string_literal_bytes(n)?;
                Ok(Type::Array(Box::new(self.plain_char()), Some(b.len() as u64 + 1)))
            }
            "field_expression" => Ok(self.field_type(n)?.0),
            "subscript_expression" => {
                let a = n.child_by_field_name("argument").ok_or_else(|| err(self))?;
                let t = self.expr_type(a)?;
                match t.pointee() {
                    Some(p) => Ok(p.clone()),
                    None => {
                        let i = n.child_by_field_name("index").ok_or_else(|| err(self))?;
                        self.expr_type(i)?.pointee().cloned().ok_or_else(|| err(self))
                    }
                }
            }
            "pointer_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let a = n.child_by_field_name("argument").ok_or_else(|| err(self))?;
                let t = self.expr_type(a)?;
                if op == "&" {
                    Ok(Type::ptr_to(t))
                } else {
                    match t {
                        Type::Ptr(p) | Type::Array(p, _) => Ok(*p),
                        f @ Type::Func(_) => Ok(f),
                        _ => Err(err(self)),
                    }
                }
            }
            "unary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                if op == "!" {
                    return Ok(Type::INT);
                }
                let a = n.child_by_field_name("argument").ok_or_else(|| err(self))?;
                Ok(promote(&self.operand_type(a)?))
            }
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let l = self.operand_type(n.child_by_field_name("left").ok_or_else(|| err(self))?)?;
                let r = self.operand_type(n.child_by_field_name("right").ok_or_else(|| err(self))?)?;
                let decay = |t: Type| match t {
                    Type::Array(e, _) => Type::Ptr(e),
                    t => t,
                };
                let (l, r) = (decay(l), decay(r));
                Ok(match op {
                    "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||" => Type::INT,
                    "<<" | ">>" => promote(&l),
                    "-" if l.is_pointer() && r.is_pointer() => Type::LONG,
                    "+" | "-" if l.is_pointer() => l,
                    "+" if r.is_pointer() => r,
                    _ => usual_arith(&l, &r),
                })
            }
            "conditional_expression" => {
                let b = n.child_by_field_name("alternative").ok_or_else(|| err(self))?;
                let bt = self.operand_type(b)?;
                match n.child_by_field_name("consequence") {
                    Some(a) => {
                        let at = self.operand_type(a)?;
                        let arithmetic = |t: &Type| t.is_integral() || matches!(t, Type::Float { .. });
                        if arithmetic(&at) && arithmetic(&bt) {
                            Ok(usual_arith(&at, &bt))
                        } else {
                            Ok(at)
                        }
                    }
                    None => Ok(bt),
                }
            }
            "assignment_expression" => self.expr_type(n.child_by_field_name("left").ok_or_else(|| err(self))?),
            "update_expression" => self.expr_type(n.child_by_field_name("argument").ok_or_else(|| err(self))?),
            "comma_expression" => self.expr_type(n.child_by_field_name("right").ok_or_else(|| err(self))?),
            "call_expression" => {
                let fnode = n.child_by_field_name("function").ok_or_else(|| err(self))?;
                let args = n.child_by_field_name("arguments").map(named_children).unwrap_or_default();
                if let Some(ty) = self.cast_misread_as_call(fnode, &args) {
                    return Ok(ty);
                }
                let f = strip_parens(fnode);
                if f.kind() == "identifier" {
                    let name = self.text(f);
                    if let Some(t) = super::builtins::builtin_result_type(self, name, n)? {
                        return Ok(t);
                    }
                    if self.lookup_ord(name).is_none() {
                        return Ok(Type::INT);
                    }
                }
                let ft = self.expr_type(f)?;
                match ft {
                    Type::Func(f) => Ok(f.ret),
                    Type::Ptr(p) => match *p {
                        Type::Func(f) => Ok(f.ret),
                        _ => Err(err(self)),
                    },
                    _ => Err(err(self)),
                }
            }
            "cast_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| err(self))?;
                self.typedesc_or_expr_type(tn)
            }
            "compound_literal_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| err(self))?;
                self.type_descriptor(tn)
            }
            "sizeof_expression" | "alignof_expression" | "offsetof_expression" => Ok(Type::ULONG),
            "extension_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| err(self))?;
                self.expr_type(inner)
            }
            _ => Err(err(self)),
        }
    }
}
