//! Command-line interface: flags only; the work is done by the `weakc` library.
// Output goes through `weakc::output::stdout` (a closed stdout must not panic).
#![deny(clippy::print_stdout)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use weakc::arch::{self, Arch};
use weakc::output::stdout;
use weakc::pipeline::{self, Analysis};
use weakc::source::{write_atomically, Error, SourceMap};

/// Exit code when a search limit was hit: the result may be incomplete (see README).
const EXIT_INCOMPLETE: u8 = 6;

#[derive(Parser)]
#[command(name = "weakc", version, about = "Find weak-memory bugs in concurrent C programs by program transformation (ESOP 2013)")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// Memory guard: stop with exit code 7 when weakc's resident memory reaches MIB mebibytes
    /// (default: 6144, or 80% of the machine's memory if less).
    #[arg(long, global = true, value_name = "MIB")]
    max_memory: Option<u64>,
    /// When to colour the output: auto (when the stream is a terminal, NO_COLOR is unset and
    /// TERM is not dumb), always, never. JSON, SARIF and C output are never coloured.
    #[arg(long, global = true, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
}

#[derive(Copy, Clone, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the critical cycles of a program for an architecture.
    Cycles {
        #[command(flatten)]
        common: Common,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// Write the abstract event graph, cycles highlighted, as Graphviz to FILE.
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
        /// Text: one line per critical cycle (`FILE:LINE: critical cycle …`).
        #[arg(long)]
        quiet: bool,
    },
    /// Write an instrumented program whose SC executions include the architecture's
    /// weak executions.
    Instrument {
        #[command(flatten)]
        common: Common,
        /// Output C file.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: PathBuf,
        /// How delay pairs are chosen.
        #[arg(long, value_enum, default_value_t = StrategyArg::Ilp)]
        strategy: StrategyArg,
        /// Depth of each write buffer where it cannot be computed (loops, repeated threads).
        #[arg(long, value_name = "N", default_value_t = weakc::rewrite::DEFAULT_BUFFER_SIZE)]
        buffer_size: u32,
        /// Omit `#line` directives pointing back at the original source.
        #[arg(long)]
        no_line_directives: bool,
        /// Several units: also write one C file per unit into DIR (same names), which compile
        /// separately and link into the program OUT holds.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Instrument for the architecture (unless sc) and decide the program with the built-in
    /// SAT-based bounded model checker.
    Verify {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        v: VerifyArgs,
    },
    /// Run herd `.litmus` (and ESOP-style C) litmus tests in batch, optionally against
    /// expected verdicts (see the README for the exit codes).
    Litmus(weakc::litmus::runner::LitmusArgs),
    /// Decide whether recorded traces of memory events are sequentially consistent (Qadeer's
    /// constraint graph, violations as nice cycles) or, with --mm, allowed by an architecture.
    TraceCheck(weakc::tracecheck::TraceCheckArgs),
    /// Decide whether a memory-system protocol (C guarded commands) is sequentially
    /// consistent up to a depth: nice-cycle observers in the built-in model checker.
    Memsys(weakc::memsys::MemsysArgs),
    /// Check a concurrent library against a bounded client test without assertions
    /// (CheckFence): every observation on the architecture must be one of the serial ones.
    Check {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        v: VerifyArgs,
        #[command(flatten)]
        c: weakc::check::CheckArgs,
    },
    /// Generate a litmus test from a cycle in diy's edge vocabulary ("PodWR Fre PodWR Fre").
    LitmusGen(weakc::litmus::gen::GenArgs),
    /// Generate a C11 litmus test from its name (MP+rlx-rel+acq-rlx): the C program, or with
    /// --mm the hardware litmus test it compiles to.
    LitmusC11(weakc::litmus::c11::C11Args),
    /// Choose the cheapest fences that break every critical cycle (or, with --property,
    /// that make the assertions hold), verify the answer, and print or patch it.
    Fences {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        f: weakc::fences::FenceArgs,
    },
}

