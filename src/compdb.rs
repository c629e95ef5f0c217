//! Compilation databases (`compile_commands.json`, as CMake's
//! `CMAKE_EXPORT_COMPILE_COMMANDS` and Bear write them): the preprocessing flags a file was
//! built with, so that weakc sees the code the compiler saw.
//!
//! An entry gives its command as `arguments` (a list) or `command` (one shell-quoted
//! string), relative paths against its `directory`. weakc honours what changes the
//! preprocessed text — include paths (`-I`, `-isystem`, `-iquote`, `-idirafter`), macros
//! (`-D`, `-U`), the language standard (`-std=`), forced includes (`-include`), plain `char`'s
//! signedness (`-fsigned-char`, `-funsigned-char`) — and ignores
//! what only changes code generation or diagnostics (`-O`, `-g`, `-W`, `-f`, `-c`, `-o`,
//! dependency output). Anything else may change the preprocessed text too (`-m`, `-imacros`,
//! `--sysroot`, `-nostdinc`, `-x`, ...): it is ignored with a warning, never an error.

use crate::source::Error;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct RawEntry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    arguments: Option<Vec<String>>,
    #[serde(default)]
    command: Option<String>,
}

/// The preprocessing flags of one file, from its entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub undefines: Vec<String>,
    pub std: Option<String>,
    pub forced_includes: Vec<PathBuf>,
    /// Plain `char`'s signedness, when the command sets it (`-f[no-][un]signed-char`).
    pub char_signed: Option<bool>,
    /// Flags weakc cannot honour, as written (each with its argument, if it takes one).
    pub ignored: Vec<String>,
}

impl Flags {
    /// Adds these flags to `o`: the entry's include paths and macros before the command
    /// line's own, its standard and forced includes.
    pub fn apply(&self, o: &mut crate::frontend::Options) {
        o.include_dirs = self.include_dirs.iter().cloned().chain(std::mem::take(&mut o.include_dirs)).collect();
        o.defines = self.defines.iter().cloned().chain(std::mem::take(&mut o.defines)).collect();
        o.undefines = self.undefines.iter().cloned().chain(std::mem::take(&mut o.undefines)).collect();
        o.std = self.std.clone();
        o.forced_includes = self.forced_includes.clone();
        o.char_signed = o.char_signed.or(self.char_signed);
    }
}

/// Flags whose next argument belongs to them and that change nothing weakc sees.
const SKIP_WITH_ARG: &[&str] = &["-o", "-MF", "-MT", "-MQ", "-Xlinker", "-L", "-l", "--param", "-arch"];
/// Flags with an argument weakc cannot honour.
const WARN_WITH_ARG: &[&str] = &["-imacros", "-isysroot", "--sysroot", "-x", "-iprefix", "-iwithprefix", "-Xpreprocessor", "-Xclang", "-target", "--target"];

/// The flags of `file` in the database at `db`. Errors: the database cannot be read or
/// parsed, or has no entry for the file.
pub fn flags_for(db: &Path, file: &Path) -> Result<Flags, Error> {
    let entries = load(db)?;
    let want = canonical(file, Path::new("."));
    let entry = entries
        .iter()
        .find(|e| canonical(&e.file, &e.directory) == want)
        .ok_or_else(|| Error::Usage(format!("{}: no entry for {} ({} entries)", db.display(), file.display(), entries.len())))?;
    let args = match (&entry.arguments, &entry.command) {
        (Some(a), _) => a.clone(),
        (None, Some(c)) => shlex::split(c).ok_or_else(|| Error::Usage(format!("{}: the command for {} is not valid shell quoting", db.display(), file.display())))?,
        (None, None) => return Err(Error::Usage(format!("{}: the entry for {} has neither `arguments` nor `command`", db.display(), file.display()))),
    };
    Ok(parse_args(&args, &entry.directory, &entry.file))
}

/// The files of the database at `db`: each as its entry writes it and absolute.
pub fn files(db: &Path) -> Result<Vec<(PathBuf, PathBuf)>, Error> {
    Ok(load(db)?.into_iter().map(|e| (e.file.clone(), canonical(&e.file, &e.directory))).collect())
}

fn load(db: &Path) -> Result<Vec<RawEntry>, Error> {
    let text = std::fs::read_to_string(db).map_err(|e| Error::Io { path: db.to_path_buf(), msg: e.to_string(), output: false })?;
    serde_json::from_str(&text).map_err(|e| Error::Usage(format!("{}: not a compilation database: {e}", db.display())))
}

/// A path made absolute against `dir` and resolved as far as it exists.
fn canonical(p: &Path, dir: &Path) -> PathBuf {
    let abs = if p.is_absolute() { p.to_path_buf() } else { dir.join(p) };
    abs.canonicalize().unwrap_or(abs)
}

