//! C types: specifiers and declarators → [`Type`], struct/union/enum definitions, layout
//! (x86-64 LP64) and integer constant expressions.

use super::lower::{field_children, named_children, Lowerer, Ord, Poison, Tag, R};
use super::packing::Wanted;
use crate::ir::*;
use crate::source::Error;
use tree_sitter::Node;

#[derive(Default, Debug, Clone, Copy)]
pub(super) struct StorageFlags {
    pub is_extern: bool,
    pub is_static: bool,
    pub is_thread: bool,
}

pub(super) fn storage_flags(l: &Lowerer, decl: Node) -> StorageFlags {
    let mut f = StorageFlags::default();
    for c in named_children(decl) {
        if c.kind() == "storage_class_specifier" {
            match l.text(c) {
                "extern" => f.is_extern = true,
                "static" => f.is_static = true,
                "__thread" | "thread_local" | "_Thread_local" => f.is_thread = true,
                _ => {}
            }
        }
    }
    f
}

/// The identifier a declarator declares (None for abstract declarators).
pub(super) fn declarator_name(d: Node) -> Option<Node> {
    match d.kind() {
        "identifier" | "field_identifier" | "type_identifier" | "primitive_type" => Some(d),
        "init_declarator" | "pointer_declarator" | "array_declarator" | "function_declarator" => {
            d.child_by_field_name("declarator").and_then(declarator_name)
        }
        "parenthesized_declarator" | "attributed_declarator" => {
            named_children(d).into_iter().find_map(declarator_name)
        }
        _ => None,
    }
}

/// Whether a declarator's object has an `_Atomic` type at its top level: the qualifiers of
/// the pointer nearest the name decide (`int *_Atomic p`), else, through arrays, the
/// declaration's specifiers (`_Atomic(int) a[2]`, `_Atomic int *p` is not atomic itself).
pub(super) fn declares_atomic(l: &Lowerer, decl: Node, d: Node) -> bool {
    let mut path = Vec::new();
    let mut cur = Some(d);
    while let Some(n) = cur {
        path.push(n);
        cur = match n.kind() {
            "init_declarator" | "pointer_declarator" | "array_declarator" | "function_declarator" => {
                n.child_by_field_name("declarator")
            }
            "parenthesized_declarator" | "attributed_declarator" => {
                named_children(n).into_iter().find(|c| declarator_name(*c).is_some())
            }
            _ => None,
        };
    }
    for n in path.iter().rev().skip(1) {
        match n.kind() {
            "pointer_declarator" => {
                return named_children(*n).iter().any(|c| c.kind() == "type_qualifier" && l.text(*c) == "_Atomic");
            }
            "function_declarator" => return false,
            _ => {}
        }
    }
    specifiers_atomic(l, decl)
}

/// Whether a declaration's specifiers make its type `_Atomic`.
pub(super) fn specifiers_atomic(l: &Lowerer, decl: Node) -> bool {
    named_children(decl).into_iter().any(|c| match c.kind() {
        "type_qualifier" => l.text(c) == "_Atomic",
        "type_identifier" => {
            let t = l.text(c);
            t == super::preprocess::ATOMIC_MARK || l.atomic_typedefs.contains(t)
        }
        _ => false,
    })
}

/// The operand of the `_Alignas(...)` that the preprocessing step put before a
/// `typeof`/`_Atomic` mark (see [`super::preprocess::normalize_keywords`]).
fn mark_operand(n: Node) -> Option<Node> {
    let q = n.prev_named_sibling()?;
    let a = if q.kind() == "alignas_qualifier" {
        q
    } else {
        named_children(q).into_iter().find(|c| c.kind() == "alignas_qualifier")?
    };
    named_children(a).into_iter().next()
}

/// The function declarator that gives a function definition its parameters: the innermost
/// `function_declarator` whose inner declarator is the name.
pub(super) fn function_declarator_of(d: Node) -> Option<Node> {
    match d.kind() {
        "function_declarator" => {
            let inner = d.child_by_field_name("declarator")?;
            match function_declarator_of(inner) {
                Some(f) => Some(f),
                None => Some(d),
            }
        }
        "pointer_declarator" | "array_declarator" | "init_declarator" => {
            d.child_by_field_name("declarator").and_then(function_declarator_of)
        }
        "parenthesized_declarator" | "attributed_declarator" => {
            named_children(d).into_iter().find_map(function_declarator_of)
        }
        _ => None,
    }
}

/// Whether the function declarator of `d` has a prototype (anything but `()`).
pub(super) fn is_prototyped(d: Node) -> bool {
    function_declarator_of(d)
        .and_then(|f| f.child_by_field_name("parameters"))
        .map(|p| p.named_child_count() > 0)
        .unwrap_or(false)
}

/// Integer promotion.
pub(super) fn promote(t: &Type) -> Type {
    match t {
        Type::Bool => Type::INT,
        Type::Int { bits, .. } if *bits < 32 => Type::INT,
        _ => t.clone(),
    }
}

/// Usual arithmetic conversions of two arithmetic types.
pub(super) fn usual_arith(a: &Type, b: &Type) -> Type {
    match (a, b) {
        (Type::Float { bits: x }, Type::Float { bits: y }) => Type::Float { bits: (*x).max(*y) },
        (Type::Float { .. }, _) => a.clone(),
        (_, Type::Float { .. }) => b.clone(),
        _ => {
            let (a, b) = (promote(a), promote(b));
            match (&a, &b) {
                (Type::Int { bits: x, signed: sx }, Type::Int { bits: y, signed: sy }) => {
                    if a == b {
                        a.clone()
                    } else if sx == sy {
                        Type::Int { bits: (*x).max(*y), signed: *sx }
                    } else {
                        let (ub, sb) = if *sx { (*y, *x) } else { (*x, *y) };
                        if ub >= sb {
                            Type::Int { bits: ub, signed: false }
                        } else {
                            Type::Int { bits: sb, signed: true }
                        }
                    }
                }
                // Pointers or other scalars in arithmetic context: keep the left type.
                _ => a.clone(),
            }
        }
    }
}