#[derive(Args)]
struct VerifyArgs {
    /// Loop unwinding bound.
    #[arg(long, value_name = "N", default_value_t = 2)]
    unwind: u32,
    /// Turn unwinding assertions off: SAFE then means "safe up to the bound".
    #[arg(long)]
    no_unwinding_assertions: bool,
    /// Solver time limit in seconds.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// How delay pairs are chosen for the instrumentation [default: ilp]; given, `--engine
    /// auto` takes the instrumentation route.
    #[arg(long, value_enum)]
    strategy: Option<StrategyArg>,
    /// Buffer depth where it cannot be computed [default: 4]; given, `--engine auto` takes
    /// the instrumentation route.
    #[arg(long, value_name = "N")]
    buffer_size: Option<u32>,
    /// One line: a violation as `FILE:LINE: VERIFICATION FAILED (…): MESSAGE`, else the
    /// verdict line.
    #[arg(long)]
    quiet: bool,
    /// Print the result as JSON (the same as --format json).
    #[arg(long)]
    json: bool,
    /// Output format: text, json, or sarif (SARIF 2.1.0: a violation with its counterexample
    /// as a code flow).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Verifier: auto (builtin; then cbmc, else esbmc, if on PATH and the built-in engine
    /// gives up), builtin, cbmc, esbmc.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// Per-loop bounds, LOOP:N,... with loop ids as --show-loops prints them (main.0:5).
    #[arg(long, value_name = "L:N,...")]
    unwindset: Option<String>,
    /// List the loops of the program to verify with their ids, and stop.
    #[arg(long)]
    show_loops: bool,
    /// Write the counterexample's execution graph (po, rf, co, fr) as Graphviz to FILE.
    #[arg(long, value_name = "FILE")]
    trace_dot: Option<PathBuf>,
    /// How a weak architecture is decided: auto (axiomatic where the built-in engine runs
    /// and has the model: tso, pso), instrument (rewrite, then any back end), axiomatic.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
    /// With --backend esbmc: explore only interleavings with at most N context switches
    /// (ESBMC's --context-bound; much faster). The verdict states this bound.
    #[arg(long, value_name = "N")]
    context_bound: Option<u32>,
    /// No search among the sequentially consistent executions beside the architecture's
    /// own (the built-in engine makes it on a weak architecture: a violation there is one
    /// everywhere).
    #[arg(long)]
    no_sc_first: bool,
}

#[derive(Copy, Clone, ValueEnum)]
enum EngineArg {
    Auto,
    Instrument,
    Axiomatic,
}

#[derive(Copy, Clone, ValueEnum)]
enum BackendArg {
    Auto,
    Builtin,
    Cbmc,
    Esbmc,
}

