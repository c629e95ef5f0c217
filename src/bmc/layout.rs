//! Memory layout: every object is a sequence of scalar *cells* (struct fields and array
//! elements flattened in order). Pointers are `(object, cell offset)` pairs packed into a
//! 64-bit vector: the object id in the top [`OBJ_BITS`], the offset in the low [`OFF_BITS`].
//! Pointer arithmetic moves by cells (`p + i` on `T*` adds `i * cells(T)`), so `&a[i]`,
//! `&s.f` and `p++` over arrays work whatever the byte sizes. A byte pointer (`char *`,
//! `void *`) moves through the object's [`CellMap`] (where its cells lie in bytes), so
//! `(char *)buf + sizeof(T) * i` lands on element `i`; a move into the middle of a cell, and
//! reading a cell through a type of another width (`*(char *)&int_var`), are not modelled.

use crate::ir::{BinOp, Expr, ExprKind, Program, StructId, Type};
use std::collections::HashMap;
use std::rc::Rc;

pub const PTR_BITS: usize = 64;
pub const OFF_BITS: usize = 48;
pub const OBJ_BITS: usize = 16;
/// Object ids from here on denote functions (`FUNC_BASE + FuncId`).
pub const FUNC_BASE: u128 = 0x8000;
/// Width of symbolic cell offsets into thread-local (SSA) aggregates.
pub const LOCAL_OFF_BITS: usize = 32;

/// Bit width of a scalar type's value.
pub fn width(ty: &Type) -> usize {
    match ty {
        Type::Void => 8,
        Type::Bool => 1,
        Type::Int { bits, .. } => *bits as usize,
        Type::Float { bits } => *bits as usize,
        Type::Ptr(_) | Type::Func(_) => PTR_BITS,
        // Aggregates are not scalars; callers use `cells` for them.
        Type::Array(..) | Type::Struct(_) => PTR_BITS,
    }
}

pub fn is_signed(ty: &Type) -> bool {
    matches!(ty, Type::Int { signed: true, .. })
}

/// Cell widths of each type, cached per struct; cell maps cached per type.
pub struct Layout<'p> {
    prog: &'p Program,
    structs: HashMap<StructId, (Vec<usize>, Vec<usize>)>,
    maps: HashMap<Type, Option<Rc<CellMap>>>,
}

impl<'p> Layout<'p> {
    pub fn new(prog: &'p Program) -> Self {
        Layout { prog, structs: HashMap::new(), maps: HashMap::new() }
    }

    /// Widths of the cells of a value of type `ty` (one for a scalar).
    pub fn cells(&mut self, ty: &Type) -> Vec<usize> {
        match ty {
            Type::Array(elem, n) => {
                let e = self.cells(elem);
                let n = n.unwrap_or(1).min(1 << 20) as usize;
                let mut out = Vec::with_capacity(e.len() * n);
                for _ in 0..n {
                    out.extend_from_slice(&e);
                }
                out
            }
            Type::Struct(s) => self.strukt(*s).0,
            t => vec![width(t)],
        }
    }

    /// The scalar type of each cell of a value of type `ty` (a union's cells as unsigned
    /// integers of their widths).
    pub fn cell_types(&mut self, ty: &Type) -> Vec<Type> {
        match ty {
            Type::Array(elem, n) => {
                let e = self.cell_types(elem);
                let n = n.unwrap_or(1).min(1 << 20) as usize;
                e.iter().cloned().cycle().take(e.len() * n).collect()
            }
            Type::Struct(s) if !self.prog.strukt(*s).is_union => {
                let prog = self.prog;
                let def = prog.strukt(*s);
                let mut out: Vec<Type> = vec![];
                for (i, f) in def.fields.iter().enumerate() {
                    match def.bitfield(i) {
                        Some(b) if b.run == i => out.push(b.run_type()),
                        Some(_) => {}
                        None => out.extend(self.cell_types(&f.ty)),
                    }
                }
                if out.is_empty() {
                    // An empty struct still takes one cell.
                    self.unsigned_cells(ty)
                } else {
                    out
                }
            }
            Type::Struct(_) => self.unsigned_cells(ty),
            t => vec![t.clone()],
        }
    }

