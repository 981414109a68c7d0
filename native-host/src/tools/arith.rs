//! The calculator's arithmetic: a small recursive-descent evaluator over f64.
//!
//! Why our own and not a crate: the calculator used `exmex`, which makes `^` left-associative
//! (`2^3^2` = 64) and binds unary minus tighter than `^` (`-2^2` = 4), neither configurable; it
//! rejects scientific notation (`1e3`) and its errors are internal ("we have 0 ops and 2 node").
//! A pre-processing pass cannot fix precedence without parsing anyway. The grammar below is the
//! usual one (Python, maths notation), small enough to test exhaustively:
//!
//! ```text
//! sum     = product { ("+" | "-") product }
//! product = unary { ("*" | "/" | "%") unary }
//! unary   = ("+" | "-") unary | power
//! power   = primary [ "^" unary ]          right-associative; 2^-1 is 0.5
//! primary = number | constant | function "(" sum { "," sum } ")" | "(" sum ")"
//! ```
//!
//! `**`, `×`, `÷`, `·` and `−` (U+2212) are read as `^`, `*`, `/`, `*` and `-`. Errors name the
//! 1-based character position and the token found there.

use std::iter::Peekable;
use std::str::CharIndices;

/// Parentheses, function calls and unary signs nested deeper than this are refused (the
/// parser recurses once per level).
pub(crate) const MAX_DEPTH: usize = 64;

/// The named constants, matched without regard to case (`pi`, `PI`, `π`).
const CONSTANTS: [(&str, f64); 5] = [
    ("pi", std::f64::consts::PI),
    ("π", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
    ("τ", std::f64::consts::TAU),
];

/// A function of one argument.
type Unary = fn(f64) -> f64;

/// The functions of one argument, matched without regard to case.
const FUNCTIONS: [(&str, Unary); 20] = [
    ("sqrt", f64::sqrt),
    ("cbrt", f64::cbrt),
    ("abs", f64::abs),
    ("exp", f64::exp),
    ("ln", f64::ln),
    ("log", f64::ln),
    ("log2", f64::log2),
    ("log10", f64::log10),
    ("sin", f64::sin),
    ("cos", f64::cos),
    ("tan", f64::tan),
    ("asin", f64::asin),
    ("acos", f64::acos),
    ("atan", f64::atan),
    ("sinh", f64::sinh),
    ("cosh", f64::cosh),
    ("tanh", f64::tanh),
    ("floor", f64::floor),
    ("ceil", f64::ceil),
    ("round", f64::round),
];

/// A lexical token with the 1-based character position it starts at.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Op(char),
    Open,
    Close,
    Comma,
}

fn describe(token: Option<&(Token, usize)>) -> String {
    match token {
        None => "the end of the expression".to_owned(),
        Some((token, at)) => {
            let what = match token {
                Token::Number(n) => format!("number {n}"),
                Token::Name(name) => format!("name {name:?}"),
                Token::Op(op) => format!("{op:?}"),
                Token::Open => "'('".to_owned(),
                Token::Close => "')'".to_owned(),
                Token::Comma => "','".to_owned(),
            };
            format!("{what} at position {at}")
        }
    }
}

