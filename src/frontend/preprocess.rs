//! Running the system C preprocessor and mapping its output back to the user's files.
//!
//! The preprocessor is only run when the text contains directives other than line markers
//! (`# 12 "file.c" 1`, `#line 12 "file.c"`). Its output keeps GCC line markers; [`strip_markers`]
//! blanks every marker (and any other remaining `#` line such as `#pragma`) so tree-sitter sees
//! clean C with the same number of lines, and records for every line of the parsed text the
//! file and line it came from.

use super::{Options, Preprocess};
use crate::source::{Error, SourceMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where one line of the parsed text came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineOrigin {
    /// Index in the [`SourceMap`].
    pub file: u32,
    /// 1-based line in that file.
    pub line: u32,
    /// The line comes from a system header (line-marker flag 3).
    pub system: bool,
}

/// Parsed text with its line map (`lines[i]` is the origin of line `i`, 0-based).
#[derive(Clone, Debug)]
pub struct Prepared {
    pub text: String,
    pub lines: Vec<LineOrigin>,
    /// The file id of the main file.
    pub main_file: u32,
}

/// True when `text` has preprocessor directives other than line markers and `#line`.
pub fn needs_preprocessing(text: &str) -> bool {
    text.lines().any(|l| match directive_of(l) {
        Some(d) => !(d.is_empty() || d.starts_with(|c: char| c.is_ascii_digit()) || is_word(d, "line")),
        None => false,
    })
}

fn is_word(s: &str, w: &str) -> bool {
    s.starts_with(w) && !s[w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// The text after `#` when `line` is a directive line.
fn directive_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    t.strip_prefix('#').map(|r| r.trim_start())
}

/// The machine whose compiler weakc pretends to be when preprocessing: only the predefined
/// macros change (the host's headers are used, and sizes follow the IR's LP64 model).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    X86_64,
    Ppc64le,
    Armv7a,
    Aarch64,
    Sparc64,
}

impl Target {
    pub const ALL: [Target; 5] = [Target::X86_64, Target::Ppc64le, Target::Armv7a, Target::Aarch64, Target::Sparc64];

    pub fn name(self) -> &'static str {
        match self {
            Target::X86_64 => "x86_64",
            Target::Ppc64le => "ppc64le",
            Target::Armv7a => "armv7-a",
            Target::Aarch64 => "aarch64",
            Target::Sparc64 => "sparc64",
        }
    }

    pub fn by_name(name: &str) -> Option<Target> {
        Some(match name.to_ascii_lowercase().as_str() {
            "x86_64" | "x86-64" | "amd64" | "x86" => Target::X86_64,
            "ppc64le" | "powerpc64le" | "ppc64" | "powerpc64" | "ppc" | "power" => Target::Ppc64le,
            "armv7-a" | "armv7a" | "armv7" | "arm" => Target::Armv7a,
            "aarch64" | "arm64" | "armv8" => Target::Aarch64,
            "sparc64" | "sparcv9" | "sparc" => Target::Sparc64,
            _ => return None,
        })
    }

    /// The machine a memory model is the model of (sc: the usual host, x86-64).
    pub fn for_memory_model(mm: &str) -> Target {
        match mm.to_ascii_lowercase().as_str() {
            "power" | "ppc" | "power-esop" => Target::Ppc64le,
            "arm" => Target::Armv7a,
            "aarch64" => Target::Aarch64,
            "pso" | "rmo" => Target::Sparc64,
            _ => Target::X86_64,
        }
    }

    fn big_endian(self) -> bool {
        self == Target::Sparc64
    }

    /// Whether plain `char` is signed in the target's ABI: the Power ELFv2, ARM AAPCS and
    /// AArch64 AAPCS64 ABIs make it unsigned (GCC predefines `__CHAR_UNSIGNED__` there); the
    /// x86-64 System V and SPARC V9 ABIs signed.
    pub fn char_signed(self) -> bool {
        matches!(self, Target::X86_64 | Target::Sparc64)
    }

    /// The macros a GCC for this target predefines that code tests: the architecture's, and
    /// the LP64 Linux ones glibc's headers need to preprocess at all.
    pub fn macros(self) -> Vec<(String, String)> {
        let arch: &[(&str, &str)] = match self {
            Target::X86_64 => &[
                ("__x86_64__", "1"),
                ("__x86_64", "1"),
                ("__amd64__", "1"),
                ("__amd64", "1"),
                ("__SSE__", "1"),
                ("__SSE2__", "1"),
                ("__SSE_MATH__", "1"),
                ("__SSE2_MATH__", "1"),
            ],
            Target::Ppc64le => &[
                ("__powerpc64__", "1"),
                ("__powerpc__", "1"),
                ("__PPC64__", "1"),
                ("__PPC__", "1"),
                ("_ARCH_PPC", "1"),
                ("_ARCH_PPC64", "1"),
                ("__LITTLE_ENDIAN__", "1"),
                ("_LITTLE_ENDIAN", "1"),
                ("_CALL_ELF", "2"),
            ],
            Target::Armv7a => &[
                ("__arm__", "1"),
                ("__ARM_ARCH", "7"),
                ("__ARM_ARCH_7A__", "1"),
                ("__ARM_ARCH_PROFILE", "65"),
                ("__ARMEL__", "1"),
                ("__ARM_EABI__", "1"),
            ],
            Target::Aarch64 => &[
                ("__aarch64__", "1"),
                ("__ARM_ARCH", "8"),
                ("__ARM_ARCH_8A", "1"),
                ("__ARM_ARCH_PROFILE", "65"),
                ("__ARM_64BIT_STATE", "1"),
                ("__AARCH64EL__", "1"),
            ],
            Target::Sparc64 => &[
                ("__sparc__", "1"),
                ("__sparc", "1"),
                ("__sparc_v9__", "1"),
                ("__sparcv9", "1"),
                ("__arch64__", "1"),
            ],
        };
        let order = if self.big_endian() { "__ORDER_BIG_ENDIAN__" } else { "__ORDER_LITTLE_ENDIAN__" };
        let common: &[(&str, &str)] = &[
            ("__linux__", "1"),
            ("__linux", "1"),
            ("__gnu_linux__", "1"),
            ("__unix__", "1"),
            ("__unix", "1"),
            ("__ELF__", "1"),
            ("__LP64__", "1"),
            ("_LP64", "1"),
            ("__CHAR_BIT__", "8"),
            ("__SIZEOF_SHORT__", "2"),
            ("__SIZEOF_INT__", "4"),
            ("__SIZEOF_LONG__", "8"),
            ("__SIZEOF_LONG_LONG__", "8"),
            ("__SIZEOF_POINTER__", "8"),
            ("__SIZEOF_FLOAT__", "4"),
            ("__SIZEOF_DOUBLE__", "8"),
            ("__SIZEOF_LONG_DOUBLE__", "16"),
            ("__SIZEOF_SIZE_T__", "8"),
            ("__SIZEOF_WCHAR_T__", "4"),
            ("__SIZEOF_WINT_T__", "4"),
            ("__SIZEOF_PTRDIFF_T__", "8"),
            ("__SIZEOF_INT128__", "16"),
            ("__BIGGEST_ALIGNMENT__", "16"),
            ("__ORDER_LITTLE_ENDIAN__", "1234"),
            ("__ORDER_BIG_ENDIAN__", "4321"),
            ("__ORDER_PDP_ENDIAN__", "3412"),
            ("__BYTE_ORDER__", order),
            ("__FLOAT_WORD_ORDER__", order),
            ("__SCHAR_MAX__", "0x7f"),
            ("__SHRT_MAX__", "0x7fff"),
            ("__INT_MAX__", "0x7fffffff"),
            ("__LONG_MAX__", "0x7fffffffffffffffL"),
            ("__LONG_LONG_MAX__", "0x7fffffffffffffffLL"),
            ("__WCHAR_MAX__", "0x7fffffff"),
            ("__WCHAR_MIN__", "(-__WCHAR_MAX__ - 1)"),
            ("__SIZE_MAX__", "0xffffffffffffffffUL"),
            ("__PTRDIFF_MAX__", "0x7fffffffffffffffL"),
            ("__INTMAX_MAX__", "0x7fffffffffffffffL"),
            ("__UINTMAX_MAX__", "0xffffffffffffffffUL"),
            ("__INTPTR_MAX__", "0x7fffffffffffffffL"),
            ("__UINTPTR_MAX__", "0xffffffffffffffffUL"),
            ("__SIZE_TYPE__", "long unsigned int"),
            ("__PTRDIFF_TYPE__", "long int"),
            ("__WCHAR_TYPE__", "int"),
            ("__WINT_TYPE__", "unsigned int"),
            ("__INTMAX_TYPE__", "long int"),
            ("__UINTMAX_TYPE__", "long unsigned int"),
            ("__INTPTR_TYPE__", "long int"),
            ("__UINTPTR_TYPE__", "long unsigned int"),
            ("__CHAR16_TYPE__", "short unsigned int"),
            ("__CHAR32_TYPE__", "unsigned int"),
            ("__INT8_TYPE__", "signed char"),
            ("__INT16_TYPE__", "short int"),
            ("__INT32_TYPE__", "int"),
            ("__INT64_TYPE__", "long int"),
            ("__UINT8_TYPE__", "unsigned char"),
            ("__UINT16_TYPE__", "short unsigned int"),
            ("__UINT32_TYPE__", "unsigned int"),
            ("__UINT64_TYPE__", "long unsigned int"),
            ("__USER_LABEL_PREFIX__", ""),
            ("__REGISTER_PREFIX__", ""),
            ("__ATOMIC_RELAXED", "0"),
            ("__ATOMIC_CONSUME", "1"),
            ("__ATOMIC_ACQUIRE", "2"),
            ("__ATOMIC_RELEASE", "3"),
            ("__ATOMIC_ACQ_REL", "4"),
            ("__ATOMIC_SEQ_CST", "5"),
            ("__GCC_ATOMIC_TEST_AND_SET_TRUEVAL", "1"),
            ("__GCC_HAVE_SYNC_COMPARE_AND_SWAP_1", "1"),
            ("__GCC_HAVE_SYNC_COMPARE_AND_SWAP_2", "1"),
            ("__GCC_HAVE_SYNC_COMPARE_AND_SWAP_4", "1"),
            ("__GCC_HAVE_SYNC_COMPARE_AND_SWAP_8", "1"),
            ("__GCC_ATOMIC_BOOL_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_CHAR_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_SHORT_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_INT_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_LONG_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_LLONG_LOCK_FREE", "2"),
            ("__GCC_ATOMIC_POINTER_LOCK_FREE", "2"),
            // IEEE 754 binary32 and binary64; `long double` is computed as `double` by the
            // built-in engine, so its limits are double's.
            ("__FLT_RADIX__", "2"),
            ("__FLT_EVAL_METHOD__", "0"),
            ("__FLT_EVAL_METHOD_TS_18661_3__", "0"),
            ("__DECIMAL_DIG__", "17"),
            ("__FLT_MANT_DIG__", "24"),
            ("__FLT_DIG__", "6"),
            ("__FLT_DECIMAL_DIG__", "9"),
            ("__FLT_MIN_EXP__", "(-125)"),
            ("__FLT_MIN_10_EXP__", "(-37)"),
            ("__FLT_MAX_EXP__", "128"),
            ("__FLT_MAX_10_EXP__", "38"),
            ("__FLT_MAX__", "3.40282346638528859811704183484516925e+38F"),
            ("__FLT_NORM_MAX__", "3.40282346638528859811704183484516925e+38F"),
            ("__FLT_MIN__", "1.17549435082228750796873653722224568e-38F"),
            ("__FLT_EPSILON__", "1.19209289550781250000000000000000000e-7F"),
            ("__FLT_DENORM_MIN__", "1.40129846432481707092372958328991613e-45F"),
            ("__FLT_HAS_DENORM__", "1"),
            ("__FLT_HAS_INFINITY__", "1"),
            ("__FLT_HAS_QUIET_NAN__", "1"),
            ("__DBL_MANT_DIG__", "53"),
            ("__DBL_DIG__", "15"),
            ("__DBL_DECIMAL_DIG__", "17"),
            ("__DBL_MIN_EXP__", "(-1021)"),
            ("__DBL_MIN_10_EXP__", "(-307)"),
            ("__DBL_MAX_EXP__", "1024"),
            ("__DBL_MAX_10_EXP__", "308"),
            ("__DBL_MAX__", "((double)1.79769313486231570814527423731704357e+308L)"),
            ("__DBL_NORM_MAX__", "((double)1.79769313486231570814527423731704357e+308L)"),
            ("__DBL_MIN__", "((double)2.22507385850720138309023271381382843e-308L)"),
            ("__DBL_EPSILON__", "((double)2.22044604925031308084726333618164062e-16L)"),
            ("__DBL_DENORM_MIN__", "((double)4.94065645841246544176568792868221372e-324L)"),
            ("__DBL_HAS_DENORM__", "1"),
            ("__DBL_HAS_INFINITY__", "1"),
            ("__DBL_HAS_QUIET_NAN__", "1"),
            ("__LDBL_MANT_DIG__", "53"),
            ("__LDBL_DIG__", "15"),
            ("__LDBL_DECIMAL_DIG__", "17"),
            ("__LDBL_MIN_EXP__", "(-1021)"),
            ("__LDBL_MIN_10_EXP__", "(-307)"),
            ("__LDBL_MAX_EXP__", "1024"),
            ("__LDBL_MAX_10_EXP__", "308"),
            ("__LDBL_MAX__", "1.79769313486231570814527423731704357e+308L"),
            ("__LDBL_NORM_MAX__", "1.79769313486231570814527423731704357e+308L"),
            ("__LDBL_MIN__", "2.22507385850720138309023271381382843e-308L"),
            ("__LDBL_EPSILON__", "2.22044604925031308084726333618164062e-16L"),
            ("__LDBL_DENORM_MIN__", "4.94065645841246544176568792868221372e-324L"),
            ("__LDBL_HAS_DENORM__", "1"),
            ("__LDBL_HAS_INFINITY__", "1"),
            ("__LDBL_HAS_QUIET_NAN__", "1"),
        ];
        let mut out: Vec<(String, String)> = host_gnuc().to_vec();
        out.extend(common.iter().chain(arch).map(|(k, v)| (k.to_string(), v.to_string())));
        out
    }
}

