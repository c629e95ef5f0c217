//! Unit tests of the C printer on hand-built IR, and compile checks with the system's `cc`.

use super::literals::wrap_int;
use super::*;
use crate::source::Loc;

// ------------------------------------------------------------------------------------------
// Building IR by hand
// ------------------------------------------------------------------------------------------

fn st(kind: StmtKind) -> Stmt {
    Stmt::new(kind, Loc::default())
}

fn at_line(kind: StmtKind, line: u32) -> Stmt {
    Stmt::new(
        kind,
        Loc {
            file: 0,
            line,
            col: 0,
            len: 1,
        },
    )
}

fn void_ptr() -> Type {
    Type::ptr_to(Type::Void)
}

fn fty(ret: Type, params: Vec<Type>) -> Type {
    Type::Func(Box::new(FuncType {
        ret,
        params,
        variadic: false,
    }))
}

fn int(v: i128) -> Expr {
    Expr::int(v)
}

fn c(v: i128, ty: Type) -> Expr {
    Expr::new(ExprKind::Const(v), ty)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() {
        Type::INT
    } else {
        a.ty.clone()
    };
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

fn un(op: UnOp, a: Expr) -> Expr {
    let ty = a.ty.clone();
    Expr::new(ExprKind::Unary(op, Box::new(a)), ty)
}

fn deref(p: Expr) -> Expr {
    let ty = p.ty.pointee().cloned().unwrap_or(Type::INT);
    Expr::new(ExprKind::Deref(Box::new(p)), ty)
}

fn addr(e: Expr) -> Expr {
    let ty = Type::ptr_to(e.ty.clone());
    Expr::new(ExprKind::AddrOf(Box::new(e)), ty)
}

fn cast(ty: Type, e: Expr) -> Expr {
    Expr::new(ExprKind::Cast(Box::new(e)), ty)
}

fn member(b: &B, base: Expr, idx: usize) -> Expr {
    let Type::Struct(s) = base.ty else {
        panic!("member of non-struct")
    };
    let ty = b.p.strukt(s).fields[idx].ty.clone();
    Expr::new(ExprKind::Member(Box::new(base), idx), ty)
}

fn index(a: Expr, i: Expr) -> Expr {
    let ty = a.ty.pointee().cloned().unwrap();
    Expr::new(ExprKind::Index(Box::new(a), Box::new(i)), ty)
}

fn assign(l: Expr, r: Expr) -> Stmt {
    st(StmtKind::Assign { lhs: l, rhs: r })
}

/// A program under construction.
#[derive(Default)]
struct B {
    p: Program,
}

impl B {
    fn new() -> B {
        B::default()
    }

    fn var(&mut self, name: &str, ty: Type, storage: Storage) -> Expr {
        let id = self.p.add_var(Var {
            name: name.into(),
            ty: ty.clone(),
            storage,
            init: None,
            address_taken: false,
            loc: Loc::default(),
        });
        if storage == Storage::Global {
            self.p.globals.push(id);
        }
        Expr::var(id, ty)
    }

    fn global(&mut self, name: &str, ty: Type) -> Expr {
        self.var(name, ty, Storage::Global)
    }

    fn global_init(&mut self, name: &str, ty: Type, init: Init) -> Expr {
        let e = self.global(name, ty);
        let ExprKind::Var(v) = e.kind else {
            unreachable!()
        };
        self.p.vars[v.0 as usize].init = Some(init);
        e
    }

    fn local(&mut self, f: FuncId, name: &str, ty: Type) -> Expr {
        self.var(name, ty, Storage::Local { func: f })
    }

    fn temp(&mut self, f: FuncId, name: &str, ty: Type) -> Expr {
        self.var(name, ty, Storage::Temp { func: f })
    }

    /// Declares a function (body set later with `body`); returns its id and parameters.
    fn func(&mut self, name: &str, ret: Type, params: &[(&str, Type)]) -> (FuncId, Vec<Expr>) {
        let id = FuncId(self.p.funcs.len() as u32);
        self.p.funcs.push(Function {
            name: name.into(),
            ty: FuncType {
                ret,
                params: params.iter().map(|p| p.1.clone()).collect(),
                variadic: false,
            },
            params: vec![],
            body: None,
            loc: Loc::default(),
        });
        let mut ps = vec![];
        for (n, t) in params {
            let e = self.local(id, n, t.clone());
            let ExprKind::Var(v) = e.kind else {
                unreachable!()
            };
            self.p.funcs[id.0 as usize].params.push(v);
            ps.push(e);
        }
        if name == "main" {
            self.p.main = Some(id);
        }
        (id, ps)
    }

    fn external(&mut self, name: &str, ret: Type, params: Vec<Type>, variadic: bool) -> FuncId {
        let id = FuncId(self.p.funcs.len() as u32);
        self.p.funcs.push(Function {
            name: name.into(),
            ty: FuncType {
                ret,
                params,
                variadic,
            },
            params: vec![],
            body: None,
            loc: Loc::default(),
        });
        id
    }

    fn body(&mut self, f: FuncId, body: Vec<Stmt>) {
        self.p.funcs[f.0 as usize].body = Some(body);
    }

    fn strukt(&mut self, tag: &str, is_union: bool, fields: Vec<(&str, Type)>) -> StructId {
        self.p.structs.push(StructDef {
            tag: tag.into(),
            is_union,
            fields: fields
                .into_iter()
                .map(|(n, ty)| Field { name: n.into(), ty })
                .collect(),
            complete: true,
            bytes: None,
            bitfields: vec![],
            packing: None,
        });
        StructId(self.p.structs.len() as u32 - 1)
    }

    fn fexpr(&self, f: FuncId) -> Expr {
        let ft = self.p.func(f).ty.clone();
        Expr::new(
            ExprKind::FuncAddr(f),
            Type::ptr_to(Type::Func(Box::new(ft))),
        )
    }

    fn print(&self) -> String {
        print_program(&self.p, &SourceMap::default(), &PrintOptions::default())
    }
}

/// The printer's view of `b` for printing single types and expressions.
fn with_printer<R>(b: &B, f: impl FnOnce(&Printer) -> R) -> R {
    let map = SourceMap::default();
    let opts = PrintOptions::default();
    let p = Printer::new(&b.p, &map, &opts);
    f(&p)
}

fn decl(b: &B, ty: &Type, name: &str) -> String {
    with_printer(b, |p| p.decl(ty, name))
}

fn expr(b: &B, e: &Expr) -> String {
    with_printer(b, |p| p.expr(e))
}

/// The body of function `name` in `out`, from its header line to its closing brace.
fn function_text<'o>(out: &'o str, header: &str) -> &'o str {
    let start = out
        .find(&format!("\n{header}\n{{\n"))
        .unwrap_or_else(|| panic!("no `{header}` in:\n{out}"));
    let rest = &out[start + 1..];
    let end = rest.find("\n}\n").unwrap();
    &rest[..end + 3]
}

// ------------------------------------------------------------------------------------------
// Types
// ------------------------------------------------------------------------------------------

#[test]
fn scalar_types() {
    let b = B::new();
    let cases = [
        (Type::Void, "void"),
        (Type::Bool, "_Bool"),
        (Type::CHAR, "signed char"),
        (
            Type::Int {
                bits: 8,
                signed: false,
            },
            "unsigned char",
        ),
        (
            Type::Int {
                bits: 16,
                signed: true,
            },
            "short",
        ),
        (
            Type::Int {
                bits: 16,
                signed: false,
            },
            "unsigned short",
        ),
        (Type::INT, "int"),
        (Type::UINT, "unsigned int"),
        (Type::LONG, "long"),
        (Type::ULONG, "unsigned long"),
        (
            Type::Int {
                bits: 128,
                signed: true,
            },
            "__int128",
        ),
        (
            Type::Int {
                bits: 128,
                signed: false,
            },
            "unsigned __int128",
        ),
        (Type::Float { bits: 32 }, "float"),
        (Type::Float { bits: 64 }, "double"),
        (Type::Float { bits: 128 }, "long double"),
        (Type::Float { bits: 80 }, "long double"),
    ];
    for (ty, want) in cases {
        assert_eq!(decl(&b, &ty, ""), want);
        assert_eq!(decl(&b, &ty, "x"), format!("{want} x"));
    }
}

#[test]
fn declarators() {
    let mut b = B::new();
    let s = b.strukt("node", false, vec![("v", Type::INT)]);
    let u = b.strukt("u", true, vec![("v", Type::INT)]);
    let int = Type::INT;
    let arr = |t: Type, n: u64| Type::Array(Box::new(t), Some(n));
    let ptr = Type::ptr_to;
    let cases: Vec<(Type, &str)> = vec![
        (ptr(int.clone()), "int *x"),
        (ptr(ptr(int.clone())), "int **x"),
        (arr(int.clone(), 3), "int x[3]"),
        (Type::Array(Box::new(int.clone()), None), "int x[]"),
        (arr(arr(int.clone(), 3), 2), "int x[2][3]"),
        (ptr(arr(int.clone(), 3)), "int (*x)[3]"),
        (arr(ptr(int.clone()), 3), "int *x[3]"),
        (ptr(arr(arr(int.clone(), 4), 3)), "int (*x)[3][4]"),
        (ptr(fty(void_ptr(), vec![void_ptr()])), "void *(*x)(void *)"),
        (
            ptr(fty(ptr(int.clone()), vec![int.clone()])),
            "int *(*x)(int)",
        ),
        (ptr(fty(Type::Void, vec![])), "void (*x)()"),
        (
            arr(ptr(fty(Type::Void, vec![int.clone()])), 4),
            "void (*x[4])(int)",
        ),
        (
            ptr(ptr(fty(Type::Void, vec![int.clone()]))),
            "void (**x)(int)",
        ),
        // Function returning a pointer to a function (signal).
        (
            fty(
                ptr(fty(Type::Void, vec![int.clone()])),
                vec![int.clone(), ptr(fty(Type::Void, vec![int.clone()]))],
            ),
            "void (*x(int, void (*)(int)))(int)",
        ),
        // Pointer to a function returning a pointer to an array.
        (
            ptr(fty(ptr(arr(Type::CHAR, 8)), vec![])),
            "signed char (*(*x)())[8]",
        ),
        (Type::Struct(s), "struct node x"),
        (ptr(Type::Struct(s)), "struct node *x"),
        (arr(Type::Struct(u), 2), "union u x[2]"),
        (
            ptr(Type::Func(Box::new(FuncType {
                ret: Type::INT,
                params: vec![ptr(Type::CHAR)],
                variadic: true,
            }))),
            "int (*x)(signed char *, ...)",
        ),
    ];
    for (ty, want) in &cases {
        assert_eq!(&decl(&b, ty, "x"), want);
    }
    // Abstract declarators (casts, prototypes).
    assert_eq!(decl(&b, &ptr(arr(int.clone(), 3)), ""), "int (*)[3]");
    assert_eq!(
        decl(&b, &ptr(fty(void_ptr(), vec![void_ptr()])), ""),
        "void *(*)(void *)"
    );
    assert_eq!(decl(&b, &arr(ptr(int.clone()), 3), ""), "int *[3]");
    assert_eq!(decl(&b, &ptr(ptr(Type::Void)), ""), "void **");
}

