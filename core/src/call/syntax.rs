//! A small parser for one Python call expression, such as `search_method_in_class("write", class_name='RST')`.
//!
//! Only literals are accepted as arguments: strings (single, double or triple quoted, with an optional `r`/`b`/`u`
//! prefix, adjacent literals concatenated as Python does), integers, floats, `True`, `False` and `None`. Nothing is
//! ever evaluated. Errors carry the character position where parsing stopped, so a message to the model can point
//! at the problem.
//!
//! Three small kindnesses for text written by a model: the function name may be dotted (`api.search_class`, the
//! binder decides what to make of it), typographic quotes (`“…”`, `‘…’`) may delimit a string, and a keyword
//! argument may be written with a colon (`method_name: "x"`) as well as with `=`.

use std::fmt;

use serde::Serialize;

/// A literal argument value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Value {
    /// A string literal, escapes decoded.
    Str(String),
    /// An integer literal.
    Int(i64),
    /// A floating-point literal.
    Float(f64),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
}

impl Value {
    /// A short description of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "string",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Bool(_) => "boolean",
            Value::None => "None",
        }
    }
}

impl fmt::Display for Value {
    /// Renders the value as a Python literal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => f.write_str(&quote(s)),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e16 => {
                write!(f, "{x:.1}")
            }
            Value::Float(x) if x.is_finite() && (x.abs() >= 1e16 || (*x != 0.0 && x.abs() < 1e-4)) => {
                write!(f, "{x:e}")
            }
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::None => f.write_str("None"),
        }
    }
}

/// One argument of a call: positional when `name` is `None`, keyword otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Arg {
    /// The keyword, for `name=value` arguments.
    pub name: Option<String>,
    /// The literal value.
    pub value: Value,
}

/// A parsed call expression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Call {
    /// The function name as written (possibly dotted).
    pub name: String,
    /// Arguments in the order written.
    pub args: Vec<Arg>,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(n) = &a.name {
                write!(f, "{n}=")?;
            }
            write!(f, "{}", a.value)?;
        }
        f.write_str(")")
    }
}

/// What went wrong while parsing a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SyntaxErrorKind {
    /// The text is empty or only whitespace.
    Empty,
    /// A function name was expected.
    ExpectedName,
    /// The name is not followed by `(`.
    ExpectedOpenParen,
    /// An argument value was expected; `found` is what was there instead.
    ExpectedValue {
        /// The text found instead, shortened.
        found: String,
    },
    /// After an argument, a `,` or `)` was expected.
    ExpectedCommaOrClose {
        /// The text found instead, shortened.
        found: String,
    },
    /// A string literal has no closing quote.
    UnterminatedString,
    /// A `\x`, `\u` or `\U` escape is malformed or names no character.
    BadEscape,
    /// A number literal is malformed or too large.
    BadNumber {
        /// The literal as written.
        literal: String,
    },
    /// A positional argument follows a keyword argument.
    PositionalAfterKeyword,
    /// The same keyword is given twice.
    DuplicateKeyword {
        /// The keyword.
        name: String,
    },
    /// The input ended before the closing `)`.
    UnexpectedEnd,
    /// Text follows the closing `)`.
    TrailingText {
        /// The text found, shortened.
        found: String,
    },
}

/// A parse error with the character position (0-based) where it was detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    /// What went wrong.
    pub kind: SyntaxErrorKind,
    /// Position in characters from the start of the parsed text.
    pub pos: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.pos;
        match &self.kind {
            SyntaxErrorKind::Empty => write!(f, "the call is empty"),
            SyntaxErrorKind::ExpectedName => {
                write!(f, "expected a function name at character {at}")
            }
            SyntaxErrorKind::ExpectedOpenParen => {
                write!(f, "expected `(` after the function name at character {at}")
            }
            SyntaxErrorKind::ExpectedValue { found } if is_identifier_start(found) => write!(
                f,
                "expected a literal value at character {at} but found `{found}`; put text arguments in quotes"
            ),
            SyntaxErrorKind::ExpectedValue { found } => {
                write!(f, "expected a literal value at character {at} but found `{found}`")
            }
            SyntaxErrorKind::ExpectedCommaOrClose { found } => {
                write!(f, "expected `,` or `)` at character {at} but found `{found}`")
            }
            SyntaxErrorKind::UnterminatedString => {
                write!(f, "the string starting at character {at} is never closed")
            }
            SyntaxErrorKind::BadEscape => write!(f, "malformed escape sequence at character {at}"),
            SyntaxErrorKind::BadNumber { literal } => {
                write!(f, "`{literal}` at character {at} is not a usable number")
            }
            SyntaxErrorKind::PositionalAfterKeyword => {
                write!(f, "a positional argument at character {at} follows a keyword argument")
            }
            SyntaxErrorKind::DuplicateKeyword { name } => {
                write!(f, "keyword `{name}` is given twice (character {at})")
            }
            SyntaxErrorKind::UnexpectedEnd => {
                write!(f, "the call ends before its closing `)`")
            }
            SyntaxErrorKind::TrailingText { found } => {
                write!(f, "unexpected text `{found}` after the call at character {at}")
            }
        }
    }
}