    /// The cells (their scalar types) that `bytes` bytes of consecutive values of type
    /// `elem` occupy (`memset`/`memcpy` over scalars, structs, arrays of them), when the
    /// bytes are whole values and the layout is known; at most 4096 cells.
    pub fn cell_run(&mut self, elem: &Type, bytes: u128) -> Option<Vec<Type>> {
        let size = self.byte_size(elem).filter(|&s| s > 0)? as u128;
        if bytes % size != 0 {
            return None;
        }
        let one = self.cell_types(elem);
        let n = (bytes / size) as usize * one.len();
        (n <= MAX_COPY_CELLS).then(|| one.iter().cloned().cycle().take(n).collect())
    }

    fn unsigned_cells(&mut self, ty: &Type) -> Vec<Type> {
        self.cells(ty).into_iter().map(|w| Type::Int { bits: w.min(128) as u8, signed: false }).collect()
    }

    pub fn ncells(&mut self, ty: &Type) -> usize {
        match ty {
            Type::Array(elem, n) => self.ncells(elem) * n.unwrap_or(1).min(1 << 20) as usize,
            Type::Struct(s) => self.strukt(*s).0.len(),
            Type::Void => 1,
            _ => 1,
        }
    }

    /// How many cells a variable of type `ty` has, when every access at a larger offset is
    /// out of its bounds: none for a type whose cells are not all laid out (an array of
    /// unknown or capped length anywhere in it, such as a flexible array member).
    pub fn extent(&mut self, ty: &Type) -> Option<u128> {
        fn complete(prog: &Program, ty: &Type, depth: usize) -> bool {
            match ty {
                Type::Array(elem, n) => n.is_some_and(|n| n > 0 && n <= 1 << 20) && complete(prog, elem, depth),
                Type::Struct(s) if depth < 64 => prog.strukt(*s).fields.iter().all(|f| complete(prog, &f.ty, depth + 1)),
                Type::Struct(_) => false,
                _ => true,
            }
        }
        complete(self.prog, ty, 0).then(|| self.ncells(ty) as u128)
    }

    /// Size in bytes of a value of type `ty`, as the front end laid it out (`None` for a
    /// struct it could not: bit-fields, incomplete).
    pub fn byte_size(&mut self, ty: &Type) -> Option<u64> {
        match ty {
            Type::Array(elem, n) => self.byte_size(elem)?.checked_mul(n.unwrap_or(1)),
            Type::Struct(s) => self.prog.strukt(*s).bytes.as_ref().map(|b| b.size),
            Type::Bool | Type::Void | Type::Func(_) => Some(1),
            t => Some(width(t).div_ceil(8) as u64),
        }
    }

    /// The cell that starts `bytes` bytes into a value of type `ty`: how a byte offset
    /// (`offsetof`, `container_of`) reads in this memory of cells. `None` where no cell
    /// starts there (inside a scalar, in padding, past the end) or the layout is unknown.
    pub fn cell_at_byte(&mut self, ty: &Type, bytes: u64) -> Option<usize> {
        match ty {
            Type::Array(elem, n) => {
                let size = self.byte_size(elem).filter(|&s| s > 0)?;
                let i = bytes / size;
                if n.is_some_and(|n| i >= n) {
                    return None;
                }
                let inner = self.cell_at_byte(elem, bytes % size)?;
                Some(i as usize * self.ncells(elem) + inner)
            }
            Type::Struct(s) => {
                let def = self.prog.strukt(*s);
                let offsets = def.bytes.as_ref()?.offsets.clone();
                if def.is_union {
                    // The members overlap cell by cell only at their start.
                    return (bytes == 0).then_some(0);
                }
                let fields: Vec<Type> = def.fields.iter().map(|f| f.ty.clone()).collect();
                for (i, (f, &off)) in fields.iter().zip(&offsets).enumerate() {
                    let size = self.byte_size(f)?;
                    if off <= bytes && bytes < off + size {
                        let inner = self.cell_at_byte(f, bytes - off)?;
                        return Some(self.field_offset(*s, i) + inner);
                    }
                }
                None
            }
            _ => (bytes == 0).then_some(0),
        }
    }