// ------------------------------------------------------------------------------------------
// Constants and expressions
// ------------------------------------------------------------------------------------------

#[test]
fn integer_constants() {
    let b = B::new();
    let i128t = Type::Int {
        bits: 128,
        signed: true,
    };
    let u128t = Type::Int {
        bits: 128,
        signed: false,
    };
    let cases: Vec<(i128, Type, &str)> =
        vec![
        (5, Type::INT, "5"),
        (-5, Type::INT, "(-5)"),
        (i32::MIN as i128, Type::INT, "(-2147483647 - 1)"),
        (5, Type::UINT, "5U"),
        (-1, Type::UINT, "4294967295U"),
        (5, Type::LONG, "5L"),
        (-7, Type::LONG, "(-7L)"),
        (i64::MIN as i128, Type::LONG, "(-9223372036854775807L - 1L)"),
        (5, Type::ULONG, "5UL"),
        (-1, Type::ULONG, "18446744073709551615UL"),
        (97, Type::CHAR, "97"),
        (-1, Type::CHAR, "(-1)"),
        (255, Type::CHAR, "(-1)"),
        (65535, Type::Int { bits: 16, signed: false }, "65535"),
        (2, Type::Bool, "1"),
        (0, Type::Bool, "0"),
        (5, i128t.clone(), "((__int128)5L)"),
        (-5, i128t.clone(), "((__int128)(-5L))"),
        (
            i128::MIN,
            i128t.clone(),
            "((__int128)((unsigned __int128)0x8000000000000000UL << 64))",
        ),
        (
            i128::MAX,
            i128t.clone(),
            "((__int128)(((unsigned __int128)0x7fffffffffffffffUL << 64) | 0xffffffffffffffffUL))",
        ),
        (7, u128t.clone(), "((unsigned __int128)7UL)"),
        (
            -1,
            u128t.clone(),
            "((unsigned __int128)(((unsigned __int128)0xffffffffffffffffUL << 64) | 0xffffffffffffffffUL))",
        ),
        (0, void_ptr(), "((void *)0)"),
        (4096, Type::ptr_to(Type::INT), "((int *)4096UL)"),
        (2, Type::Float { bits: 64 }, "((double)2)"),
    ];
    for (v, ty, want) in cases {
        assert_eq!(expr(&b, &c(v, ty.clone())), want, "{v} as {ty:?}");
    }
}

#[test]
fn strings_and_floats() {
    let b = B::new();
    let s = |t: &str| {
        expr(
            &b,
            &Expr::new(ExprKind::Str(t.into()), Type::ptr_to(Type::CHAR)),
        )
    };
    assert_eq!(s("hi"), "\"hi\"");
    assert_eq!(s("a\"b\\c\n\t"), "\"a\\\"b\\\\c\\n\\t\"");
    assert_eq!(s("\0x\u{1}9"), "\"\\000x\\0019\"");
    assert_eq!(s("é"), "\"\\303\\251\"");
    assert_eq!(s("??="), "\"?\\?=\"");
    let f = |t: &str| {
        expr(
            &b,
            &Expr::new(ExprKind::FloatConst(t.into()), Type::Float { bits: 64 }),
        )
    };
    assert_eq!(f("1.5e3"), "1.5e3");
    assert_eq!(f("-0.5f"), "(-0.5f)");
}

#[test]
fn expression_precedence() {
    let mut b = B::new();
    let a = b.global("a", Type::INT);
    let x = b.global("x", Type::INT);
    let y = b.global("y", Type::INT);
    let p = b.global("p", Type::ptr_to(Type::INT));
    use BinOp::*;
    let e = |b: &B, e: Expr| expr(b, &e);
    assert_eq!(
        e(&b, bin(Mul, bin(Add, a.clone(), x.clone()), y.clone())),
        "(a + x) * y"
    );
    assert_eq!(
        e(&b, bin(Add, a.clone(), bin(Mul, x.clone(), y.clone()))),
        "a + (x * y)"
    );
    assert_eq!(
        e(&b, bin(Add, bin(Add, a.clone(), x.clone()), y.clone())),
        "a + x + y"
    );
    assert_eq!(
        e(&b, bin(Sub, a.clone(), bin(Sub, x.clone(), y.clone()))),
        "a - (x - y)"
    );
    assert_eq!(e(&b, bin(Sub, a.clone(), int(-1))), "a - (-1)");
    assert_eq!(
        e(&b, bin(Eq, bin(Lt, a.clone(), x.clone()), y.clone())),
        "(a < x) == y"
    );
    assert_eq!(
        e(&b, bin(Lt, bin(Lt, a.clone(), x.clone()), y.clone())),
        "(a < x) < y"
    );
    assert_eq!(
        e(&b, bin(LogOr, bin(LogAnd, a.clone(), x.clone()), y.clone())),
        "(a && x) || y"
    );
    assert_eq!(
        e(&b, bin(BitAnd, a.clone(), bin(Eq, x.clone(), y.clone()))),
        "a & (x == y)"
    );
    assert_eq!(
        e(&b, bin(Shl, int(1), bin(Add, x.clone(), int(1)))),
        "1 << (x + 1)"
    );
    assert_eq!(e(&b, un(UnOp::Neg, un(UnOp::Neg, x.clone()))), "-(-x)");
    assert_eq!(
        e(&b, un(UnOp::Not, bin(Eq, x.clone(), y.clone()))),
        "!(x == y)"
    );
    assert_eq!(e(&b, un(UnOp::BitNot, x.clone())), "~x");
    assert_eq!(
        e(&b, bin(Add, a.clone(), un(UnOp::Neg, x.clone()))),
        "a + -x"
    );
    assert_eq!(e(&b, deref(bin(Add, p.clone(), int(1)))), "*(p + 1)");
    assert_eq!(e(&b, deref(addr(x.clone()))), "*(&x)");
    assert_eq!(
        e(&b, cast(Type::LONG, bin(Add, x.clone(), int(1)))),
        "(long)(x + 1)"
    );
    assert_eq!(
        e(&b, bin(Add, cast(Type::LONG, x.clone()), c(1, Type::LONG))),
        "(long)x + 1L"
    );
    assert_eq!(
        e(&b, cast(Type::LONG, cast(Type::INT, x.clone()))),
        "(long)((int)x)"
    );
    assert_eq!(e(&b, cast(void_ptr(), p.clone())), "(void *)p");
    let cond = Expr::new(
        ExprKind::Cond(
            Box::new(bin(Lt, a.clone(), x.clone())),
            Box::new(x.clone()),
            Box::new(bin(Add, y.clone(), int(1))),
        ),
        Type::INT,
    );
    assert_eq!(e(&b, cond.clone()), "(a < x) ? x : (y + 1)");
    assert_eq!(e(&b, bin(Mul, cond, int(2))), "((a < x) ? x : (y + 1)) * 2");
}

#[test]
fn lvalue_expressions() {
    let mut b = B::new();
    let inner = b.strukt(
        "inner",
        false,
        vec![("arr", Type::Array(Box::new(Type::INT), Some(4)))],
    );
    let s = b.strukt(
        "s",
        false,
        vec![("f", Type::INT), ("in", Type::Struct(inner))],
    );
    let sv = b.global("sv", Type::Struct(s));
    let sp = b.global("sp", Type::ptr_to(Type::Struct(s)));
    let spp = b.global("spp", Type::ptr_to(Type::ptr_to(Type::Struct(s))));
    let a = b.global("a", Type::Array(Box::new(Type::INT), Some(3)));
    let i = b.global("i", Type::INT);
    assert_eq!(expr(&b, &member(&b, sv.clone(), 0)), "sv.f");
    assert_eq!(expr(&b, &member(&b, deref(sp.clone()), 0)), "sp->f");
    assert_eq!(
        expr(&b, &member(&b, deref(deref(spp.clone())), 0)),
        "(*spp)->f"
    );
    assert_eq!(
        expr(
            &b,
            &member(&b, deref(bin(BinOp::Add, sp.clone(), int(1))), 0)
        ),
        "(p_plus)->f".replace("p_plus", "sp + 1")
    );
    let arr = member(&b, member(&b, deref(sp.clone()), 1), 0);
    assert_eq!(expr(&b, &index(arr.clone(), i.clone())), "sp->in.arr[i]");
    assert_eq!(
        expr(
            &b,
            &addr(index(a.clone(), bin(BinOp::Add, i.clone(), int(1))))
        ),
        "&a[i + 1]"
    );
    assert_eq!(expr(&b, &addr(member(&b, deref(sp.clone()), 0))), "&sp->f");
    assert_eq!(
        expr(&b, &deref(cast(Type::ptr_to(Type::INT), sp.clone()))),
        "*((int *)sp)"
    );
    let f = b.external("g", Type::INT, vec![], false);
    assert_eq!(expr(&b, &b.fexpr(f)), "g");
}

#[test]
fn nondet_by_type() {
    let mut b = B::new();
    let s = b.strukt("s", false, vec![("f", Type::INT)]);
    let nd = |ty: Type| expr(&b, &Expr::new(ExprKind::Nondet, ty));
    assert_eq!(nd(Type::INT), "__VERIFIER_nondet_int()");
    assert_eq!(nd(Type::UINT), "__VERIFIER_nondet_uint()");
    assert_eq!(nd(Type::LONG), "__VERIFIER_nondet_long()");
    assert_eq!(nd(Type::ULONG), "__VERIFIER_nondet_ulong()");
    assert_eq!(nd(Type::CHAR), "__VERIFIER_nondet_char()");
    assert_eq!(
        nd(Type::Int {
            bits: 8,
            signed: false
        }),
        "__VERIFIER_nondet_uchar()"
    );
    assert_eq!(
        nd(Type::Int {
            bits: 16,
            signed: true
        }),
        "__VERIFIER_nondet_short()"
    );
    assert_eq!(
        nd(Type::Int {
            bits: 16,
            signed: false
        }),
        "__VERIFIER_nondet_ushort()"
    );
    assert_eq!(nd(Type::Bool), "__VERIFIER_nondet_bool()");
    assert_eq!(nd(void_ptr()), "__VERIFIER_nondet_pointer()");
    assert_eq!(
        nd(Type::ptr_to(Type::INT)),
        "((int *)__VERIFIER_nondet_pointer())"
    );
    assert_eq!(nd(Type::Float { bits: 64 }), "__VERIFIER_nondet_double()");
    assert_eq!(
        nd(Type::Int {
            bits: 128,
            signed: false
        }),
        "__VERIFIER_nondet_uint128()"
    );
    assert_eq!(
        nd(Type::Struct(s)),
        "({ struct s __weakc_nondet; __weakc_nondet; })"
    );
}

