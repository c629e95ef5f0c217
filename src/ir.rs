//! The typed intermediate representation every stage shares.
//!
//! The IR stays close to C so that the rewriter can print it back as C, but it is already
//! *lowered*: expressions are side-effect free (assignments, `++`, calls and short-circuit
//! operators with effects were turned into statements by the front end), loops have a single
//! shape, `switch` became `if`/`goto`, and every statement carries the location of the
//! user's source it came from. After [`crate::normalize`] every shared-memory access is its
//! own assignment (ESOP 2013 §4.4).

use crate::source::Loc;
use serde::Serialize;

/// Index of a variable in [`Program::vars`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VarId(pub u32);
/// Index of a function in [`Program::funcs`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FuncId(pub u32);
/// Index of a struct/union definition in [`Program::structs`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct StructId(pub u32);
/// A label, unique within its function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LabelId(pub u32);

/// C types, fully resolved (typedefs expanded, enums are `int`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    Void,
    /// `_Bool`
    Bool,
    /// Integer of `bits` width (8, 16, 32, 64, 128); `char` is signed here, as on x86 gcc.
    Int { bits: u8, signed: bool },
    /// `float` (32), `double` (64), `long double` (128): parsed and printed, not reasoned about.
    Float { bits: u8 },
    Ptr(Box<Type>),
    /// Array with its element count when known (`int a[]` as a parameter decays to a pointer).
    Array(Box<Type>, Option<u64>),
    Struct(StructId),
    Func(Box<FuncType>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FuncType {
    pub ret: Type,
    pub params: Vec<Type>,
    pub variadic: bool,
}

impl Type {
    pub const INT: Type = Type::Int { bits: 32, signed: true };
    pub const UINT: Type = Type::Int { bits: 32, signed: false };
    pub const LONG: Type = Type::Int { bits: 64, signed: true };
    pub const ULONG: Type = Type::Int { bits: 64, signed: false };
    pub const CHAR: Type = Type::Int { bits: 8, signed: true };

    pub fn ptr_to(t: Type) -> Type {
        Type::Ptr(Box::new(t))
    }
    pub fn is_integral(&self) -> bool {
        matches!(self, Type::Bool | Type::Int { .. })
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Ptr(_))
    }
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Bool | Type::Int { .. } | Type::Ptr(_) | Type::Float { .. })
    }
    /// The pointee of a pointer, or the element of an array.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Ptr(t) | Type::Array(t, _) => Some(t),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StructDef {
    /// Tag as written, or a generated one (`__anon3`) for anonymous structs.
    pub tag: String,
    pub is_union: bool,
    pub fields: Vec<Field>,
    /// False for a declared but never defined (`struct s;`) type.
    pub complete: bool,
    /// Where the fields lie in bytes, as the front end's target lays them out; `None` when
    /// incomplete or with bit-fields (several fields in one byte range). Pointer arithmetic
    /// in bytes (`container_of`) is translated through it by the model checker, whose memory
    /// is made of cells.
    #[serde(skip)]
    pub bytes: Option<ByteLayout>,
    /// Per field, where it is a bit-field, its bits (empty when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bitfields: Vec<Option<BitField>>,
    /// Alignments that `packed`, `aligned` or `#pragma pack` changed (`None`: every field
    /// and the type have their natural alignment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packing: Option<Packing>,
}

/// A struct's alignments where layout attributes changed them: what its C must say again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Packing {
    /// The type's own `aligned` (1 when it has none).
    pub align: u64,
    /// Per field: its type's alignment and the one it has here.
    pub fields: Vec<FieldAlign>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FieldAlign {
    pub natural: u64,
    pub actual: u64,
}

/// A bit-field's bits. Adjacent bit-fields of non-zero width are one memory location (C11
/// 3.14): they live in one *run*, the bytes they span, which the model checker keeps as one
/// cell and a write to any of them reads and writes whole, as the compiled code does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BitField {
    /// The declared width.
    pub width: u32,
    /// The field that starts the run (the same field for a union member).
    pub run: usize,
    /// The first bit of the field in the run (little-endian bit order, as GCC on x86-64,
    /// AArch64 and ppc64le allocates them).
    pub bit: u32,
    /// The run's size in bits (whole bytes).
    pub run_bits: u32,
}

impl StructDef {
    /// Field `i`'s bits where it is a bit-field with storage (not `: 0`).
    pub fn bitfield(&self, i: usize) -> Option<BitField> {
        self.bitfields.get(i).copied().flatten().filter(|b| b.width > 0)
    }