#[derive(Args)]
struct Common {
    /// Memory model: sc, tso (x86), pso, rmo, power (ppc; herd's ppc.cat), power-esop (the ESOP suite's Power), arm, aarch64.
    #[arg(long = "mm", value_name = "ARCH")]
    mm: String,
    /// The program's C files (translation units), linked as a C linker would.
    #[arg(value_name = "FILE", required_unless_present = "files")]
    inputs: Vec<PathBuf>,
    /// With --compile-commands: also every file of the database whose path matches GLOB
    /// (`src/*.c`, `**/*.c`; against the path as the database gives it and the absolute one).
    #[arg(long, value_name = "GLOB", requires = "compile_commands")]
    files: Option<String>,
    /// The function the program starts in (default `main`).
    #[arg(long, value_name = "FUNC")]
    entry: Option<String>,
    /// The first unit and the others (from `inputs` and `--files`).
    #[arg(skip)]
    file: PathBuf,
    #[arg(skip)]
    more: Vec<PathBuf>,
    /// Do not run the C preprocessor, even if the file has directives.
    #[arg(long)]
    no_preprocess: bool,
    /// Add a directory to the preprocessor's include path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a preprocessor macro (NAME or NAME=VALUE).
    #[arg(short = 'D', value_name = "MACRO")]
    define: Vec<String>,
    /// Undefine a preprocessor macro.
    #[arg(short = 'U', value_name = "MACRO")]
    undefine: Vec<String>,
    /// GCC's -fsigned-char, -funsigned-char (and their -fno- forms): whether plain `char`
    /// is signed (default: the target ABI's: unsigned on ppc64le, armv7-a and aarch64).
    #[arg(short = 'f', value_name = "FLAG", value_enum)]
    char_flags: Vec<CharFlag>,
    /// Take FILE's include paths, macros, language standard and forced includes from its
    /// entry in this compilation database (CMake's CMAKE_EXPORT_COMPILE_COMMANDS, Bear);
    /// -I, -D and -U given here come after them.
    #[arg(long, value_name = "JSON")]
    compile_commands: Option<PathBuf>,
    /// Per unit (`file`, then `more`): its flags from --compile-commands.
    #[arg(skip)]
    unit_flags: Vec<Option<weakc::compdb::Flags>>,
    /// Preprocess with the predefined macros of a compiler for this machine: x86_64, ppc64le,
    /// armv7-a, aarch64, sparc64 (default: the memory model's machine; headers stay the host's).
    #[arg(long, value_name = "ARCH", value_parser = parse_target)]
    target: Option<weakc::frontend::preprocess::Target>,
    /// Split arrays into one abstract object per element (constant indices).
    #[arg(long)]
    array_elements: bool,
    /// Stop the cycle search after this many critical cycles.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_cycles: usize,
    /// Time budget of the cycle search, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    cycle_timeout: f64,
    /// instrument, verify: time budget of the lazy selection, in seconds; when it runs out,
    /// every relaxable pair on a cycle of the event graph is delayed (sound, larger).
    #[arg(long, value_name = "SECS", default_value_t = 4.0)]
    selection_timeout: f64,
    /// Instances of a thread spawned in a loop that one cycle may go through.
    #[arg(long, value_name = "N", default_value_t = 2)]
    thread_instances: u32,
    /// What lock operations order: `real` (as glibc implements them: acquire on lock, release
    /// on unlock) or `full` (a full barrier around each, as goto-instrument assumes).
    #[arg(long, value_enum, default_value_t = LocksArg::Real)]
    locks: LocksArg,
    /// AArch64: compile acquire loads to LDAPR (RCpc, -march=armv8.3-a+rcpc) instead of LDAR.
    #[arg(long)]
    ldapr: bool,
    /// instrument, verify: enumerate the critical cycles up to --max-cycles/--cycle-timeout
    /// and choose from them, delaying every relaxable pair on a cycle if the search stops
    /// (default: a first search seeds a lazy cover-and-check selection).
    #[arg(long)]
    exhaustive: bool,
}

#[derive(Copy, Clone, ValueEnum)]
enum LocksArg {
    /// Acquire/release, as the C library implements locks on the architecture.
    Real,
    /// A full barrier before and after every lock operation.
    Full,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// Output of the commands that report findings in the source (`verify`, `cycles`).
#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum ReportFormat {
    Text,
    Json,
    /// SARIF 2.1.0, for code-scanning tools and IDEs.
    Sarif,
}

#[derive(Copy, Clone, ValueEnum)]
enum StrategyArg {
    /// Weighted integer program (§4.5): cheapest delay pairs covering every cycle.
    Ilp,
    /// The first unsafe pair of each cycle.
    OnePerCycle,
    /// Every unsafe pair of every cycle.
    AllCycles,
    /// Every pair the architecture may relax (the naive baseline).
    All,
}

