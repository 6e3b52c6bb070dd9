//! Kerchunk JSON reference sets: version 0 (a flat `{key: reference}` object) and
//! version 1 (`{"version": 1, "templates": {...}, "gen": [...], "refs": {...}}`), with the
//! semantics of fsspec's `ReferenceFileSystem` (`fsspec/implementations/reference.py`):
//!
//! - a string is the value itself (its UTF-8 bytes), or base64 after a `base64:` prefix;
//! - an object is metadata embedded as JSON: its serialisation is the value;
//! - `[url]` is the whole target, `[url, offset, length]` a byte range of it;
//! - in version 1, `{{name}}` in the URL of a `refs` entry is replaced by the template
//!   `name`, and each `gen` entry stands for the references of the product of its
//!   `dimensions` (ranges `{"start", "stop", "step"}` or lists), its `key`, `url`,
//!   `offset` and `length` rendered for each combination.
//!
//! fsspec renders templates with jinja2; this reader understands the part of jinja that
//! reference sets use: `{{ expression }}` where the expression is made of names
//! (templates and dimensions), integer and string literals, `+ - * / // %` and
//! parentheses. Anything else (filters, calls, `{% %}` blocks, templates that are themselves
//! templates, which fsspec turns into functions) is reported as unsupported, naming it.

use super::{ParseError as JsonError, Reference};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// The most keys all `gen` entries of a reference set may expand to: the expanded
/// references are held in memory (about a hundred bytes each), so a few lines of JSON must
/// not be able to ask for billions of them.
pub const MAX_GENERATED_KEYS: u64 = 1 << 22;

fn invalid<T>(message: impl Into<String>) -> Result<T, JsonError> {
    Err(JsonError::Invalid(message.into()))
}

/// The references of a JSON reference set, by key.
pub fn parse(text: &[u8]) -> Result<BTreeMap<String, Reference>, JsonError> {
    parse_limited(text, MAX_GENERATED_KEYS)
}

/// [`parse`] with at most `max_generated` keys from `gen` (the fuzz target asks for
/// fewer, so that its runs stay short).
pub fn parse_limited(
    text: &[u8],
    max_generated: u64,
) -> Result<BTreeMap<String, Reference>, JsonError> {
    let value: Value = serde_json::from_slice(text)
        .map_err(|e| JsonError::Invalid(format!("not valid JSON: {e}")))?;
    let Value::Object(top) = value else {
        return invalid(format!(
            "a reference set is a JSON object, not {}",
            crate::metadata::json::kind_of(&value)
        ));
    };
    match top.get("version") {
        None => {
            let mut out = BTreeMap::new();
            for (key, value) in &top {
                out.insert(key.clone(), reference(key, value, None)?);
            }
            Ok(out)
        }
        Some(Value::Number(n)) if n.as_u64() == Some(1) => parse_v1(&top, max_generated),
        Some(other) => Err(JsonError::Unsupported(format!(
            "reference set version {other} is not supported (versions 0 and 1 are)"
        ))),
    }
}

fn parse_v1(
    top: &Map<String, Value>,
    max_generated: u64,
) -> Result<BTreeMap<String, Reference>, JsonError> {
    let mut templates: HashMap<String, Scalar> = HashMap::new();
    match top.get("templates") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (name, value) in map {
                let Value::String(text) = value else {
                    return invalid(format!("template '{name}' is not a string"));
                };
                if text.contains("{{") || text.contains("{%") {
                    return Err(JsonError::Unsupported(format!(
                        "template '{name}' is itself a jinja template (a template function), \
                         which is not supported"
                    )));
                }
                templates.insert(name.clone(), Scalar::Str(text.clone()));
            }
        }
        Some(_) => return invalid("'templates' is not an object"),
    }
    let mut out = BTreeMap::new();
    match top.get("refs") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (key, value) in map {
                out.insert(key.clone(), reference(key, value, Some(&templates))?);
            }
        }
        Some(_) => return invalid("'refs' is not an object"),
    }
    match top.get("gen") {
        None | Some(Value::Null) => {}
        Some(Value::Array(gens)) => {
            let mut budget = max_generated;
            for (i, gen) in gens.iter().enumerate() {
                expand_gen(i, gen, &templates, max_generated, &mut budget, &mut out)?;
            }
        }
        Some(_) => return invalid("'gen' is not an array"),
    }
    Ok(out)
}