/// `__GNUC__`, `__GNUC_MINOR__` and `__GNUC_PATCHLEVEL__` as the host's preprocessor has
/// them (headers compare them to pick features the host's headers were written for).
fn host_gnuc() -> &'static [(String, String)] {
    static GNUC: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    GNUC.get_or_init(|| {
        let fallback = || vec![("__GNUC__".to_string(), "4".to_string()), ("__GNUC_MINOR__".to_string(), "2".to_string())];
        let Some((exe, mut args)) = find_preprocessor() else { return fallback() };
        args.extend(["-dM".to_string(), "-".to_string()]);
        let out = Command::new(exe).args(&args).stdin(Stdio::null()).stderr(Stdio::null()).output();
        let Ok(out) = out else { return fallback() };
        let text = String::from_utf8_lossy(&out.stdout);
        let found: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| {
                let mut w = l.strip_prefix("#define ")?.splitn(2, ' ');
                let (k, v) = (w.next()?, w.next()?.trim());
                matches!(k, "__GNUC__" | "__GNUC_MINOR__" | "__GNUC_PATCHLEVEL__").then(|| (k.to_string(), v.to_string()))
            })
            .collect();
        if found.is_empty() {
            fallback()
        } else {
            found
        }
    })
}

/// Overrides of host glibc headers that test the host's architecture macros: with another
/// target's macros, x86-64 glibc would pick 32-bit word sizes and include a
/// `<gnu/stubs-32.h>` that is not installed. The IR is LP64 whatever the target.
const TARGET_SHIMS: &[(&str, &str)] = &[
    ("bits/wordsize.h", "#define __WORDSIZE 64\n#define __WORDSIZE_TIME64_COMPAT32 1\n#define __SYSCALL_WORDSIZE 64\n"),
    // Only lists the functions glibc implements as stubs (`__stub_*` macros).
    ("gnu/stubs.h", "\n"),
];