// ------------------------------------------------------------------------------------------
// Statements
// ------------------------------------------------------------------------------------------

#[test]
fn simple_statements() {
    let mut b = B::new();
    let x = b.global("x", Type::INT);
    let p = b.global("p", Type::ptr_to(Type::INT));
    let fp = b.global("fp", Type::ptr_to(fty(Type::INT, vec![Type::INT])));
    let g = b.external("g", Type::INT, vec![Type::INT, Type::INT], false);
    let (f, _) = b.func("f", Type::INT, &[]);
    let cond = bin(BinOp::Gt, x.clone(), int(0));
    b.body(
        f,
        vec![
            assign(x.clone(), int(1)),
            assign(deref(p.clone()), bin(BinOp::Add, x.clone(), int(2))),
            st(StmtKind::Call {
                dest: Some(x.clone()),
                callee: Callee::Direct(g),
                args: vec![int(1), x.clone()],
            }),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(g),
                args: vec![int(1), int(2)],
            }),
            st(StmtKind::Call {
                dest: Some(x.clone()),
                callee: Callee::Indirect(deref(fp.clone())),
                args: vec![int(3)],
            }),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Indirect(fp.clone()),
                args: vec![int(4)],
            }),
            st(StmtKind::If {
                cond: cond.clone(),
                then_: vec![assign(x.clone(), int(3))],
                else_: vec![],
            }),
            st(StmtKind::If {
                cond: cond.clone(),
                then_: vec![],
                else_: vec![st(StmtKind::Skip), assign(x.clone(), int(4))],
            }),
            st(StmtKind::Assert {
                cond: bin(BinOp::Eq, x.clone(), int(1)),
                msg: "x == 1 */ oops".into(),
                ctrl: true,
            }),
            st(StmtKind::Assert {
                cond: int(0),
                msg: String::new(),
                ctrl: true,
            }),
            st(StmtKind::Assert {
                cond: p.clone(),
                msg: "p".into(),
                ctrl: true,
            }),
            st(StmtKind::Assume(cond.clone())),
            st(StmtKind::Fence(Fence::Lwsync)),
            st(StmtKind::Fence(Fence::DmbSt)),
            st(StmtKind::AtomicBegin),
            st(StmtKind::AtomicEnd),
            st(StmtKind::Skip),
            st(StmtKind::Block(vec![assign(x.clone(), int(5))])),
            st(StmtKind::Return(Some(x.clone()))),
        ],
    );
    let out = b.print();
    let want = "\
int f()
{
    x = 1;
    *p = x + 2;
    x = g(1, x);
    g(1, 2);
    x = (*fp)(3);
    fp(4);
    if (x > 0) {
        x = 3;
    }
    if (x > 0) {
    } else {
        x = 4;
    }
    /* x == 1 * / oops */ __VERIFIER_assert(x == 1);
    __VERIFIER_assert(0);
    /* p */ __VERIFIER_assert(p != 0);
    __VERIFIER_assume(x > 0);
    __weakc_fence_lwsync();
    __weakc_fence_dmb_st();
    __VERIFIER_atomic_begin();
    __VERIFIER_atomic_end();
    {
        x = 5;
    }
    return x;
}
";
    assert_eq!(function_text(&out, "int f()"), want);
}

#[test]
fn threads_and_locks() {
    let mut b = B::new();
    let (t, _) = b.func("t", void_ptr(), &[("arg", void_ptr())]);
    b.body(t, vec![st(StmtKind::Return(Some(c(0, void_ptr()))))]);
    let (t2, _) = b.func("t2", void_ptr(), &[]);
    b.body(t2, vec![st(StmtKind::Return(Some(c(0, void_ptr()))))]);
    let (main, _) = b.func("main", Type::INT, &[]);
    let tid = b.local(main, "tid", Type::ULONG);
    let i = b.local(main, "i", Type::INT);
    let m = b.global(
        "m",
        Type::Int {
            bits: 32,
            signed: true,
        },
    );
    let ret = b.local(main, "ret", void_ptr());
    let tf = b.fexpr(t);
    let tf2 = b.fexpr(t2);
    b.body(
        main,
        vec![
            st(StmtKind::Spawn {
                tid: Some(addr(tid.clone())),
                func: tf.clone(),
                arg: c(0, void_ptr()),
            }),
            st(StmtKind::Spawn {
                tid: None,
                func: tf.clone(),
                arg: addr(i.clone()),
            }),
            st(StmtKind::Spawn {
                tid: None,
                func: tf2,
                arg: i.clone(),
            }),
            st(StmtKind::Spawn {
                tid: None,
                func: tf,
                arg: int(0),
            }),
            st(StmtKind::Join {
                tid: tid.clone(),
                ret: None,
            }),
            st(StmtKind::Join {
                tid: tid.clone(),
                ret: Some(addr(ret.clone())),
            }),
            st(StmtKind::Lock(addr(m.clone()))),
            st(StmtKind::Unlock(addr(m.clone()))),
            st(StmtKind::Return(Some(int(0)))),
        ],
    );
    let out = b.print();
    assert!(
        out.contains(
            "\npthread_t __weakc_tid0;\npthread_t __weakc_tid1;\npthread_t __weakc_tid2;\n"
        ),
        "{out}"
    );
    let want = "\
int main()
{
    unsigned long tid;
    int i;
    void *ret;
    pthread_create(&tid, 0, t, ((void *)0));
    pthread_create(&__weakc_tid0, 0, t, &i);
    pthread_create(&__weakc_tid1, 0, (void *(*)(void *))t2, (void *)(long)i);
    pthread_create(&__weakc_tid2, 0, t, 0);
    pthread_join(tid, 0);
    pthread_join(tid, &ret);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}
";
    assert_eq!(function_text(&out, "int main()"), want);
}