impl StrategyArg {
    fn strategy(self) -> weakc::select::Strategy {
        use weakc::select::Strategy;
        match self {
            StrategyArg::Ilp => Strategy::Ilp,
            StrategyArg::OnePerCycle => Strategy::OnePerCycle,
            StrategyArg::AllCycles => Strategy::AllCycles,
            StrategyArg::All => Strategy::All,
        }
    }
    fn name(self) -> &'static str {
        match self {
            StrategyArg::Ilp => "ilp",
            StrategyArg::OnePerCycle => "one-per-cycle",
            StrategyArg::AllCycles => "all-cycles",
            StrategyArg::All => "all",
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let guard = cli.max_memory.map_or_else(weakc::guard::default_limit, |m| m << 20);
    weakc::guard::spawn(guard);
    use std::io::IsTerminal;
    use weakc::output::ColorChoice;
    let color = match cli.color {
        ColorArg::Auto => ColorChoice::Auto,
        ColorArg::Always => ColorChoice::Always,
        ColorArg::Never => ColorChoice::Never,
    };
    weakc::output::set_color(color.on(std::io::stdout().is_terminal()));
    let paint_err = color.on(std::io::stderr().is_terminal());
    match run(cli, guard) {
        Ok(code) => ExitCode::from(code),
        Err((e, map)) => {
            let text = e.render(&map, false);
            eprint!("{}", if paint_err { weakc::output::paint(&text) } else { text });
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

type Failure = (Error, SourceMap);

fn arch_of(name: &str) -> Result<&'static Arch, Failure> {
    arch::lookup(name).map_err(|e| (e, SourceMap::default()))
}

/// `lazy`: the selection will be completed lazily (instrument, verify): the first cycle
/// search only seeds it. `defer`: the event graph and cycles wait for
/// [`pipeline::complete`] (`verify`, which may not need them).
fn analyze(c: &Common, arch: &Arch, lazy: bool, defer: bool) -> Result<Analysis, Failure> {
    let mut opts = pipeline_options(c);
    opts.defer_graph = defer;
    if lazy {
        opts.lazy_seed = Some(pipeline::LAZY_SEED);
    }
    let a = pipeline::analyze_units(&unit_options(c), arch, &opts).map_err(|(e, mut map)| {
        // The file could not even be read: register its name for the diagnostic.
        if map.files.is_empty() {
            map.file_id(&c.file.display().to_string());
        }
        (e, map)
    })?;
    // On stderr: stdout may be JSON or a report that tools parse.
    for (loc, msg) in a.program.warnings.iter().chain(&weakc::libconfig::warning(&a.program, arch)) {
        eprint!("{}", weakc::source::render_diagnostic(&a.map, weakc::source::Severity::Warning, Some(*loc), msg, "", false));
    }
    Ok(a)
}

/// `instrument --out-dir`: one C file per unit, named as the unit (the instrumentation's
/// own definitions and those from headers go with the first unit).
fn write_units(dir: &std::path::Path, c: &Common, prog: &weakc::ir::Program, map: &SourceMap, opts: &weakc::cprint::PrintOptions) -> Result<(), Error> {
    let units: Vec<&PathBuf> = std::iter::once(&c.file).chain(&c.more).collect();
    let mut names: Vec<std::ffi::OsString> = vec![];
    for u in &units {
        let n = u.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        if names.contains(&n) {
            return Err(Error::Usage(format!("--out-dir: two units are named {}", n.to_string_lossy())));
        }
        names.push(n);
    }
    let ids: Vec<Option<u32>> = units.iter().map(|u| map.find(&u.display().to_string())).collect();
    let unit_of = |file: u32| ids.iter().position(|i| *i == Some(file)).unwrap_or(0);
    std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), msg: e.to_string(), output: true })?;
    let shown: Vec<String> = names.iter().map(|n| n.to_string_lossy().into_owned()).collect();
    for (text, name) in weakc::cprint::print_units(prog, map, opts, &shown, &unit_of).into_iter().zip(names) {
        write_atomically(&dir.join(name), &text)?;
    }
    Ok(())
}