/// The reference at `key`; `templates` are substituted into target URLs (version 1).
fn reference(
    key: &str,
    value: &Value,
    templates: Option<&HashMap<String, Scalar>>,
) -> Result<Reference, JsonError> {
    match value {
        Value::String(text) => inline(key, text),
        Value::Object(_) => Ok(Reference::Inline(value.to_string().into_bytes())),
        Value::Array(items) => {
            let Some(Value::String(url)) = items.first() else {
                return invalid(format!(
                    "the reference at key '{key}' must start with a target URL string"
                ));
            };
            let url = match templates {
                Some(t) if url.contains("{{") || url.contains("{%") => render(url, t)
                    .map_err(|e| e.context(&format!("the URL of the reference at key '{key}'")))?,
                _ => url.clone(),
            };
            match items.len() {
                1 => Ok(Reference::Target { url, range: None }),
                3 => {
                    let offset = non_negative(key, "offset", &items[1])?;
                    let length = non_negative(key, "length", &items[2])?;
                    if offset.checked_add(length).is_none() {
                        return invalid(format!(
                            "the reference at key '{key}': offset {offset} + length {length} \
                             overflows"
                        ));
                    }
                    Ok(Reference::Target {
                        url,
                        range: Some((offset, length)),
                    })
                }
                n => invalid(format!(
                    "the reference at key '{key}' has {n} elements: [url] or [url, offset, \
                     length] expected"
                )),
            }
        }
        other => invalid(format!(
            "the reference at key '{key}' is {}: a string, an object or an array expected",
            crate::metadata::json::kind_of(other)
        )),
    }
}

fn inline(key: &str, text: &str) -> Result<Reference, JsonError> {
    match text.strip_prefix("base64:") {
        Some(encoded) => crate::data_type::decode_base64(encoded)
            .map(Reference::Inline)
            .ok_or_else(|| {
                JsonError::Invalid(format!(
                    "the value at key '{key}' starts with 'base64:' but is not base64"
                ))
            }),
        None => Ok(Reference::Inline(text.as_bytes().to_vec())),
    }
}

fn non_negative(key: &str, what: &str, value: &Value) -> Result<u64, JsonError> {
    match value.as_u64() {
        Some(n) => Ok(n),
        None => invalid(format!(
            "the {what} of the reference at key '{key}' is {value}: a non-negative integer \
             below 2^64 expected"
        )),
    }
}

/// One `gen` entry's references into `out`, counting them against `budget`.
fn expand_gen(
    index: usize,
    gen: &Value,
    templates: &HashMap<String, Scalar>,
    limit: u64,
    budget: &mut u64,
    out: &mut BTreeMap<String, Reference>,
) -> Result<(), JsonError> {
    let name = format!("gen[{index}]");
    let Value::Object(gen) = gen else {
        return invalid(format!("{name} is not an object"));
    };
    let text = |field: &str| -> Result<Option<&str>, JsonError> {
        match gen.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Number(_)) if matches!(field, "offset" | "length") => Ok(None),
            Some(_) => invalid(format!("{name}: '{field}' is not a string")),
        }
    };
    let key_t = text("key")?.ok_or_else(|| JsonError::Invalid(format!("{name} has no 'key'")))?;
    let url_t = text("url")?.ok_or_else(|| JsonError::Invalid(format!("{name} has no 'url'")))?;
    // A number is a template that renders to itself.
    let number_or_text = |field: &str| -> Result<Option<String>, JsonError> {
        match gen.get(field) {
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            _ => Ok(text(field)?.map(str::to_string)),
        }
    };
    let offset_t = number_or_text("offset")?;
    let length_t = number_or_text("length")?;
    if offset_t.is_some() != length_t.is_some() {
        return invalid(format!(
            "{name}: both 'offset' and 'length' are required if either is given"
        ));
    }
    let Some(Value::Object(dims)) = gen.get("dimensions") else {
        return invalid(format!("{name} has no 'dimensions' object"));
    };
    let mut axes: Vec<(String, Vec<Scalar>)> = Vec::new();
    let mut count: u64 = 1;
    for (dim, spec) in dims {
        let values = dimension_values(&name, dim, spec, limit, *budget)?;
        count = count.saturating_mul(values.len() as u64);
        axes.push((dim.clone(), values));
    }
    if count > *budget {
        return invalid(format!(
            "{name} expands to {count} keys: more than the {limit} a reference set may \
             generate (all its gen entries together)"
        ));
    }
    *budget -= count;
    if count == 0 {
        return Ok(());
    }
    let mut vars = templates.clone();
    let mut index = vec![0usize; axes.len()];
    loop {
        for (axis, (dim, values)) in axes.iter().enumerate() {
            vars.insert(dim.clone(), values[index[axis]].clone());
        }
        let at = |what: &str| format!("the {what} of {name}");
        let key = render(key_t, &vars).map_err(|e| e.context(&at("key")))?;
        let url = render(url_t, &vars).map_err(|e| e.context(&at("url")))?;
        let range = match (&offset_t, &length_t) {
            (Some(o), Some(l)) => {
                let offset = render_integer(o, &vars).map_err(|e| e.context(&at("offset")))?;
                let length = render_integer(l, &vars).map_err(|e| e.context(&at("length")))?;
                if offset.checked_add(length).is_none() {
                    return invalid(format!(
                        "{name}, key '{key}': offset {offset} + length {length} overflows"
                    ));
                }
                Some((offset, length))
            }
            _ => None,
        };
        out.insert(key, Reference::Target { url, range });
        // The next combination, the last dimension fastest (itertools.product's order).
        let mut axis = axes.len();
        loop {
            if axis == 0 {
                return Ok(());
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < axes[axis].1.len() {
                break;
            }
            index[axis] = 0;
        }
    }
}

