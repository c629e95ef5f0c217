//! Runs the built-in bounded model checker on C files:
//! `cargo run --release --example bmc -- [--unwind N] [--timeout SECS] [--trace] FILE...`
use std::time::{Duration, Instant};
use weakc::bmc::{self, BmcOptions, Verdict};
use weakc::source::SourceMap;

fn main() {
    let mut opts = BmcOptions { timeout: Some(Duration::from_secs(60)), ..Default::default() };
    let mut files = vec![];
    let mut trace = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--unwind" => opts.unwind = args.next().and_then(|s| s.parse().ok()).expect("--unwind N"),
            "--timeout" => opts.timeout = Some(Duration::from_secs_f64(args.next().and_then(|s| s.parse().ok()).expect("--timeout S"))),
            "--no-unwinding-assertions" => opts.unwinding_assertions = false,
            "--trace" => trace = true,
            f => files.push(f.to_string()),
        }
    }
    for f in files {
        let t = Instant::now();
        let mut map = SourceMap::default();
        let prog = match weakc::frontend::load_file(std::path::Path::new(&f), &Default::default(), &mut map) {
            Ok(p) => p,
            Err(e) => {
                println!("{f}\tFRONTEND-ERROR\t{e}");
                continue;
            }
        };
        match bmc::verify(&prog, &opts) {
            Ok(o) => {
                let v = match &o.verdict {
                    Verdict::Safe { complete } => format!("SAFE{}", if *complete { "" } else { "(incomplete)" }),
                    Verdict::Unsafe => "UNSAFE".into(),
                    Verdict::Unknown(s) => format!("UNKNOWN({s})"),
                };
                println!(
                    "{f}\t{v}\t{:.2}s\tthreads={} events={} vars={} clauses={} symex={:.2}s enc={:.2}s solve={:.2}s {}",
                    t.elapsed().as_secs_f64(),
                    o.stats.threads,
                    o.stats.events,
                    o.stats.vars,
                    o.stats.clauses,
                    o.stats.symex_time.as_secs_f64(),
                    o.stats.encode_time.as_secs_f64(),
                    o.stats.solve_time.as_secs_f64(),
                    o.failed.as_ref().map(|p| format!("{} at {}", p.message, map.describe(p.loc))).unwrap_or_default()
                );
                for w in &o.warnings {
                    println!("  warning: {w}");
                }
                if trace {
                    for s in &o.trace {
                        println!("  [{}] {}: {:?}", s.thread, map.describe(s.loc), s.kind);
                    }
                }
            }
            Err(e) => println!("{f}\tERROR\t{e}"),
        }
    }
}
