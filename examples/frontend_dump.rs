//! Lowers C files with the front end and reports errors; `--dump` prints the IR, `--locs`
//! every statement's location. Files whose preprocessing fails are retried as their `.i`.
use weakc::frontend::*;
use weakc::source::SourceMap;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args.iter().any(|a| a == "--dump");
    let (mut ok, mut bad) = (0, 0);
    for f in args.iter().filter(|a| !a.starts_with("--")) {
        let mut map = SourceMap::default();
        let mut r = load_file(std::path::Path::new(f), &Options::default(), &mut map);
        if let Err(weakc::source::Error::Preprocess { .. }) = &r {
            let i = f.replace(".c", ".i");
            if std::path::Path::new(&i).exists() {
                map = SourceMap::default();
                r = load_file(std::path::Path::new(&i), &Options::default(), &mut map);
            }
        }
        match r {
            Ok(p) => {
                ok += 1;
                if dump { println!("{}", weakc::frontend::dump::dump(&p)); }
                if args.iter().any(|a| a == "--locs") {
                    for f in &p.funcs {
                        if let Some(b) = &f.body {
                            weakc::ir::walk_stmts(b, &mut |s| {
                                let t = map.line_text(s.loc).unwrap_or("?");
                                let l = map.files[s.loc.file as usize].text.as_deref().and_then(|t| t.lines().nth(s.loc.line as usize - 1)).unwrap_or("");
                                let span = l.get(s.loc.col as usize..(s.loc.col + s.loc.len) as usize).unwrap_or("<bad span>");
                                println!("{}:{}:{} [{}] {:?}  |  {}", f.name, s.loc.line, s.loc.col, span, std::mem::discriminant(&s.kind), t);
                            });
                        }
                    }
                }
            }
            Err(e) => {
                bad += 1;
                println!("{f}: {}", e.render(&map, false));
            }
        }
    }
    println!("ok {ok} failed {bad}");
}