/// The values of one dimension of a `gen` entry: a list, or a Python `range` given as
/// `{"start": 0, "stop": n, "step": 1}` (`start` and `step` optional).
fn dimension_values(
    name: &str,
    dim: &str,
    spec: &Value,
    limit: u64,
    budget: u64,
) -> Result<Vec<Scalar>, JsonError> {
    match spec {
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(Scalar::Str(s.clone())),
                Value::Number(n) if n.as_i64().is_some() => Ok(Scalar::Int(n.as_i64().unwrap())),
                other => invalid(format!(
                    "{name}: dimension '{dim}' lists {other}: integers or strings expected"
                )),
            })
            .collect(),
        Value::Object(range) => {
            let field = |f: &str, default: Option<i64>| -> Result<i64, JsonError> {
                match range.get(f) {
                    None => default.ok_or_else(|| {
                        JsonError::Invalid(format!("{name}: dimension '{dim}' has no '{f}'"))
                    }),
                    Some(v) => v.as_i64().ok_or_else(|| {
                        JsonError::Invalid(format!(
                            "{name}: '{f}' of dimension '{dim}' is {v}: an integer expected"
                        ))
                    }),
                }
            };
            let start = field("start", Some(0))?;
            let stop = field("stop", None)?;
            let step = field("step", Some(1))?;
            if step == 0 {
                return invalid(format!("{name}: dimension '{dim}' has step 0"));
            }
            let span = if step > 0 {
                (stop as i128 - start as i128).max(0)
            } else {
                (start as i128 - stop as i128).max(0)
            };
            let step_abs = (step as i128).abs();
            let len = (span + step_abs - 1) / step_abs;
            if len > budget as i128 {
                return invalid(format!(
                    "{name}: dimension '{dim}' has {len} values: more than the {limit} keys a \
                     reference set may generate"
                ));
            }
            Ok((0..len as i64)
                .map(|i| Scalar::Int(start + i * step))
                .collect())
        }
        other => invalid(format!(
            "{name}: dimension '{dim}' is {other}: a list or {{\"start\", \"stop\", \"step\"}} \
             expected"
        )),
    }
}

/// A value a template expression works with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int(i64),
    Str(String),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Int(n) => write!(f, "{n}"),
            Scalar::Str(s) => f.write_str(s),
        }
    }
}

