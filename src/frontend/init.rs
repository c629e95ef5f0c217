//! Initialisers: brace elision and designators resolved into a positional tree, then turned
//! into a static [`Init`] (globals, `static` locals) or element-wise assignments (locals).

use super::lower::{field_children, named_children, Lowerer, R};
use super::types::wrap;
use crate::ir::*;
use crate::source::{Error, Loc};
use tree_sitter::Node;

/// A positional initialiser under construction.
#[derive(Clone, Debug)]
pub(super) enum PInit<'t> {
    Empty,
    Leaf(Node<'t>),
    /// A char array initialised from a string literal.
    Str(Vec<u8>),
    List(Vec<PInit<'t>>),
}

/// Designated indices beyond this are rejected.
const MAX_INIT_INDEX: usize = 1 << 24;

/// Above this many scalar assignments a local initialiser is rejected.
const MAX_LOCAL_INIT: usize = 100_000;

fn is_string(n: Node) -> bool {
    matches!(super::expr::strip_parens(n).kind(), "string_literal" | "concatenated_string")
}

fn is_char_array(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if matches!(**e, Type::Int { bits: 8, .. }))
}

impl<'t> Lowerer<'t> {
    /// Resolves an initialiser for an object of type `ty`; completes `T x[] = …`'s size.
    pub fn build_init(&mut self, ty: &Type, init: Node<'t>) -> R<(PInit<'t>, Type)> {
        let p = if init.kind() == "initializer_list" {
            self.braced(ty, init)?
        } else if is_char_array(ty) && is_string(init) {
            PInit::Str(self.string_literal_bytes(super::expr::strip_parens(init))?)
        } else if matches!(ty, Type::Array(..)) {
            return Err(Error::syntax(self.loc(init), "array initialised from an expression"));
        } else {
            PInit::Leaf(init)
        };
        let ty = match ty {
            Type::Array(e, None) => {
                let n = match &p {
                    PInit::List(v) => v.len(),
                    PInit::Str(s) => s.len() + 1,
                    _ => 1,
                };
                Type::Array(e.clone(), Some(n as u64))
            }
            t => t.clone(),
        };
        Ok((p, ty))
    }

    fn member_ty(&self, ty: &Type, idx: usize, at: Node) -> R<Type> {
        match ty {
            Type::Array(e, n) => {
                if let Some(n) = n {
                    if idx as u64 >= *n {
                        return Err(Error::syntax(self.loc(at), format!("index {idx} outside the array (size {n})")));
                    }
                }
                Ok((**e).clone())
            }
            Type::Struct(id) => {
                let sd = &self.prog.structs[id.0 as usize];
                sd.fields.get(idx).map(|f| f.ty.clone()).ok_or_else(|| Error::syntax(self.loc(at), "too many initialisers for the struct"))
            }
            _ => Err(Error::syntax(self.loc(at), "braces around a scalar initialiser")),
        }
    }

    fn member_count(&self, ty: &Type) -> Option<usize> {
        match ty {
            Type::Array(_, n) => n.map(|n| n as usize),
            Type::Struct(id) => {
                let sd = &self.prog.structs[id.0 as usize];
                Some(if sd.is_union { 1.min(sd.fields.len()) } else { sd.fields.len() })
            }
            _ => Some(1),
        }
    }