/// The flags of `file` in the compilation database `db`; flags it cannot honour are
/// warnings.
fn compile_flags(db: &std::path::Path, file: &std::path::Path) -> Result<weakc::compdb::Flags, Failure> {
    let f = weakc::compdb::flags_for(db, file).map_err(|e| (e, SourceMap::default()))?;
    for flag in &f.ignored {
        let msg = format!("{}: `{flag}` in the entry for {} is not honoured (ignored)", db.display(), file.display());
        eprint!("{}", weakc::source::render_diagnostic(&SourceMap::default(), weakc::source::Severity::Warning, None, &msg, "", false));
    }
    Ok(f)
}

/// Each translation unit with its front-end options: the command line's, after its entry's
/// in `--compile-commands`.
fn unit_options(c: &Common) -> Vec<(PathBuf, weakc::frontend::Options)> {
    let base = pipeline_options_without_entries(c).frontend;
    std::iter::once(&c.file)
        .chain(&c.more)
        .zip(&c.unit_flags)
        .map(|(file, flags)| {
            let mut o = base.clone();
            if let Some(f) = flags {
                f.apply(&mut o);
            }
            (file.clone(), o)
        })
        .collect()
}

/// The program's units — the files given and those `--files` picks from the database —
/// and, with `--compile-commands`, each one's flags (read once: unhonoured flags warn once).
fn resolve_units(c: &mut Common) -> Result<(), Failure> {
    let mut units = c.inputs.clone();
    if let (Some(g), Some(db)) = (&c.files, &c.compile_commands) {
        let usage = |m: String| (Error::Usage(m), SourceMap::default());
        let pat = glob::Pattern::new(g).map_err(|e| usage(format!("--files {g}: {e}")))?;
        let opts = glob::MatchOptions { require_literal_separator: false, ..Default::default() };
        let picked: Vec<PathBuf> = weakc::compdb::files(db)
            .map_err(|e| (e, SourceMap::default()))?
            .into_iter()
            .filter(|(written, abs)| pat.matches_path_with(written, opts) || pat.matches_path_with(abs, opts))
            .map(|(_, abs)| abs)
            .filter(|f| !units.iter().any(|u| u.canonicalize().ok().as_ref() == Some(f)))
            .collect();
        if picked.is_empty() && units.is_empty() {
            return Err(usage(format!("--files {g}: no file of {} matches", db.display())));
        }
        units.extend(picked);
    }
    c.unit_flags = match &c.compile_commands {
        Some(db) => units.iter().map(|u| compile_flags(db, u).map(Some)).collect::<Result<_, _>>()?,
        None => vec![None; units.len()],
    };
    c.file = units[0].clone();
    c.more = units[1..].to_vec();
    Ok(())
}

/// The `-f` flags weakc honours: they change what the program means.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CharFlag {
    SignedChar,
    UnsignedChar,
    NoSignedChar,
    NoUnsignedChar,
}

fn parse_target(s: &str) -> Result<weakc::frontend::preprocess::Target, String> {
    use weakc::frontend::preprocess::Target;
    Target::by_name(s).ok_or_else(|| {
        format!("unknown target `{s}`; known: {}", Target::ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join(", "))
    })
}

/// The options of the first unit (with its --compile-commands entry's flags): the ones a
/// single-unit program is analysed with, and `fences` re-analyses it with.
fn pipeline_options(c: &Common) -> pipeline::Options {
    let mut o = pipeline_options_without_entries(c);
    if let Some(Some(f)) = c.unit_flags.first() {
        f.apply(&mut o.frontend);
    }
    o
}

