//! A small regular-expression engine for hook matchers, linear in the input.
//!
//! The core has no regex crate (it must stay small for wasm), and a matcher must give the same
//! answer natively and in the npm package, so the subset Claude Code's matchers use is
//! implemented here: literals, `.`, classes `[a-z_]` / `[^…]`, escapes `\d \w \s \D \W \S` and
//! `\<punct>`, groups `( )` / `(?: )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}`
//! (lazy `?` suffixes accepted and treated alike: only whether it matches counts), anchors `^ $`.
//! Backreferences and lookaround are refused with an error. Matching is a Thompson simulation
//! (a set of states per input character), so no pattern can take more than
//! O(pattern × input) time: a hostile settings file cannot hang the gate.

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regex {
    program: Vec<Inst>,
}

/// Most instructions a pattern may compile to (bounds `{n,m}` expansion).
const MAX_PROGRAM: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Inst {
    Char(Set),
    Split(usize, usize),
    Jump(usize),
    Start,
    End,
    Match,
}

/// What one character position accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Set {
    Any,
    Ranges {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Set {
    fn accepts(&self, c: char) -> bool {
        match self {
            Set::Any => c != '\n',
            Set::Ranges { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
        }
    }

    fn one(c: char) -> Set {
        Set::Ranges {
            negated: false,
            ranges: vec![(c, c)],
        }
    }
}

#[derive(Clone, Debug)]
enum Node {
    Set(Set),
    Start,
    End,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

impl Regex {
    /// Compiles `pattern`; the error says what is unsupported or malformed, and where.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut parser = Parser { chars, pos: 0 };
        let node = parser.alternation()?;
        if parser.pos < parser.chars.len() {
            return Err(format!("unmatched ')' at position {}", parser.pos));
        }
        let mut program = Vec::new();
        compile(&node, &mut program)?;
        program.push(Inst::Match);
        Ok(Regex { program })
    }

    /// Whether the pattern matches anywhere in `text` (like JavaScript's `RegExp.test`).
    pub fn is_match(&self, text: &str) -> bool {
        let mut current: Vec<usize> = Vec::new();
        let mut next: Vec<usize> = Vec::new();
        let mut seen = vec![usize::MAX; self.program.len()];
        let chars: Vec<char> = text.chars().collect();
        for pos in 0..=chars.len() {
            // Unanchored: a new attempt starts at every position.
            if self.add(&mut current, &mut seen, pos, 0, pos, chars.len()) {
                return true;
            }
            let Some(&c) = chars.get(pos) else { break };
            next.clear();
            for &pc in &current {
                if let Inst::Char(set) = &self.program[pc] {
                    if set.accepts(c)
                        && self.add(&mut next, &mut seen, pos + 1, pc + 1, pos + 1, chars.len())
                    {
                        return true;
                    }
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        false
    }

    /// Adds `pc` and what it reaches without consuming input to `list`; `true` on a match.
    /// `seen[pc] == generation` marks states already in this step's list.
    fn add(
        &self,
        list: &mut Vec<usize>,
        seen: &mut [usize],
        generation: usize,
        pc: usize,
        pos: usize,
        len: usize,
    ) -> bool {
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            if seen[pc] == generation {
                continue;
            }
            seen[pc] = generation;
            match &self.program[pc] {
                Inst::Match => return true,
                Inst::Char(_) => list.push(pc),
                Inst::Jump(to) => stack.push(*to),
                Inst::Split(a, b) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Inst::Start if pos == 0 => stack.push(pc + 1),
                Inst::End if pos == len => stack.push(pc + 1),
                Inst::Start | Inst::End => {}
            }
        }
        false
    }
}

fn compile(node: &Node, out: &mut Vec<Inst>) -> Result<(), String> {
    if out.len() > MAX_PROGRAM {
        return Err("the pattern is too large".into());
    }
    match node {
        Node::Set(set) => out.push(Inst::Char(set.clone())),
        Node::Start => out.push(Inst::Start),
        Node::End => out.push(Inst::End),
        Node::Concat(nodes) => {
            for node in nodes {
                compile(node, out)?;
            }
        }
        Node::Alt(branches) => {
            // split L1, next; L1: branch; jump end; next: split ...
            let mut jumps = Vec::new();
            for (i, branch) in branches.iter().enumerate() {
                if i + 1 < branches.len() {
                    let split = out.len();
                    out.push(Inst::Split(split + 1, 0));
                    compile(branch, out)?;
                    jumps.push(out.len());
                    out.push(Inst::Jump(0));
                    let here = out.len();
                    out[split] = Inst::Split(split + 1, here);
                } else {
                    compile(branch, out)?;
                }
            }
            let end = out.len();
            for jump in jumps {
                out[jump] = Inst::Jump(end);
            }
        }
        Node::Repeat { node, min, max } => {
            for _ in 0..*min {
                compile(node, out)?;
            }
            match max {
                None => {
                    // loop: split body, end; body; jump loop
                    let split = out.len();
                    out.push(Inst::Split(split + 1, 0));
                    compile(node, out)?;
                    out.push(Inst::Jump(split));
                    let end = out.len();
                    out[split] = Inst::Split(split + 1, end);
                }
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(out.len());
                        out.push(Inst::Split(0, 0));
                        compile(node, out)?;
                    }
                    let end = out.len();
                    for split in splits {
                        out[split] = Inst::Split(split + 1, end);
                    }
                }
            }
        }
    }
    Ok(())
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.concat()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Concat(Vec::new()))
        } else {
            Node::Alt(branches)
        })
    }

    fn concat(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('{') => match self.braces()? {
                Some(bounds) => bounds,
                None => return Ok(atom),
            },
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                }
            }
            _ => return Ok(atom),
        };
        if matches!(atom, Node::Start | Node::End) {
            return Err(format!("nothing to repeat at position {}", self.pos - 1));
        }
        if self.peek() == Some('?') {
            self.pos += 1;
        }
        if matches!(self.peek(), Some('*' | '+' | '?')) {
            return Err(format!("nothing to repeat at position {}", self.pos));
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// `{n}`, `{n,}`, `{n,m}` (consumed), or `None` when the brace is a literal.
    fn braces(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        let rest: String = self.chars[self.pos..].iter().collect();
        let Some(close) = rest.find('}') else {
            return Ok(None);
        };
        let inner = &rest[1..close];
        let number = |s: &str| s.parse::<u32>().ok().filter(|n| *n <= 1000);
        let bounds = match inner.split_once(',') {
            None => number(inner).map(|n| (n, Some(n))),
            Some((lo, "")) => number(lo).map(|n| (n, None)),
            Some((lo, hi)) => number(lo).zip(number(hi)).map(|(a, b)| (a, Some(b))),
        };
        let Some(bounds) = bounds else {
            return Ok(None);
        };
        if let (lo, Some(hi)) = bounds {
            if hi < lo {
                return Err(format!("bad repetition {{{inner}}}"));
            }
        }
        self.pos += inner.chars().count() + 2;
        Ok(Some(bounds))
    }

    fn atom(&mut self) -> Result<Node, String> {
        let at = self.pos;
        let Some(c) = self.peek() else {
            return Err("unexpected end of pattern".into());
        };
        self.pos += 1;
        Ok(match c {
            '.' => Node::Set(Set::Any),
            '^' => Node::Start,
            '$' => Node::End,
            '(' => {
                if self.peek() == Some('?') {
                    if self.chars.get(self.pos + 1) == Some(&':') {
                        self.pos += 2;
                    } else {
                        return Err(format!(
                            "lookaround and named groups are not supported (position {at})"
                        ));
                    }
                }
                let inner = self.alternation()?;
                if self.peek() != Some(')') {
                    return Err(format!("unclosed '(' at position {at}"));
                }
                self.pos += 1;
                inner
            }
            '[' => Node::Set(self.class(at)?),
            '\\' => Node::Set(self.escape(false)?),
            '*' | '+' | '?' => return Err(format!("nothing to repeat at position {at}")),
            '{' if self.braces_ahead() => {
                return Err(format!("nothing to repeat at position {at}"));
            }
            c => Node::Set(Set::one(c)),
        })
    }

    /// Whether the `{` just consumed starts a valid repetition (then it has no atom).
    fn braces_ahead(&mut self) -> bool {
        self.pos -= 1;
        let quantifier = matches!(self.braces(), Ok(Some(_)));
        if !quantifier {
            self.pos += 1;
        }
        quantifier
    }

    fn class(&mut self, at: usize) -> Result<Set, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err(format!("unclosed '[' at position {at}"));
            };
            self.pos += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                match self.escape(true)? {
                    Set::Ranges {
                        negated: false,
                        ranges: escaped,
                    } if escaped.len() == 1 && escaped[0].0 == escaped[0].1 => escaped[0].0,
                    Set::Ranges {
                        negated: false,
                        ranges: escaped,
                    } => {
                        ranges.extend(escaped);
                        continue;
                    }
                    _ => {
                        return Err(format!(
                            "negated escapes inside [...] are not supported (position {at})"
                        ))
                    }
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&n| n != ']') {
                self.pos += 1;
                let mut hi = self.chars[self.pos];
                self.pos += 1;
                if hi == '\\' {
                    hi = self
                        .peek()
                        .ok_or_else(|| format!("unclosed '[' at position {at}"))?;
                    self.pos += 1;
                }
                if hi < lo {
                    return Err(format!("bad range {lo}-{hi} in [...] at position {at}"));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Set::Ranges { negated, ranges })
    }

    fn escape(&mut self, in_class: bool) -> Result<Set, String> {
        let Some(c) = self.peek() else {
            return Err("the pattern ends with '\\'".into());
        };
        self.pos += 1;
        let digits = vec![('0', '9')];
        let word = vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
        let space = vec![(' ', ' '), ('\t', '\r')];
        let set = |negated, ranges| Set::Ranges { negated, ranges };
        Ok(match c {
            'd' => set(false, digits),
            'w' => set(false, word),
            's' => set(false, space),
            'D' => set(true, digits),
            'W' => set(true, word),
            'S' => set(true, space),
            'n' => Set::one('\n'),
            't' => Set::one('\t'),
            c if c.is_ascii_alphanumeric() && !in_class || c.is_ascii_digit() => {
                return Err(format!(
                    "escape \\{c} is not supported in hook matchers (position {})",
                    self.pos - 2
                ))
            }
            c => Set::one(c),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(pattern: &str, text: &str) -> bool {
        Regex::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn literals_alternation_and_search() {
        assert!(m("Edit|Write", "Write"));
        assert!(m("Edit|Write", "MultiEdit"), "unanchored, as RegExp.test");
        assert!(!m("^(Edit|Write)$", "MultiEdit"));
        assert!(m("^(Edit|Write)$", "Edit"));
        assert!(!m("Edit|Write", "Read"));
        assert!(m("", "anything"));
    }

    #[test]
    fn quantifiers_and_classes() {
        assert!(m("Notebook.*", "NotebookEdit"));
        assert!(m("^mcp__memory__.*$", "mcp__memory__create"));
        assert!(!m("^mcp__memory__.+$", "mcp__memory__"));
        assert!(m("^a?b$", "b"));
        assert!(m("^a?b$", "ab"));
        assert!(!m("^a?b$", "aab"));
        assert!(m("^[a-c_]+$", "ab_c"));
        assert!(!m("^[a-c]+$", "abd"));
        assert!(m("^[^x]+$", "abc"));
        assert!(!m("^[^x]+$", "axc"));
        assert!(m(r"^\w+\d$", "tool1"));
        assert!(!m(r"^\d+$", "12a"));
        assert!(m("^a{2,3}$", "aaa"));
        assert!(!m("^a{2,3}$", "aaaa"));
        assert!(!m("^a{2}$", "a"));
        assert!(m("^a{2,}$", "aaaaa"));
        assert!(
            m("^x{y$", "x{y"),
            "a brace that is no quantifier is literal"
        );
        assert!(m(r"^mcp__\w+__write_.*", "mcp__fs__write_file"));
        assert!(m(r"^a\.b$", "a.b"));
        assert!(!m(r"^a\.b$", "axb"));
        assert!(m("^(?:ab)+$", "abab"));
        assert!(m("^[-a]$", "-"));
        assert!(m(r"^[\w.]+$", "a.b_c"));
        assert!(m("^a*?b$", "aab"), "lazy suffix accepted");
    }

    #[test]
    fn malformed_patterns_are_errors_naming_the_problem() {
        for (pattern, needle) in [
            ("(ab", "unclosed '('"),
            ("ab)", "unmatched ')'"),
            ("[ab", "unclosed '['"),
            ("*a", "nothing to repeat"),
            ("a**", "nothing to repeat"),
            (r"(?=a)", "lookaround"),
            (r"\1", "not supported"),
            ("a\\", "ends with"),
            ("[z-a]", "bad range"),
            ("a{3,2}", "bad repetition"),
        ] {
            let error = Regex::new(pattern).unwrap_err();
            assert!(error.contains(needle), "{pattern}: {error}");
        }
    }

    #[test]
    fn pathological_patterns_stay_linear() {
        // (a*)*b against a long run of a's is exponential for a backtracking engine.
        let regex = Regex::new("^(a*)*b$").unwrap();
        let text = "a".repeat(5_000);
        let started = std::time::Instant::now();
        assert!(!regex.is_match(&text));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(
            Regex::new("(a{1000}){1000}").is_err(),
            "expansion is bounded"
        );
    }
}