impl std::error::Error for SyntaxError {}

fn is_identifier_start(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Parses exactly one call expression; surrounding whitespace and one trailing `;` are allowed.
pub fn parse_call(text: &str) -> Result<Call, SyntaxError> {
    let mut p = Parser::new(text);
    p.skip_ws();
    if p.at_end() {
        return Err(p.error(SyntaxErrorKind::Empty));
    }
    let call = p.call()?;
    p.skip_ws();
    if p.peek() == Some(';') {
        p.bump();
        p.skip_ws();
    }
    if !p.at_end() {
        let found = p.snippet();
        return Err(p.error(SyntaxErrorKind::TrailingText { found }));
    }
    Ok(call)
}

/// Parses a call at the start of `text` and returns it with the number of bytes it spans. Text after the closing
/// `)` is ignored; this is how calls are picked out of prose.
pub fn parse_call_prefix(text: &str) -> Result<(Call, usize), SyntaxError> {
    let mut p = Parser::new(text);
    let call = p.call()?;
    Ok((call, p.byte_pos()))
}

/// Renders a string as a Python string literal, double-quoted unless the text holds `"` and no `'`.
pub fn quote(s: &str) -> String {
    let q = if s.contains('"') && !s.contains('\'') { '\'' } else { '"' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

struct Parser {
    chars: Vec<char>,
    i: usize,
}

impl Parser {
    fn new(text: &str) -> Parser {
        Parser { chars: text.chars().collect(), i: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn at_end(&self) -> bool {
        self.i >= self.chars.len()
    }

    fn byte_pos(&self) -> usize {
        self.chars[..self.i.min(self.chars.len())].iter().map(|c| c.len_utf8()).sum()
    }

    fn error(&self, kind: SyntaxErrorKind) -> SyntaxError {
        SyntaxError { kind, pos: self.i }
    }

    /// Up to 20 characters from the current position, for messages.
    fn snippet(&self) -> String {
        let rest: String = self.chars.iter().skip(self.i).take(20).collect();
        if self.chars.len() > self.i + 20 { format!("{rest}…") } else { rest }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    fn identifier(&mut self) -> Option<String> {
        let c = self.peek()?;
        if !(c.is_alphabetic() || c == '_') {
            return None;
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.i += 1;
        }
        Some(self.chars[start..self.i].iter().collect())
    }

    fn call(&mut self) -> Result<Call, SyntaxError> {
        self.skip_ws();
        let Some(mut name) = self.identifier() else {
            return Err(self.error(SyntaxErrorKind::ExpectedName));
        };
        while self.peek() == Some('.') {
            self.bump();
            let Some(part) = self.identifier() else {
                return Err(self.error(SyntaxErrorKind::ExpectedName));
            };
            name.push('.');
            name.push_str(&part);
        }
        self.skip_ws();
        if self.peek() != Some('(') {
            return Err(self.error(SyntaxErrorKind::ExpectedOpenParen));
        }
        self.bump();
        let mut args: Vec<Arg> = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(self.error(SyntaxErrorKind::UnexpectedEnd)),
                Some(')') => {
                    self.bump();
                    return Ok(Call { name, args });
                }
                Some(_) => {}
            }
            let arg_pos = self.i;
            let arg = self.arg()?;
            match &arg.name {
                None if args.iter().any(|a| a.name.is_some()) => {
                    return Err(SyntaxError { kind: SyntaxErrorKind::PositionalAfterKeyword, pos: arg_pos });
                }
                Some(n) if args.iter().any(|a| a.name.as_deref() == Some(n)) => {
                    return Err(SyntaxError {
                        kind: SyntaxErrorKind::DuplicateKeyword { name: n.clone() },
                        pos: arg_pos,
                    });
                }
                _ => {}
            }
            args.push(arg);
            self.skip_ws();
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some(')') => {}
                None => return Err(self.error(SyntaxErrorKind::UnexpectedEnd)),
                Some(_) => {
                    let found = self.snippet();
                    return Err(self.error(SyntaxErrorKind::ExpectedCommaOrClose { found }));
                }
            }
        }
    }

    fn arg(&mut self) -> Result<Arg, SyntaxError> {
        // A keyword argument is an identifier followed by `=` (but not `==`), or by `:` as models sometimes write
        // it (`method_name: "x"`, the way a signature or a dict reads).
        let save = self.i;
        if let Some(id) = self.identifier() {
            self.skip_ws();
            let keyword = match self.peek() {
                Some('=') => self.peek_at(1) != Some('='),
                Some(':') => true,
                _ => false,
            };
            if keyword {
                self.bump();
                self.skip_ws();
                let value = self.value()?;
                return Ok(Arg { name: Some(id), value });
            }
            self.i = save;
        }
        Ok(Arg { name: None, value: self.value()? })
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        if self.string_starts_here() {
            let mut s = self.string()?;
            // Adjacent literals concatenate, as in Python.
            loop {
                let save = self.i;
                self.skip_ws();
                if self.string_starts_here() {
                    s.push_str(&self.string()?);
                } else {
                    self.i = save;
                    return Ok(Value::Str(s));
                }
            }
        }
        match self.peek() {
            Some(c) if c.is_ascii_digit() || c == '.' || c == '-' || c == '+' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => {
                let save = self.i;
                let id = self.identifier().unwrap_or_default();
                match id.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::None),
                    _ => {
                        self.i = save;
                        let found = self.snippet();
                        Err(self.error(SyntaxErrorKind::ExpectedValue { found }))
                    }
                }
            }
            _ => {
                let found = self.snippet();
                Err(self.error(SyntaxErrorKind::ExpectedValue { found }))
            }
        }
    }

    /// Whether a string literal (with optional prefix) starts at the current position.
    fn string_starts_here(&self) -> bool {
        let mut k = 0;
        while k < 2 && self.peek_at(k).is_some_and(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u')) {
            k += 1;
        }
        matches!(self.peek_at(k), Some('"' | '\'' | '\u{201c}' | '\u{2018}'))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.i;
        let mut raw = false;
        while let Some(c) = self.peek() {
            match c.to_ascii_lowercase() {
                'r' => raw = true,
                'b' | 'u' => {}
                _ => break,
            }
            self.i += 1;
        }
        let open = self.bump().unwrap_or('"');
        let close = match open {
            '\u{201c}' => '\u{201d}',
            '\u{2018}' => '\u{2019}',
            q => q,
        };
        let triple = open == close && self.peek() == Some(open) && self.peek_at(1) == Some(open);
        if triple {
            self.i += 2;
        }
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(SyntaxError { kind: SyntaxErrorKind::UnterminatedString, pos: start });
            };
            if c == close {
                if !triple {
                    return Ok(out);
                }
                if self.peek() == Some(close) && self.peek_at(1) == Some(close) {
                    self.i += 2;
                    return Ok(out);
                }
                out.push(c);
                continue;
            }
            if c == '\n' && !triple {
                return Err(SyntaxError { kind: SyntaxErrorKind::UnterminatedString, pos: start });
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.bump() else {
                return Err(SyntaxError { kind: SyntaxErrorKind::UnterminatedString, pos: start });
            };
            if raw {
                // In a raw string a backslash only stops the next character from closing the string.
                out.push('\\');
                out.push(e);
                continue;
            }
            let esc_pos = self.i - 2;
            match e {
                '\n' => {}
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                'x' | 'u' | 'U' => {
                    let digits = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = (0..digits).filter_map(|k| self.peek_at(k)).collect();
                    let code = (hex.chars().count() == digits)
                        .then(|| u32::from_str_radix(&hex, 16).ok())
                        .flatten()
                        .and_then(char::from_u32);
                    match code {
                        Some(ch) => {
                            self.i += digits;
                            out.push(ch);
                        }
                        None => {
                            return Err(SyntaxError { kind: SyntaxErrorKind::BadEscape, pos: esc_pos });
                        }
                    }
                }
                // Unknown escapes keep their backslash, as Python does.
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.i;
        if matches!(self.peek(), Some('-' | '+')) {
            self.i += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
            || (matches!(self.peek(), Some('-' | '+'))
                && matches!(self.chars.get(self.i.wrapping_sub(1)), Some('e' | 'E'))
                && !self.chars[start..self.i].iter().any(|c| matches!(c, 'x' | 'X')))
        {
            self.i += 1;
        }
        let literal: String = self.chars[start..self.i].iter().collect();
        let bad = || SyntaxError { kind: SyntaxErrorKind::BadNumber { literal: literal.clone() }, pos: start };
        let cleaned = literal.replace('_', "");
        let (neg, body) = match cleaned.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
        };
        if body.is_empty() || literal.contains("__") || literal.ends_with('_') {
            return Err(bad());
        }
        let lower = body.to_ascii_lowercase();
        let radix = match lower.get(..2) {
            Some("0x") => Some(16),
            Some("0o") => Some(8),
            Some("0b") => Some(2),
            _ => None,
        };
        if let Some(radix) = radix {
            let digits = lower.get(2..).unwrap_or("");
            let v = i64::from_str_radix(digits, radix).map_err(|_| bad())?;
            return Ok(Value::Int(if neg { -v } else { v }));
        }
        if body.chars().all(|c| c.is_ascii_digit()) {
            // Python forbids leading zeros on non-zero decimals.
            if body.len() > 1 && body.starts_with('0') && body.chars().any(|c| c != '0') {
                return Err(bad());
            }
            let v: i64 = body.parse().map_err(|_| bad())?;
            return Ok(Value::Int(if neg { -v } else { v }));
        }
        let valid_float = body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
            && body.chars().any(|c| c.is_ascii_digit());
        if !valid_float {
            return Err(bad());
        }
        let v: f64 = body.parse().map_err(|_| bad())?;
        Ok(Value::Float(if neg { -v } else { v }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(v: Value) -> Arg {
        Arg { name: None, value: v }
    }

    fn s(x: &str) -> Value {
        Value::Str(x.to_string())
    }

    #[test]
    fn plain_positional_call() {
        let c = parse_call(r#"search_method_in_class("write", 'RST')"#).unwrap();
        assert_eq!(c.name, "search_method_in_class");
        assert_eq!(c.args, vec![pos(s("write")), pos(s("RST"))]);
    }

    #[test]
    fn keyword_arguments_and_numbers() {
        let c = parse_call("get_code_around_line(file_name = 'a.py', line_no=12, window=-3.5e1,)").unwrap();
        assert_eq!(
            parse_call("f(method_name: \"x\", n : 2)").unwrap(),
            parse_call("f(method_name=\"x\", n=2)").unwrap()
        );
        assert_eq!(c.args[0].name.as_deref(), Some("file_name"));
        assert_eq!(c.args[1].value, Value::Int(12));
        assert_eq!(c.args[2].value, Value::Float(-35.0));
        let c = parse_call("f(0x1F, 1_000, .5, True, None, False)").unwrap();
        let values: Vec<_> = c.args.into_iter().map(|a| a.value).collect();
        assert_eq!(
            values,
            vec![
                Value::Int(31),
                Value::Int(1000),
                Value::Float(0.5),
                Value::Bool(true),
                Value::None,
                Value::Bool(false)
            ]
        );
    }

    #[test]
    fn escapes_and_nested_quotes() {
        let c = parse_call(r#"search_code("print(\"hi\")\n\tx\\y \x41\u00e9 \q")"#).unwrap();
        assert_eq!(c.args[0].value, s("print(\"hi\")\n\tx\\y Aé \\q"));
        let c = parse_call(r#"search_code('say "hi"', "it's")"#).unwrap();
        assert_eq!(c.args, vec![pos(s("say \"hi\"")), pos(s("it's"))]);
        let c = parse_call(r#"search_code(r"\d+\"")"#).unwrap();
        assert_eq!(c.args[0].value, s("\\d+\\\""));
        let c = parse_call("search_code(\"\"\"a \"quoted\"\nline\"\"\")").unwrap();
        assert_eq!(c.args[0].value, s("a \"quoted\"\nline"));
        let c = parse_call("search_code('ab' \"cd\")").unwrap();
        assert_eq!(c.args[0].value, s("abcd"));
        let c = parse_call("search_code(“curly”)").unwrap();
        assert_eq!(c.args[0].value, s("curly"));
        let c = parse_call("search_code(\"b’GET’\")").unwrap();
        assert_eq!(c.args[0].value, s("b\u{2019}GET\u{2019}"));
    }

    #[test]
    fn errors_carry_positions() {
        let e = |t: &str| parse_call(t).unwrap_err();
        assert_eq!(e("  ").kind, SyntaxErrorKind::Empty);
        assert_eq!(e("search_class").kind, SyntaxErrorKind::ExpectedOpenParen);
        assert_eq!(e("search_class").pos, 12);
        assert_eq!(
            e("search_class(Foo)"),
            SyntaxError { kind: SyntaxErrorKind::ExpectedValue { found: "Foo)".into() }, pos: 13 }
        );
        assert_eq!(e("search_class('Foo)").kind, SyntaxErrorKind::UnterminatedString);
        assert_eq!(e("search_class('Foo'").kind, SyntaxErrorKind::UnexpectedEnd);
        assert_eq!(e("f(a='x', 'y')"), SyntaxError { kind: SyntaxErrorKind::PositionalAfterKeyword, pos: 9 });
        assert_eq!(e("f(a='x', a='y')").kind, SyntaxErrorKind::DuplicateKeyword { name: "a".into() });
        assert!(matches!(e("f('a' 'b' x)").kind, SyntaxErrorKind::ExpectedCommaOrClose { .. }));
        assert!(matches!(e("f(1) and more").kind, SyntaxErrorKind::TrailingText { .. }));
        assert!(matches!(e("f(99999999999999999999)").kind, SyntaxErrorKind::BadNumber { .. }));
        assert!(matches!(e("f(012)").kind, SyntaxErrorKind::BadNumber { .. }));
        assert_eq!(e(r"f('\x4')").kind, SyntaxErrorKind::BadEscape);
        assert_eq!(e(r"f('\udc00')").kind, SyntaxErrorKind::BadEscape);
        assert_eq!(e("f(x.y)").kind, SyntaxErrorKind::ExpectedValue { found: "x.y)".into() });
        // Positions count characters, not bytes.
        assert_eq!(e("f('é', é)").pos, 7);
    }

    #[test]
    fn prefix_parse_reports_the_span_in_bytes() {
        let text = "search_class(\"Zé\") then more";
        let (c, end) = parse_call_prefix(text).unwrap();
        assert_eq!(c.name, "search_class");
        assert_eq!(&text[..end], "search_class(\"Zé\")");
    }

    #[test]
    fn display_round_trips() {
        for t in [
            r#"search_method_in_class("write", "RST")"#,
            r#"f('say "hi"', n=3, x=1.0, b=True, z=None)"#,
            r#"f("a\nb\\c\"d'")"#,
            "f(1e20, -2.5e-7, 0.25, 3.0)",
        ] {
            let c = parse_call(t).unwrap();
            assert_eq!(parse_call(&c.to_string()).unwrap(), c, "{t}");
        }
        assert_eq!(parse_call("f( 'x' ,k = 2 )").unwrap().to_string(), "f(\"x\", k=2)");
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let samples = [
            "f(",
            "f('",
            "f(\"\"\"",
            "f(r'\\",
            "f('\\",
            "(",
            ")",
            "f(-",
            "f(1e",
            "f(0x",
            "f(é",
            "f(a=",
            "f(a",
            "é(1)",
            "f(\u{201c}x",
            "f(1,,2)",
            "f(,)",
            "f(--1)",
            "f(1.2.3)",
            "f(_)",
        ];
        for t in samples {
            let _ = parse_call(t);
            let _ = parse_call_prefix(t);
        }
    }
}