/// The command line's options, no compilation-database entry applied.
fn pipeline_options_without_entries(c: &Common) -> pipeline::Options {
    pipeline::Options {
        frontend: weakc::frontend::Options {
            preprocess: if c.no_preprocess { weakc::frontend::Preprocess::Never } else { weakc::frontend::Preprocess::Auto },
            include_dirs: c.include.clone(),
            defines: c.define.clone(),
            undefines: c.undefine.clone(),
            std: None,
            forced_includes: vec![],
            unit: false,
            entry: c.entry.clone(),
            target: Some(c.target.unwrap_or_else(|| weakc::frontend::preprocess::Target::for_memory_model(&c.mm))),
            char_signed: c.char_flags.last().map(|f| matches!(f, CharFlag::SignedChar | CharFlag::NoUnsignedChar)),
        },
        atomics: weakc::atomics::Options {
            locks: match c.locks {
                LocksArg::Real => weakc::atomics::LockModel::Real,
                LocksArg::Full => weakc::atomics::LockModel::Full,
            },
            ldapr: c.ldapr,
        },
        build: weakc::aeg::BuildOptions { alias: weakc::aeg::alias::AliasOptions { array_elements: c.array_elements } },
        limits: weakc::cycles::Limits {
            max_cycles: c.max_cycles,
            time_budget: Duration::from_secs_f64(c.cycle_timeout.max(0.0)),
            unbounded_instances: c.thread_instances,
            step_budget: None,
        },
        lazy_seed: None,
        selection_timeout: Some(Duration::from_secs_f64(c.selection_timeout.max(0.0))),
        defer_graph: false,
    }
}

fn run(cli: Cli, guard: u64) -> Result<u8, Failure> {
    match cli.cmd {
        Cmd::Verify { mut common, v } => {
            resolve_units(&mut common)?;
            verify(common, v, guard)
        }
        Cmd::Check { mut common, v, c } => {
            resolve_units(&mut common)?;
            check(common, v, c, guard)
        }
        Cmd::Litmus(args) => weakc::litmus::runner::main(args).map_err(|e| (e, SourceMap::default())),
        Cmd::TraceCheck(args) => weakc::tracecheck::main(args),
        Cmd::Memsys(args) => weakc::memsys::main(args),
        Cmd::LitmusGen(args) => weakc::litmus::gen::main(args).map_err(|e| (e, SourceMap::default())),
        Cmd::LitmusC11(args) => weakc::litmus::c11::main(args).map_err(|e| (e, SourceMap::default())),
        Cmd::Fences { mut common, f } => {
            resolve_units(&mut common)?;
            let arch = arch_of(&common.mm)?;
            let a = analyze(&common, arch, !f.property, false)?;
            let out = weakc::fences::run(a, arch, &pipeline_options(&common), &f, &unit_options(&common))?;
            for (path, text) in &out.files {
                write_atomically(path, text).map_err(|e| (e, out.map.clone()))?;
            }
            if f.format == weakc::fences::OutFormat::Text {
                weakc::output::report(&out.stdout);
            } else {
                stdout(&out.stdout);
            }
            Ok(out.code)
        }
        Cmd::Cycles { mut common, format, dot, quiet } => {
            resolve_units(&mut common)?;
            let arch = arch_of(&common.mm)?;
            let a = analyze(&common, arch, false, false)?;
            let file = common.file.display().to_string();
            match format {
                ReportFormat::Text if quiet => weakc::output::report(&weakc::report::cycles_lines(&a, arch.name)),
                ReportFormat::Text => weakc::output::report(&weakc::report::cycles_text(&file, &a, arch.name)),
                ReportFormat::Json => stdout(&(serde_json::to_string_pretty(&weakc::report::cycles_json(&file, &a, arch.name)).expect("json") + "\n")),
                ReportFormat::Sarif => {
                    let j = serde_json::to_value(weakc::report::cycles_json(&file, &a, arch.name)).expect("json");
                    stdout(&(serde_json::to_string_pretty(&weakc::sarif::cycles(&j, &weakc::sarif::Base::current())).expect("json") + "\n"))
                }
            }
            if let Some(d) = dot {
                write_atomically(&d, &weakc::report::dot(&a)).map_err(|e| (e, a.map.clone()))?;
            }
            Ok(if a.cycles.limit_hit.is_some() { EXIT_INCOMPLETE } else { 0 })
        }
        Cmd::Instrument { mut common, output, strategy, buffer_size, no_line_directives, format, out_dir } => {
            resolve_units(&mut common)?;
            let arch = arch_of(&common.mm)?;
            let mut a = analyze(&common, arch, !common.exhaustive, false)?;
            let ropts = weakc::rewrite::Options { buffer_size: buffer_size.max(1) };
            let ins = pipeline::instrument(&mut a, arch, strategy.strategy(), &ropts);
            let file = common.file.display().to_string();
            let header = format!(
                "Instrumented by weakc {} for {} (strategy {}) from {}.\nSC executions of this program include the {} executions of the original\n(within the buffer depths stated below). Compile with: cc -I runtime",
                env!("CARGO_PKG_VERSION"),
                arch.name,
                strategy.name(),
                file,
                arch.name
            );
            let generated_name = if output.as_os_str() == "-" { String::new() } else { output.display().to_string() };
            let popts = weakc::cprint::PrintOptions { line_directives: !no_line_directives, header, generated_name };
            let text = weakc::cprint::print_program(&ins.rewritten.program, &a.map, &popts);
            if let Some(dir) = &out_dir {
                write_units(dir, &common, &ins.rewritten.program, &a.map, &popts).map_err(|e| (e, a.map.clone()))?;
            }
            write_atomically(&output, &text).map_err(|e| (e, a.map.clone()))?;
            match format {
                Format::Text => weakc::output::report(&weakc::report::instrument_summary(&file, &output.display().to_string(), &a, arch.name, strategy.name(), &ins)),
                Format::Json => stdout(
                    &(serde_json::to_string_pretty(&serde_json::json!({
                        "file": file, "output": output.display().to_string(), "arch": arch.name,
                        "strategy": strategy.name(), "threads": a.aeg.threads.len(), "events": a.aeg.events.len(),
                        "sccs": a.cycles.sccs, "cycles": a.cycles.cycles.len(),
                        "pairs": ins.selection.pairs.len(), "cost": ins.selection.total_cost, "optimal": ins.selection.optimal,
                        "summary": ins.rewritten.summary, "timings": a.timings, "limit_hit": a.cycles.limit_hit,
                        "fallback_all_pairs": ins.fallback, "lazy_rounds": ins.lazy_rounds, "note": ins.selection.note,
                    }))
                    .expect("json")
                        + "\n"),
                ),
            }
            // With the fallback the output is sound: only the plain `all` strategy with an
            // incomplete search (which cannot happen) or no fallback would be incomplete.
            let code = if a.cycles.limit_hit.is_some() && !ins.fallback && !matches!(strategy, StrategyArg::All) { EXIT_INCOMPLETE } else { 0 };
            // The event graph and the instrumented program of a large input are millions of
            // small allocations (2×1000×32: half a second to free): the process ends here, and
            // the system takes their pages back at once.
            std::mem::forget((a, ins));
            Ok(code)
        }
    }
}