/// Splits `text` into tokens, or says which character is not understood.
fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, String> {
    let mut tokens = Vec::new();
    // Character positions, 1-based, for messages (byte offsets are for slicing).
    let mut chars: Peekable<CharIndices> = text.char_indices().peekable();
    let position = |byte: usize| text[..byte].chars().count() + 1;
    while let Some(&(start, c)) = chars.peek() {
        let at = position(start);
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c.is_ascii_digit() || c == '.' {
            let mut end = start;
            let mut exponent_digits = None;
            while let Some(&(i, d)) = chars.peek() {
                let exponent_sign = matches!(d, '+' | '-')
                    && exponent_digits == Some(0)
                    && text[..i].ends_with(['e', 'E']);
                if d.is_ascii_digit() {
                    exponent_digits = exponent_digits.map(|n| n + 1);
                } else if matches!(d, 'e' | 'E') && exponent_digits.is_none() {
                    exponent_digits = Some(0);
                } else if !(exponent_sign || d == '.' && exponent_digits.is_none()) {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            let literal = &text[start..end];
            if exponent_digits == Some(0) {
                return Err(format!(
                    "the number {literal:?} at position {at} has no exponent digits after 'e'"
                ));
            }
            let value = literal
                .parse::<f64>()
                .map_err(|_| format!("{literal:?} at position {at} is not a number"))?;
            tokens.push((Token::Number(value), at));
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut end = start;
            while let Some(&(i, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            tokens.push((Token::Name(text[start..end].to_owned()), at));
            continue;
        }
        chars.next();
        let token = match c {
            '+' => Token::Op('+'),
            '-' | '−' => Token::Op('-'),
            '*' if chars.peek().map(|&(_, d)| d) == Some('*') => {
                chars.next();
                Token::Op('^')
            }
            '*' | '×' | '·' => Token::Op('*'),
            '/' | '÷' => Token::Op('/'),
            '%' => Token::Op('%'),
            '^' => Token::Op('^'),
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            other => {
                return Err(format!(
                    "{other:?} at position {at} is not understood (operators: + - * / % ^, \
                     parentheses, commas between function arguments)"
                ))
            }
        };
        tokens.push((token, at));
    }
    Ok(tokens)
}

/// The parser: a cursor over the tokens and the current nesting depth.
struct Parser {
    tokens: Vec<(Token, usize)>,
    next: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next).map(|(t, _)| t)
    }

    fn unexpected(&self, wanted: &str) -> String {
        format!(
            "expected {wanted}, found {}",
            describe(self.tokens.get(self.next))
        )
    }

    fn eat_op(&mut self, ops: &[char]) -> Option<char> {
        match self.peek() {
            Some(Token::Op(op)) if ops.contains(op) => {
                let op = *op;
                self.next += 1;
                Some(op)
            }
            _ => None,
        }
    }

    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_DEPTH} levels at {}",
                describe(self.tokens.get(self.next))
            ));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut value = self.product()?;
        while let Some(op) = self.eat_op(&['+', '-']) {
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut value = self.unary()?;
        while let Some(op) = self.eat_op(&['*', '/', '%']) {
            let rhs = self.unary()?;
            value = match op {
                '*' => value * rhs,
                '/' => value / rhs,
                _ => value % rhs,
            };
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<f64, String> {
        match self.eat_op(&['+', '-']) {
            Some(sign) => {
                self.deeper()?;
                let value = self.unary()?;
                self.depth -= 1;
                Ok(if sign == '-' { -value } else { value })
            }
            None => self.power(),
        }
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.primary()?;
        if self.eat_op(&['^']).is_none() {
            return Ok(base);
        }
        // Right-associative, and the exponent may carry its own sign: 2^3^2 = 2^9, 2^-1 = 0.5.
        self.deeper()?;
        let exponent = self.unary()?;
        self.depth -= 1;
        Ok(base.powf(exponent))
    }

    fn primary(&mut self) -> Result<f64, String> {
        let Some((token, at)) = self.tokens.get(self.next).cloned() else {
            return Err(self.unexpected("a number, a name or '('"));
        };
        match token {
            Token::Number(value) => {
                self.next += 1;
                Ok(value)
            }
            Token::Open => {
                self.next += 1;
                self.deeper()?;
                let value = self.sum()?;
                self.close()?;
                self.depth -= 1;
                Ok(value)
            }
            Token::Name(name) => {
                self.next += 1;
                let lower = name.to_lowercase();
                if self.peek() == Some(&Token::Open) {
                    return self.call(&name, &lower, at);
                }
                CONSTANTS
                    .iter()
                    .find(|(n, _)| *n == lower)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| unknown_name(&name, at))
            }
            _ => Err(self.unexpected("a number, a name or '('")),
        }
    }

    fn close(&mut self) -> Result<(), String> {
        if self.peek() == Some(&Token::Close) {
            self.next += 1;
            Ok(())
        } else {
            Err(self.unexpected("')'"))
        }
    }

    /// `name(args)`, with the cursor on `(`.
    fn call(&mut self, name: &str, lower: &str, at: usize) -> Result<f64, String> {
        self.next += 1;
        self.deeper()?;
        let mut args = vec![self.sum()?];
        while self.peek() == Some(&Token::Comma) {
            self.next += 1;
            args.push(self.sum()?);
        }
        self.close()?;
        self.depth -= 1;
        let fold = |f: fn(f64, f64) -> f64| args.iter().copied().reduce(f).unwrap_or(f64::NAN);
        match lower {
            "min" => return Ok(fold(f64::min)),
            "max" => return Ok(fold(f64::max)),
            _ => {}
        }
        let Some((_, f)) = FUNCTIONS.iter().find(|(n, _)| *n == lower) else {
            return Err(unknown_name(name, at));
        };
        match args.as_slice() {
            [x] => Ok(f(*x)),
            _ => Err(format!(
                "{name} at position {at} takes one argument, not {}",
                args.len()
            )),
        }
    }
}