    /// Whether field `i` is an unnamed bit-field (padding, or `: 0`): the front end names
    /// anonymous members `__anon_memberN`, and only bit-fields have bits.
    pub fn unnamed_bitfield(&self, i: usize) -> bool {
        self.fields.get(i).is_some_and(|f| f.name.starts_with("__anon_member")) && self.bitfields.get(i).is_some_and(Option::is_some)
    }
}

impl BitField {
    /// The type of the run's cell.
    pub fn run_type(&self) -> Type {
        Type::Int { bits: self.run_bits as u8, signed: false }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteLayout {
    pub size: u64,
    /// The byte offset of each field (0 for every field of a union).
    pub offsets: Vec<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Storage {
    Global,
    /// A function's local (or parameter); `func` owns it.
    Local { func: FuncId },
    /// A temporary introduced by the front end or by normalisation.
    Temp { func: FuncId },
    /// A file-scope `__thread`/`_Thread_local` variable: static storage, one copy per thread
    /// (not shared, so not a global in the sense of [`Var::is_global`]).
    ThreadLocal,
}

#[derive(Clone, Debug, Serialize)]
pub struct Var {
    /// Name as written (temporaries: `__weakc_tmpN`); unique per function, not globally.
    pub name: String,
    pub ty: Type,
    pub storage: Storage,
    pub init: Option<Init>,
    /// `&v` appears somewhere: the variable may be reached through pointers.
    pub address_taken: bool,
    pub loc: Loc,
}

impl Var {
    pub fn is_global(&self) -> bool {
        matches!(self.storage, Storage::Global)
    }
}

/// Static initialiser (globals) or initial value (locals with an initialiser are lowered to
/// an assignment instead; `init` is only used for globals and `static` locals).
#[derive(Clone, Debug, Serialize)]
pub enum Init {
    Expr(Expr),
    /// `{ a, b, ... }` for arrays and structs, possibly nested, positional (designators are
    /// resolved by the front end; gaps are `List(vec![])`); missing elements are zero. A
    /// union's list initialises one member: its last item that is not a gap
    /// ([`Init::union_member`]; `{.b = 5}` is `[gap, 5]`).
    List(Vec<Init>),
}

impl Init {
    /// The member a union's initialiser list `items` initialises, with its initialiser
    /// (`None`: all gaps, the union is zero).
    pub fn union_member(items: &[Init]) -> Option<(usize, &Init)> {
        items.iter().enumerate().rev().find(|(_, i)| !matches!(i, Init::List(l) if l.is_empty()))
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Function {
    pub name: String,
    pub ty: FuncType,
    pub params: Vec<VarId>,
    /// `None` for external functions (declared, not defined).
    pub body: Option<Block>,
    pub loc: Loc,
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub loc: Loc,
    /// Unique within the program once [`number_stmts`] ran (0 before): access sites and
    /// the rewriter refer to statements by it.
    pub id: u32,
    /// Ordering the hardware instruction of this access carries by itself, beyond the fences
    /// around it (set by [`crate::atomics`] from the architecture's mapping; default none).
    #[serde(skip_serializing_if = "HwOrder::is_plain")]
    pub hw: HwOrder,
}

impl Stmt {
    pub fn new(kind: StmtKind, loc: Loc) -> Stmt {
        Stmt { kind, loc, id: 0, hw: HwOrder::default() }
    }
}

/// How the instruction performing an access orders it with the rest of its thread, for
/// instructions that order by themselves rather than through a separate fence.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct HwOrder {
    /// What orders the statement's read before every later access of its thread.
    pub acquire: Acquire,
    /// The statement's write is ordered after every earlier access of its thread (AArch64
    /// `STLR`, `STLXR`: herd's `po; [L]`).
    pub release: bool,
}

impl HwOrder {
    pub fn is_plain(&self) -> bool {
        *self == HwOrder::default()
    }
}

/// The acquire half of [`HwOrder`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Acquire {
    #[default]
    None,
    /// Power `ld; cmp; bc; isync` / ARM `ldr; teq; beq; isb` (and the `isync` after a
    /// `lwarx`/`stwcx.` loop): a control dependency plus isync from the read to everything
    /// after it — the architecture's `ctrl_isync` rule decides what it orders.
    CtrlIsync,
    /// AArch64 `LDAPR` (RCpc): `[Q]; po` only.
    Pc,
    /// AArch64 `LDAR`/`LDAXR` (RCsc): `[A]; po`, and `[L]; po; [A]` after a release write.
    Sc,
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    /// `lhs = rhs;` with `lhs` an lvalue expression (Var, Deref, Index, Member).
    Assign { lhs: Expr, rhs: Expr },
    /// Call of a defined or external function; indirect calls through a pointer expression.
    Call { dest: Option<Expr>, callee: Callee, args: Vec<Expr> },
    If { cond: Expr, then_: Block, else_: Block },
    /// `loop { body; latch }`: `Continue` jumps to `latch`, `Break` leaves the loop. Loop
    /// conditions are explicit `if (!c) break;` statements at the head of `body` (while/for)
    /// or at the end of `latch` (do-while).
    Loop { body: Block, latch: Block },
    Break,
    Continue,
    Return(Option<Expr>),
    /// Forward `goto` only (the front end rejects backward jumps).
    Goto(LabelId),
    Label(LabelId, String),
    /// `assert`, `__VERIFIER_assert`, `__CPROVER_assert`, `reach_error()` (as `false`).
    /// `ctrl`: the assertion is a branch of the program (glibc's `assert` and `if (c)
    /// reach_error()` compile to one), so later events depend on its condition as on any
    /// branch's; `__VERIFIER_assert` and `__CPROVER_assert` are properties only and order
    /// nothing (as in Dat3M: a verifier's assertion adds no control flow).
    Assert { cond: Expr, msg: String, ctrl: bool },
    /// `__VERIFIER_assume`, `__CPROVER_assume`, `assume_abort_if_not`; `abort()`/`exit()` are
    /// `assume(false)` (the path ends).
    Assume(Expr),
    Fence(Fence),
    AtomicBegin,
    AtomicEnd,
    /// Start a thread running `func(arg)`: `pthread_create(tid, attr, func, arg)` (tid stored
    /// to `*tid` when given) or CBMC's `__CPROVER_ASYNC_n: f(arg);`.
    Spawn { tid: Option<Expr>, func: Expr, arg: Expr },
    /// `pthread_join(tid, ret)`: waits for the thread whose id is `tid`.
    Join { tid: Expr, ret: Option<Expr> },
    Lock(Expr),
    Unlock(Expr),
    /// Atomic read-modify-write on `*ptr` (`__sync_*`, `__atomic_*`, `xchg`); full fence
    /// semantics unless `order` says otherwise.
    Rmw(Rmw),
    /// A block in its own C scope (kept so printing preserves structure).
    Block(Block),
    /// Nothing left (e.g. a declaration without initialiser).
    Skip,
}

#[derive(Clone, Debug, Serialize)]
pub enum Callee {
    Direct(FuncId),
    Indirect(Expr),
}

#[derive(Clone, Debug, Serialize)]
pub struct Rmw {
    pub op: RmwOp,
    /// Receives the result (old value for fetch-op/exchange/CAS-val, new value for op-fetch,
    /// success flag for bool-CAS).
    pub dest: Option<Expr>,
    /// Pointer to the location updated.
    pub ptr: Expr,
    /// Operand (new value for exchange/store, desired value for CAS).
    pub val: Expr,
    /// Expected value for CAS (for `__atomic_compare_exchange`, the value pointed to).
    pub expected: Option<Expr>,
    pub order: MemOrder,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RmwOp {
    FetchAdd,
    FetchSub,
    FetchAnd,
    FetchOr,
    FetchXor,
    FetchNand,
    AddFetch,
    SubFetch,
    AndFetch,
    OrFetch,
    XorFetch,
    NandFetch,
    Exchange,
    /// Compare-and-swap returning the old value.
    CasVal,
    /// Compare-and-swap returning success.
    CasBool,
    /// C11/GCC `__atomic_compare_exchange_n(ptr, expected_ptr, desired, ...)`: `expected` is a
    /// *pointer* to the expected value, updated with the current value on failure; `dest`
    /// receives the success flag.
    CompareExchange,
    /// `__atomic_load_n`: `dest = *ptr` atomically.
    Load,
    /// `__atomic_store_n`: `*ptr = val` atomically.
    Store,
}

/// C11 memory order of an `__atomic_*` builtin (`__sync_*` are `SeqCst`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum MemOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Fence instructions as written in the source; what each orders is the architecture's
/// business ([`crate::arch`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Fence {
    /// A portable full barrier: `__sync_synchronize()`, `__atomic_thread_fence(SEQ_CST)`
    /// (compiled to `mfence`, `sync`, `dmb` ish).
    Full,
    /// A portable acquire/release barrier: `__atomic_thread_fence(ACQ_REL)` (nothing on x86,
    /// `lwsync` on Power, `dmb` on ARM).
    AcqRel,
    /// x86 `mfence`.
    Mfence,
    /// Power `sync` (`hwsync`).
    Sync,
    Lwsync,
    Isync,
    Eieio,
    /// ARM `dmb` (full), `dmb st`, `dmb ld`.
    Dmb,
    DmbSt,
    DmbLd,
    Dsb,
    Isb,
    /// SPARC `membar #LoadStore | #StoreStore` (what GCC emits before a release store on
    /// RMO): earlier reads and writes before later writes.
    MembarRelease,
    /// SPARC `membar #LoadLoad` (liburcu's `cmm_rmb`): earlier reads before later reads.
    MembarLoadLoad,
    /// SPARC `membar #StoreLoad` (Linux's `mb()` on sparc64): earlier writes before later
    /// reads.
    MembarStoreLoad,
    /// SPARC `membar #StoreLoad | #LoadLoad` (before liburcu's `cas`): earlier accesses
    /// before later reads.
    MembarToLoads,
    /// SPARC `membar #StoreLoad | #StoreStore` (after liburcu's `cas`): earlier writes
    /// before later accesses.
    MembarFromStores,
    /// A portable acquire barrier: `__atomic_thread_fence(ACQUIRE)` before [`crate::atomics`]
    /// compiles it for an architecture (`dmb ishld` on AArch64, `lwsync` on Power).
    Acquire,
    /// A portable release barrier: `__atomic_thread_fence(RELEASE)` (`dmb ish` on AArch64).
    Release,
    /// A compiler-only barrier (`asm volatile("" ::: "memory")`): orders nothing in hardware.
    Compiler,
}

impl Fence {
    pub fn name(self) -> &'static str {
        match self {
            Fence::Full => "full barrier",
            Fence::AcqRel => "acquire/release barrier",
            Fence::Mfence => "mfence",
            Fence::Sync => "sync",
            Fence::Lwsync => "lwsync",
            Fence::Isync => "isync",
            Fence::Eieio => "eieio",
            Fence::Dmb => "dmb",
            Fence::DmbSt => "dmb st",
            Fence::DmbLd => "dmb ld",
            Fence::Dsb => "dsb",
            Fence::Isb => "isb",
            Fence::MembarRelease => "membar #LoadStore|#StoreStore",
            Fence::MembarLoadLoad => "membar #LoadLoad",
            Fence::MembarStoreLoad => "membar #StoreLoad",
            Fence::MembarToLoads => "membar #StoreLoad|#LoadLoad",
            Fence::MembarFromStores => "membar #StoreLoad|#StoreStore",
            Fence::Acquire => "acquire barrier",
            Fence::Release => "release barrier",
            Fence::Compiler => "compiler barrier",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
}

#[derive(Clone, Debug, Serialize)]
pub enum ExprKind {
    /// Integer constant (also characters, `sizeof`, enum constants, NULL as `(void*)0`).
    Const(i128),
    /// Floating constant kept as written.
    FloatConst(String),
    /// String literal: its bytes, escapes resolved, without the terminating zero (bytes, not
    /// text: `"\xff"` is one byte 255).
    Str(Vec<u8>),
    Var(VarId),
    /// Address of a function (a function designator used as a value).
    FuncAddr(FuncId),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b` with side-effect-free, read-free operands (otherwise lowered to `if`).
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>),
    Deref(Box<Expr>),
    AddrOf(Box<Expr>),
    /// `e.field` (field index into the struct definition); `p->f` is `Member(Deref(p))`.
    Member(Box<Expr>, usize),
    /// `a[i]` on an array-typed `a` (pointer indexing is `Deref(p + i)`).
    Index(Box<Expr>, Box<Expr>),
    /// `__VERIFIER_nondet_*()` or `__VERIFIER_nondet_bool()`: a fresh unconstrained value.
    Nondet,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum UnOp {
    Neg,
    /// `~`
    BitNot,
    /// `!`
    Not,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&`/`||` only when both operands are free of reads of shared memory and effects.
    LogAnd,
    LogOr,
}

impl BinOp {
    pub fn c_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            LogAnd => "&&",
            LogOr => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge | LogAnd | LogOr)
    }
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Type) -> Expr {
        Expr { kind, ty }
    }
    pub fn int(v: i128) -> Expr {
        Expr::new(ExprKind::Const(v), Type::INT)
    }
    pub fn var(v: VarId, ty: Type) -> Expr {
        Expr::new(ExprKind::Var(v), ty)
    }
    /// The direct sub-expressions, in evaluation order.
    fn children(&self) -> [Option<&Expr>; 3] {
        match &self.kind {
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::Member(a, _) => [Some(a), None, None],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => [Some(a), Some(b), None],
            ExprKind::Cond(c, a, b) => [Some(c), Some(a), Some(b)],
            ExprKind::Const(_) | ExprKind::FloatConst(_) | ExprKind::Str(_) | ExprKind::Var(_) | ExprKind::FuncAddr(_) | ExprKind::Nondet => [None, None, None],
        }
    }
    fn children_mut(&mut self) -> [Option<&mut Expr>; 3] {
        match &mut self.kind {
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::Member(a, _) => [Some(a), None, None],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => [Some(a), Some(b), None],
            ExprKind::Cond(c, a, b) => [Some(c), Some(a), Some(b)],
            ExprKind::Const(_) | ExprKind::FloatConst(_) | ExprKind::Str(_) | ExprKind::Var(_) | ExprKind::FuncAddr(_) | ExprKind::Nondet => [None, None, None],
        }
    }
    /// Calls `f` on this expression and every sub-expression, outermost first.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        for c in self.children().into_iter().flatten() {
            c.visit(f);
        }
    }
    /// Calls `f` on every sub-expression and then on this expression, innermost first (what
    /// `f` puts in place is not visited again).
    pub fn visit_mut_post(&mut self, f: &mut impl FnMut(&mut Expr)) {
        for c in self.children_mut().into_iter().flatten() {
            c.visit_mut_post(f);
        }
        f(self);
    }
}

