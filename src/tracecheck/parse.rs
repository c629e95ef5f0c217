//! The trace format of `weakc trace-check` (see the README):
//!
//! ```text
//! # comment ('//' too)
//! init: x=0; y=5
//! P0: W x 1; R y 0
//! P1: W y 1 @3; R x 0 @4
//! ```
//!
//! A processor's lines append to its events in order; `@N` is an optional global timestamp.

use crate::source::{Error, Loc};
use std::collections::HashMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    /// A full fence: orders nothing more under SC, passed on to `--mm`.
    Fence,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub proc: usize,
    pub kind: Kind,
    /// Index into [`Trace::locs`] (unused for fences).
    pub loc: usize,
    pub val: i64,
    pub ts: Option<u64>,
    /// Where the event is written in the trace file.
    pub span: Loc,
}

#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub procs: Vec<String>,
    pub locs: Vec<String>,
    /// Initial value per location.
    pub init: Vec<i64>,
    pub events: Vec<Event>,
    /// Event ids of each processor, in processor order.
    pub po: Vec<Vec<usize>>,
}

impl Trace {
    fn loc_id(&mut self, name: &str, ids: &mut HashMap<String, usize>) -> usize {
        *ids.entry(name.to_string()).or_insert_with(|| {
            self.locs.push(name.to_string());
            self.init.push(0);
            self.locs.len() - 1
        })
    }

    /// `P0 W x 1` for messages.
    pub fn describe(&self, e: usize) -> String {
        let ev = &self.events[e];
        let p = &self.procs[ev.proc];
        match ev.kind {
            Kind::Read => format!("{p} R {} {}", self.locs[ev.loc], ev.val),
            Kind::Write => format!("{p} W {} {}", self.locs[ev.loc], ev.val),
            Kind::Fence => format!("{p} F"),
        }
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

fn strip_comment(line: &str) -> &str {
    let cut = [line.find('#'), line.find("//")]
        .into_iter()
        .flatten()
        .min();
    cut.map_or(line, |i| &line[..i])
}

/// Splits `text` (starting at byte column `col0` of its line) at `sep`, yielding trimmed
/// pieces with their columns.
fn pieces<'a>(text: &'a str, col0: usize, sep: &[char]) -> Vec<(usize, &'a str)> {
    let mut out = vec![];
    let mut start = 0;
    for (i, ch) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ';')))
    {
        if i == text.len() || sep.contains(&ch) {
            let raw = &text[start..i];
            let lead = raw.len() - raw.trim_start().len();
            let p = raw.trim();
            if !p.is_empty() {
                out.push((col0 + start + lead, p));
            }
            start = i + ch.len_utf8();
        }
    }
    out
}