fn unknown_name(name: &str, at: usize) -> String {
    let functions: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
    format!(
        "unknown name {name:?} at position {at} (constants: PI, E, TAU; functions: {}, min, max)",
        functions.join(", ")
    )
}

/// Evaluates `text`; the error says what is wrong and where.
pub(crate) fn eval(text: &str) -> Result<f64, String> {
    let mut parser = Parser {
        tokens: tokenize(text)?,
        next: 0,
        depth: 0,
    };
    let value = parser.sum()?;
    if parser.next < parser.tokens.len() {
        return Err(parser.unexpected("an operator"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        let cases: &[(&str, f64)] = &[
            ("2^3^2", 512.0),
            ("(2^3)^2", 64.0),
            ("-2^2", -4.0),
            ("(-2)^2", 4.0),
            ("2^-1", 0.5),
            ("-2^-2", -0.25),
            ("2**3**2", 512.0),
            ("1e3", 1000.0),
            ("2.5E-2", 0.025),
            ("1.5e+2", 150.0),
            ("1E0", 1.0),
            (".5 + 1.", 1.5),
            ("2e3*2", 4000.0),
            ("10-4-3", 3.0),
            ("100/10/5", 2.0),
            ("2+3*4", 14.0),
            ("2*3^2", 18.0),
            ("-3+5", 2.0),
            ("--2", 2.0),
            ("+-+2", -2.0),
            ("2*-3", -6.0),
            ("17 % 5", 2.0),
            ("-7 % 3", -1.0),
            ("6×7·2", 84.0),
            ("9÷3", 3.0),
            ("5 − 3", 2.0),
            ("sqrt(16)+abs(-2)", 6.0),
            ("SQRT(16)", 4.0),
            ("max(3, 8, 5) - min(3, 8)", 5.0),
            ("min(4)", 4.0),
            ("round(2.5) + floor(-1.5) + ceil(1.2)", 3.0),
            ("log10(1000) + log2(8) + ln(e)", 7.0),
            ("cbrt(27)", 3.0),
            ("2*(3+(4-1))", 12.0),
            ("-(-(2))", 2.0),
            ("sin(PI/2) + cos(0)", 2.0),
            ("tau / pi", 2.0),
            ("π", std::f64::consts::PI),
        ];
        for (text, want) in cases {
            let got = eval(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!((got - want).abs() < 1e-9, "{text} = {got}, want {want}");
        }
    }

    #[test]
    fn errors_name_the_position_and_token() {
        let cases: &[(&str, &str)] = &[
            (
                "",
                "expected a number, a name or '(', found the end of the expression",
            ),
            (
                "2+",
                "expected a number, a name or '(', found the end of the expression",
            ),
            ("2 3", "expected an operator, found number 3 at position 3"),
            ("(1+2", "expected ')', found the end of the expression"),
            ("1+2)", "expected an operator, found ')' at position 4"),
            (
                "()",
                "expected a number, a name or '(', found ')' at position 2",
            ),
            (
                "2^^3",
                "expected a number, a name or '(', found '^' at position 3",
            ),
            (
                "*",
                "expected a number, a name or '(', found '*' at position 1",
            ),
            (
                "1e",
                "the number \"1e\" at position 1 has no exponent digits after 'e'",
            ),
            (
                "2 * 1e+",
                "the number \"1e+\" at position 5 has no exponent digits after 'e'",
            ),
            ("..5", "\"..5\" at position 1 is not a number"),
            ("1.2.3", "\"1.2.3\" at position 1 is not a number"),
            ("x + 1", "unknown name \"x\" at position 1"),
            ("foo(2)", "unknown name \"foo\" at position 1"),
            ("sin", "unknown name \"sin\" at position 1"),
            ("sqrt(1, 2)", "sqrt at position 1 takes one argument, not 2"),
            ("1,2", "expected an operator, found ',' at position 2"),
            ("3!", "'!' at position 2 is not understood"),
            ("中 + 1", "unknown name \"中\" at position 1"),
            ("1 + 🙂", "'🙂' at position 5 is not understood"),
        ];
        for (text, want) in cases {
            let err = eval(text).expect_err(text);
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = "(".repeat(MAX_DEPTH + 1) + "1" + &")".repeat(MAX_DEPTH + 1);
        let err = eval(&deep).unwrap_err();
        assert!(
            err.starts_with("the expression nests deeper than 64 levels"),
            "{err}"
        );
        let ok = "(".repeat(MAX_DEPTH) + "1" + &")".repeat(MAX_DEPTH);
        assert_eq!(eval(&ok), Ok(1.0));
        assert!(eval(&"-".repeat(10_000)).is_err());
        assert!(eval(&"2^".repeat(5_000)).is_err());
    }
}