#[test]
fn read_modify_writes() {
    let mut b = B::new();
    let x = b.global("x", Type::INT);
    let e = b.global("e", Type::INT);
    let r = b.global("r", Type::INT);
    let (f, _) = b.func("f", Type::Void, &[]);
    let rmw = |op, dest: Option<Expr>, expected: Option<Expr>, order| {
        st(StmtKind::Rmw(Rmw {
            op,
            dest,
            ptr: addr(x.clone()),
            val: int(1),
            expected,
            order,
        }))
    };
    use MemOrder::*;
    use RmwOp::*;
    b.body(
        f,
        vec![
            rmw(FetchAdd, Some(r.clone()), None, SeqCst),
            rmw(FetchSub, None, None, Relaxed),
            rmw(FetchAnd, Some(r.clone()), None, Acquire),
            rmw(FetchOr, Some(r.clone()), None, Release),
            rmw(FetchXor, Some(r.clone()), None, AcqRel),
            rmw(FetchNand, Some(r.clone()), None, SeqCst),
            rmw(AddFetch, Some(r.clone()), None, SeqCst),
            rmw(SubFetch, Some(r.clone()), None, SeqCst),
            rmw(AndFetch, Some(r.clone()), None, SeqCst),
            rmw(OrFetch, Some(r.clone()), None, SeqCst),
            rmw(XorFetch, Some(r.clone()), None, SeqCst),
            rmw(NandFetch, Some(r.clone()), None, SeqCst),
            rmw(Exchange, Some(r.clone()), None, SeqCst),
            rmw(CasVal, Some(r.clone()), Some(int(0)), SeqCst),
            rmw(CasBool, Some(r.clone()), Some(int(0)), SeqCst),
            rmw(
                CompareExchange,
                Some(r.clone()),
                Some(addr(e.clone())),
                SeqCst,
            ),
            rmw(CompareExchange, None, Some(addr(e.clone())), Release),
            rmw(Load, Some(r.clone()), None, Acquire),
            rmw(Store, None, None, Release),
        ],
    );
    let out = b.print();
    let want = "\
void f()
{
    r = __atomic_fetch_add(&x, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&x, 1, __ATOMIC_RELAXED);
    r = __atomic_fetch_and(&x, 1, __ATOMIC_ACQUIRE);
    r = __atomic_fetch_or(&x, 1, __ATOMIC_RELEASE);
    r = __atomic_fetch_xor(&x, 1, __ATOMIC_ACQ_REL);
    r = __atomic_fetch_nand(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_add_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_sub_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_and_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_or_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_xor_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_nand_fetch(&x, 1, __ATOMIC_SEQ_CST);
    r = __atomic_exchange_n(&x, 1, __ATOMIC_SEQ_CST);
    r = __sync_val_compare_and_swap(&x, 0, 1);
    r = __sync_bool_compare_and_swap(&x, 0, 1);
    r = __atomic_compare_exchange_n(&x, &e, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    __atomic_compare_exchange_n(&x, &e, 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    r = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
    __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
}
";
    assert_eq!(function_text(&out, "void f()"), want);
}

#[test]
fn loops_break_continue() {
    let mut b = B::new();
    let x = b.global("x", Type::INT);
    let (f, _) = b.func("f", Type::Void, &[]);
    let brk_if = |c: Expr| {
        st(StmtKind::If {
            cond: c,
            then_: vec![st(StmtKind::Break)],
            else_: vec![],
        })
    };
    let cont_if = |c: Expr| {
        st(StmtKind::If {
            cond: c,
            then_: vec![st(StmtKind::Continue)],
            else_: vec![],
        })
    };
    let lt = |n| bin(BinOp::Lt, x.clone(), int(n));
    let incr = assign(x.clone(), bin(BinOp::Add, x.clone(), int(1)));
    b.body(
        f,
        vec![
            // for (; x < 10; x++) { if (x == 3) continue; inner while loop }
            st(StmtKind::Loop {
                body: vec![
                    brk_if(un(UnOp::Not, lt(10))),
                    cont_if(bin(BinOp::Eq, x.clone(), int(3))),
                    // while (1) { if (x) continue; break; }: empty latch, plain continue.
                    st(StmtKind::Loop {
                        body: vec![cont_if(x.clone()), st(StmtKind::Break)],
                        latch: vec![st(StmtKind::Skip)],
                    }),
                    st(StmtKind::Block(vec![cont_if(lt(5))])),
                ],
                latch: vec![incr.clone()],
            }),
            // do { continue; } while (x < 3): the condition is in the latch, with a break.
            st(StmtKind::Loop {
                body: vec![cont_if(lt(2))],
                latch: vec![brk_if(un(UnOp::Not, lt(3)))],
            }),
            // A loop with a latch but no continue: no label.
            st(StmtKind::Loop {
                body: vec![brk_if(lt(0))],
                latch: vec![incr],
            }),
        ],
    );
    let out = b.print();
    let want = "\
void f()
{
    for (;;) {
        if (!(x < 10)) {
            break;
        }
        if (x == 3) {
            goto __weakc_continue_0;
        }
        for (;;) {
            if (x) {
                continue;
            }
            break;
        }
        {
            if (x < 5) {
                goto __weakc_continue_0;
            }
        }
        __weakc_continue_0: ;
        x = x + 1;
    }
    for (;;) {
        if (x < 2) {
            goto __weakc_continue_1;
        }
        __weakc_continue_1: ;
        if (!(x < 3)) {
            break;
        }
    }
    for (;;) {
        if (x < 0) {
            break;
        }
        x = x + 1;
    }
}
";
    assert_eq!(function_text(&out, "void f()"), want);
}

#[test]
fn gotos_and_labels() {
    let mut b = B::new();
    let x = b.global("x", Type::INT);
    let (f, _) = b.func("f", Type::Void, &[]);
    b.body(
        f,
        vec![
            st(StmtKind::Goto(LabelId(0))),
            st(StmtKind::Goto(LabelId(1))),
            assign(x.clone(), int(1)),
            st(StmtKind::Label(LabelId(0), "out".into())),
            // A second label with the same name (e.g. from two inlined copies).
            st(StmtKind::Label(LabelId(1), "out".into())),
            st(StmtKind::Label(LabelId(2), "__weakc_continue_0".into())),
            st(StmtKind::Loop {
                body: vec![st(StmtKind::If {
                    cond: x.clone(),
                    then_: vec![st(StmtKind::Continue)],
                    else_: vec![],
                })],
                latch: vec![st(StmtKind::Break)],
            }),
        ],
    );
    let out = b.print();
    let want = "\
void f()
{
    goto out;
    goto out__1;
    x = 1;
    out: ;
    out__1: ;
    __weakc_continue_0: ;
    for (;;) {
        if (x) {
            goto __weakc_continue_0__1;
        }
        __weakc_continue_0__1: ;
        break;
    }
}
";
    assert_eq!(function_text(&out, "void f()"), want);
}

// ------------------------------------------------------------------------------------------
// Names
// ------------------------------------------------------------------------------------------

#[test]
fn local_names_are_unique_and_do_not_hide_globals() {
    let mut b = B::new();
    let gx = b.global("x", Type::INT);
    let _gy = b.global("y", Type::INT);
    let g = b.external("g", Type::Void, vec![], false);
    let (f, params) = b.func("f", Type::Void, &[("x", Type::INT)]);
    // Two locals named i from different scopes, a local y (global y unused in f: kept), a
    // local g hiding the function g that f calls, temporaries, a keyword, odd characters.
    let i1 = b.local(f, "i", Type::INT);
    let i2 = b.local(f, "i", Type::LONG);
    let y = b.local(f, "y", Type::INT);
    let lg = b.local(f, "g", Type::INT);
    let t = b.temp(f, "__weakc_tmp0", Type::INT);
    let kw = b.local(f, "bool", Type::INT);
    let odd = b.local(f, "a$b", Type::INT);
    let malloc_local = b.local(f, "malloc", Type::INT);
    let x_1 = b.local(f, "x__1", Type::INT);
    b.body(
        f,
        vec![
            assign(i1.clone(), params[0].clone()),
            assign(i2.clone(), c(1, Type::LONG)),
            assign(y, lg.clone()),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(g),
                args: vec![],
            }),
            assign(t.clone(), gx.clone()),
            assign(kw, odd),
            assign(malloc_local, x_1),
        ],
    );
    let out = b.print();
    // The parameter x would hide the global x used by f: renamed too.
    let want = "\
void f(int x__1)
{
    int i;
    long i__1;
    int y;
    int g__1;
    int __weakc_tmp0;
    int bool__1;
    int a__b;
    int malloc__1;
    int x__1__1;
    i = x__1;
    i__1 = 1L;
    y = g__1;
    g();
    __weakc_tmp0 = x;
    bool__1 = a__b;
    malloc__1 = x__1__1;
}
";
    assert_eq!(function_text(&out, "void f(int x__1)"), want);
}

#[test]
fn file_scope_names() {
    let mut b = B::new();
    // A static local of f (renamed f$count by the front end) and a global count.
    let count = b.global("count", Type::INT);
    let fcount = b.global("f$count", Type::INT);
    let odd = b.global("f$count", Type::INT); // would collide after sanitising
                                              // User-defined __VERIFIER_assert (common in SV-COMP) and an external one.
    let (va, params) = b.func("__VERIFIER_assert", Type::Void, &[("cond", Type::INT)]);
    b.body(
        va,
        vec![st(StmtKind::Assert {
            cond: params[0].clone(),
            msg: String::new(),
            ctrl: true,
        })],
    );
    let ext_assume = b.external("__VERIFIER_assume", Type::Void, vec![Type::INT], false);
    let ext_printf = b.external("printf", Type::INT, vec![Type::ptr_to(Type::CHAR)], true);
    // A global named like a function, and like a weakc.h name.
    let gname = b.global("main", Type::INT);
    let pt = b.global("pthread_t", Type::INT);
    let kw = b.global("true", Type::INT);
    let (main, _) = b.func("main", Type::INT, &[]);
    b.body(
        main,
        vec![
            assign(count.clone(), fcount.clone()),
            assign(odd.clone(), gname.clone()),
            assign(pt, kw),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(va),
                args: vec![int(1)],
            }),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(ext_assume),
                args: vec![int(1)],
            }),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(ext_printf),
                args: vec![
                    Expr::new(ExprKind::Str("%d\n".into()), Type::ptr_to(Type::CHAR)),
                    int(1),
                ],
            }),
            st(StmtKind::Return(Some(int(0)))),
        ],
    );
    let out = b.print();
    let protos = "\
void __VERIFIER_assert__1(int);
int printf(char *, ...);
int main();
";
    assert!(out.contains(protos), "{out}");
    assert!(!out.contains("__VERIFIER_assume(int)"), "{out}");
    let globals = "\
int count;
int f__count;
int f__count__1;
int main__1;
int pthread_t__1;
int true__1;
";
    assert!(out.contains(globals), "{out}");
    assert!(
        out.contains("void __VERIFIER_assert__1(int cond)\n{\n    __VERIFIER_assert(cond);\n}\n"),
        "{out}"
    );
    let body = function_text(&out, "int main()");
    assert!(body.contains(
        "    count = f__count;\n    f__count__1 = main__1;\n    pthread_t__1 = true__1;\n"
    ));
    assert!(body.contains(
        "    __VERIFIER_assert__1(1);\n    __VERIFIER_assume(1);\n    printf(\"%d\\n\", 1);\n"
    ));
}

// ------------------------------------------------------------------------------------------
// Structs, prototypes, globals
// ------------------------------------------------------------------------------------------

#[test]
fn struct_order_and_forward_declarations() {
    let mut b = B::new();
    // 0: list node pointing to itself and to a tree (defined later, by pointer only)
    let list = b.strukt("list", false, vec![]);
    let tree = b.strukt("tree", false, vec![]);
    let inner = b.strukt("inner", false, vec![("a", Type::INT)]);
    let unused = b.strukt("unused", false, vec![("a", Type::INT)]);
    let opaque = b.strukt("opaque", false, vec![]);
    b.p.structs[opaque.0 as usize].complete = false;
    let anon = b.strukt(
        "",
        true,
        vec![
            ("", Type::INT),
            ("", Type::LONG),
            ("x", Type::INT),
            ("x", Type::CHAR),
        ],
    );
    b.p.structs[list.0 as usize].fields = vec![
        Field {
            name: "next".into(),
            ty: Type::ptr_to(Type::Struct(list)),
        },
        Field {
            name: "t".into(),
            ty: Type::ptr_to(Type::Struct(tree)),
        },
        Field {
            name: "in".into(),
            ty: Type::Array(Box::new(Type::Struct(inner)), Some(2)),
        },
        Field {
            name: "u".into(),
            ty: Type::Struct(anon),
        },
    ];
    b.p.structs[tree.0 as usize].fields = vec![
        Field {
            name: "l".into(),
            ty: Type::ptr_to(Type::Struct(list)),
        },
        Field {
            name: "cb".into(),
            ty: Type::ptr_to(fty(Type::Void, vec![Type::ptr_to(Type::Struct(opaque))])),
        },
    ];
    let _ = unused;
    b.global("head", Type::Struct(list));
    let out = b.print();
    let want = "\
#include \"weakc.h\"

struct inner {
    int a;
};
union __anon5 {
    int __weakc_field0;
    long __weakc_field1;
    int x;
    signed char x__1;
};
struct tree;
struct list {
    struct list *next;
    struct tree *t;
    struct inner in[2];
    union __anon5 u;
};
struct opaque;
struct tree {
    struct list *l;
    void (*cb)(struct opaque *);
};

struct list head;
";
    assert_eq!(out, want);
}

#[test]
fn global_initialisers() {
    let mut b = B::new();
    let pt = b.strukt(
        "pt",
        false,
        vec![("x", Type::INT), ("p", Type::ptr_to(Type::INT))],
    );
    let arr = |t: Type, n| Type::Array(Box::new(t), Some(n));
    let later = Expr::var(VarId(3), Type::INT); // defined below as the 4th variable
    b.global_init(
        "a",
        arr(Type::INT, 3),
        Init::List(vec![
            Init::Expr(int(1)),
            Init::List(vec![]),
            Init::Expr(int(3)),
        ]),
    );
    b.global_init(
        "m",
        arr(arr(Type::INT, 2), 2),
        Init::List(vec![
            Init::List(vec![Init::Expr(int(1)), Init::Expr(int(2))]),
            Init::List(vec![]),
        ]),
    );
    b.global_init(
        "pts",
        arr(Type::Struct(pt), 2),
        Init::List(vec![Init::List(vec![
            Init::Expr(int(1)),
            Init::Expr(addr(later)),
        ])]),
    );
    b.global_init("later", Type::INT, Init::Expr(int(7)));
    b.global_init("z", Type::Struct(pt), Init::List(vec![]));
    b.global_init(
        "s",
        arr(Type::CHAR, 4),
        Init::Expr(Expr::new(
            ExprKind::Str("abc".into()),
            Type::ptr_to(Type::CHAR),
        )),
    );
    b.global_init("u", Type::ULONG, Init::Expr(c(-1, Type::ULONG)));
    let (f, _) = b.func("f", Type::Void, &[]);
    b.body(f, vec![]);
    b.global_init(
        "fp",
        Type::ptr_to(fty(Type::Void, vec![])),
        Init::Expr(b.fexpr(f)),
    );
    let out = b.print();
    let want = "\
int a[3] = {1, 0, 3};
int m[2][2] = {{1, 2}, {0}};
extern int later;
struct pt pts[2] = {{1, &later}};
int later = 7;
struct pt z = {0};
signed char s[4] = \"abc\";
unsigned long u = 18446744073709551615UL;
void (*fp)() = f;
";
    assert!(out.contains(want), "{out}");
}