    fn braced(&mut self, ty: &Type, list: Node<'t>) -> R<PInit<'t>> {
        let items = named_children(list);
        if ty.is_scalar() {
            return match items.first() {
                None => Ok(PInit::Empty),
                Some(i) if i.kind() == "initializer_list" => self.braced(ty, *i),
                Some(i) if i.kind() == "initializer_pair" => Err(Error::syntax(self.loc(*i), "designator for a scalar")),
                Some(i) => Ok(PInit::Leaf(*i)),
            };
        }
        if is_char_array(ty) && items.len() == 1 && is_string(items[0]) {
            return Ok(PInit::Str(self.string_literal_bytes(super::expr::strip_parens(items[0]))?));
        }
        if !matches!(ty, Type::Array(..) | Type::Struct(_)) {
            return Err(self.unsupported(list, "initialiser for this type"));
        }
        let mut pos = 0;
        let p = self.fill(ty, &items, &mut pos, true)?;
        Ok(p)
    }

    fn ensure(&self, slots: &mut Vec<PInit<'t>>, idx: usize, at: Node) -> R<()> {
        if idx >= MAX_INIT_INDEX {
            return Err(self.unsupported(at, "initialiser with too many elements"));
        }
        while slots.len() <= idx {
            slots.push(PInit::Empty);
        }
        Ok(())
    }

    /// Fills the members of aggregate `ty` from `items[*pos..]`. `braced`: the list belongs
    /// to this aggregate (else brace elision: stop when full or at a designator).
    fn fill(&mut self, ty: &Type, items: &[Node<'t>], pos: &mut usize, braced: bool) -> R<PInit<'t>> {
        let mut slots: Vec<PInit<'t>> = Vec::new();
        let mut cursor = 0usize;
        let count = self.member_count(ty);
        let is_union = matches!(ty, Type::Struct(id) if self.prog.structs[id.0 as usize].is_union);
        while *pos < items.len() {
            let it = items[*pos];
            if it.kind() == "initializer_pair" {
                if !braced {
                    break;
                }
                let designators: Vec<Node> = field_children(it, "designator");
                let value = it.child_by_field_name("value").ok_or_else(|| self.syntax_err(it))?;
                *pos += 1;
                let (first, rest) = designators.split_first().ok_or_else(|| self.syntax_err(it))?;
                let (idxs, extra) = self.designate(ty, *first)?;
                let mut rest_all: Vec<Path<'t>> = extra.into_iter().map(Path::Index).collect();
                rest_all.extend(rest.iter().map(|d| Path::Node(*d)));
                let mut last = 0;
                for idx in idxs {
                    self.ensure(&mut slots, idx, it)?;
                    if is_union {
                        for (k, s) in slots.iter_mut().enumerate() {
                            if k != idx {
                                *s = PInit::Empty;
                            }
                        }
                    }
                    let mty = self.member_ty(ty, idx, it)?;
                    let existing = std::mem::replace(&mut slots[idx], PInit::Empty);
                    slots[idx] = self.designated(&mty, existing, &rest_all, value, items, pos)?;
                    last = idx;
                }
                cursor = last + 1;
                continue;
            }
            if let Some(n) = count {
                if cursor >= n {
                    if braced {
                        return Err(Error::syntax(self.loc(it), "excess elements in initialiser"));
                    }
                    break;
                }
            }
            // Unnamed bit-fields take no initialiser (C11 6.7.9p9).
            if matches!(ty, Type::Struct(id) if self.prog.structs[id.0 as usize].unnamed_bitfield(cursor)) {
                cursor += 1;
                continue;
            }
            let mty = self.member_ty(ty, cursor, it)?;
            self.ensure(&mut slots, cursor, it)?;
            slots[cursor] = self.init_member(&mty, items, pos)?;
            cursor += 1;
            if !braced {
                if let Some(n) = count {
                    if cursor >= n {
                        break;
                    }
                }
            }
        }
        Ok(PInit::List(slots))
    }

    /// Initialises one member without designator, consuming one item or (brace elision)
    /// several.
    fn init_member(&mut self, mty: &Type, items: &[Node<'t>], pos: &mut usize) -> R<PInit<'t>> {
        let it = items[*pos];
        if let Some(init) = self.whole_value(mty, it)? {
            *pos += 1;
            return Ok(init);
        }
        self.fill(mty, items, pos, false)
    }

    /// Member indices a designator selects in `ty` (a range gives several), plus the
    /// remaining path for fields of anonymous members.
    fn designate(&mut self, ty: &Type, d: Node<'t>) -> R<(Vec<usize>, Vec<usize>)> {
        match d.kind() {
            "field_designator" | "field_identifier" => {
                let f = if d.kind() == "field_identifier" { d } else { named_children(d).into_iter().next().ok_or_else(|| self.syntax_err(d))? };
                let Type::Struct(id) = ty else {
                    return Err(Error::syntax(self.loc(d), "field designator for a non-struct"));
                };
                let name = self.text(f);
                let path = self.field_path(*id, name).ok_or_else(|| Error::syntax(self.loc(f), format!("no field `{name}`")))?;
                Ok((vec![path[0]], path[1..].to_vec()))
            }
            "subscript_designator" => {
                let e = named_children(d).into_iter().next().ok_or_else(|| self.syntax_err(d))?;
                let v = self.const_eval(e)?;
                if v < 0 {
                    return Err(Error::syntax(self.loc(e), "negative array index"));
                }
                if v as u128 >= MAX_INIT_INDEX as u128 {
                    return Err(self.unsupported(e, "designated initialiser index too large"));
                }
                Ok((vec![v as usize], vec![]))
            }
            "subscript_range_designator" => {
                let s = d.child_by_field_name("start").ok_or_else(|| self.syntax_err(d))?;
                let e = d.child_by_field_name("end").ok_or_else(|| self.syntax_err(d))?;
                let (a, b) = (self.const_eval(s)?, self.const_eval(e)?);
                if a < 0 || b < a || b - a > 1_000_000 || b >= MAX_INIT_INDEX as i128 {
                    return Err(Error::syntax(self.loc(d), "bad designator range"));
                }
                Ok(((a as usize..=b as usize).collect(), vec![]))
            }
            _ => Err(Error::syntax(self.loc(d), "unknown designator")),
        }
    }

    /// `node` initialises all of a member of type `mty` on its own (braces, a scalar, a string
    /// for a char array, a struct value); `None` when brace elision has to spread items.
    fn whole_value(&mut self, mty: &Type, node: Node<'t>) -> R<Option<PInit<'t>>> {
        if node.kind() == "initializer_list" {
            return self.braced(mty, node).map(Some);
        }
        if mty.is_scalar() {
            return Ok(Some(PInit::Leaf(node)));
        }
        if is_char_array(mty) && is_string(node) {
            return Ok(Some(PInit::Str(self.string_literal_bytes(super::expr::strip_parens(node))?)));
        }
        if let Type::Struct(_) = mty {
            if self.expr_type(node).ok().as_ref() == Some(mty) {
                return Ok(Some(PInit::Leaf(node)));
            }
        }
        Ok(None)
    }

    fn designated(&mut self, mty: &Type, existing: PInit<'t>, rest: &[Path<'t>], value: Node<'t>, items: &[Node<'t>], pos: &mut usize) -> R<PInit<'t>> {
        if let Some((first, rest)) = rest.split_first() {
            let mut slots = match existing {
                PInit::List(v) => v,
                _ => Vec::new(),
            };
            let (idxs, extra) = match first {
                Path::Index(i) => (vec![*i], vec![]),
                Path::Node(d) => self.designate(mty, *d)?,
            };
            let mut rest2: Vec<Path<'t>> = extra.into_iter().map(Path::Index).collect();
            rest2.extend(rest.iter().cloned());
            for idx in idxs {
                self.ensure(&mut slots, idx, value)?;
                let sub = self.member_ty(mty, idx, value)?;
                let ex = std::mem::replace(&mut slots[idx], PInit::Empty);
                slots[idx] = self.designated(&sub, ex, &rest2, value, items, pos)?;
            }
            return Ok(PInit::List(slots));
        }
        if let Some(init) = self.whole_value(mty, value)? {
            return Ok(init);
        }
        // `.a = 1, 2` with an aggregate `a`: brace elision starting at the value.
        let mut seq = vec![value];
        seq.extend_from_slice(&items[*pos..]);
        let mut p = 0;
        let r = self.fill(mty, &seq, &mut p, false)?;
        *pos += p.saturating_sub(1);
        Ok(r)
    }

    // ----- static initialisers -----

    /// A static initialiser (globals, `static` locals): constant expressions only.
    pub fn static_init(&mut self, ty: &Type, init: Node<'t>) -> R<(Init, Type)> {
        let (p, ty) = self.build_init(ty, init)?;
        let i = self.make_init(&ty, &p, init)?;
        Ok((i, ty))
    }

    fn make_init(&mut self, ty: &Type, p: &PInit<'t>, at: Node<'t>) -> R<Init> {
        Ok(match p {
            PInit::Empty => Init::List(vec![]),
            PInit::Leaf(n) => {
                if ty.is_integral() {
                    if let Ok(v) = self.const_eval(*n) {
                        return Ok(Init::Expr(Expr::new(ExprKind::Const(wrap(v, ty)), ty.clone())));
                    }
                }
                self.dropped = false;
                let e = self.rvalue(*n)?;
                if self.dropped {
                    return Err(self.unsupported(*n, "initialiser of a static object is not a constant (it has side effects or calls)"));
                }
                Init::Expr(self.conv(e, ty))
            }
            PInit::Str(bytes) => {
                let (elem, n) = match ty {
                    Type::Array(e, n) => ((**e).clone(), n.unwrap_or(bytes.len() as u64 + 1) as usize),
                    _ => (self.plain_char(), bytes.len() + 1),
                };
                let mut v: Vec<Init> = bytes
                    .iter()
                    .take(n)
                    .map(|&b| Init::Expr(Expr::new(ExprKind::Const(wrap(b as i128, &elem)), elem.clone())))
                    .collect();
                if v.len() < n {
                    v.push(Init::Expr(Expr::new(ExprKind::Const(0), elem.clone())));
                }
                Init::List(v)
            }
            PInit::List(items) => {
                let mut out = Vec::new();
                for (i, it) in items.iter().enumerate() {
                    let mty = self.member_ty(ty, i, at)?;
                    out.push(self.make_init(&mty, it, at)?);
                }
                Init::List(out)
            }
        })
    }

    // ----- local initialisers -----

    /// Assigns a local aggregate (or scalar) element by element; missing elements are zero.
    pub fn local_init(&mut self, ty: &Type, lv: Expr, p: &PInit<'t>, loc: Loc) -> R<()> {
        let mut budget = MAX_LOCAL_INIT;
        self.local_init_rec(ty, lv, p, loc, &mut budget)
    }

    fn local_init_rec(&mut self, ty: &Type, lv: Expr, p: &PInit<'t>, loc: Loc, budget: &mut usize) -> R<()> {
        match p {
            PInit::Leaf(n) => {
                *budget = budget.saturating_sub(1);
                self.assign_into(lv, *n, loc)
            }
            PInit::Empty => self.zero_fill(ty, lv, loc, budget),
            PInit::Str(bytes) => {
                let (elem, n) = match ty {
                    Type::Array(e, Some(n)) => ((**e).clone(), *n),
                    _ => return Err(Error::syntax(loc, "string initialiser for a non-array")),
                };
                for i in 0..n {
                    let b = bytes.get(i as usize).copied().unwrap_or(0);
                    let idx = Expr::new(ExprKind::Const(i as i128), Type::LONG);
                    let el = Expr::new(ExprKind::Index(Box::new(lv.clone()), Box::new(idx)), elem.clone());
                    self.emit(StmtKind::Assign { lhs: el, rhs: Expr::new(ExprKind::Const(wrap(b as i128, &elem)), elem.clone()) }, loc);
                }
                Ok(())
            }
            PInit::List(items) => match ty {
                Type::Array(elem, Some(n)) => {
                    if *n as usize > *budget {
                        return Err(Error::unsupported(loc, format!("local array initialiser with {n} elements (too large)")));
                    }
                    for i in 0..*n {
                        let idx = Expr::new(ExprKind::Const(i as i128), Type::LONG);
                        let el = Expr::new(ExprKind::Index(Box::new(lv.clone()), Box::new(idx)), (**elem).clone());
                        let sub = items.get(i as usize).unwrap_or(&PInit::Empty);
                        self.local_init_rec(elem, el, sub, loc, budget)?;
                    }
                    Ok(())
                }
                Type::Struct(id) => {
                    let sd = self.prog.structs[id.0 as usize].clone();
                    if sd.is_union {
                        let k = items.iter().rposition(|p| !matches!(p, PInit::Empty)).unwrap_or(0);
                        if let Some(f) = sd.fields.get(k) {
                            let m = Expr::new(ExprKind::Member(Box::new(lv), k), f.ty.clone());
                            let sub = items.get(k).unwrap_or(&PInit::Empty);
                            self.local_init_rec(&f.ty, m, sub, loc, budget)?;
                        }
                        return Ok(());
                    }
                    for (i, f) in sd.fields.iter().enumerate() {
                        let m = Expr::new(ExprKind::Member(Box::new(lv.clone()), i), f.ty.clone());
                        let sub = items.get(i).unwrap_or(&PInit::Empty);
                        self.local_init_rec(&f.ty, m, sub, loc, budget)?;
                    }
                    Ok(())
                }
                _ => match items.first() {
                    Some(p) => self.local_init_rec(ty, lv, p, loc, budget),
                    None => self.zero_fill(ty, lv, loc, budget),
                },
            },
        }
    }

    fn zero_fill(&mut self, ty: &Type, lv: Expr, loc: Loc, budget: &mut usize) -> R<()> {
        if *budget == 0 {
            return Err(Error::unsupported(loc, "local initialiser too large"));
        }
        match ty {
            Type::Array(elem, Some(n)) => {
                if *n as usize > *budget {
                    return Err(Error::unsupported(loc, format!("local array initialiser with {n} elements (too large)")));
                }
                for i in 0..*n {
                    let idx = Expr::new(ExprKind::Const(i as i128), Type::LONG);
                    let el = Expr::new(ExprKind::Index(Box::new(lv.clone()), Box::new(idx)), (**elem).clone());
                    self.zero_fill(elem, el, loc, budget)?;
                }
                Ok(())
            }
            Type::Struct(id) => {
                let sd = self.prog.structs[id.0 as usize].clone();
                let n = if sd.is_union { 1.min(sd.fields.len()) } else { sd.fields.len() };
                for (i, f) in sd.fields.iter().take(n).enumerate() {
                    let m = Expr::new(ExprKind::Member(Box::new(lv.clone()), i), f.ty.clone());
                    self.zero_fill(&f.ty, m, loc, budget)?;
                }
                Ok(())
            }
            t if t.is_scalar() => {
                *budget -= 1;
                let zero = match t {
                    Type::Float { .. } => Expr::new(ExprKind::FloatConst("0".into()), t.clone()),
                    _ => Expr::new(ExprKind::Const(0), t.clone()),
                };
                self.emit(StmtKind::Assign { lhs: lv, rhs: zero }, loc);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// A designator still to apply: a syntax node or an index (anonymous member paths).
#[derive(Clone, Debug)]
enum Path<'t> {
    Node(Node<'t>),
    Index(usize),
}