/// Wraps `v` into the range of integer type `ty`.
pub(super) fn wrap(v: i128, ty: &Type) -> i128 {
    match ty {
        Type::Bool => (v != 0) as i128,
        Type::Int { bits, signed } => {
            let bits = *bits as u32;
            if bits >= 128 {
                return v;
            }
            let mask = (1i128 << bits) - 1;
            let u = v & mask;
            if *signed && (u >> (bits - 1)) & 1 == 1 {
                u - (1i128 << bits)
            } else {
                u
            }
        }
        _ => v,
    }
}

/// The type a one-word type name denotes (`char_signed`: whether plain `char` is signed).
pub(super) fn int_of_name(name: &str, char_signed: bool) -> Option<Type> {
    let t = |bits: u8, signed: bool| Some(Type::Int { bits, signed });
    match name {
        "char" => t(8, char_signed),
        "int" => t(32, true),
        "bool" | "_Bool" => Some(Type::Bool),
        "float" => Some(Type::Float { bits: 32 }),
        "double" => Some(Type::Float { bits: 64 }),
        "void" => Some(Type::Void),
        "size_t" | "uintptr_t" | "uint64_t" | "__uint64_t" | "uintmax_t" => t(64, false),
        "ssize_t" | "ptrdiff_t" | "intptr_t" | "int64_t" | "__int64_t" | "intmax_t" => t(64, true),
        "int8_t" => t(8, true),
        "int16_t" => t(16, true),
        "int32_t" => t(32, true),
        "uint8_t" | "char8_t" => t(8, false),
        "uint16_t" | "char16_t" => t(16, false),
        "uint32_t" | "char32_t" => t(32, false),
        "char64_t" => t(64, false),
        "__int128" | "__int128_t" => t(128, true),
        "__uint128_t" => t(128, false),
        "_Float32" => Some(Type::Float { bits: 32 }),
        "_Float64" | "_Float32x" => Some(Type::Float { bits: 64 }),
        "_Float128" | "__float128" | "_Float64x" => Some(Type::Float { bits: 128 }),
        "max_align_t" => Some(Type::Float { bits: 128 }),
        "nullptr_t" => Some(Type::ptr_to(Type::Void)),
        _ => None,
    }
}

impl<'t> Lowerer<'t> {
    /// Resolves a type specifier node (`primitive_type`, `struct_specifier`, …).
    pub fn spec_type(&mut self, n: Node<'t>, _decl: Node<'t>) -> R<Type> {
        match n.kind() {
            "primitive_type" => {
                let name = self.text(n);
                if let Some(Ord::Typedef(t)) = self.lookup_ord(name) {
                    return Ok(t.clone());
                }
                int_of_name(name, self.char_signed).ok_or_else(|| self.unsupported(n, format!("type `{name}`")))
            }
            "type_identifier" if matches!(self.text(n), super::preprocess::TYPEOF_MARK | super::preprocess::ATOMIC_MARK) => {
                let what = if self.text(n) == super::preprocess::TYPEOF_MARK { "typeof" } else { "_Atomic" };
                let op = mark_operand(n).ok_or_else(|| self.unsupported(n, format!("`{what}` in this position")))?;
                if op.kind() == "type_descriptor" {
                    self.typedesc_or_expr_type(op)
                } else {
                    // GCC's typeof of a bit-field or an lvalue is its declared type: no
                    // conversion, no evaluation.
                    self.expr_type(op)
                }
            }
            "type_identifier" if self.text(n) == "__auto_type" => {
                Err(self.unsupported(n, "`__auto_type` other than in a local variable with an initialiser"))
            }
            "type_identifier" => {
                let name = self.text(n);
                match self.lookup_ord(name) {
                    Some(Ord::Typedef(t)) => Ok(t.clone()),
                    Some(Ord::Poison(p)) => Err(self.poison_at_use(p, n)),
                    _ => match name {
                        "__builtin_va_list" | "va_list" | "__gnuc_va_list" => {
                            Err(self.unsupported(n, "variable argument lists (`va_list`)"))
                        }
                        _ => match int_of_name(name, self.char_signed).or_else(|| self.library_type(name)) {
                            Some(t) => Ok(t),
                            None => Err(Error::syntax(self.loc(n), format!("unknown type name `{name}`{}", self.header_note()))),
                        },
                    },
                }
            }
            "sized_type_specifier" => self.sized_type(n),
            "struct_specifier" => self.struct_spec(n, false),
            "union_specifier" => self.struct_spec(n, true),
            "enum_specifier" => self.enum_spec(n),
            "macro_type_specifier" => Err(self.unsupported(n, format!("type macro `{}`", self.text(n)))),
            _ => Err(self.unsupported(n, format!("type `{}`", self.text(n)))),
        }
    }