/// A whole translation unit after lowering.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Program {
    pub vars: Vec<Var>,
    pub funcs: Vec<Function>,
    pub structs: Vec<StructDef>,
    /// Global variables in declaration order (for printing).
    pub globals: Vec<VarId>,
    /// The entry point (`main`).
    pub main: Option<FuncId>,
    /// Variables declared with an `_Atomic` type. They are plain objects of the underlying
    /// type and their plain reads and writes ordinary accesses; the list only records which
    /// objects C11 makes atomic (accesses through pointers to `_Atomic` are not told apart).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub atomic_vars: Vec<VarId>,
    /// Warnings of the front end, for the user: each names an over-approximation (inline
    /// assembly it does not understand, a memory order that is not a constant), so a
    /// violation found in the program may not be a real one (see `verify::Checked::doubts`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<(Loc, String)>,
    /// Linkage of the file-scope names, for linking translation units (`frontend::link`).
    #[serde(skip)]
    pub linkage: Linkage,
}

/// What the linker needs to know of a translation unit's file-scope names.
#[derive(Clone, Debug, Default)]
pub struct Linkage {
    /// Declared `static`: internal linkage, never the same object as another unit's.
    pub internal: std::collections::BTreeSet<String>,
    /// Globals defined here (with an initialiser, or tentatively without `extern`), as
    /// opposed to only declared `extern`.
    pub defined: std::collections::BTreeSet<String>,
    /// Globals a system header declares (the C library's: `stdin`, `errno`).
    pub system: std::collections::BTreeSet<String>,
}

