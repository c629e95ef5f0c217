use weakc::frontend::*;
use weakc::source::SourceMap;
fn walk(n: tree_sitter::Node, p: &preprocess::Prepared, map: &SourceMap, count: &mut usize, text: &str) {
    if n.is_error() || n.is_missing() {
        *count += 1;
        let o = p.lines[n.start_position().row];
        if *count < 30 {
            let s = &text[n.start_byte()..n.end_byte().min(n.start_byte() + 80)];
            println!("  {} {}:{} sys={} {:?}", if n.is_missing() {"MISSING"} else {"ERROR"}, map.files[o.file as usize].name, o.line, o.system, s);
        }
        return;
    }
    if !n.has_error() { return; }
    let mut c = n.walk();
    for ch in n.children(&mut c) { walk(ch, p, map, count, text); }
}
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args.iter().any(|a| a == "--tree");
    for f in args.iter().filter(|a| !a.starts_with("--")) {
        let mut map = SourceMap::default();
        let text = std::fs::read_to_string(f).unwrap();
        map.add_file(f, text.clone());
        let p = match preprocess::prepare(f, Some(std::path::Path::new(f)), &text, &Options::default(), &mut map) {
            Ok(p) => p, Err(e) => { println!("{f}: {e}"); continue; }
        };
        let t = parse_c(&p.text).unwrap();
        if dump { println!("{}", t.root_node().to_sexp()); }
        let mut count = 0;
        walk(t.root_node(), &p, &map, &mut count, &p.text);
        println!("{f}: {} lines, {count} errors", p.lines.len());
    }
}