/// Finds the preprocessor: `cpp`, else `cc -E` (or `gcc -E`, `clang -E`).
fn find_preprocessor() -> Option<(PathBuf, Vec<String>)> {
    if let Ok(p) = which::which("cpp") {
        return Some((p, vec![]));
    }
    for cc in ["cc", "gcc", "clang"] {
        if let Ok(p) = which::which(cc) {
            return Some((p, vec!["-E".to_string()]));
        }
    }
    None
}

/// Floating builtins without arguments that matter, as constant expressions.
const BUILTIN_CONSTANTS: &[(&str, &str)] = &[
    ("__builtin_inf()", "(1e999)"),
    ("__builtin_inff()", "(1e999f)"),
    ("__builtin_infl()", "(1e999L)"),
    ("__builtin_huge_val()", "(1e999)"),
    ("__builtin_huge_valf()", "(1e999f)"),
    ("__builtin_huge_vall()", "(1e999L)"),
    ("__builtin_nan(payload)", "(0.0 / 0.0)"),
    ("__builtin_nanf(payload)", "(0.0f / 0.0f)"),
    ("__builtin_nanl(payload)", "(0.0L / 0.0L)"),
];

/// Runs the preprocessor on `path` (when given and readable) or on `text` through stdin.
/// Returns its output (with line markers).
pub fn run(name: &str, path: Option<&Path>, text: &str, opts: &Options) -> Result<String, Error> {
    let err_path = path.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(name));
    let (exe, mut args) = find_preprocessor().ok_or_else(|| Error::Preprocess {
        path: err_path.clone(),
        msg: "no C preprocessor found (looked for cpp, cc, gcc, clang on PATH)".into(),
    })?;
    for d in &opts.include_dirs {
        args.push(format!("-I{}", d.display()));
    }
    // GCC's <stdatomic.h> expands into code tree-sitter cannot parse: a shim mapping the C11
    // operations to the `__atomic_*` builtins goes before the system headers (a header may
    // include it, so it is always there).
    let mut shims: Vec<(&str, &str)> = vec![("stdatomic.h", STDATOMIC_SHIM)];
    if let Some(t) = opts.target {
        args.push("-undef".into());
        for (k, v) in t.macros() {
            args.push(format!("-D{k}={v}"));
        }
        shims.extend_from_slice(TARGET_SHIMS);
    }
    // `<limits.h>` derives CHAR_MIN and CHAR_MAX from it.
    args.push(if opts.plain_char_signed() { "-U__CHAR_UNSIGNED__".into() } else { "-D__CHAR_UNSIGNED__=1".into() });
    let dir = tempfile::Builder::new().prefix("weakc-include").tempdir().map_err(|e| Error::Preprocess {
        path: err_path.clone(),
        msg: format!("cannot create a temporary directory: {e}"),
    })?;
    for (name, text) in shims {
        let file = dir.path().join(name);
        let written = match file.parent() {
            Some(p) => std::fs::create_dir_all(p).and_then(|_| std::fs::write(&file, text)),
            None => std::fs::write(&file, text),
        };
        written.map_err(|e| Error::Preprocess { path: err_path.clone(), msg: format!("cannot write the <{name}> shim: {e}") })?;
    }
    args.push("-isystem".into());
    args.push(dir.path().display().to_string());
    let shim = Some(dir);
    // <math.h>'s INFINITY, NAN and HUGE_VAL expand to `(__builtin_inff ())`, which
    // tree-sitter reads as a cast to a function type when an operator follows: constant
    // expressions with the same values instead (`__builtin_nan`'s payload is not kept).
    for (call, value) in BUILTIN_CONSTANTS {
        args.push(format!("-D{call}={value}"));
    }
    for d in &opts.defines {
        args.push(format!("-D{d}"));
    }
    for u in &opts.undefines {
        args.push(format!("-U{u}"));
    }
    if let Some(s) = &opts.std {
        args.push(format!("-std={s}"));
    }
    for f in &opts.forced_includes {
        args.push("-include".into());
        args.push(f.display().to_string());
    }
    args.push("-D__weakc__=1".into());
    let use_stdin = path.is_none();
    if let Some(p) = path {
        args.push(p.display().to_string());
    } else {
        args.push("-".into());
    }
    let mut cmd = Command::new(&exe);
    cmd.args(&args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if use_stdin { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().map_err(|e| Error::Preprocess {
        path: err_path.clone(),
        msg: format!("cannot run {}: {e}", exe.display()),
    })?;
    let writer = if use_stdin {
        let mut stdin = child.stdin.take();
        let data = text.as_bytes().to_vec();
        Some(std::thread::spawn(move || {
            if let Some(s) = stdin.as_mut() {
                let _ = s.write_all(&data);
            }
            drop(stdin);
        }))
    } else {
        None
    };
    let out = child.wait_with_output().map_err(|e| Error::Preprocess {
        path: err_path.clone(),
        msg: format!("running {}: {e}", exe.display()),
    })?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    drop(shim);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(Error::Preprocess {
            path: err_path,
            msg: if stderr.is_empty() { format!("{} exited with {}", exe.display(), out.status) } else { stderr },
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `<stdatomic.h>` for weakc: C11 atomics as GCC `__atomic_*` builtins.
const STDATOMIC_SHIM: &str = r#"#ifndef __WEAKC_STDATOMIC_H
#define __WEAKC_STDATOMIC_H
typedef enum memory_order {
  memory_order_relaxed = 0, memory_order_consume = 1, memory_order_acquire = 2,
  memory_order_release = 3, memory_order_acq_rel = 4, memory_order_seq_cst = 5
} memory_order;
typedef _Bool atomic_bool;
typedef char atomic_char;
typedef signed char atomic_schar;
typedef unsigned char atomic_uchar;
typedef short atomic_short;
typedef unsigned short atomic_ushort;
typedef int atomic_int;
typedef unsigned int atomic_uint;
typedef long atomic_long;
typedef unsigned long atomic_ulong;
typedef long long atomic_llong;
typedef unsigned long long atomic_ullong;
typedef long atomic_intptr_t;
typedef unsigned long atomic_uintptr_t;
typedef unsigned long atomic_size_t;
typedef long atomic_ptrdiff_t;
typedef long atomic_intmax_t;
typedef unsigned long atomic_uintmax_t;
typedef _Bool atomic_flag;
#define ATOMIC_VAR_INIT(v) (v)
#define ATOMIC_FLAG_INIT 0
#define kill_dependency(y) (y)
#define atomic_is_lock_free(p) 1
#define atomic_init(p, v) ((void)(*(p) = (v)))
#define atomic_thread_fence(o) __atomic_thread_fence(o)
#define atomic_signal_fence(o) __atomic_signal_fence(o)
#define atomic_store_explicit(p, v, o) __atomic_store_n(p, v, o)
#define atomic_store(p, v) __atomic_store_n(p, v, 5)
#define atomic_load_explicit(p, o) __atomic_load_n(p, o)
#define atomic_load(p) __atomic_load_n(p, 5)
#define atomic_exchange_explicit(p, v, o) __atomic_exchange_n(p, v, o)
#define atomic_exchange(p, v) __atomic_exchange_n(p, v, 5)
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f) __atomic_compare_exchange_n(p, e, d, 0, s, f)
#define atomic_compare_exchange_strong(p, e, d) __atomic_compare_exchange_n(p, e, d, 0, 5, 5)
#define atomic_compare_exchange_weak_explicit(p, e, d, s, f) __atomic_compare_exchange_n(p, e, d, 1, s, f)
#define atomic_compare_exchange_weak(p, e, d) __atomic_compare_exchange_n(p, e, d, 1, 5, 5)
#define atomic_fetch_add_explicit(p, v, o) __atomic_fetch_add(p, v, o)
#define atomic_fetch_add(p, v) __atomic_fetch_add(p, v, 5)
#define atomic_fetch_sub_explicit(p, v, o) __atomic_fetch_sub(p, v, o)
#define atomic_fetch_sub(p, v) __atomic_fetch_sub(p, v, 5)
#define atomic_fetch_or_explicit(p, v, o) __atomic_fetch_or(p, v, o)
#define atomic_fetch_or(p, v) __atomic_fetch_or(p, v, 5)
#define atomic_fetch_xor_explicit(p, v, o) __atomic_fetch_xor(p, v, o)
#define atomic_fetch_xor(p, v) __atomic_fetch_xor(p, v, 5)
#define atomic_fetch_and_explicit(p, v, o) __atomic_fetch_and(p, v, o)
#define atomic_fetch_and(p, v) __atomic_fetch_and(p, v, 5)
#define atomic_flag_test_and_set_explicit(p, o) __atomic_test_and_set(p, o)
#define atomic_flag_test_and_set(p) __atomic_test_and_set(p, 5)
#define atomic_flag_clear_explicit(p, o) __atomic_clear(p, o)
#define atomic_flag_clear(p) __atomic_clear(p, 5)
#endif
"#;

/// Parses a line marker (`# 12 "file" 1 3` or `#line 12 "file"`): line, file, flags.
fn parse_marker(directive: &str) -> Option<(u32, Option<String>, Vec<u32>)> {
    let rest = if is_word(directive, "line") { directive[4..].trim_start() } else { directive };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let line: u32 = digits.parse().ok()?;
    let mut rest = rest[digits.len()..].trim_start();
    let mut file = None;
    if let Some(r) = rest.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = r.char_indices();
        let mut end = r.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        name.push(n);
                    }
                }
                '"' => {
                    end = i + 1;
                    break;
                }
                c => name.push(c),
            }
        }
        file = Some(name);
        rest = r[end.min(r.len())..].trim_start();
    }
    let flags = rest.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    Some((line, file, flags))
}