fn verify(common: Common, v: VerifyArgs, guard: u64) -> Result<u8, Failure> {
    // --timeout is the budget of the whole command.
    let deadline = v.timeout.map(|t| std::time::Instant::now() + Duration::from_secs_f64(t.max(0.0)));
    let arch = arch_of(&common.mm)?;
    let file = common.file.display().to_string();
    let mut a = analyze(&common, arch, !common.exhaustive, true)?;
    let strategy = v.strategy.unwrap_or(StrategyArg::Ilp).strategy();
    let buffer_size = v.buffer_size.unwrap_or(weakc::rewrite::DEFAULT_BUFFER_SIZE).max(1);
    let subject = weakc::verify::Subject { file: &file, arch, strategy, buffer_size, title: format!("weakc verify: {file}") };
    let map = a.map.clone();
    let fail = |e: Error| (e, map.clone());
    let opts = verify_options(&v, &a.program, deadline, guard).map_err(fail)?;
    if v.context_bound.is_some() && !matches!(v.backend, BackendArg::Esbmc) {
        return Err(fail(Error::Usage("--context-bound needs --backend esbmc (only ESBMC bounds context switches)".into())));
    }
    if v.show_loops {
        // The loops of the program the route decides: the program itself on the axiomatic
        // route, the instrumented one otherwise.
        let (_, model) = weakc::verify::route(&subject, &opts).map_err(fail)?;
        let text = if model.is_some() {
            weakc::verify::show_loops(&a.program, &a.map, opts.json)
        } else {
            pipeline::complete(&mut a, arch).map_err(fail)?;
            let ins = pipeline::instrument(&mut a, arch, subject.strategy, &weakc::rewrite::Options { buffer_size: subject.buffer_size });
            weakc::verify::show_loops(&ins.rewritten.program, &a.map, opts.json)
        };
        stdout(&text);
        return Ok(0);
    }
    weakc::verify::run(&mut a, &subject, &opts).map_err(fail)
}