    /// Well-known pthread types used without their header (SV-COMP's header-stripped `.i`
    /// files): glibc x86-64 sizes, opaque.
    fn library_type(&mut self, name: &str) -> Option<Type> {
        let size = match name {
            "pthread_t" => return Some(Type::ULONG),
            "pthread_key_t" => return Some(Type::UINT),
            "pthread_once_t" | "pthread_spinlock_t" => return Some(Type::INT),
            "pthread_mutex_t" => 40,
            "pthread_cond_t" => 48,
            "pthread_attr_t" | "pthread_rwlock_t" => 56,
            "pthread_barrier_t" => 32,
            "pthread_mutexattr_t" | "pthread_condattr_t" | "pthread_barrierattr_t" => 4,
            "pthread_rwlockattr_t" => 8,
            _ => return None,
        };
        let id = self.add_struct(name, false, true);
        self.prog.structs[id.0 as usize].fields =
            vec![Field { name: "__size".into(), ty: Type::Array(Box::new(Type::CHAR), Some(size)) }];
        let ty = Type::Struct(id);
        self.scopes[0].ords.insert(name.to_string(), Ord::Typedef(ty.clone()));
        Some(ty)
    }

    fn sized_type(&mut self, n: Node<'t>) -> R<Type> {
        let (mut longs, mut short, mut unsigned, mut signed) = (0, false, false, false);
        let mut base: Option<Node> = None;
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "long" => longs += 1,
                "short" => short = true,
                "unsigned" => unsigned = true,
                "signed" => signed = true,
                "primitive_type" | "type_identifier" => base = Some(k),
                _ => {}
            }
        }
        let bname = base.map(|b| self.text(b));
        match bname {
            Some("double") => return Ok(Type::Float { bits: if longs > 0 { 128 } else { 64 } }),
            Some("char") => return Ok(Type::Int { bits: 8, signed: !unsigned && (signed || self.char_signed) }),
            Some("int") | None => {}
            Some("__int128") => return Ok(Type::Int { bits: 128, signed: !unsigned }),
            Some(other) => {
                // `unsigned T` with a typedef T is not C; report it.
                return Err(self.unsupported(n, format!("type modifier applied to `{other}`")));
            }
        }
        let _ = signed;
        let bits = if short {
            16
        } else if longs > 0 {
            64
        } else {
            32
        };
        Ok(Type::Int { bits, signed: !unsigned })
    }

    fn struct_spec(&mut self, n: Node<'t>, is_union: bool) -> R<Type> {
        let name = n.child_by_field_name("name").map(|t| self.text(t).to_string());
        let body = n.child_by_field_name("body");
        let kw = if is_union { "union" } else { "struct" };
        let Some(body) = body else {
            let name = name.ok_or_else(|| self.unsupported(n, format!("{kw} without tag or body")))?;
            match self.lookup_tag(&name) {
                Some(Tag::Struct(id)) => return Ok(Type::Struct(*id)),
                Some(Tag::Poison(p)) => return Err(p.err()),
                Some(Tag::Enum(_)) | None => {}
            }
            // Forward declaration: an incomplete struct in the file scope.
            let id = self.add_struct(&name, is_union, false);
            self.scopes[0].tags.insert(name, Tag::Struct(id));
            return Ok(Type::Struct(id));
        };
        // A definition: complete an incomplete one of this scope, or define a new one.
        let id = match &name {
            Some(nm) => {
                let existing = self.scopes.last().and_then(|s| s.tags.get(nm)).cloned();
                let existing = existing.or_else(|| {
                    // Forward declarations were put in the file scope.
                    self.scopes[0].tags.get(nm).cloned()
                });
                match existing {
                    Some(Tag::Struct(id)) if !self.prog.structs[id.0 as usize].complete => id,
                    _ => {
                        let id = self.add_struct(nm, is_union, false);
                        let nm = nm.clone();
                        self.scopes.last_mut().unwrap().tags.insert(nm, Tag::Struct(id));
                        id
                    }
                }
            }
            None => {
                let tag = format!("__anon{}", self.anon_structs);
                self.anon_structs += 1;
                self.add_struct(&tag, is_union, false)
            }
        };
        let r = self.struct_fields(body);
        let (fields, widths, wanted) = match r {
            Ok(x) => x,
            Err(e) => {
                if let Some(nm) = name {
                    self.scopes.last_mut().unwrap().tags.insert(nm, Tag::Poison(Poison::from_err(&e)));
                }
                return Err(e);
            }
        };
        let s = &mut self.prog.structs[id.0 as usize];
        s.fields = fields;
        s.complete = true;
        s.is_union = is_union;
        let own = Wanted::of(&self.marks.of_type(self.src, n.start_byte(), body.byte_range()), &|name| self.named_size_align(name, n));
        let pack = self.marks.pack_at(n.start_byte());
        self.set_packing(id, own, pack, wanted, n);
        if widths.iter().any(Option::is_some) {
            self.bitfields.insert(id, widths.clone());
            let (_, _, bits) = self.struct_bits(id, n)?;
            self.prog.structs[id.0 as usize].bitfields = bit_runs(&widths, &bits, is_union).map_err(|why| self.unsupported(n, why))?;
        } else if let Ok(((size, _), offsets)) = self.struct_layout(id, n) {
            self.prog.structs[id.0 as usize].bytes = Some(ByteLayout { size, offsets });
        }
        Ok(Type::Struct(id))
    }

    fn add_struct(&mut self, tag: &str, is_union: bool, complete: bool) -> StructId {
        self.prog.structs.push(StructDef { tag: tag.to_string(), is_union, fields: Vec::new(), complete, bytes: None, bitfields: vec![], packing: None });
        StructId(self.prog.structs.len() as u32 - 1)
    }

    /// Records how layout attributes change the alignments of struct `id` (given what its
    /// type and each field ask, and the `#pragma pack` in force), or that they make its
    /// layout unknown.
    fn set_packing(&mut self, id: StructId, own: Result<Wanted, String>, pack: Option<u64>, fields: Vec<Result<Wanted, String>>, at: Node<'t>) {
        let (own, wanted) = match own.and_then(|o| Ok((o, fields.into_iter().collect::<Result<Vec<_>, _>>()?))) {
            Ok(x) => x,
            Err(why) => {
                self.unknown_layout.insert(id, why);
                return;
            }
        };
        if own == Wanted::default() && pack.is_none() && wanted.iter().all(|w| *w == Wanted::default()) {
            return;
        }
        let tys: Vec<Type> = self.prog.structs[id.0 as usize].fields.iter().map(|f| f.ty.clone()).collect();
        let mut out = vec![];
        for (ty, w) in tys.iter().zip(wanted) {
            let natural = match self.size_align(ty, at) {
                Ok((_, a)) => a,
                Err(e) => {
                    self.unknown_layout.insert(id, e.to_string());
                    return;
                }
            };
            let mut actual = if own.packed || w.packed { 1 } else { natural };
            if let Some(a) = w.aligned {
                actual = actual.max(a);
            }
            // `#pragma pack` caps even a member's `aligned` (GCC).
            if let Some(p) = pack {
                actual = actual.min(p);
            }
            out.push(FieldAlign { natural, actual });
        }
        self.prog.structs[id.0 as usize].packing = Some(Packing { align: own.aligned.unwrap_or(1), fields: out });
    }

    /// What the layout attributes inside field declaration `fd` ask of each field it declares
    /// (`decls`; one anonymous member when there is none): those before the first
    /// declarator are every field's, the others the declarator's they follow. A struct
    /// defined in the declaration keeps its own.
    fn field_wanted(&self, fd: Node<'t>, tnode: Node<'t>, decls: &[Node<'t>]) -> Vec<Result<Wanted, String>> {
        let skip_end = match tnode.child_by_field_name("body") {
            Some(b) if matches!(tnode.kind(), "struct_specifier" | "union_specifier") => self.marks.after(self.src, b.end_byte()).1,
            _ => tnode.end_byte(),
        };
        let first = decls.first().map_or(fd.end_byte(), |d| d.start_byte());
        let mut common = self.marks.within(fd.start_byte()..tnode.start_byte());
        common.extend(self.marks.within(skip_end.min(first)..first));
        if decls.is_empty() {
            return vec![Wanted::of(&common, &|name| self.named_size_align(name, fd))];
        }
        (0..decls.len())
            .map(|k| {
                let end = decls.get(k + 1).map_or(fd.end_byte(), |d| d.start_byte());
                let mut all = common.clone();
                all.extend(self.marks.within(decls[k].start_byte()..end));
                Wanted::of(&all, &|name| self.named_size_align(name, fd))
            })
            .collect()
    }

    /// The size and alignment of the type a typedef name denotes (for `aligned`'s argument).
    fn named_size_align(&self, name: &str, at: Node<'t>) -> Option<(u64, u64)> {
        match self.lookup_ord(name) {
            Some(Ord::Typedef(t)) => self.size_align(t, at).ok(),
            _ => None,
        }
    }

    /// The fields of a struct body, their bit-field widths, and what layout attributes ask
    /// of each.
    #[allow(clippy::type_complexity)]
    fn struct_fields(&mut self, body: Node<'t>) -> R<(Vec<Field>, Vec<Option<u64>>, Vec<Result<Wanted, String>>)> {
        let mut fields = Vec::new();
        let mut widths = Vec::new();
        let mut wanted = Vec::new();
        let mut anon = 0;
        for fd in named_children(body) {
            if fd.kind() != "field_declaration" {
                if fd.kind().starts_with("preproc") {
                    continue;
                }
                return Err(self.unsupported(fd, format!("{} in a struct", fd.kind())));
            }
            let tnode = fd.child_by_field_name("type").ok_or_else(|| self.unsupported(fd, "field without a type"))?;
            let base = self.spec_type(tnode, fd)?;
            // Each declarator's width is the bit-field clause right after it
            // (`unsigned a : 3, b : 5;`); an unnamed bit-field has only the clause.
            let decls = field_children(fd, "declarator");
            let mut widths_of: Vec<Option<Node>> = vec![];
            let mut first_width = None;
            for c in named_children(fd) {
                if c.kind() == "bitfield_clause" {
                    match widths_of.last_mut() {
                        Some(w) => *w = Some(c),
                        None => first_width = Some(c),
                    }
                } else if decls.contains(&c) {
                    widths_of.push(None);
                }
            }
            let width_of = |l: &mut Self, b: Option<Node<'t>>| -> R<Option<u64>> {
                let Some(b) = b else { return Ok(None) };
                let w = named_children(b).first().copied().ok_or_else(|| l.unsupported(b, "bit-field width"))?;
                Ok(Some(l.const_eval(w)? as u64))
            };
            let width = width_of(self, first_width)?;
            let mut asks = self.field_wanted(fd, tnode, &decls).into_iter();
            if decls.is_empty() {
                // Anonymous struct/union member (or an unnamed bit-field).
                if matches!(base, Type::Struct(_)) || width.is_some() {
                    fields.push(Field { name: format!("__anon_member{anon}"), ty: base });
                    widths.push(width);
                    wanted.extend(asks.next());
                    anon += 1;
                }
                continue;
            }
            wanted.extend(asks);
            for (k, d) in decls.into_iter().enumerate() {
                let width = width_of(self, widths_of.get(k).copied().flatten())?;
                let (_, ty) = self.declarator(base.clone(), d)?;
                // (An unnamed bit-field was given a name for the parser: see `unnamed`.)
                let name = declarator_name(d).map(|n| self.text(n).to_string()).filter(|n| n != super::unnamed::UNNAMED_BITFIELD).unwrap_or_else(|| {
                    anon += 1;
                    format!("__anon_member{}", anon - 1)
                });
                fields.push(Field { name, ty });
                widths.push(width);
            }
        }
        Ok((fields, widths, wanted))
    }

    fn enum_spec(&mut self, n: Node<'t>) -> R<Type> {
        let name = n.child_by_field_name("name").map(|t| self.text(t).to_string());
        let Some(body) = n.child_by_field_name("body") else {
            return Ok(match name.as_deref().and_then(|nm| self.lookup_tag(nm)) {
                Some(Tag::Enum(t)) => t.clone(),
                _ => Type::INT,
            });
        };
        let mut next: i128 = 0;
        let (mut lo, mut hi) = (0i128, 0i128);
        // Constants whose value does not fit in `int`: they take the enum's type (GCC).
        let mut wide = vec![];
        for e in named_children(body) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(nm) = e.child_by_field_name("name") else { continue };
            let nm = self.text(nm).to_string();
            if let Some(v) = e.child_by_field_name("value") {
                next = self.const_eval(v)?;
            }
            self.bind_ord(&nm, Ord::Enum(next, Type::INT));
            if i32::try_from(next).is_err() {
                wide.push((nm, next));
            }
            (lo, hi) = (lo.min(next), hi.max(next));
            next += 1;
        }
        // GCC's choice: `unsigned int` when no value is negative, else `int`; where the
        // values do not fit, the 64-bit type of the same signedness. It decides comparisons
        // and conversions: with `enum E { A, B } e`, GCC's `e > -1` is false (-1 converts to
        // `unsigned int`). A packed enum takes GCC's smallest type, unsigned when no value
        // is negative.
        let packed = self.marks.of_type(self.src, n.start_byte(), body.byte_range()).contains(&&super::packing::Attr::Packed);
        let holds = |&(bits, signed): &(u8, bool)| match signed {
            true => lo >= -(1i128 << (bits - 1)) && hi < 1i128 << (bits - 1),
            false => lo >= 0 && hi < 1i128 << bits,
        };
        let widths: &[u8] = if packed { &[8, 16, 32, 64] } else { &[32, 64] };
        let ty = widths.iter().map(|&bits| (bits, lo < 0)).find(holds).map_or(Type::INT, |(bits, signed)| Type::Int { bits, signed });
        for (nm, v) in wide {
            self.bind_ord(&nm, Ord::Enum(v, ty.clone()));
        }
        if let Some(nm) = name {
            self.scopes.last_mut().unwrap().tags.insert(nm, Tag::Enum(ty.clone()));
        }
        Ok(ty)
    }

    /// Applies a (possibly abstract) declarator to `base`; returns the name node.
    pub fn declarator(&mut self, base: Type, d: Node<'t>) -> R<(Option<Node<'t>>, Type)> {
        self.nested(d, |l| l.declarator_inner(base, d))
    }

    fn declarator_inner(&mut self, base: Type, d: Node<'t>) -> R<(Option<Node<'t>>, Type)> {
        match d.kind() {
            "identifier" | "field_identifier" | "type_identifier" | "primitive_type" => Ok((Some(d), base)),
            "init_declarator" => {
                let inner = d.child_by_field_name("declarator").ok_or_else(|| self.unsupported(d, "declarator"))?;
                self.declarator(base, inner)
            }
            "pointer_declarator" | "abstract_pointer_declarator" => {
                let t = Type::ptr_to(base);
                match d.child_by_field_name("declarator") {
                    Some(inner) => self.declarator(t, inner),
                    None => Ok((None, t)),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = match d.child_by_field_name("size") {
                    Some(s) if s.kind() == "*" => return Err(self.unsupported(d, "variable-length array")),
                    Some(s) => {
                        let v = match self.const_eval(s) {
                            Ok(v) => v,
                            Err(_) if self.vla_sizes.is_some() => {
                                // A local variable-length array: element count unknown.
                                self.vla_sizes.as_mut().unwrap().push(s);
                                let t = Type::Array(Box::new(base), None);
                                return match d.child_by_field_name("declarator") {
                                    Some(inner) => self.declarator(t, inner),
                                    None => Ok((None, t)),
                                };
                            }
                            Err(_) => return Err(self.unsupported(s, "variable-length array (size is not a constant)")),
                        };
                        if v < 0 {
                            return Err(Error::syntax(self.loc(s), "array size is negative"));
                        }
                        Some(v as u64)
                    }
                    None => None,
                };
                if matches!(base, Type::Func(_)) {
                    return Err(Error::syntax(self.loc(d), "array of functions"));
                }
                let t = Type::Array(Box::new(base), size);
                match d.child_by_field_name("declarator") {
                    Some(inner) => self.declarator(t, inner),
                    None => Ok((None, t)),
                }
            }
            "function_declarator" | "abstract_function_declarator" => {
                let params = d.child_by_field_name("parameters").ok_or_else(|| self.unsupported(d, "parameters"))?;
                let (ptys, variadic) = self.param_types(params)?;
                let t = Type::Func(Box::new(FuncType { ret: base, params: ptys, variadic }));
                match d.child_by_field_name("declarator") {
                    Some(inner) => self.declarator(t, inner),
                    None => Ok((None, t)),
                }
            }
            "parenthesized_declarator" | "abstract_parenthesized_declarator" | "attributed_declarator" => {
                let inner = named_children(d).into_iter().find(|c| {
                    !matches!(c.kind(), "attribute_declaration" | "attribute_specifier" | "ms_call_modifier")
                });
                match inner {
                    Some(i) => self.declarator(base, i),
                    None => Ok((None, base)),
                }
            }
            other => Err(self.unsupported(d, format!("declarator `{}` ({other})", self.text(d)))),
        }
    }

    /// Parameter types of a parameter list (adjusted: arrays and functions become pointers).
    pub fn param_types(&mut self, list: Node<'t>) -> R<(Vec<Type>, bool)> {
        let mut tys = Vec::new();
        let mut variadic = false;
        let items = named_children(list);
        for p in &items {
            match p.kind() {
                "variadic_parameter" => variadic = true,
                "parameter_declaration" => {
                    let tnode = p.child_by_field_name("type").ok_or_else(|| self.unsupported(*p, "parameter without a type"))?;
                    let base = self.spec_type(tnode, *p)?;
                    let ty = match p.child_by_field_name("declarator") {
                        Some(d) => self.declarator(base, d)?.1,
                        None => base,
                    };
                    if ty == Type::Void && items.len() == 1 {
                        continue;
                    }
                    tys.push(adjust_param(ty));
                }
                "identifier" => {
                    // K&R identifier list: types unknown, treat as int.
                    tys.push(Type::INT);
                }
                _ => {}
            }
        }
        Ok((tys, variadic))
    }

    /// `type_descriptor` (in casts, sizeof, compound literals).
    pub fn type_descriptor(&mut self, n: Node<'t>) -> R<Type> {
        let tnode = n.child_by_field_name("type").ok_or_else(|| self.unsupported(n, "type name"))?;
        let base = self.spec_type(tnode, n)?;
        match n.child_by_field_name("declarator") {
            Some(d) => Ok(self.declarator(base, d)?.1),
            None => Ok(base),
        }
    }

    // ----- layout -----

    /// Size and alignment in bytes (x86-64, LP64).
    pub fn size_align(&self, ty: &Type, at: Node) -> R<(u64, u64)> {
        Ok(match ty {
            Type::Void => (1, 1),
            Type::Bool => (1, 1),
            Type::Int { bits, .. } => {
                let b = (*bits as u64 / 8).max(1);
                (b, b)
            }
            Type::Float { bits } => {
                let b = *bits as u64 / 8;
                (b, b)
            }
            Type::Ptr(_) => (8, 8),
            Type::Func(_) => (1, 1),
            Type::Array(t, n) => {
                let (s, a) = self.size_align(t, at)?;
                let total = s.checked_mul(n.unwrap_or(0)).filter(|t| *t < (1u64 << 62));
                (total.ok_or_else(|| self.unsupported(at, "object larger than 2^62 bytes"))?, a)
            }
            Type::Struct(id) => {
                let sd = &self.prog.structs[id.0 as usize];
                if !sd.complete {
                    return Err(self.unsupported(at, format!("size of incomplete type `struct {}`", sd.tag)));
                }
                self.struct_layout(*id, at)?.0
            }
        })
    }

    /// ((size, align), field byte offsets) of a struct or union.
    pub fn struct_layout(&self, id: StructId, at: Node) -> R<((u64, u64), Vec<u64>)> {
        self.struct_bits(id, at).map(|(sa, offsets, _)| (sa, offsets))
    }

    /// [`Self::struct_layout`] and each field's first bit.
    fn struct_bits(&self, id: StructId, at: Node) -> R<((u64, u64), Vec<u64>, Vec<u64>)> {
        let sd = &self.prog.structs[id.0 as usize];
        if let Some(why) = self.unknown_layout.get(&id) {
            let kw = if sd.is_union { "union" } else { "struct" };
            return Err(self.unsupported(at, format!("the layout of `{kw} {}`: {why}", sd.tag)));
        }
        let widths = self.bitfields.get(&id);
        // A field's alignment where attributes changed it.
        let aligned = |i: usize, natural: u64| sd.packing.as_ref().and_then(|p| p.fields.get(i)).map_or(natural, |f| f.actual);
        let mut offsets = Vec::new();
        let mut bits = Vec::new();
        let mut align = 1u64;
        let mut size = 0u64;
        let mut bit = 0u64; // current offset in bits (structs)
        for (i, f) in sd.fields.iter().enumerate() {
            let (fs, natural) = self.size_align(&f.ty, at)?;
            let fa = aligned(i, natural);
            let width = widths.and_then(|w| w.get(i).copied().flatten());
            if sd.is_union {
                offsets.push(0);
                bits.push(0);
                size = size.max(match width {
                    Some(w) => w.div_ceil(8),
                    None => fs,
                });
                align = align.max(fa);
                continue;
            }
            match width {
                Some(0) => {
                    bit = bit.div_ceil(natural * 8) * natural * 8;
                    offsets.push(bit / 8);
                    bits.push(bit);
                }
                Some(w) => {
                    let w = w.min(128);
                    let unit = fs * 8;
                    // Move to the next unit when the field would straddle one (a packed
                    // bit-field takes the next bits).
                    if unit > 0 && fa >= natural && bit / unit != (bit + w - 1) / unit {
                        bit = bit.div_ceil(unit) * unit;
                    }
                    offsets.push(bit / 8);
                    bits.push(bit);
                    bit += w;
                    align = align.max(fa);
                }
                None => {
                    let off = (bit.div_ceil(8)).div_ceil(fa) * fa;
                    offsets.push(off);
                    bits.push(off * 8);
                    bit = off
                        .checked_add(fs)
                        .and_then(|e| e.checked_mul(8))
                        .filter(|b| *b < (1u64 << 62))
                        .ok_or_else(|| self.unsupported(at, "object larger than 2^62 bytes"))?;
                    align = align.max(fa);
                }
            }
        }
        if !sd.is_union {
            size = bit.div_ceil(8);
        }
        let align = align.max(sd.packing.as_ref().map_or(1, |p| p.align));
        let size = size.div_ceil(align) * align;
        Ok(((size, align), offsets, bits))
    }

    /// Finds field `name` of a struct, looking into anonymous members: the index path.
    pub fn field_path(&self, id: StructId, name: &str) -> Option<Vec<usize>> {
        let sd = &self.prog.structs[id.0 as usize];
        if let Some(i) = sd.fields.iter().position(|f| f.name == name) {
            return Some(vec![i]);
        }
        for (i, f) in sd.fields.iter().enumerate() {
            if f.name.starts_with("__anon_member") {
                if let Type::Struct(sub) = f.ty {
                    if let Some(mut p) = self.field_path(sub, name) {
                        p.insert(0, i);
                        return Some(p);
                    }
                }
            }
        }
        None
    }

    // ----- integer constant expressions -----

    pub fn const_eval(&mut self, n: Node<'t>) -> R<i128> {
        Ok(self.const_eval_typed(n)?.0)
    }

    /// An integer constant expression's value and C type: every operation is done in the
    /// type C gives it (`~0u` is 4294967295, `0u - 1 > 0` holds), as GCC folds it.
    pub fn const_eval_typed(&mut self, n: Node<'t>) -> R<(i128, Type)> {
        self.nested(n, |l| l.const_eval_inner(n))
    }

    fn const_eval_inner(&mut self, n: Node<'t>) -> R<(i128, Type)> {
        let not_const = |l: &Self| l.unsupported(n, format!("`{}` is not an integer constant expression", l.text(n)));
        let int = |v: i128| Ok((v, Type::INT));
        match n.kind() {
            "number_literal" => match super::expr::parse_number(self.text(n)) {
                Some(super::expr::Number::Int(v, t)) => Ok((v, t)),
                _ => Err(not_const(self)),
            },
            "char_literal" => super::expr::char_value(self.text(n), self.char_signed).ok_or_else(|| not_const(self)).map(|v| (v, Type::INT)),
            "true" => int(1),
            "false" | "null" => int(0),
            "parenthesized_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| not_const(self))?;
                self.const_eval_typed(inner)
            }
            "identifier" => {
                let name = self.text(n);
                match self.lookup_ord(name) {
                    Some(Ord::Enum(v, t)) => Ok((*v, t.clone())),
                    Some(_) => Err(not_const(self)),
                    None => super::builtins::builtin_constant(name).ok_or_else(|| not_const(self)).map(|v| (v, Type::INT)),
                }
            }
            "unary_expression" => {
                let (a, at) = self.const_eval_typed(n.child_by_field_name("argument").ok_or_else(|| not_const(self))?)?;
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let t = promote(&at);
                Ok(match op {
                    "-" => (wrap(a.wrapping_neg(), &t), t),
                    "+" => (a, t),
                    "~" => (wrap(!a, &t), t),
                    "!" => ((a == 0) as i128, Type::INT),
                    _ => return Err(not_const(self)),
                })
            }
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| self.text(o)).unwrap_or("");
                let (a, at) = self.const_eval_typed(n.child_by_field_name("left").ok_or_else(|| not_const(self))?)?;
                if op == "&&" && a == 0 {
                    return int(0);
                }
                if op == "||" && a != 0 {
                    return int(1);
                }
                let (b, bt) = self.const_eval_typed(n.child_by_field_name("right").ok_or_else(|| not_const(self))?)?;
                // Shifts take the promoted left operand's type; the rest convert both operands
                // to their common type first (so comparisons of signed and unsigned compare the
                // converted values).
                let t = if matches!(op, "<<" | ">>") { promote(&at) } else { usual_arith(&at, &bt) };
                let (a, b) = if matches!(op, "<<" | ">>") { (wrap(a, &t), b) } else { (wrap(a, &t), wrap(b, &t)) };
                let v = match op {
                    "+" => a.wrapping_add(b),
                    "-" => a.wrapping_sub(b),
                    "*" => a.wrapping_mul(b),
                    "/" | "%" if b == 0 => return Err(Error::syntax(self.loc(n), "division by zero in a constant expression")),
                    "/" => a.wrapping_div(b),
                    "%" => a.wrapping_rem(b),
                    "<<" => a.checked_shl(b.clamp(0, 127) as u32).unwrap_or(0),
                    ">>" => a >> b.clamp(0, 127),
                    "&" => a & b,
                    "|" => a | b,
                    "^" => a ^ b,
                    "==" => return int((a == b) as i128),
                    "!=" => return int((a != b) as i128),
                    "<" => return int((a < b) as i128),
                    "<=" => return int((a <= b) as i128),
                    ">" => return int((a > b) as i128),
                    ">=" => return int((a >= b) as i128),
                    "&&" | "||" => return int((b != 0) as i128),
                    _ => return Err(not_const(self)),
                };
                Ok((wrap(v, &t), t))
            }
            "conditional_expression" => {
                let (c, ct) = self.const_eval_typed(n.child_by_field_name("condition").ok_or_else(|| not_const(self))?)?;
                let alt = n.child_by_field_name("alternative").ok_or_else(|| not_const(self))?;
                // Both arms are constant expressions: the result has their common type.
                let (y, yt) = match n.child_by_field_name("consequence") {
                    Some(x) if c == 0 => self.const_eval_typed(x).unwrap_or((0, Type::INT)),
                    Some(x) => self.const_eval_typed(x)?,
                    None => (c, ct),
                };
                // (The arm not taken only gives its type: it need not be evaluable.)
                let (z, zt) = if c != 0 {
                    self.const_eval_typed(alt).unwrap_or((0, yt.clone()))
                } else {
                    self.const_eval_typed(alt)?
                };
                let t = usual_arith(&yt, &zt);
                Ok((wrap(if c != 0 { y } else { z }, &t), t))
            }
            "cast_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| not_const(self))?;
                let v = n.child_by_field_name("value").ok_or_else(|| not_const(self))?;
                let ty = self.type_descriptor(tn)?;
                let (x, _) = self.const_eval_typed(v)?;
                Ok(if ty.is_integral() { (wrap(x, &ty), ty) } else { (x, Type::LONG) })
            }
            "sizeof_expression" | "alignof_expression" => {
                let ty = if let Some(t) = n.child_by_field_name("type") {
                    self.typedesc_or_expr_type(t)?
                } else {
                    let v = n.child_by_field_name("value").ok_or_else(|| not_const(self))?;
                    self.expr_type(v)?
                };
                let (s, a) = self.size_align(&ty, n)?;
                Ok((if n.kind() == "sizeof_expression" { s as i128 } else { a as i128 }, Type::ULONG))
            }
            "offsetof_expression" => {
                let tn = n.child_by_field_name("type").ok_or_else(|| not_const(self))?;
                let m = n.child_by_field_name("member").ok_or_else(|| not_const(self))?;
                let ty = self.type_descriptor(tn)?;
                let Type::Struct(id) = ty else { return Err(not_const(self)) };
                let name = self.text(m);
                let path = self.field_path(id, name).ok_or_else(|| Error::syntax(self.loc(m), format!("no field `{name}`")))?;
                let mut off = 0u64;
                let mut cur = id;
                for i in path {
                    let (_, offs) = self.struct_layout(cur, n)?;
                    off += offs[i];
                    if let Type::Struct(s) = &self.prog.structs[cur.0 as usize].fields[i].ty {
                        cur = *s;
                    }
                }
                Ok((off as i128, Type::ULONG))
            }
            "extension_expression" => {
                let inner = named_children(n).into_iter().next().ok_or_else(|| not_const(self))?;
                self.const_eval_typed(inner)
            }
            _ => Err(not_const(self)),
        }
    }

    /// For `sizeof(x)`: tree-sitter may parse a parenthesised variable as a type name.
    pub fn typedesc_or_expr_type(&mut self, t: Node<'t>) -> R<Type> {
        if let Some(id) = typedesc_ident(t) {
            let name = self.text(id);
            if self.names_a_value(name) {
                return self.expr_type(id);
            }
        }
        // `sizeof(f((double)(x)))`, read as the size of a type `f` with a function declarator.
        if let (Some(base), Some(open), Some(close)) = (typedesc_base(t), t.prev_sibling(), t.next_sibling()) {
            if open.kind() == "(" && close.kind() == ")" && self.names_a_value(self.text(base)) {
                if let Some(e) = self.reparsed(open.start_byte(), close.end_byte()) {
                    return self.expr_type(e);
                }
            }
        }
        self.type_descriptor(t)
    }
}