/// Blanks line markers and other directive lines, recording the origin of every line.
/// `main_name` is the name the main file is registered under (`<stdin>` and the name cpp was
/// given both map to it); `cpp_name` is the name cpp uses for it in markers.
pub fn strip_markers(
    text: &str,
    main_name: &str,
    cpp_name: &str,
    keep_directives: bool,
    map: &mut SourceMap,
) -> Prepared {
    let main_file = map.file_id(main_name);
    let text = &super::unnamed::name_bitfields(&normalize_keywords(text));
    let mut out = String::with_capacity(text.len());
    let mut lines = Vec::new();
    let mut cur = LineOrigin { file: main_file, line: 1, system: false };
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches(['\n', '\r']);
        let directive = directive_of(content);
        let marker = directive.and_then(parse_marker);
        let blank = match (directive, &marker) {
            (_, Some(_)) => true,
            (Some(_), None) => !keep_directives,
            (None, _) => false,
        };
        lines.push(cur);
        if let Some(m) = directive.and_then(super::packing::pragma_marker) {
            out.push_str(&m);
            out.push('\n');
        } else if blank {
            out.push('\n');
        } else {
            out.push_str(content);
            out.push('\n');
        }
        match marker {
            Some((line, file, flags)) => {
                if let Some(f) = file {
                    let system = flags.contains(&3);
                    let id = if f == main_name || f == cpp_name || f == "<stdin>" {
                        main_file
                    } else {
                        map.file_id(&f)
                    };
                    // (`<built-in>`, `<command-line>`; not the main file read from `<stdin>`)
                    let system = system || (f.starts_with('<') && id != main_file);
                    cur = LineOrigin { file: id, line, system };
                } else {
                    cur.line = line;
                }
            }
            None => cur.line += 1,
        }
    }
    if lines.is_empty() {
        lines.push(cur);
    }
    Prepared { text: out, lines, main_file }
}