    /// Where the cells of values of type `ty` lie in bytes, as the front end laid them out
    /// (for an array, one element: the period repeats). `None` where that is unknown (a
    /// union, bit-fields, an incomplete type) or too irregular (more than [`MAX_SEGS`]
    /// segments in one period). One shared map per type: every object of it gets this one,
    /// so objects are grouped by layout with a pointer comparison.
    pub fn cell_map(&mut self, ty: &Type) -> Option<Rc<CellMap>> {
        if let Type::Array(elem, _) = ty {
            return self.cell_map(elem);
        }
        if let Some(m) = self.maps.get(ty) {
            return m.clone();
        }
        let m = self.compute_cell_map(ty).map(Rc::new);
        self.maps.insert(ty.clone(), m.clone());
        m
    }

    fn compute_cell_map(&mut self, ty: &Type) -> Option<CellMap> {
        match ty {
            Type::Struct(s) => {
                let def = self.prog.strukt(*s);
                if def.is_union {
                    return None;
                }
                let bytes = def.bytes.as_ref()?;
                let (size, offsets) = (bytes.size, bytes.offsets.clone());
                let fields: Vec<Type> = def.fields.iter().map(|f| f.ty.clone()).collect();
                let mut segs: Vec<Seg> = vec![];
                for (i, (f, &fbyte)) in fields.iter().zip(&offsets).enumerate() {
                    let m = self.cell_map(f)?;
                    let fcell = self.field_offset(*s, i) as u64;
                    let reps = self.ncells(f) as u64 / m.period_cells;
                    if self.byte_size(f)? != reps * m.period_bytes {
                        return None;
                    }
                    if let Some(u) = m.uniform() {
                        push_seg(&mut segs, Seg { byte: fbyte, cell: fcell, count: reps, size: u });
                        continue;
                    }
                    for r in 0..reps {
                        for sg in &m.segs {
                            push_seg(&mut segs, Seg { byte: fbyte + r * m.period_bytes + sg.byte, cell: fcell + r * m.period_cells + sg.cell, ..*sg });
                            if segs.len() > MAX_SEGS {
                                return None;
                            }
                        }
                    }
                }
                let cells = self.ncells(ty) as u64;
                (size > 0 && !segs.is_empty() && segs.iter().map(|s| s.count).sum::<u64>() == cells)
                    .then(|| CellMap { period_bytes: size, period_cells: cells, segs }.normalized())
            }
            Type::Func(_) => None,
            t => self.byte_size(t).filter(|&s| s > 0).map(CellMap::cells_of),
        }
    }

    /// Cell offset of field `idx` of struct `s` (0 for every field of a union).
    pub fn field_offset(&mut self, s: StructId, idx: usize) -> usize {
        self.strukt(s).1.get(idx).copied().unwrap_or(0)
    }

    fn strukt(&mut self, s: StructId) -> (Vec<usize>, Vec<usize>) {
        if let Some(l) = self.structs.get(&s) {
            return l.clone();
        }
        // Guard against (invalid) self-containing structs.
        self.structs.insert(s, (vec![8], vec![0]));
        let def = self.prog.strukt(s).clone();
        let mut cells: Vec<usize> = vec![];
        let mut offs = vec![];
        for (i, f) in def.fields.iter().enumerate() {
            // A run of bit-fields is one cell, at its first field.
            match def.bitfield(i).filter(|_| !def.is_union) {
                Some(b) if b.run != i => {
                    offs.push(offs[b.run]);
                    continue;
                }
                Some(b) => {
                    offs.push(cells.len());
                    cells.push(b.run_bits as usize);
                    continue;
                }
                None => {}
            }
            let fc = self.cells(&f.ty);
            if def.is_union {
                offs.push(0);
                for (i, w) in fc.into_iter().enumerate() {
                    if i < cells.len() {
                        cells[i] = cells[i].max(w);
                    } else {
                        cells.push(w);
                    }
                }
            } else {
                offs.push(cells.len());
                cells.extend(fc);
            }
        }
        if cells.is_empty() {
            cells.push(8);
        }
        self.structs.insert(s, (cells.clone(), offs.clone()));
        (cells, offs)
    }
}