impl Program {
    pub fn var(&self, v: VarId) -> &Var {
        &self.vars[v.0 as usize]
    }
    pub fn func(&self, f: FuncId) -> &Function {
        &self.funcs[f.0 as usize]
    }
    pub fn strukt(&self, s: StructId) -> &StructDef {
        &self.structs[s.0 as usize]
    }
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs.iter().position(|f| f.name == name).map(|i| FuncId(i as u32))
    }
    pub fn add_var(&mut self, var: Var) -> VarId {
        self.vars.push(var);
        VarId(self.vars.len() as u32 - 1)
    }
}

/// Calls `f` on every statement of `block`, recursively, in program order (pre-order).
pub fn walk_stmts<'a>(block: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in block {
        f(s);
        match &s.kind {
            StmtKind::If { then_, else_, .. } => {
                walk_stmts(then_, f);
                walk_stmts(else_, f);
            }
            StmtKind::Loop { body, latch } => {
                walk_stmts(body, f);
                walk_stmts(latch, f);
            }
            StmtKind::Block(b) => walk_stmts(b, f),
            _ => {}
        }
    }
}

/// Mutable counterpart of [`walk_stmts`].
pub fn walk_stmts_mut(block: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for s in block {
        f(s);
        match &mut s.kind {
            StmtKind::If { then_, else_, .. } => {
                walk_stmts_mut(then_, f);
                walk_stmts_mut(else_, f);
            }
            StmtKind::Loop { body, latch } => {
                walk_stmts_mut(body, f);
                walk_stmts_mut(latch, f);
            }
            StmtKind::Block(b) => walk_stmts_mut(b, f),
            _ => {}
        }
    }
}