// ------------------------------------------------------------------------------------------
// #line directives and the header
// ------------------------------------------------------------------------------------------

#[test]
fn line_directives_and_header() {
    let mut b = B::new();
    let x = b.global("x", Type::INT);
    let ExprKind::Var(xv) = x.kind else {
        unreachable!()
    };
    b.p.vars[xv.0 as usize].loc = Loc {
        file: 0,
        line: 2,
        col: 0,
        len: 1,
    };
    let (f, _) = b.func("f", Type::Void, &[]);
    b.p.funcs[f.0 as usize].loc = Loc {
        file: 1,
        line: 1,
        col: 0,
        len: 1,
    };
    let t = b.temp(f, "t", Type::INT);
    b.body(
        f,
        vec![
            at_line(
                StmtKind::Assign {
                    lhs: x.clone(),
                    rhs: int(1),
                },
                5,
            ),
            at_line(
                StmtKind::Assign {
                    lhs: t.clone(),
                    rhs: x.clone(),
                },
                6,
            ), // next line anyway
            at_line(
                StmtKind::Assign {
                    lhs: x.clone(),
                    rhs: t.clone(),
                },
                6,
            ), // same line again
            at_line(
                StmtKind::If {
                    cond: x.clone(),
                    then_: vec![at_line(StmtKind::Break, 9)],
                    else_: vec![],
                },
                9,
            ),
            at_line(StmtKind::Skip, 20),
            st(StmtKind::Return(None)), // generated: a directive to the output file
        ],
    );
    let mut map = SourceMap::default();
    map.add_file("dir\\my \"file\".c", String::new());
    map.add_file("other.c", String::new());
    let opts = PrintOptions {
        line_directives: true,
        header: "Generated by weakc.\n\nDo not */ edit.".into(),
        generated_name: "out.c".into(),
    };
    let out = print_program(&b.p, &map, &opts);
    let want = "\
/*
 * Generated by weakc.
 *
 * Do not * / edit.
 */
#include \"weakc.h\"

void f();

#line 2 \"dir\\\\my \\\"file\\\".c\"
int x;

#line 1 \"other.c\"
void f()
{
    int t;
#line 5 \"dir\\\\my \\\"file\\\".c\"
    x = 1;
    t = x;
#line 6 \"dir\\\\my \\\"file\\\".c\"
    x = t;
#line 9 \"dir\\\\my \\\"file\\\".c\"
    if (x) {
#line 9 \"dir\\\\my \\\"file\\\".c\"
        break;
    }
#line 28 \"out.c\"
    return;
}
";
    assert_eq!(out, want);
    assert_eq!(out.lines().nth(27), Some("    return;"), "line 28 is the generated line");
    // Without directives: none at all.
    let plain = print_program(&b.p, &map, &PrintOptions::default());
    assert!(!plain.contains("#line"));
    assert!(plain.starts_with("#include \"weakc.h\"\n"));
}

// ------------------------------------------------------------------------------------------
// The runtime header
// ------------------------------------------------------------------------------------------

#[test]
fn runtime_header_declares_what_the_printer_relies_on() {
    for name in RUNTIME_NAMES {
        let declared = WEAKC_H.contains(&format!(" {name}("))
            || WEAKC_H.contains(&format!("*{name}("))
            || WEAKC_H.contains(&format!(" {name};"));
        assert!(declared, "weakc.h does not declare {name}");
    }
    for f in ALL_FENCES {
        assert!(
            WEAKC_H.contains(&format!("#define {}()", fence_macro(f))),
            "no macro for {f:?}"
        );
    }
    assert!(
        !WEAKC_H
            .lines()
            .any(|l| l.trim_start().starts_with("#include")),
        "weakc.h must be self-contained"
    );
}

// ------------------------------------------------------------------------------------------
// Compiling the output
// ------------------------------------------------------------------------------------------

fn runtime_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime")
}

/// Runs `cc -fsyntax-only -I runtime` on each `(name, source)`, with the given extra flags;
/// returns false (after saying why) when there is no `cc`.
fn compile_all(files: &[(String, String)], extra: &[&str]) -> bool {
    let Ok(cc) = which::which("cc") else {
        eprintln!("skipping compile check: `cc` not found on PATH");
        return false;
    };
    let dir = tempfile::tempdir().unwrap();
    for (name, src) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, src).unwrap();
        let out = std::process::Command::new(&cc)
            .arg("-fsyntax-only")
            .arg("-I")
            .arg(runtime_dir())
            .args([
                "-Werror=implicit-function-declaration",
                "-Werror=incompatible-pointer-types",
                "-Werror=int-conversion",
                "-Werror=implicit-int",
                "-Werror=return-type",
            ])
            .args(extra)
            .arg(&path)
            .output()
            .expect("running cc");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "cc {extra:?} rejected {name}:\n{stderr}\n--- source ---\n{src}"
        );
    }
    true
}

/// A program using every statement kind, nested types and awkward names.
fn kitchen_sink() -> B {
    let mut b = B::new();
    use BinOp::*;
    let node = b.strukt("node", false, vec![]);
    b.p.structs[node.0 as usize].fields = vec![
        Field {
            name: "val".into(),
            ty: Type::INT,
        },
        Field {
            name: "next".into(),
            ty: Type::ptr_to(Type::Struct(node)),
        },
        Field {
            name: "grid".into(),
            ty: Type::Array(
                Box::new(Type::Array(Box::new(Type::CHAR), Some(3))),
                Some(2),
            ),
        },
        Field {
            name: "cb".into(),
            ty: Type::ptr_to(fty(void_ptr(), vec![void_ptr()])),
        },
    ];
    let opaque = b.strukt("FILE", false, vec![]);
    b.p.structs[opaque.0 as usize].complete = false;
    let x = b.global("x", Type::INT);
    let y = b.global_init("y", Type::LONG, Init::Expr(c(-5, Type::LONG)));
    let big = b.global_init(
        "big",
        Type::Int {
            bits: 128,
            signed: true,
        },
        Init::Expr(c(
            i128::MIN,
            Type::Int {
                bits: 128,
                signed: true,
            },
        )),
    );
    let flag = b.global("flag", Type::Bool);
    let head = b.global("head", Type::Struct(node));
    let nodes = b.global("nodes", Type::Array(Box::new(Type::Struct(node)), Some(4)));
    let pa = b.global(
        "pa",
        Type::ptr_to(Type::Array(Box::new(Type::INT), Some(3))),
    );
    let arr3 = b.global_init(
        "arr3",
        Type::Array(Box::new(Type::INT), Some(3)),
        Init::List(vec![Init::Expr(int(1)), Init::List(vec![])]),
    );
    let stream = b.global("stream", Type::ptr_to(Type::Struct(opaque)));
    let fptrs = b.global(
        "handlers",
        Type::Array(
            Box::new(Type::ptr_to(fty(Type::Void, vec![Type::INT]))),
            Some(2),
        ),
    );
    let dbl = b.global("d", Type::Float { bits: 64 });
    let ld = b.global("ld", Type::Float { bits: 128 });
    let static_local = b.global("worker$count", Type::UINT);
    let fputs = b.external(
        "fputs",
        Type::INT,
        vec![Type::ptr_to(Type::CHAR), Type::ptr_to(Type::Struct(opaque))],
        false,
    );
    let malloc = b.external("malloc", void_ptr(), vec![Type::ULONG], false);
    let signal = b.external(
        "signal",
        Type::ptr_to(fty(Type::Void, vec![Type::INT])),
        vec![Type::INT, Type::ptr_to(fty(Type::Void, vec![Type::INT]))],
        false,
    );
    let (handler, hp) = b.func("handler", Type::Void, &[("sig", Type::INT)]);
    b.body(handler, vec![assign(x.clone(), hp[0].clone())]);
    let (worker, wp) = b.func("worker", void_ptr(), &[("arg", void_ptr())]);
    let i = b.local(worker, "i", Type::INT);
    let i2 = b.local(worker, "i", Type::ULONG);
    let tmp = b.temp(worker, "__weakc_tmp0", Type::INT);
    let p = b.local(worker, "p", Type::ptr_to(Type::Struct(node)));
    let old = b.local(worker, "old", Type::INT);
    let exp = b.local(worker, "exp", Type::INT);
    let ok = b.local(worker, "ok", Type::Bool);
    let sh = b.local(
        worker,
        "x",
        Type::Int {
            bits: 16,
            signed: false,
        },
    ); // hides global x, which worker uses
    let node_member = |b: &B, base: Expr, idx| member(b, base, idx);
    let p_next = node_member(&b, deref(p.clone()), 1);
    let grid = node_member(&b, head.clone(), 2);
    let grid_cell = index(index(grid, int(1)), int(2));
    let cb = node_member(&b, deref(p.clone()), 3);
    let worker_body = vec![
        assign(
            p.clone(),
            cast(Type::ptr_to(Type::Struct(node)), wp[0].clone()),
        ),
        assign(i.clone(), int(0)),
        st(StmtKind::Loop {
            body: vec![
                st(StmtKind::If {
                    cond: un(UnOp::Not, bin(Lt, i.clone(), int(10))),
                    then_: vec![st(StmtKind::Break)],
                    else_: vec![],
                }),
                st(StmtKind::If {
                    cond: bin(Eq, bin(Rem, i.clone(), int(2)), int(0)),
                    then_: vec![st(StmtKind::Continue)],
                    else_: vec![],
                }),
                assign(tmp.clone(), x.clone()),
                assign(x.clone(), bin(Add, tmp.clone(), int(1))),
                st(StmtKind::Fence(Fence::Full)),
            ],
            latch: vec![assign(i.clone(), bin(Add, i.clone(), int(1)))],
        }),
        assign(i2.clone(), c(-1, Type::ULONG)),
        assign(
            sh.clone(),
            c(
                65535,
                Type::Int {
                    bits: 16,
                    signed: false,
                },
            ),
        ),
        assign(grid_cell, c(97, Type::CHAR)),
        assign(node_member(&b, deref(p_next.clone()), 0), int(3)),
        assign(index(nodes.clone(), int(2)), head.clone()),
        assign(deref(bin(Add, deref(pa.clone()), int(1))), int(4)),
        assign(index(deref(pa.clone()), int(2)), int(4)),
        assign(flag.clone(), Expr::new(ExprKind::Nondet, Type::Bool)),
        assign(y.clone(), Expr::new(ExprKind::Nondet, Type::LONG)),
        assign(
            big.clone(),
            Expr::new(
                ExprKind::Nondet,
                Type::Int {
                    bits: 128,
                    signed: true,
                },
            ),
        ),
        assign(
            dbl.clone(),
            Expr::new(ExprKind::FloatConst("2.5".into()), Type::Float { bits: 64 }),
        ),
        assign(
            ld.clone(),
            Expr::new(ExprKind::Nondet, Type::Float { bits: 128 }),
        ),
        assign(static_local.clone(), c(7, Type::UINT)),
        assign(
            index(arr3.clone(), int(0)),
            Expr::new(
                ExprKind::Cond(Box::new(flag.clone()), Box::new(int(1)), Box::new(int(2))),
                Type::INT,
            ),
        ),
        st(StmtKind::Rmw(Rmw {
            op: RmwOp::FetchAdd,
            dest: Some(old.clone()),
            ptr: addr(x.clone()),
            val: int(1),
            expected: None,
            order: MemOrder::SeqCst,
        })),
        st(StmtKind::Rmw(Rmw {
            op: RmwOp::CompareExchange,
            dest: Some(ok.clone()),
            ptr: addr(x.clone()),
            val: int(2),
            expected: Some(addr(exp.clone())),
            order: MemOrder::AcqRel,
        })),
        st(StmtKind::Rmw(Rmw {
            op: RmwOp::CasBool,
            dest: Some(ok.clone()),
            ptr: addr(x.clone()),
            val: int(2),
            expected: Some(int(1)),
            order: MemOrder::SeqCst,
        })),
        st(StmtKind::Rmw(Rmw {
            op: RmwOp::Store,
            dest: None,
            ptr: addr(y.clone()),
            val: c(1, Type::LONG),
            expected: None,
            order: MemOrder::Release,
        })),
        st(StmtKind::Call {
            dest: None,
            callee: Callee::Direct(fputs),
            args: vec![
                Expr::new(ExprKind::Str("a\"b\n".into()), Type::ptr_to(Type::CHAR)),
                stream.clone(),
            ],
        }),
        st(StmtKind::Call {
            dest: Some(index(fptrs.clone(), int(0))),
            callee: Callee::Direct(signal),
            args: vec![int(2), b.fexpr(handler)],
        }),
        st(StmtKind::Call {
            dest: None,
            callee: Callee::Indirect(index(fptrs.clone(), int(0))),
            args: vec![int(2)],
        }),
        st(StmtKind::Call {
            dest: Some(wp[0].clone()),
            callee: Callee::Indirect(deref(cb)),
            args: vec![wp[0].clone()],
        }),
        st(StmtKind::Call {
            dest: Some(wp[0].clone()),
            callee: Callee::Direct(malloc),
            args: vec![c(16, Type::ULONG)],
        }),
        st(StmtKind::Assert {
            cond: bin(Ne, p.clone(), c(0, Type::ptr_to(Type::Struct(node)))),
            msg: "p != NULL".into(),
            ctrl: true,
        }),
        st(StmtKind::Assume(bin(Ge, old.clone(), int(0)))),
        st(StmtKind::Assume(wp[0].clone())),
        st(StmtKind::AtomicBegin),
        st(StmtKind::Block(vec![st(StmtKind::Skip)])),
        st(StmtKind::AtomicEnd),
        st(StmtKind::Goto(LabelId(7))),
        st(StmtKind::Label(LabelId(7), "end".into())),
        st(StmtKind::Return(Some(c(0, void_ptr())))),
    ];
    b.body(worker, worker_body);
    let (main, _) = b.func("main", Type::INT, &[]);
    let t = b.local(main, "t", Type::ULONG);
    let mutex = b.strukt(
        "mutex",
        true,
        vec![
            ("__size", Type::Array(Box::new(Type::CHAR), Some(40))),
            ("__align", Type::LONG),
        ],
    );
    let m = b.global("m", Type::Struct(mutex));
    let wf = b.fexpr(worker);
    let hf = b.fexpr(handler);
    b.body(
        main,
        vec![
            st(StmtKind::Spawn {
                tid: Some(addr(t.clone())),
                func: wf.clone(),
                arg: addr(head.clone()),
            }),
            st(StmtKind::Spawn {
                tid: None,
                func: wf,
                arg: addr(head.clone()),
            }),
            st(StmtKind::Spawn {
                tid: None,
                func: hf,
                arg: x.clone(),
            }),
            st(StmtKind::Lock(addr(m.clone()))),
            st(StmtKind::Unlock(addr(m.clone()))),
            st(StmtKind::Join {
                tid: t.clone(),
                ret: None,
            }),
            st(StmtKind::Fence(Fence::Lwsync)),
            st(StmtKind::Fence(Fence::Mfence)),
            st(StmtKind::Fence(Fence::Compiler)),
            st(StmtKind::Return(Some(int(0)))),
        ],
    );
    b
}