/// `weakc verify`'s options from its flags (`prog`: the loops `--unwindset` names).
fn verify_options(v: &VerifyArgs, prog: &weakc::ir::Program, deadline: Option<std::time::Instant>, guard: u64) -> Result<weakc::verify::Options, Error> {
    use weakc::backend::{Backend, Choice};
    // Asking for a strategy or a buffer depth is asking for the instrumentation.
    let instrument_flags = v.strategy.is_some() || v.buffer_size.is_some();
    Ok(weakc::verify::Options {
        unwind: v.unwind,
        // The instrumentation adds no loops: the program's loops are the ones to bound.
        unwindset: match &v.unwindset {
            Some(s) => weakc::verify::parse_unwindset(s, prog)?,
            None => Default::default(),
        },
        unwinding_assertions: !v.no_unwinding_assertions,
        deadline,
        max_memory: weakc::bmc::DEFAULT_MAX_MEMORY.min(guard / 4 * 3),
        backend: match v.backend {
            BackendArg::Auto => Choice::Auto,
            BackendArg::Builtin => Choice::Only(Backend::Builtin),
            BackendArg::Cbmc => Choice::Only(Backend::Cbmc),
            BackendArg::Esbmc => Choice::Only(Backend::Esbmc),
        },
        quiet: v.quiet,
        json: v.json || v.format != ReportFormat::Text,
        sarif: v.format == ReportFormat::Sarif,
        trace_dot: v.trace_dot.clone(),
        route: match v.engine {
            EngineArg::Auto if instrument_flags => weakc::verify::Route::Instrument,
            EngineArg::Auto => weakc::verify::Route::Auto,
            EngineArg::Instrument => weakc::verify::Route::Instrument,
            EngineArg::Axiomatic => weakc::verify::Route::Axiomatic,
        },
        context_bound: v.context_bound,
        no_sc_first: v.no_sc_first,
    })
}

fn check(common: Common, v: VerifyArgs, c: weakc::check::CheckArgs, guard: u64) -> Result<u8, Failure> {
    let deadline = v.timeout.map(|t| std::time::Instant::now() + Duration::from_secs_f64(t.max(0.0)));
    let archs = common.mm.split(',').map(|m| arch_of(m.trim())).collect::<Result<Vec<_>, _>>()?;
    if v.unwindset.is_some() || v.show_loops || v.context_bound.is_some() {
        return Err((Error::Usage("check: --unwindset, --show-loops and --context-bound are not available (loops are unrolled lazily)".into()), SourceMap::default()));
    }
    let opts = verify_options(&v, &weakc::ir::Program::default(), deadline, guard).map_err(|e| (e, SourceMap::default()))?;
    let pipeline = |arch: &Arch| {
        let mut o = pipeline_options(&common);
        o.frontend.target = Some(common.target.unwrap_or_else(|| weakc::frontend::preprocess::Target::for_memory_model(arch.name)));
        o
    };
    let req = weakc::check::Request {
        units: unit_options(&common),
        pipeline: &pipeline,
        verify: opts,
        archs,
        strategy: v.strategy.unwrap_or(StrategyArg::Ilp).strategy(),
        buffer_size: v.buffer_size.unwrap_or(weakc::rewrite::DEFAULT_BUFFER_SIZE).max(1),
        args: &c,
    };
    weakc::check::main(req)
}