/// Reads, preprocesses when needed, and maps a source text.
pub fn prepare(
    name: &str,
    path: Option<&Path>,
    text: &str,
    opts: &Options,
    map: &mut SourceMap,
) -> Result<Prepared, Error> {
    let run_cpp = opts.preprocess == Preprocess::Auto && (needs_preprocessing(text) || !opts.forced_includes.is_empty() || !opts.defines.is_empty());
    if run_cpp {
        let out = run(name, path, text, opts)?;
        let cpp_name = path.map(|p| p.display().to_string()).unwrap_or_else(|| "<stdin>".to_string());
        Ok(strip_markers(&out, name, &cpp_name, false, map))
    } else {
        Ok(strip_markers(text, name, name, true, map))
    }
}

/// GNU spellings tree-sitter-c does not know, with their standard replacement (padded to the
/// same length so columns do not move).
const GNU_KEYWORDS: &[(&str, &str)] = &[
    ("__signed__", "signed"),
    ("__signed", "signed"),
    ("__const__", "const"),
    ("__const", "const"),
    ("__volatile__", "volatile"),
    ("__volatile", "volatile"),
    ("__builtin_offsetof", "offsetof"),
    ("__inline__", "inline"),
    ("_Thread_local", "__thread"),
    ("__restrict__", "restrict"),
];

