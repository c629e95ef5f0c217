//! `scanf`, `sscanf` and `fscanf` with a constant format: the input is unknown, so each
//! numeric conversion may store any value of its type, and the call returns `EOF` or how
//! many conversions matched (only those store). This is exact: every value has an input
//! that reads as it. Conversions that store text or a count (`%s`, `%[`, `%c`, `%n`), a
//! format that is not a constant, and an input that is a string literal are not modelled:
//! the call is then an unmodelled one (a counterexample through it is UNKNOWN, a SAFE
//! verdict not complete).

use super::*;

pub(super) const CALLS: &[&str] = &["scanf", "sscanf", "fscanf", "__isoc99_scanf", "__isoc99_sscanf", "__isoc99_fscanf"];

/// A conversion of a format.
#[derive(Debug, PartialEq)]
enum Conv {
    /// Stores a number, and counts in the result.
    Number,
    /// `%*…`: reads input, stores nothing, does not count.
    Suppressed,
    /// Stores text (`%s`, `%[`, `%c`) or the characters read so far (`%n`): not modelled.
    Other,
}

fn conversions(fmt: &[u8]) -> Vec<Conv> {
    let mut out = vec![];
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        let suppressed = fmt.get(i) == Some(&b'*');
        if suppressed {
            i += 1;
        }
        while i < fmt.len() && (fmt[i].is_ascii_digit() || b"hljztLqm".contains(&fmt[i])) {
            i += 1;
        }
        let Some(&c) = fmt.get(i) else { break };
        i += 1;
        if c == b'[' {
            // a set: `]` right after `[` or `[^` belongs to it
            if fmt.get(i) == Some(&b'^') {
                i += 1;
            }
            if fmt.get(i) == Some(&b']') {
                i += 1;
            }
            while i < fmt.len() && fmt[i] != b']' {
                i += 1;
            }
            i += 1;
        }
        out.push(match c {
            _ if suppressed => Conv::Suppressed,
            b'n' | b's' | b'c' | b'[' | b'S' | b'C' => Conv::Other,
            _ => Conv::Number,
        });
    }
    out
}

impl Symex<'_> {
    /// One of [`CALLS`]; `None` when the call is not modelled (see the module comment).
    pub(super) fn scanf_call(&mut self, name: &str, args: &[Expr], vals: &[Value], loc: Loc) -> R<Option<Bv>> {
        let fi = if name.ends_with("sscanf") || name.ends_with("fscanf") { 1 } else { 0 };
        let arg = |i: usize| vals.get(i).and_then(|v| v.first());
        let Some(fmt) = arg(fi).and_then(|f| self.literal_text(f)) else { return Ok(None) };
        if name.ends_with("sscanf") && arg(0).is_none_or(|s| self.literal_text(s).is_some()) {
            return Ok(None);
        }
        let convs = conversions(&fmt);
        let n = convs.iter().filter(|c| **c == Conv::Number).count();
        if convs.contains(&Conv::Other) || n > args.len().saturating_sub(fi + 1) {
            return Ok(None);
        }
        let targets = &args[fi + 1..fi + 1 + n];
        let Some(tys) = targets.iter().map(|a| a.ty.pointee().cloned().filter(|t| t.is_scalar())).collect::<Option<Vec<Type>>>() else {
            return Ok(None);
        };
        // The result: EOF (-1), or how many conversions matched; the first that many store.
        let r = self.sat.fresh_bv(32);
        let below = self.sat.bv_slt(&r, &bv::constant_i(-1, 32));
        let above = self.sat.bv_slt(&bv::constant(n as u128, 32), &r);
        let out = self.sat.or(below, above);
        self.state.guard = self.sat.and(self.state.guard, !out);
        for (k, (a, ty)) in targets.iter().zip(tys).enumerate() {
            let matched = self.sat.bv_slt(&bv::constant(k as u128, 32), &r);
            let v = self.sat.fresh_bv(width(&ty));
            let label = format!("*{}", expr_text(self.prog, a));
            let roots = self.ptr_roots(a);
            let at = vals[fi + 1 + k][0].clone();
            self.under(matched, |sx| {
                sx.write_mem(at, v, &ty, label, loc, roots);
                Ok(())
            })?;
        }
        Ok(Some(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        use Conv::*;
        assert_eq!(conversions(b"%d"), vec![Number]);
        assert_eq!(conversions(b"x=%d%% %*ld, %5lu%n %s"), vec![Number, Suppressed, Number, Other, Other]);
        assert_eq!(conversions(b"%[]a] %[^,]%hhx %lf"), vec![Other, Other, Number, Number]);
    }
}