/// The most cells a `memcpy`/`memset` of a constant size is unrolled into; a larger one is
/// an approximation site.
pub const MAX_COPY_CELLS: usize = 4096;

/// At most this many segments in one period of a [`CellMap`].
pub const MAX_SEGS: usize = 256;

/// Where an object's cells lie in bytes: one period (an array element; the whole object
/// otherwise) that repeats, made of segments of consecutive cells of one size. This is how
/// a byte pointer (`char *`, `void *`) moves in a memory of cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellMap {
    pub period_bytes: u64,
    pub period_cells: u64,
    /// In byte and cell order; every cell of the period is in one.
    pub segs: Vec<Seg>,
}

/// `count` cells of `size` bytes each, the first at `byte` and cell `cell` of the period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub byte: u64,
    pub cell: u64,
    pub count: u64,
    pub size: u64,
}

impl CellMap {
    /// Cells of `size` bytes each, one after the other.
    pub fn cells_of(size: u64) -> CellMap {
        CellMap { period_bytes: size, period_cells: 1, segs: vec![Seg { byte: 0, cell: 0, count: 1, size }] }
    }

    /// Every cell has this many bytes, with no padding between them.
    pub fn uniform(&self) -> Option<u64> {
        (self.period_cells == 1 && self.segs.len() == 1).then_some(self.period_bytes)
    }

    /// A period of equal cells and no padding is one cell repeated.
    fn normalized(self) -> CellMap {
        match self.segs[..] {
            [s] if s.count * s.size == self.period_bytes => CellMap::cells_of(s.size),
            _ => self,
        }
    }
}

fn push_seg(segs: &mut Vec<Seg>, s: Seg) {
    if let Some(last) = segs.last_mut() {
        if last.size == s.size && last.byte + last.count * last.size == s.byte && last.cell + last.count == s.cell {
            last.count += s.count;
            return;
        }
    }
    segs.push(s);
}

/// A pointer to bytes (`char *`, `unsigned char *`, GNU `void *` arithmetic).
pub fn is_byte_pointer(t: &Type) -> bool {
    matches!(t.pointee(), Some(Type::Void | Type::Bool | Type::Int { bits: 8, .. }))
}

pub fn strip_pointer_casts(mut e: &Expr) -> &Expr {
    while let ExprKind::Cast(inner) = &e.kind {
        if !(e.ty.is_pointer() && inner.ty.is_pointer()) {
            break;
        }
        e = inner;
    }
    e
}

/// `(char *)p ± k` with a constant `k` (under pointer casts): a pointer moved by bytes.
pub struct ByteMove<'e> {
    /// The byte pointer moved.
    pub ptr: &'e Expr,
    /// What `ptr` pointed to before it was cast to bytes (`None`: bytes, `void`, unknown).
    pub source: Option<&'e Type>,
    /// The move in bytes (negative: back).
    pub bytes: i128,
}