/// The flags of a compiler command line (the compiler first), relative paths against `dir`.
fn parse_args(args: &[String], dir: &Path, file: &Path) -> Flags {
    let mut f = Flags::default();
    let at = |p: &str| if Path::new(p).is_absolute() { PathBuf::from(p) } else { dir.join(p) };
    let source = canonical(file, dir);
    let mut it = args.iter().skip(1).peekable();
    while let Some(a) = it.next() {
        // a flag and its value, joined (`-Ifoo`) or as the next argument (`-I foo`)
        let mut value = |flag: &str| -> Option<String> {
            match a.strip_prefix(flag) {
                Some("") => it.next().cloned(),
                Some(v) => Some(v.strip_prefix('=').filter(|_| flag.starts_with("--")).unwrap_or(v).to_string()),
                None => None,
            }
        };
        if let Some(v) = value("-isystem").or_else(|| value("-iquote")).or_else(|| value("-idirafter")) {
            f.include_dirs.push(at(&v));
        } else if let Some(v) = value("-include") {
            f.forced_includes.push(at(&v));
        } else if a.starts_with("-I") {
            if let Some(v) = value("-I") {
                f.include_dirs.push(at(&v));
            }
        } else if a.starts_with("-D") {
            if let Some(v) = value("-D") {
                f.defines.push(v);
            }
        } else if a.starts_with("-U") {
            if let Some(v) = value("-U") {
                f.undefines.push(v);
            }
        } else if let Some(s) = a.strip_prefix("-std=").or_else(|| a.strip_prefix("--std=")) {
            f.std = Some(s.to_string());
        } else if let Some(signed) = char_flag(a) {
            f.char_signed = Some(signed);
        } else if SKIP_WITH_ARG.contains(&a.as_str()) {
            it.next();
        } else if WARN_WITH_ARG.contains(&a.as_str()) {
            let v = it.next().cloned().unwrap_or_default();
            f.ignored.push(format!("{a} {v}"));
        } else if ignorable(a) {
        } else if !a.starts_with('-') {
            // the source itself, or another input (an object file, another source): not ours
            if canonical(Path::new(a), dir) != source && !is_object(a) {
                f.ignored.push(a.clone());
            }
        } else {
            f.ignored.push(a.clone());
        }
    }
    f
}

/// Whether `a` makes plain `char` signed or unsigned (it changes what the program means).
fn char_flag(a: &str) -> Option<bool> {
    match a {
        "-fsigned-char" | "-fno-unsigned-char" => Some(true),
        "-funsigned-char" | "-fno-signed-char" => Some(false),
        _ => None,
    }
}

/// Flags that change code generation, diagnostics or linking, not the preprocessed text.
fn ignorable(a: &str) -> bool {
    matches!(a, "-c" | "-S" | "-E" | "-pipe" | "-pthread" | "-pedantic" | "-pedantic-errors" | "-w" | "-shared" | "-static" | "-rdynamic" | "-MD" | "-MMD" | "-MP" | "-M" | "-MM" | "-v")
        // (`-Wp,` passes options to the preprocessor: not ignorable)
        || (["-O", "-g", "-W", "-f", "-L", "-l", "--coverage", "-MF", "-MT", "-MQ", "-o"].iter().any(|p| a.starts_with(p)) && !a.starts_with("-Wp,"))
}

fn is_object(a: &str) -> bool {
    [".o", ".a", ".so", ".obj", ".lo"].iter().any(|s| a.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn preprocessing_flags_are_taken_and_the_rest_sorted_out() {
        let f = parse_args(
            &s(&[
                "/usr/bin/cc", "-Iinclude", "-I", "/abs/inc", "-isystem", "sys", "-DNDEBUG", "-D", "N=4", "-DMSG=\"a b\"", "-UFOO", "-std=gnu11",
                "-include", "config.h", "-O2", "-g", "-Wall", "-fno-strict-aliasing", "-fsigned-char", "-funsigned-char", "-c", "-o", "q.o", "-MD", "-MF", "q.d", "-march=native",
                "-imacros", "m.h", "src/q.c",
            ]),
            Path::new("/proj/build"),
            Path::new("src/q.c"),
        );
        assert_eq!(f.include_dirs, vec![PathBuf::from("/proj/build/include"), PathBuf::from("/abs/inc"), PathBuf::from("/proj/build/sys")]);
        assert_eq!(f.defines, s(&["NDEBUG", "N=4", "MSG=\"a b\""]));
        assert_eq!(f.undefines, s(&["FOO"]));
        assert_eq!(f.std.as_deref(), Some("gnu11"));
        assert_eq!(f.forced_includes, vec![PathBuf::from("/proj/build/config.h")]);
        assert_eq!(f.char_signed, Some(false), "the last -f[un]signed-char wins");
        assert_eq!(f.ignored, s(&["-march=native", "-imacros m.h"]));
    }
}