#[test]
fn kitchen_sink_compiles() {
    let b = kitchen_sink();
    let map = SourceMap {
        files: vec![crate::source::SourceFile {
            name: "in\\put \"x\".c".into(),
            text: None,
        }],
    };
    let plain = print_program(&b.p, &map, &PrintOptions::default());
    // Put every statement at its own line of the input file.
    let mut p2 = b.p.clone();
    let mut line = 1;
    for f in &mut p2.funcs {
        if let Some(body) = &mut f.body {
            walk_stmts_mut(body, &mut |s| {
                s.loc = Loc {
                    file: 0,
                    line,
                    col: 0,
                    len: 1,
                };
                line += 1;
            });
        }
    }
    let with_lines = print_program(
        &p2,
        &map,
        &PrintOptions {
            line_directives: true,
            header: "test".into(),
            ..Default::default()
        },
    );
    assert!(
        with_lines.contains("#line 1 \"in\\\\put \\\"x\\\".c\""),
        "{with_lines}"
    );
    let files = vec![
        ("plain.c".to_string(), plain),
        ("lines.c".to_string(), with_lines),
    ];
    // The compiler's default warnings are all clean.
    compile_all(&files, &["-Werror"]);
    if compile_all(
        &files,
        &[
            "-Wall",
            "-Wno-unused-variable",
            "-Wno-unused-label",
            "-Wno-pointer-sign",
            "-Wno-main",
        ],
    ) {
        for arch in [
            &["-U__x86_64__", "-D__powerpc64__"][..],
            &["-U__x86_64__", "-D__aarch64__"],
            &["-D__WEAKC_NO_ASM"],
        ] {
            compile_all(&files, arch);
        }
        compile_all(&files, &["-std=c11"]);
    }
}

/// Programs shaped like what the front end makes of SV-COMP / ESOP litmus inputs: glibc's
/// pthread types as expanded unions, a user `__VERIFIER_assert`, `reach_error`.
#[test]
fn svcomp_shaped_program_compiles() {
    let mut b = B::new();
    // glibc: struct __pthread_internal_list { struct __pthread_internal_list *__prev, *__next; };
    let list = b.strukt("__pthread_internal_list", false, vec![]);
    b.p.structs[list.0 as usize].fields = vec![
        Field {
            name: "__prev".into(),
            ty: Type::ptr_to(Type::Struct(list)),
        },
        Field {
            name: "__next".into(),
            ty: Type::ptr_to(Type::Struct(list)),
        },
    ];
    let ms = b.strukt(
        "__pthread_mutex_s",
        false,
        vec![
            ("__lock", Type::INT),
            ("__count", Type::UINT),
            ("__owner", Type::INT),
            ("__nusers", Type::UINT),
            ("__kind", Type::INT),
            (
                "__spins",
                Type::Int {
                    bits: 16,
                    signed: true,
                },
            ),
            (
                "__elision",
                Type::Int {
                    bits: 16,
                    signed: true,
                },
            ),
            ("__list", Type::Struct(list)),
        ],
    );
    let mutex_t = b.strukt(
        "",
        true,
        vec![
            ("__data", Type::Struct(ms)),
            ("__size", Type::Array(Box::new(Type::CHAR), Some(40))),
            ("__align", Type::LONG),
        ],
    );
    let attr_t = b.strukt(
        "",
        true,
        vec![
            ("__size", Type::Array(Box::new(Type::CHAR), Some(56))),
            ("__align", Type::LONG),
        ],
    );
    let mattr_t = b.strukt(
        "",
        true,
        vec![
            ("__size", Type::Array(Box::new(Type::CHAR), Some(4))),
            ("__align", Type::INT),
        ],
    );
    let pthread_t = Type::ULONG;
    let start = Type::ptr_to(fty(void_ptr(), vec![void_ptr()]));
    let pc = b.external(
        "pthread_create",
        Type::INT,
        vec![
            Type::ptr_to(pthread_t.clone()),
            Type::ptr_to(Type::Struct(attr_t)),
            start.clone(),
            void_ptr(),
        ],
        false,
    );
    let _pj = b.external(
        "pthread_join",
        Type::INT,
        vec![pthread_t.clone(), Type::ptr_to(void_ptr())],
        false,
    );
    let pmi = b.external(
        "pthread_mutex_init",
        Type::INT,
        vec![
            Type::ptr_to(Type::Struct(mutex_t)),
            Type::ptr_to(Type::Struct(mattr_t)),
        ],
        false,
    );
    let assert_fail = b.external(
        "__assert_fail",
        Type::Void,
        vec![
            Type::ptr_to(Type::CHAR),
            Type::ptr_to(Type::CHAR),
            Type::UINT,
            Type::ptr_to(Type::CHAR),
        ],
        false,
    );
    let abort = b.external("abort", Type::Void, vec![], false);
    let _nd = b.external("__VERIFIER_nondet_int", Type::INT, vec![], false);
    let (reach_error, _) = b.func("reach_error", Type::Void, &[]);
    let s = |t: &str| Expr::new(ExprKind::Str(t.into()), Type::ptr_to(Type::CHAR));
    b.body(
        reach_error,
        vec![st(StmtKind::Call {
            dest: None,
            callee: Callee::Direct(assert_fail),
            args: vec![s("0"), s("t.c"), c(3, Type::UINT), s("reach_error")],
        })],
    );
    let (vassert, vp) = b.func(
        "__VERIFIER_assert",
        Type::Void,
        &[("expression", Type::INT)],
    );
    b.body(
        vassert,
        vec![st(StmtKind::If {
            cond: un(UnOp::Not, vp[0].clone()),
            then_: vec![
                st(StmtKind::Label(LabelId(0), "ERROR".into())),
                st(StmtKind::Assert {
                    cond: int(0),
                    msg: "reach_error()".into(),
                    ctrl: true,
                }),
                st(StmtKind::Call {
                    dest: None,
                    callee: Callee::Direct(abort),
                    args: vec![],
                }),
            ],
            else_: vec![],
        })],
    );
    let m = b.global("m", Type::Struct(mutex_t));
    let x = b.global_init("x", Type::INT, Init::Expr(int(0)));
    let y = b.global_init("y", Type::INT, Init::Expr(int(0)));
    // Threads declared the SV-COMP way: `void *P0(void *arg)` and `void *P1()`.
    let (p0, _) = b.func("P0", void_ptr(), &[("arg", void_ptr())]);
    let (p1, _) = b.func("P1", void_ptr(), &[]);
    let (main, _) = b.func("main", Type::INT, &[]);
    let r0 = b.local(p0, "r0", Type::INT);
    let r0b = b.local(p1, "r0", Type::INT);
    b.body(
        p0,
        vec![
            st(StmtKind::Lock(addr(m.clone()))),
            assign(x.clone(), int(1)),
            st(StmtKind::Fence(Fence::Sync)),
            assign(r0.clone(), y.clone()),
            st(StmtKind::Unlock(addr(m.clone()))),
            st(StmtKind::Return(Some(c(0, void_ptr())))),
        ],
    );
    b.body(
        p1,
        vec![
            assign(y.clone(), int(1)),
            st(StmtKind::Fence(Fence::Dmb)),
            assign(r0b.clone(), x.clone()),
            st(StmtKind::Return(Some(c(0, void_ptr())))),
        ],
    );
    let t0 = b.local(main, "t0", pthread_t.clone());
    let t1 = b.local(main, "t1", pthread_t.clone());
    let rc = b.local(main, "rc", Type::INT);
    b.body(
        main,
        vec![
            st(StmtKind::Call {
                dest: Some(rc.clone()),
                callee: Callee::Direct(pmi),
                args: vec![addr(m.clone()), c(0, void_ptr())],
            }),
            st(StmtKind::Spawn {
                tid: Some(addr(t0.clone())),
                func: b.fexpr(p0),
                arg: c(0, void_ptr()),
            }),
            st(StmtKind::Spawn {
                tid: Some(addr(t1.clone())),
                func: b.fexpr(p1),
                arg: c(0, void_ptr()),
            }),
            // A pthread_create the front end left as a call.
            st(StmtKind::Call {
                dest: Some(rc.clone()),
                callee: Callee::Direct(pc),
                args: vec![
                    addr(t1.clone()),
                    c(0, void_ptr()),
                    b.fexpr(p0),
                    c(0, void_ptr()),
                ],
            }),
            st(StmtKind::Join {
                tid: t0.clone(),
                ret: None,
            }),
            st(StmtKind::Join {
                tid: t1.clone(),
                ret: None,
            }),
            st(StmtKind::Call {
                dest: None,
                callee: Callee::Direct(vassert),
                args: vec![bin(
                    BinOp::LogOr,
                    bin(BinOp::Eq, x.clone(), int(1)),
                    bin(BinOp::Eq, y.clone(), int(1)),
                )],
            }),
            st(StmtKind::Return(Some(int(0)))),
        ],
    );
    let out = b.print();
    assert!(!out.contains("int pthread_create("), "{out}");
    assert!(!out.contains("int pthread_join("));
    assert!(
        out.contains("pthread_create(&t1, 0, (void *(*)(void *))P1, ((void *)0));"),
        "{out}"
    );
    compile_all(&[("svcomp.c".to_string(), out.clone())], &["-Werror"]);
    compile_all(
        &[("svcomp.c".to_string(), out)],
        &[
            "-Wall",
            "-Wno-unused-variable",
            "-Wno-unused-label",
            "-Wno-pointer-sign",
        ],
    );
}