/// `template` with each `{{ expression }}` replaced by its value.
pub fn render(template: &str, vars: &HashMap<String, Scalar>) -> Result<String, JsonError> {
    if template.contains("{%") || template.contains("{#") {
        return Err(JsonError::Unsupported(format!(
            "'{template}' holds a jinja block or comment ({{% %}} or {{# #}}), which is not \
             supported"
        )));
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            return invalid(format!("'{template}': a '{{{{' never closes"));
        };
        let value =
            evaluate(&after[..close], vars).map_err(|e| e.context(&format!("'{template}'")))?;
        out.push_str(&value.to_string());
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A rendered template read as a non-negative integer (Python's `int()` of it).
fn render_integer(template: &str, vars: &HashMap<String, Scalar>) -> Result<u64, JsonError> {
    let text = render(template, vars)?;
    text.trim().parse::<u64>().map_err(|_| {
        JsonError::Invalid(format!(
            "'{template}' renders to '{text}': a non-negative integer below 2^64 expected"
        ))
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Int(i64),
    Str(String),
    Name(String),
    Op(&'static str),
}

fn tokenize(expr: &str) -> Result<Vec<Token>, JsonError> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let n = text
                .parse::<i64>()
                .map_err(|_| JsonError::Invalid(format!("the number {text} is too large")))?;
            tokens.push(Token::Int(n));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            if i == chars.len() {
                return invalid("a string literal never closes");
            }
            tokens.push(Token::Str(chars[start..i].iter().collect()));
            i += 1;
        } else {
            let op = match (c, chars.get(i + 1)) {
                ('/', Some('/')) => "//",
                ('+', _) => "+",
                ('-', _) => "-",
                ('*', _) => "*",
                ('/', _) => "/",
                ('%', _) => "%",
                ('(', _) => "(",
                (')', _) => ")",
                _ => {
                    return Err(JsonError::Unsupported(format!(
                        "'{c}' is not supported in a template expression (names, numbers, \
                         strings, + - * / // % and parentheses are)"
                    )))
                }
            };
            i += op.len();
            tokens.push(Token::Op(op));
        }
    }
    Ok(tokens)
}

/// The value of one `{{ }}` expression.
fn evaluate(expr: &str, vars: &HashMap<String, Scalar>) -> Result<Scalar, JsonError> {
    let tokens = tokenize(expr)?;
    let mut parser = Parser {
        tokens: &tokens,
        pos: 0,
        vars,
        depth: 0,
    };
    let value = parser.sum()?;
    if parser.pos != tokens.len() {
        return invalid(format!("'{}' is not an expression", expr.trim()));
    }
    Ok(value)
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    vars: &'a HashMap<String, Scalar>,
    /// Parentheses nest at most this deep, so that hostile input cannot exhaust the stack.
    depth: u32,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos) {
            Some(Token::Op(op)) => Some(op),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<Scalar, JsonError> {
        let mut left = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek_op() {
            self.pos += 1;
            let right = self.product()?;
            left = arithmetic(op, left, right)?;
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Scalar, JsonError> {
        let mut left = self.unary()?;
        while let Some(op @ ("*" | "/" | "//" | "%")) = self.peek_op() {
            self.pos += 1;
            let right = self.unary()?;
            left = arithmetic(op, left, right)?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Scalar, JsonError> {
        if self.peek_op() == Some("-") {
            self.pos += 1;
            return arithmetic("-", Scalar::Int(0), self.unary()?);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Scalar, JsonError> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        match token {
            Some(Token::Int(n)) => Ok(Scalar::Int(n)),
            Some(Token::Str(s)) => Ok(Scalar::Str(s)),
            Some(Token::Name(name)) => {
                if let Some(Token::Op("(")) = self.tokens.get(self.pos) {
                    return Err(JsonError::Unsupported(format!(
                        "the call '{name}(...)' is not supported in a template expression"
                    )));
                }
                self.vars.get(&name).cloned().ok_or_else(|| {
                    JsonError::Invalid(format!("'{name}' is neither a template nor a dimension"))
                })
            }
            Some(Token::Op("(")) => {
                self.depth += 1;
                if self.depth > 64 {
                    return invalid("parentheses nest too deep");
                }
                let value = self.sum()?;
                self.depth -= 1;
                match self.tokens.get(self.pos) {
                    Some(Token::Op(")")) => {
                        self.pos += 1;
                        Ok(value)
                    }
                    _ => invalid("a '(' never closes"),
                }
            }
            Some(Token::Op(op)) => invalid(format!("unexpected '{op}'")),
            None => invalid("an expression is missing"),
        }
    }
}

fn arithmetic(op: &str, left: Scalar, right: Scalar) -> Result<Scalar, JsonError> {
    let (a, b) = match (&left, &right) {
        (Scalar::Int(a), Scalar::Int(b)) => (*a, *b),
        (Scalar::Str(a), Scalar::Str(b)) if op == "+" => return Ok(Scalar::Str(format!("{a}{b}"))),
        _ => {
            return invalid(format!(
                "'{op}' of {left:?} and {right:?}: integers expected (or two strings for '+')"
            ))
        }
    };
    let overflow = || JsonError::Invalid(format!("{a} {op} {b} overflows"));
    let zero = || JsonError::Invalid(format!("{a} {op} {b}: division by zero"));
    let value = match op {
        "+" => a.checked_add(b).ok_or_else(overflow)?,
        "-" => a.checked_sub(b).ok_or_else(overflow)?,
        "*" => a.checked_mul(b).ok_or_else(overflow)?,
        // Python's floor division and modulo (the sign of the divisor).
        "//" => {
            if b == 0 {
                return Err(zero());
            }
            let q = a.checked_div(b).ok_or_else(overflow)?;
            if (a % b != 0) && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        "%" => {
            if b == 0 {
                return Err(zero());
            }
            let r = a.checked_rem(b).ok_or_else(overflow)?;
            if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
        // True division: exact results only (a fraction would render as a float, which
        // no key, URL, offset or length can use).
        "/" => {
            if b == 0 {
                return Err(zero());
            }
            if a.checked_rem(b) != Some(0) {
                return Err(JsonError::Unsupported(format!(
                    "{a} / {b} is not an integer: use // for integer division"
                )));
            }
            a / b
        }
        _ => unreachable!("only arithmetic operators reach here"),
    };
    Ok(Scalar::Int(value))
}