/// Microsoft's pointer and calling-convention modifiers, which tree-sitter-c's grammar
/// reserves; GNU C code uses them as names. Each gets a `_` appended.
const MS_MODIFIERS: &[&str] = &["__uptr", "__sptr", "__ptr32", "__ptr64", "_unaligned", "__unaligned", "__based", "__cdecl", "__clrcall", "__stdcall", "__fastcall", "__thiscall", "__vectorcall", "__declspec"];

/// The type identifier that follows `_Alignas(operand)` where the source had
/// `typeof(operand)`; the lowerer takes the type from the operand.
pub const TYPEOF_MARK: &str = "__weakc_typeof";
/// Likewise for `_Atomic(type)`.
pub const ATOMIC_MARK: &str = "__weakc_atomic";

/// Index of the `)` matching the `(` at `open`, skipping strings and character constants.
fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut k = open;
    while k < b.len() {
        match b[k] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            b'/' if b.get(k + 1) == Some(&b'/') => {
                while k < b.len() && b[k] != b'\n' {
                    k += 1;
                }
            }
            b'/' if b.get(k + 1) == Some(&b'*') => {
                k += 2;
                while k < b.len() && !(b[k] == b'*' && b.get(k + 1) == Some(&b'/')) {
                    k += 1;
                }
                k += 1;
            }
            q @ (b'"' | b'\'') => {
                k += 1;
                while k < b.len() && b[k] != q && b[k] != b'\n' {
                    if b[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// An asm operand's constraint written as adjacent literals (`"e" "q" (v)`, Concurrency
/// Kit's `CK_CC_IMM_S32 "q"`), which tree-sitter-c's grammar does not accept there: the
/// quotes between them become spaces (columns kept; the lowerer ignores blanks in
/// constraints). `i` is just past the first literal's closing quote, already in `out`;
/// returns where to go on.
fn join_constraint(b: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let mut j = i;
    while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    if b.get(j) != Some(&b'"') {
        return i;
    }
    let mut k = j + 1;
    while k < b.len() && b[k] != b'"' && b[k] != b'\n' {
        if b[k] == b'\\' {
            k += 1;
        }
        k += 1;
    }
    if k >= b.len() || b[k] != b'"' {
        return i;
    }
    let mut m = k + 1;
    while m < b.len() && b[m].is_ascii_whitespace() {
        m += 1;
    }
    if b.get(m) != Some(&b'(') {
        return i;
    }
    out.pop();
    out.extend(std::iter::repeat_n(b' ', j + 1 - i + 1));
    out.extend_from_slice(&b[j + 1..=k]);
    join_constraint(b, k + 1, out)
}

/// Replaces GNU alternate keywords by their standard spelling (same length, padded with
/// spaces), outside strings, character constants and comments.
///
/// tree-sitter-c has no rule for `typeof(x)` nor `_Atomic(T)`, and no type specifier that
/// may contain an expression; but `_Alignas(expression or type)` is a qualifier it parses
/// anywhere a type is written, so `typeof(x)` becomes `_Alignas(x) __weakc_typeof` (and
/// `_Atomic(T)` `_Alignas(T) __weakc_atomic`): the operand stays in the tree, with its lines.
pub fn normalize_keywords(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    // Closing parentheses of rewritten operands (innermost last) and the marks they take.
    let mut closes: Vec<(usize, &str)> = Vec::new();
    while i < b.len() {
        let c = b[i];
        if closes.last().is_some_and(|&(k, _)| k == i) {
            let (_, mark) = closes.pop().expect("close");
            out.push(b')');
            out.push(b' ');
            out.extend_from_slice(mark.as_bytes());
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            let q = c;
            out.push(c);
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b[i]);
                    i += 1;
                }
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() && b[i] == q {
                out.push(q);
                i += 1;
                if q == b'"' {
                    i = join_constraint(b, i, &mut out);
                }
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b[i]);
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"/*");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"*/");
                i += 2;
            }
        } else if ident(c) {
            let start = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            let word = &text[start..i];
            if word == "__attribute__" || word == "__attribute" {
                // Attributes trip tree-sitter in some positions: blank them (keeping
                // newlines); only the layout ones matter to weakc.
                let mut j = i;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t' || b[j] == b'\n' || b[j] == b'\r') {
                    j += 1;
                }
                if b.get(j) == Some(&b'(') {
                    let mut depth = 0i32;
                    let mut k = j;
                    while k < b.len() {
                        match b[k] {
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            b'"' => {
                                k += 1;
                                while k < b.len() && b[k] != b'"' {
                                    if b[k] == b'\\' {
                                        k += 1;
                                    }
                                    k += 1;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                    if k < b.len() {
                        // Layout attributes stay as a marker comment on the attribute's
                        // first line (see `packing`); the other lines are blanked.
                        let marker = super::packing::attribute_marker(&text[j..=k]).unwrap_or_default();
                        let first = b[start..=k].iter().position(|&c| c == b'\n' || c == b'\r').map_or(k + 1, |p| start + p);
                        out.extend_from_slice(marker.as_bytes());
                        out.extend(std::iter::repeat_n(b' ', (first - start).saturating_sub(marker.len())));
                        for &c in &b[first..=k] {
                            out.push(if c == b'\n' || c == b'\r' { c } else { b' ' });
                        }
                        i = k + 1;
                        continue;
                    }
                }
            }
            let mark = match word {
                "typeof" | "__typeof__" | "__typeof" => Some(TYPEOF_MARK),
                "_Atomic" => Some(ATOMIC_MARK),
                _ => None,
            };
            if let Some(mark) = mark {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) == Some(&b'(') {
                    if let Some(k) = matching_paren(b, j) {
                        out.extend_from_slice(b"_Alignas");
                        closes.push((k, mark));
                        continue;
                    }
                }
            }
            match GNU_KEYWORDS.iter().find(|(k, _)| *k == word) {
                // An ordinary identifier in GNU C (glibc's `union wait *__uptr`).
                None if MS_MODIFIERS.contains(&word) => {
                    out.extend_from_slice(word.as_bytes());
                    out.push(b'_');
                }
                Some((k, r)) => {
                    out.extend_from_slice(r.as_bytes());
                    out.extend(std::iter::repeat_n(b' ', k.len() - r.len()));
                }
                None => out.extend_from_slice(word.as_bytes()),
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_directives() {
        assert!(needs_preprocessing("#include <stdio.h>\nint x;"));
        assert!(needs_preprocessing("  #  define X 1\n"));
        assert!(!needs_preprocessing("# 1 \"a.c\"\nint x;\n#line 4 \"b.c\"\n"));
        assert!(!needs_preprocessing("int x; // # define\n"));
    }

    #[test]
    fn normalizes_gnu_spellings() {
        let t = "typedef __signed__ char s8; int x __attribute__((aligned(64), section(\")\"))) = 1; char *s = \"__const\";";
        let n = normalize_keywords(t);
        assert_eq!(n.len(), t.len());
        assert!(n.starts_with("typedef signed     char s8; int x "));
        // Of the attribute, only its layout part stays, as a marker comment.
        assert!(n.contains("x /*weakc:aligned(64)*/ ") && n.contains(" = 1;") && !n.contains("section"));
        assert!(n.ends_with("char *s = \"__const\";"));
    }

    #[test]
    fn typeof_and_atomic_become_alignas_with_a_mark() {
        let t = "__typeof__(*(p)) v;\n_Atomic(int) a; _Atomic int b;\ntypeof(f(\")\", (x))) w; typeof (\n  int) z;\nint typeof_count;\n";
        let n = normalize_keywords(t);
        assert_eq!(n.lines().count(), t.lines().count());
        let lines: Vec<&str> = n.lines().collect();
        assert_eq!(lines[0], "_Alignas(*(p)) __weakc_typeof v;");
        assert_eq!(lines[1], "_Alignas(int) __weakc_atomic a; _Atomic int b;");
        assert_eq!(lines[2], "_Alignas(f(\")\", (x))) __weakc_typeof w; _Alignas (");
        assert_eq!(lines[3], "  int) __weakc_typeof z;");
        assert_eq!(lines[4], "int typeof_count;");
        // Nested: each operand gets its own mark.
        assert_eq!(normalize_keywords("union wait *__uptr; int __cdecl;"), "union wait *__uptr_; int __cdecl_;");
        assert_eq!(normalize_keywords("typeof(typeof(x) *) y;"), "_Alignas(_Alignas(x) __weakc_typeof *) __weakc_typeof y;");
    }

    #[test]
    fn markers_map_lines() {
        let mut map = SourceMap::default();
        map.add_file("a.c", "x\n".into());
        let text = "# 1 \"a.c\"\nint x;\n# 1 \"/usr/include/h.h\" 1 3 4\nint y;\n# 3 \"a.c\" 2\nint z;\n";
        let p = strip_markers(text, "a.c", "a.c", false, &mut map);
        assert_eq!(p.text.lines().collect::<Vec<_>>(), vec!["", "int x;", "", "int y;", "", "int z;"]);
        assert_eq!(p.lines[1].line, 1);
        assert_eq!(p.lines[1].file, p.main_file);
        assert!(p.lines[3].system);
        assert_eq!(p.lines[3].line, 1);
        assert_eq!(p.lines[5], LineOrigin { file: p.main_file, line: 3, system: false });
    }
}