#[test]
fn builtins_and_unnamed_parameters() {
    let mut b = B::new();
    let x = b.global("x", Type::LONG);
    let expect = b.external(
        "__builtin_expect",
        Type::LONG,
        vec![Type::LONG, Type::LONG],
        false,
    );
    let fadd = b.external(
        "__sync_fetch_and_add",
        Type::INT,
        vec![Type::ptr_to(Type::INT), Type::INT],
        false,
    );
    let dup = b.external("puts", Type::INT, vec![Type::ptr_to(Type::CHAR)], false);
    let dup2 = b.external("puts", Type::INT, vec![Type::ptr_to(Type::CHAR)], false);
    // A definition whose parameter has no variable (unnamed in the IR).
    let (f, _) = b.func("f", Type::Void, &[]);
    b.p.funcs[f.0 as usize].ty.params = vec![Type::INT, Type::LONG];
    let _ = (fadd, dup, dup2);
    b.body(
        f,
        vec![st(StmtKind::Call {
            dest: Some(x.clone()),
            callee: Callee::Direct(expect),
            args: vec![x.clone(), c(1, Type::LONG)],
        })],
    );
    let out = b.print();
    assert!(!out.contains("__builtin_expect(long"), "{out}");
    assert!(!out.contains("__sync_fetch_and_add(int"), "{out}");
    assert_eq!(out.matches("int puts(char *);").count(), 1, "{out}");
    assert!(
        out.contains(
            "void f(int __weakc_param0, long __weakc_param1)\n{\n    x = __builtin_expect(x, 1L);\n}\n"
        ),
        "{out}"
    );
    compile_all(&[("builtins.c".into(), out)], &[]);
}

// ------------------------------------------------------------------------------------------
// Randomised declarator check: sizes the compiler computes for printed declarations must
// match the IR's (LP64), at every level of dereferencing and indexing.
// ------------------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// (size, alignment) of `ty` on x86-64 Linux.
fn layout(p: &Program, ty: &Type) -> (u64, u64) {
    match ty {
        Type::Void => (1, 1),
        Type::Bool => (1, 1),
        Type::Int { bits, .. } | Type::Float { bits } => {
            let s = (*bits as u64 / 8).max(1);
            (s, s)
        }
        Type::Ptr(_) => (8, 8),
        Type::Array(t, n) => {
            let (s, a) = layout(p, t);
            (s * n.unwrap_or(0), a)
        }
        Type::Struct(id) => {
            let sd = p.strukt(*id);
            let (mut size, mut align) = (0u64, 1u64);
            for f in &sd.fields {
                let (s, a) = layout(p, &f.ty);
                align = align.max(a);
                if sd.is_union {
                    size = size.max(s);
                } else {
                    size = size.div_ceil(a) * a + s;
                }
            }
            (size.div_ceil(align) * align, align)
        }
        Type::Func(_) => (1, 1),
    }
}

fn random_scalar(r: &mut Rng) -> Type {
    match r.below(9) {
        0 => Type::Bool,
        1 => Type::CHAR,
        2 => Type::Int {
            bits: 16,
            signed: false,
        },
        3 => Type::INT,
        4 => Type::ULONG,
        5 => Type::Int {
            bits: 128,
            signed: true,
        },
        6 => Type::Float { bits: 32 },
        7 => Type::Float { bits: 64 },
        _ => Type::Float { bits: 128 },
    }
}

/// A random object type; by-value structs only from `value_ok`, pointers to any struct.
fn random_type(r: &mut Rng, depth: u32, nstructs: u32, value_ok: &[u32]) -> Type {
    if depth == 0 {
        return random_scalar(r);
    }
    match r.below(8) {
        0 | 1 => Type::ptr_to(random_type(r, depth - 1, nstructs, value_ok)),
        2 | 3 => Type::Array(
            Box::new(random_type(r, depth - 1, nstructs, value_ok)),
            Some(1 + r.below(4)),
        ),
        4 => {
            // Pointer to a function returning a pointer or scalar.
            let ret = match r.below(3) {
                0 => Type::Void,
                1 => random_scalar(r),
                _ => Type::ptr_to(random_type(r, depth - 1, nstructs, value_ok)),
            };
            let params = (0..r.below(3))
                .map(|_| random_type(r, depth - 1, nstructs, value_ok))
                .collect();
            let variadic = r.below(4) == 0;
            Type::ptr_to(Type::Func(Box::new(FuncType {
                ret,
                params,
                variadic,
            })))
        }
        5 if nstructs > 0 => Type::ptr_to(Type::Struct(StructId(r.below(nstructs as u64) as u32))),
        6 if !value_ok.is_empty() => {
            Type::Struct(StructId(value_ok[r.below(value_ok.len() as u64) as usize]))
        }
        _ => random_scalar(r),
    }
}

/// `_Static_assert`s on the sizes of `expr` (of type `ty`) and of what it points to.
fn size_asserts(p: &Program, expr: &str, ty: &Type, out: &mut String) {
    let (s, _) = layout(p, ty);
    if !matches!(ty, Type::Func(_) | Type::Void) {
        out.push_str(&format!(
            "_Static_assert(sizeof({expr}) == {s}, \"{expr}\");\n"
        ));
    }
    match ty {
        Type::Ptr(t) if !matches!(**t, Type::Func(_) | Type::Void) => {
            size_asserts(p, &format!("(*{expr})"), t, out)
        }
        Type::Array(t, _) => size_asserts(p, &format!("({expr})[0]"), t, out),
        _ => {}
    }
}

#[test]
fn random_declarations_have_the_right_sizes() {
    let mut r = Rng(0x5eed);
    let mut files = Vec::new();
    for round in 0..40 {
        let mut b = B::new();
        let nstructs = 1 + r.below(6) as u32;
        // By-value nesting follows a random rank order (acyclic), printing order must
        // recover it; pointers may go anywhere (cycles).
        let mut rank: Vec<u32> = (0..nstructs).collect();
        for i in (1..rank.len()).rev() {
            rank.swap(i, r.below(i as u64 + 1) as usize);
        }
        for i in 0..nstructs {
            b.strukt(&format!("s{i}"), r.below(4) == 0, vec![]);
        }
        for i in 0..nstructs {
            let lower: Vec<u32> = (0..nstructs)
                .filter(|&j| rank[j as usize] < rank[i as usize])
                .collect();
            let fields = (0..1 + r.below(4))
                .map(|k| Field {
                    name: format!("f{k}"),
                    ty: random_type(&mut r, 3, nstructs, &lower),
                })
                .collect();
            b.p.structs[i as usize].fields = fields;
        }
        let all: Vec<u32> = (0..nstructs).collect();
        let mut asserts = String::new();
        for g in 0..12 {
            let ty = random_type(&mut r, 4, nstructs, &all);
            let name = format!("g{g}");
            b.global(&name, ty.clone());
            size_asserts(&b.p, &name, &ty, &mut asserts);
        }
        let printed = b.print();
        for i in 0..nstructs {
            let s = Type::Struct(StructId(i));
            if !printed.contains(&format!("\n{} {{\n", decl(&b, &s, ""))) {
                continue; // unused: not printed
            }
            asserts.push_str(&format!(
                "_Static_assert(sizeof({}) == {}, \"s{i}\");\n",
                decl(&b, &s, ""),
                layout(&b.p, &s).0
            ));
        }
        // A function taking and returning some of them, to exercise prototypes.
        let ret = random_type(&mut r, 2, nstructs, &all);
        let ret = if matches!(ret, Type::Array(..)) {
            Type::ptr_to(ret)
        } else {
            ret
        };
        let params: Vec<(String, Type)> = (0..3)
            .map(|k| (format!("p{k}"), random_type(&mut r, 3, nstructs, &all)))
            .collect();
        let pref: Vec<(&str, Type)> = params
            .iter()
            .map(|(n, t)| (n.as_str(), t.clone()))
            .collect();
        let (f, _) = b.func("f", ret, &pref);
        b.body(f, vec![]);
        let out = b.print() + &asserts;
        files.push((format!("random{round}.c"), out));
    }
    compile_all(&files, &["-w"]);
}