/// Parses a trace; `file` is the source-map index of the file for spans.
pub fn parse(text: &str, file: u32) -> Result<Trace, Error> {
    let mut t = Trace::default();
    let mut loc_ids: HashMap<String, usize> = HashMap::new();
    let mut proc_ids: HashMap<String, usize> = HashMap::new();
    let mut init_seen: HashMap<usize, Loc> = HashMap::new();
    for (ln, raw) in text.lines().enumerate() {
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        let at = |col: usize, len: usize| Loc {
            file,
            line: ln as u32 + 1,
            col: col as u32,
            len: len.max(1) as u32,
        };
        let lead = line.len() - line.trim_start().len();
        let Some(colon) = line.find(':') else {
            return Err(Error::syntax(
                at(lead, line.trim().len()),
                "expected `NAME: events` or `init: x=0; …`",
            ));
        };
        let head = line[..colon].trim();
        let body = &line[colon + 1..];
        let body_col = colon + 1;
        if !is_ident(head) {
            return Err(Error::syntax(
                at(lead, colon - lead),
                format!("`{head}` is not a processor name (an identifier)"),
            ));
        }
        if head == "init" {
            for (col, item) in pieces(body, body_col, &[';', ',']) {
                let span = at(col, item.len());
                let Some((x, v)) = item.split_once('=') else {
                    return Err(Error::syntax(
                        span,
                        format!("expected `LOCATION=VALUE`, found `{item}`"),
                    ));
                };
                let (x, v) = (x.trim(), v.trim());
                if !is_ident(x) {
                    return Err(Error::syntax(span, format!("`{x}` is not a location name")));
                }
                let val = v
                    .parse::<i64>()
                    .map_err(|_| Error::syntax(span, format!("`{v}` is not an integer")))?;
                let id = t.loc_id(x, &mut loc_ids);
                if let Some(first) = init_seen.insert(id, span) {
                    return Err(Error::syntax(
                        span,
                        format!("`{x}` is initialised twice (first on line {})", first.line),
                    ));
                }
                if t.events
                    .iter()
                    .any(|e| e.kind != Kind::Fence && e.loc == id)
                {
                    return Err(Error::syntax(
                        span,
                        format!("`{x}` is initialised after events that access it"),
                    ));
                }
                t.init[id] = val;
            }
            continue;
        }
        let proc = *proc_ids.entry(head.to_string()).or_insert_with(|| {
            t.procs.push(head.to_string());
            t.po.push(vec![]);
            t.procs.len() - 1
        });
        for (col, ev) in pieces(body, body_col, &[';']) {
            let span = at(col, ev.len());
            let mut toks: Vec<&str> = ev.split_whitespace().collect();
            // `@N` as the last token (or glued: `@12`, `@ 12`).
            let mut ts = None;
            if let Some(i) = toks.iter().position(|s| s.starts_with('@')) {
                let rest: String = toks[i..].concat();
                let n = rest[1..].parse::<u64>().map_err(|_| {
                    Error::syntax(
                        span,
                        format!("`{rest}` is not a timestamp (`@` and a non-negative integer)"),
                    )
                })?;
                ts = Some(n);
                toks.truncate(i);
            }
            let kind =
                match toks.first().map(|k| k.to_ascii_uppercase()) {
                    Some(k) if k == "R" || k == "READ" => Kind::Read,
                    Some(k) if k == "W" || k == "WRITE" => Kind::Write,
                    Some(k) if k == "F" || k == "FENCE" => Kind::Fence,
                    _ => return Err(Error::syntax(
                        span,
                        format!(
                            "expected `R LOCATION VALUE`, `W LOCATION VALUE` or `F`, found `{ev}`"
                        ),
                    )),
                };
            let (loc, val) = if kind == Kind::Fence {
                if toks.len() != 1 {
                    return Err(Error::syntax(
                        span,
                        format!("a fence takes no operands: `{ev}`"),
                    ));
                }
                (usize::MAX, 0)
            } else {
                if toks.len() != 3 {
                    return Err(Error::syntax(
                        span,
                        format!("expected `{} LOCATION VALUE`, found `{ev}`", toks[0]),
                    ));
                }
                if !is_ident(toks[1]) {
                    return Err(Error::syntax(
                        span,
                        format!("`{}` is not a location name", toks[1]),
                    ));
                }
                let val = toks[2].parse::<i64>().map_err(|_| {
                    Error::syntax(span, format!("`{}` is not an integer value", toks[2]))
                })?;
                (t.loc_id(toks[1], &mut loc_ids), val)
            };
            t.po[proc].push(t.events.len());
            t.events.push(Event {
                proc,
                kind,
                loc,
                val,
                ts,
                span,
            });
        }
    }
    if t.events.is_empty() {
        return Err(Error::syntax(
            Loc {
                file,
                line: 1,
                col: 0,
                len: 1,
            },
            "the trace has no events",
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_processors_init_timestamps_and_comments() {
        let t = parse(
            "# sb\ninit: x=0, y=5\nP0: W x 1 @1; R y 0 @ 2 // c\nP1: w y 1; r x 0\nP0: F\n",
            0,
        )
        .unwrap();
        assert_eq!(t.procs, ["P0", "P1"]);
        assert_eq!(t.locs, ["x", "y"]);
        assert_eq!(t.init, [0, 5]);
        assert_eq!(t.po, [vec![0, 1, 4], vec![2, 3]]);
        assert_eq!(t.events[0].ts, Some(1));
        assert_eq!(t.events[1].ts, Some(2));
        assert_eq!(t.events[3].kind, Kind::Read);
        assert_eq!(t.events[4].kind, Kind::Fence);
        assert_eq!((t.events[1].span.line, t.events[1].span.col), (3, 14));
    }

    #[test]
    fn errors_name_the_line() {
        for (text, line, what) in [
            ("P0: W x 1\nP1: X y 2\n", 2, "expected `R"),
            ("P0: W x one\n", 1, "not an integer"),
            ("P0: R x 1 @-3\n", 1, "not a timestamp"),
            ("P0 W x 1\n", 1, "expected `NAME"),
            ("init: x=1; x=2\nP0: R x 1\n", 1, "initialised twice"),
            ("# nothing\n", 1, "no events"),
        ] {
            let e = parse(text, 0).unwrap_err();
            let Error::Syntax { loc, msg } = e else {
                panic!("{e:?}")
            };
            assert_eq!(loc.line, line, "{text}: {msg}");
            assert!(msg.contains(what), "{text}: {msg}");
        }
    }
}