/// The identifier of a `type_descriptor` that is just a (possible) typedef name.
pub(super) fn typedesc_ident(t: Node) -> Option<Node> {
    if t.kind() != "type_descriptor" || t.child_by_field_name("declarator").is_some() {
        return None;
    }
    let ty = t.child_by_field_name("type")?;
    if ty.kind() == "type_identifier" && named_children(t).len() == 1 {
        Some(ty)
    } else {
        None
    }
}

/// The name a type descriptor's type is, whatever its declarator (`g` in `g (*)(x)`).
pub(super) fn typedesc_base(t: Node) -> Option<Node> {
    t.child_by_field_name("type").filter(|ty| t.kind() == "type_descriptor" && ty.kind() == "type_identifier")
}

pub(super) fn adjust_param(ty: Type) -> Type {
    match ty {
        Type::Array(t, _) => Type::Ptr(t),
        Type::Func(_) => Type::ptr_to(ty),
        t => t,
    }
}

/// Each bit-field's run (see [`BitField`]): adjacent bit-fields of non-zero width, from the
/// byte the first starts in to the byte the last ends in; in a union, each its own.
fn bit_runs(widths: &[Option<u64>], bits: &[u64], is_union: bool) -> Result<Vec<Option<BitField>>, String> {
    let mut out: Vec<Option<BitField>> = vec![None; widths.len()];
    let mut i = 0;
    while i < widths.len() {
        let Some(w) = widths[i] else {
            i += 1;
            continue;
        };
        if w == 0 {
            // Only separates runs; no storage of its own.
            out[i] = Some(BitField { width: 0, run: i, bit: 0, run_bits: 0 });
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while !is_union && end < widths.len() && widths[end].is_some_and(|w| w > 0) {
            end += 1;
        }
        let start = bits[i] / 8 * 8;
        let last = (i..end).map(|k| bits[k] + widths[k].unwrap_or(0)).max().unwrap_or(bits[i] + w);
        let run_bits = (last - start).div_ceil(8) * 8;
        if run_bits > 128 {
            return Err(format!("adjacent bit-fields spanning {run_bits} bits (weakc models at most 128 bits of adjacent bit-fields)"));
        }
        for k in i..end {
            let width = widths[k].unwrap_or(0) as u32;
            out[k] = Some(BitField { width, run: i, bit: (bits[k] - start) as u32, run_bits: run_bits as u32 });
        }
        i = end;
    }
    Ok(out)
}