// ------------------------------------------------------------------------------------------
// Randomised expression check: constant expressions printed from the IR must have, for the
// compiler, the type and value the IR gives them under C's conversion rules. This catches
// precedence and literal-typing mistakes.
// ------------------------------------------------------------------------------------------

fn int_info(ty: &Type) -> (u32, bool) {
    match ty {
        Type::Bool => (1, false),
        Type::Int { bits, signed } => (*bits as u32, *signed),
        _ => unreachable!(),
    }
}

/// Converts `v` to integer type `ty` (wrapping, as GCC does for signed targets).
fn convert(v: i128, ty: &Type) -> i128 {
    match ty {
        Type::Bool => (v != 0) as i128,
        _ => {
            let (bits, signed) = int_info(ty);
            wrap_int(v, bits, signed)
        }
    }
}

fn promote(ty: &Type) -> Type {
    match ty {
        Type::Bool => Type::INT,
        Type::Int { bits, .. } if *bits < 32 => Type::INT,
        t => t.clone(),
    }
}

/// The usual arithmetic conversions of two promoted types among int/uint/long/ulong.
fn usual(a: &Type, b: &Type) -> Type {
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (ab, asg) = int_info(&a);
    let (bb, bsg) = int_info(&b);
    if asg == bsg {
        return if ab >= bb { a } else { b };
    }
    let (s, sb, u, ub) = if asg {
        (&a, ab, &b, bb)
    } else {
        (&b, bb, &a, ab)
    };
    if ub >= sb {
        u.clone()
    } else if sb > ub {
        s.clone()
    } else {
        Type::Int {
            bits: sb as u8,
            signed: false,
        }
    }
}

fn in_range(v: i128, ty: &Type) -> bool {
    convert(v, ty) == v
}

/// A random constant integer expression and its value, or None when it would be undefined.
fn random_const_expr(r: &mut Rng, depth: u32) -> Option<(Expr, i128)> {
    let wide = [Type::INT, Type::UINT, Type::LONG, Type::ULONG];
    if depth == 0 || r.below(5) == 0 {
        let ty = wide[r.below(4) as usize].clone();
        let v: i128 = match r.below(8) {
            0 => i32::MIN as i128,
            1 => i32::MAX as i128,
            2 => i64::MIN as i128,
            3 => -1,
            4 => u32::MAX as i128 + 5,
            _ => r.below(40) as i128 - 10,
        };
        let v = convert(v, &ty);
        return Some((c(v, ty), v));
    }
    use BinOp::*;
    let ops = [
        Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Eq, Ne, Lt, Le, Gt, Ge, LogAnd,
        LogOr,
    ];
    match r.below(10) {
        0 => {
            let (a, va) = random_const_expr(r, depth - 1)?;
            let op = [UnOp::Neg, UnOp::BitNot, UnOp::Not][r.below(3) as usize];
            let (ty, v) = match op {
                UnOp::Not => (Type::INT, (va == 0) as i128),
                UnOp::Neg => {
                    let t = promote(&a.ty);
                    let v = -convert(va, &t);
                    if int_info(&t).1 && !in_range(v, &t) {
                        return None;
                    }
                    (t.clone(), convert(v, &t))
                }
                UnOp::BitNot => {
                    let t = promote(&a.ty);
                    (t.clone(), convert(!convert(va, &t), &t))
                }
            };
            Some((Expr::new(ExprKind::Unary(op, Box::new(a)), ty), v))
        }
        1 => {
            let (a, va) = random_const_expr(r, depth - 1)?;
            let ty = [
                Type::CHAR,
                Type::Bool,
                Type::INT,
                Type::UINT,
                Type::LONG,
                Type::ULONG,
            ][r.below(6) as usize]
                .clone();
            let v = convert(va, &ty);
            Some((cast(ty, a), v))
        }
        2 => {
            let (cnd, vc) = random_const_expr(r, depth - 1)?;
            let (a, va) = random_const_expr(r, depth - 1)?;
            let (b, vb) = random_const_expr(r, depth - 1)?;
            let ty = usual(&a.ty, &b.ty);
            let v = convert(if vc != 0 { va } else { vb }, &ty);
            let e = Expr::new(ExprKind::Cond(Box::new(cnd), Box::new(a), Box::new(b)), ty);
            Some((e, v))
        }
        _ => {
            let op = ops[r.below(ops.len() as u64) as usize];
            let (a, va) = random_const_expr(r, depth - 1)?;
            let (b, vb) = random_const_expr(r, depth - 1)?;
            let (ty, v) = match op {
                LogAnd => (Type::INT, (va != 0 && vb != 0) as i128),
                LogOr => (Type::INT, (va != 0 || vb != 0) as i128),
                Shl | Shr => {
                    let t = promote(&a.ty);
                    let (bits, signed) = int_info(&t);
                    if vb < 0 || vb >= bits as i128 {
                        return None;
                    }
                    let x = convert(va, &t);
                    let v = if op == Shl {
                        if signed && x < 0 {
                            return None;
                        }
                        let v = x << vb;
                        if signed && !in_range(v, &t) {
                            return None;
                        }
                        convert(v, &t)
                    } else {
                        x >> vb
                    };
                    (t, v)
                }
                _ => {
                    let t = usual(&a.ty, &b.ty);
                    let (x, y) = (convert(va, &t), convert(vb, &t));
                    let signed = int_info(&t).1;
                    let exact = match op {
                        Add => x + y,
                        Sub => x - y,
                        Mul if signed => x * y,
                        Mul => (x as u128).wrapping_mul(y as u128) as i128,
                        Div | Rem if y == 0 => return None,
                        Div => x / y,
                        Rem => x % y,
                        BitAnd => x & y,
                        BitOr => x | y,
                        BitXor => x ^ y,
                        Eq => return Some((bin(op, a, b), (x == y) as i128)),
                        Ne => return Some((bin(op, a, b), (x != y) as i128)),
                        Lt => return Some((bin(op, a, b), (x < y) as i128)),
                        Le => return Some((bin(op, a, b), (x <= y) as i128)),
                        Gt => return Some((bin(op, a, b), (x > y) as i128)),
                        Ge => return Some((bin(op, a, b), (x >= y) as i128)),
                        _ => unreachable!(),
                    };
                    if signed && !in_range(exact, &t) {
                        return None;
                    }
                    (t.clone(), convert(exact, &t))
                }
            };
            Some((
                Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty),
                v,
            ))
        }
    }
}

#[test]
fn random_constant_expressions_keep_type_and_value() {
    let mut r = Rng(0xc0ffee);
    let mut files = Vec::new();
    let b = B::new();
    for round in 0..8 {
        let mut text = String::from("#include \"weakc.h\"\n");
        let mut n = 0;
        while n < 60 {
            let Some((e, v)) = random_const_expr(&mut r, 4) else {
                continue;
            };
            let printed = expr(&b, &e);
            let tyname = decl(&b, &e.ty, "");
            let bits64 = convert(v, &Type::ULONG);
            text.push_str(&format!(
                "_Static_assert(__builtin_types_compatible_p(__typeof__({printed}), {tyname}), \"type {n}\");\n\
                 _Static_assert((unsigned long)({printed}) == {bits64}UL, \"value {n}\");\n"
            ));
            n += 1;
        }
        files.push((format!("consts{round}.c"), text));
    }
    compile_all(&files, &["-w"]);
}

#[test]
fn pointer_to_array_needs_a_complete_element() {
    let mut b = B::new();
    let a = b.strukt("a", false, vec![]);
    let u = b.strukt("b", true, vec![("x", Type::INT)]);
    b.p.structs[a.0 as usize].fields = vec![Field {
        name: "p".into(),
        ty: Type::ptr_to(Type::Array(Box::new(Type::Struct(u)), Some(2))),
    }];
    b.global("g", Type::Struct(a));
    let out = b.print();
    assert!(
        out.contains("union b {\n    int x;\n};\nstruct a {\n    union b (*p)[2];\n};\n"),
        "{out}"
    );
}

#[test]
fn empty_program_and_determinism() {
    let b = B::new();
    assert_eq!(b.print(), "#include \"weakc.h\"\n");
    let k = kitchen_sink();
    let once = k.print();
    for _ in 0..3 {
        assert_eq!(k.print(), once);
    }
}

#[test]
fn local_with_initialiser_and_struct_nondet() {
    let mut b = B::new();
    let s = b.strukt("s", false, vec![("a", Type::INT)]);
    let (f, _) = b.func("f", Type::Void, &[]);
    let arr = b.local(f, "arr", Type::Array(Box::new(Type::INT), Some(2)));
    let ExprKind::Var(av) = arr.kind else {
        unreachable!()
    };
    b.p.vars[av.0 as usize].init = Some(Init::List(vec![Init::Expr(int(1))]));
    let sv = b.local(f, "sv", Type::Struct(s));
    b.body(
        f,
        vec![assign(sv, Expr::new(ExprKind::Nondet, Type::Struct(s)))],
    );
    let out = b.print();
    let want = "\
void f()
{
    int arr[2] = {1};
    struct s sv;
    sv = ({ struct s __weakc_nondet; __weakc_nondet; });
}
";
    assert_eq!(function_text(&out, "void f()"), want);
    compile_all(&[("init.c".into(), out)], &["-Werror"]);
}

#[test]
fn write_runtime_copies_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_runtime(&dir.path().join("rt")).unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), WEAKC_H);
}

#[test]
fn bit_fields_are_printed_with_their_widths() {
    // Without them the instrumented program would have other values and another layout.
    let src = "struct g { int x; unsigned a : 3, b : 5; int c : 4; } s;\nint main(void) { s.b = 1; return s.a + s.c; }\n";
    let mut map = crate::source::SourceMap::default();
    let prog = crate::frontend::load_str("t.c", src, &Default::default(), &mut map).expect("parses");
    let out = print_program(&prog, &map, &PrintOptions::default());
    assert!(out.contains("unsigned int a : 3;") && out.contains("unsigned int b : 5;") && out.contains("int c : 4;"), "{out}");
}