pub fn byte_move(e: &Expr) -> Option<ByteMove<'_>> {
    let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), x, y) = &strip_pointer_casts(e).kind else { return None };
    let (ptr, k) = match (&x.kind, &y.kind) {
        (_, ExprKind::Const(k)) if is_byte_pointer(&x.ty) => (&**x, *k),
        (ExprKind::Const(k), _) if is_byte_pointer(&y.ty) && *op == BinOp::Add => (&**y, *k),
        _ => return None,
    };
    // (A byte pointer's own pointee says nothing about where bytes lie.)
    let source = strip_pointer_casts(ptr).ty.pointee().filter(|t| !matches!(t, Type::Void | Type::Func(_) | Type::Bool | Type::Int { bits: 8, .. }));
    Some(ByteMove { ptr, source, bytes: if *op == BinOp::Sub { k.checked_neg()? } else { k } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    fn program(src: &str) -> Program {
        crate::frontend::load_str("t.c", src, &Default::default(), &mut SourceMap::default()).expect("parses")
    }

    #[test]
    fn byte_offsets_land_on_cells_through_padding_nesting_and_arrays() {
        let p = program("struct n { void *next; int key; }; struct s { char c; int v; struct n node; short t[3]; long w; }; union u { int i; long l; }; struct s x; union u y; struct n arr[4]; int main(void) { return x.c + y.i + arr[0].key; }");
        let mut l = Layout::new(&p);
        let ty = |name: &str| p.vars.iter().find(|v| v.name == name).expect("var").ty.clone();
        let s = ty("x");
        // c@0, v@4, node@8 (next@8, key@16), t@24..30, w@32: cells c v next key t0 t1 t2 w
        let cells: Vec<Option<usize>> = [0, 4, 8, 16, 24, 26, 28, 32].iter().map(|&b| l.cell_at_byte(&s, b)).collect();
        assert_eq!(cells, (0..8).map(Some).collect::<Vec<_>>());
        // inside a scalar, in padding, past the end: no cell starts there
        for b in [1, 2, 5, 20, 30, 33, 40] {
            assert_eq!(l.cell_at_byte(&s, b), None, "byte {b}");
        }
        assert_eq!(l.byte_size(&s), Some(40));
        // an array of structs: whole elements, then within one; unbounded arrays too
        let a = ty("arr");
        assert_eq!(l.cell_at_byte(&a, 16 * 3 + 8), Some(3 * 2 + 1));
        assert_eq!(l.cell_at_byte(&a, 16 * 4), None);
        let open = Type::Array(Box::new(s.clone()), None);
        assert_eq!(l.cell_at_byte(&open, 40 * 5 + 32), Some(5 * 8 + 7));
        // a union: only its start
        let u = ty("y");
        assert_eq!(l.cell_at_byte(&u, 0), Some(0));
        assert_eq!(l.cell_at_byte(&u, 4), None);
    }

    #[test]
    fn cell_maps_agree_with_the_byte_offsets_of_cells() {
        let p = program("struct n { void *next; int key; }; struct s { char c; int v; struct n node; short t[3]; long w; }; union u { int i; long l; }; struct s x; union u y; struct n arr[4]; int ints[5]; char text[3]; struct w { int a; int b; } pairs[2]; int main(void) { return x.c + y.i + arr[0].key + ints[0] + text[0] + pairs[0].a; }");
        let mut l = Layout::new(&p);
        let ty = |name: &str| p.vars.iter().find(|v| v.name == name).expect("var").ty.clone();
        // The cell a byte starts, read off the map, for a few periods.
        let cell_at = |m: &CellMap, b: u64| {
            let (q, r) = (b / m.period_bytes, b % m.period_bytes);
            m.segs.iter().find(|s| s.byte <= r && r < s.byte + s.count * s.size && (r - s.byte) % s.size == 0).map(|s| q * m.period_cells + s.cell + (r - s.byte) / s.size)
        };
        for name in ["x", "arr"] {
            let t = ty(name);
            let m = l.cell_map(&t).expect("a map");
            let open = Type::Array(Box::new(match &t { Type::Array(e, _) => (**e).clone(), t => t.clone() }), None);
            for b in 0..3 * m.period_bytes {
                assert_eq!(cell_at(&m, b), l.cell_at_byte(&open, b).map(|c| c as u64), "{name} byte {b}");
            }
        }
        // Arrays of scalars and of structs without padding are one cell repeated.
        assert_eq!(l.cell_map(&ty("ints")).and_then(|m| m.uniform()), Some(4));
        assert_eq!(l.cell_map(&ty("text")).and_then(|m| m.uniform()), Some(1));
        assert_eq!(l.cell_map(&ty("pairs")).and_then(|m| m.uniform()), Some(4));
        assert_eq!(l.cell_map(&ty("arr")).and_then(|m| m.uniform()), None);
        // A union has none: its members overlap.
        assert!(l.cell_map(&ty("y")).is_none());
    }
}
