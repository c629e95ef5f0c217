//! Client tests in CheckFence's notation (PLDI 2007, Fig. 8): an optional initial sequence,
//! then the threads in parentheses separated by `|`, each a sequence of operation calls:
//! `e(1) ( e(2) d | d() d() )`. An operation written without arguments, or an argument
//! written `*`, takes any value of `--values` (CheckFence's `{0, 1}` by default). `#` starts
//! a comment; the test may span lines.

use crate::source::{Error, Loc};

/// An argument of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Value(i64),
    /// Any value of the test's value range.
    Any,
}

/// One operation call of the test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    /// `None`: written without parentheses (every parameter takes any value).
    pub args: Option<Vec<Arg>>,
    pub loc: Loc,
}

/// The test: what runs first, alone, then the threads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Test {
    pub init: Vec<Call>,
    pub threads: Vec<Vec<Call>>,
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    file: u32,
}

impl Lexer<'_> {
    fn loc(&self, start: usize, end: usize) -> Loc {
        let before = &self.text[..start];
        let line = before.matches('\n').count() as u32 + 1;
        let col = (start - before.rfind('\n').map_or(0, |i| i + 1)) as u32;
        Loc { file: self.file, line, col, len: (end - start).max(1) as u32 }
    }

    fn skip(&mut self) {
        loop {
            let rest = &self.text[self.pos..];
            let t = rest.trim_start();
            self.pos += rest.len() - t.len();
            if t.starts_with('#') {
                self.pos += t.find('\n').unwrap_or(t.len());
            } else {
                return;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// The token at the cursor, for a message.
    fn here(&mut self) -> (Loc, String) {
        self.skip();
        let rest = &self.text[self.pos..];
        let n = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len()).clamp(usize::from(!rest.is_empty()), 20);
        let tok = rest.chars().take(n).collect::<String>();
        (self.loc(self.pos, self.pos + tok.len()), if tok.is_empty() { "the end of the test".into() } else { format!("`{tok}`") })
    }

    fn expected(&mut self, what: &str) -> Error {
        let (loc, found) = self.here();
        Error::syntax(loc, format!("test: expected {what}, found {found}"))
    }

    fn ident(&mut self) -> Option<(String, Loc)> {
        self.skip();
        let rest = &self.text[self.pos..];
        let n = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if n == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        let start = self.pos;
        self.pos += n;
        Some((rest[..n].to_string(), self.loc(start, self.pos)))
    }

    fn arg(&mut self) -> Result<Arg, Error> {
        if self.eat('*') {
            return Ok(Arg::Any);
        }
        self.skip();
        let rest = &self.text[self.pos..];
        let n = rest.char_indices().find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-'))).map_or(rest.len(), |(i, _)| i);
        match rest[..n].parse::<i64>() {
            Ok(v) => {
                self.pos += n;
                Ok(Arg::Value(v))
            }
            Err(_) => Err(self.expected("an integer or `*`")),
        }
    }

    fn call(&mut self) -> Result<Option<Call>, Error> {
        let Some((name, loc)) = self.ident() else { return Ok(None) };
        if !self.eat('(') {
            return Ok(Some(Call { name, args: None, loc }));
        }
        let mut args = vec![];
        if !self.eat(')') {
            loop {
                args.push(self.arg()?);
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        Ok(Some(Call { name, args: Some(args), loc }))
    }

    fn calls(&mut self) -> Result<Vec<Call>, Error> {
        let mut v = vec![];
        while let Some(c) = self.call()? {
            v.push(c);
        }
        Ok(v)
    }
}

/// Parses a test; `file` is the id its text has in the source map (for spans).
pub fn parse(text: &str, file: u32) -> Result<Test, Error> {
    let mut lx = Lexer { text, pos: 0, file };
    let init = lx.calls()?;
    if !lx.eat('(') {
        return Err(lx.expected("`(` starting the threads (a test is `[init calls] ( calls | calls … )`)"));
    }
    let mut threads = vec![lx.calls()?];
    loop {
        if lx.eat(')') {
            break;
        }
        if !lx.eat('|') {
            return Err(lx.expected("an operation, `|` or `)`"));
        }
        threads.push(lx.calls()?);
    }
    if lx.peek().is_some() {
        return Err(lx.expected("nothing after the threads"));
    }
    if threads.iter().all(Vec::is_empty) {
        let at = lx.loc(0, text.trim_end().len());
        return Err(Error::syntax(at, "test: no thread calls an operation"));
    }
    Ok(Test { init, threads })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(cs: &[Call]) -> Vec<String> {
        cs.iter().map(|c| c.name.clone()).collect()
    }

    #[test]
    fn parses_checkfence_notation() {
        let t = parse("e(1) ( e(2) d | d() d )  # two threads", 0).unwrap();
        assert_eq!(names(&t.init), ["e"]);
        assert_eq!(t.init[0].args, Some(vec![Arg::Value(1)]));
        assert_eq!(t.threads.len(), 2);
        assert_eq!(names(&t.threads[0]), ["e", "d"]);
        assert_eq!(t.threads[0][1].args, None);
        assert_eq!(t.threads[1][0].args, Some(vec![]));
        let t = parse("(add(*, -3) |\n contains(1))", 0).unwrap();
        assert_eq!(t.threads[0][0].args, Some(vec![Arg::Any, Arg::Value(-3)]));
        assert_eq!(t.threads[1][0].loc.line, 2);
        assert_eq!(t.threads[1][0].loc.col, 1);
    }

    #[test]
    fn rejects_malformed_tests_with_their_place() {
        for (text, line, what) in [
            ("e d", 1, "expected `(`"),
            ("( e | d", 1, "found the end of the test"),
            ("( e(1,) )", 1, "an integer or `*`"),
            ("( e(x) )", 1, "an integer or `*`"),
            ("( e ) d", 1, "nothing after the threads"),
            ("( | )", 1, "no thread calls"),
            ("(e |\n  d; )", 2, "`;`"),
        ] {
            let e = parse(text, 0).unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains(what), "{text}: {msg}");
            let Error::Syntax { loc, .. } = e else { panic!("{text}: {e:?}") };
            assert_eq!(loc.line, line, "{text}");
        }
    }
}