/// Gives every statement of every function a unique, non-zero id.
pub fn number_stmts(prog: &mut Program) {
    let mut next = 1u32;
    for f in &mut prog.funcs {
        if let Some(body) = &mut f.body {
            walk_stmts_mut(body, &mut |s| {
                s.id = next;
                next += 1;
            });
        }
    }
}

/// Calls `f` on the expressions a statement holds directly (not those of nested blocks).
pub fn for_each_expr<'e>(s: &'e Stmt, f: &mut impl FnMut(&'e Expr)) {
    match &s.kind {
        StmtKind::Assign { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        StmtKind::Call { dest, callee, args } => {
            if let Some(d) = dest {
                f(d);
            }
            if let Callee::Indirect(e) = callee {
                f(e);
            }
            args.iter().for_each(f);
        }
        StmtKind::If { cond, .. } => f(cond),
        StmtKind::Return(Some(e))
        | StmtKind::Assume(e)
        | StmtKind::Lock(e)
        | StmtKind::Unlock(e) => f(e),
        StmtKind::Assert { cond, .. } => f(cond),
        StmtKind::Spawn { tid, func, arg } => {
            if let Some(t) = tid {
                f(t);
            }
            f(func);
            f(arg);
        }
        StmtKind::Join { tid, ret } => {
            f(tid);
            if let Some(r) = ret {
                f(r);
            }
        }
        StmtKind::Rmw(r) => {
            if let Some(d) = &r.dest {
                f(d);
            }
            f(&r.ptr);
            f(&r.val);
            if let Some(e) = &r.expected {
                f(e);
            }
        }
        StmtKind::Return(None)
        | StmtKind::Loop { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Label(..)
        | StmtKind::Fence(_)
        | StmtKind::AtomicBegin
        | StmtKind::AtomicEnd
        | StmtKind::Block(_)
        | StmtKind::Skip => {}
    }
}

/// Mutable counterpart of [`for_each_expr`].
pub fn for_each_expr_mut(s: &mut Stmt, f: &mut impl FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Assign { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        StmtKind::Call { dest, callee, args } => {
            if let Some(d) = dest {
                f(d);
            }
            if let Callee::Indirect(e) = callee {
                f(e);
            }
            args.iter_mut().for_each(f);
        }
        StmtKind::If { cond, .. } => f(cond),
        StmtKind::Return(Some(e))
        | StmtKind::Assume(e)
        | StmtKind::Lock(e)
        | StmtKind::Unlock(e) => f(e),
        StmtKind::Assert { cond, .. } => f(cond),
        StmtKind::Spawn { tid, func, arg } => {
            if let Some(t) = tid {
                f(t);
            }
            f(func);
            f(arg);
        }
        StmtKind::Join { tid, ret } => {
            f(tid);
            if let Some(r) = ret {
                f(r);
            }
        }
        StmtKind::Rmw(r) => {
            if let Some(d) = &mut r.dest {
                f(d);
            }
            f(&mut r.ptr);
            f(&mut r.val);
            if let Some(e) = &mut r.expected {
                f(e);
            }
        }
        StmtKind::Return(None)
        | StmtKind::Loop { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Label(..)
        | StmtKind::Fence(_)
        | StmtKind::AtomicBegin
        | StmtKind::AtomicEnd
        | StmtKind::Block(_)
        | StmtKind::Skip => {}
    }
}

/// Every [`Fence`] variant. Kept complete by the exhaustive match in `arch::fence_index`.
pub const ALL_FENCES: [Fence; 20] = [
    Fence::Full,
    Fence::AcqRel,
    Fence::Mfence,
    Fence::Sync,
    Fence::Lwsync,
    Fence::Isync,
    Fence::Eieio,
    Fence::Dmb,
    Fence::DmbSt,
    Fence::DmbLd,
    Fence::Dsb,
    Fence::Isb,
    Fence::MembarRelease,
    Fence::MembarLoadLoad,
    Fence::MembarStoreLoad,
    Fence::MembarToLoads,
    Fence::MembarFromStores,
    Fence::Acquire,
    Fence::Release,
    Fence::Compiler,
];
