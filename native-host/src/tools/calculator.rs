//! `calculator`: arithmetic on f64 through the `exmex` expression parser.

use super::args::Args;
use super::{BuiltinTool, ToolContext, RISK_READ};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use exmex::prelude::*;
use exmex::{BinOp, FloatOpsFactory, MakeOperators, Operator};
use serde_json::{json, Value};

/// Longer expressions are refused rather than parsed.
const MAX_EXPRESSION_CHARS: usize = 1000;

/// exmex's float operators plus `%` (remainder), which it does not have for floats.
#[derive(Clone, Debug)]
struct CalcOps;

impl MakeOperators<f64> for CalcOps {
    fn make<'a>() -> Vec<Operator<'a, f64>> {
        let mut ops = FloatOpsFactory::<f64>::make();
        ops.push(Operator::make_bin(
            "%",
            BinOp {
                apply: |a, b| a % b,
                // Same priority as `/` in FloatOpsFactory.
                prio: 3,
                is_commutative: false,
            },
        ));
        ops
    }
}

/// Evaluates arithmetic expressions.
pub(crate) struct Calculator;

#[async_trait]
impl BuiltinTool for Calculator {
    fn name(&self) -> &'static str {
        "calculator"
    }
    fn description(&self) -> &'static str {
        "Evaluate an arithmetic expression exactly as written, e.g. '2+3*4' or \
         'sqrt(2)^2 + sin(PI/2)'. Operators: + - * / % ^ (also ** × ÷), parentheses; \
         functions: sqrt cbrt abs exp ln log2 log10 sin cos tan asin acos atan floor ceil round \
         min max; constants PI E TAU."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "expression": {"type": "string", "description": "The expression to evaluate"}
            },
            "required": ["expression"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let result = Args::new(args)
            .and_then(|a| a.string("expression"))
            .and_then(|expr| evaluate(&expr).map(|v| (expr, v)));
        match result {
            Ok((expr, value)) => {
                let shown = format_number(value);
                let mut out = ToolOutput::text(format!("{} = {shown}", expr.trim()));
                out.structured_content = Some(json!({"result": value}));
                out
            }
            Err(msg) => ToolOutput::error(msg),
        }
    }
}

/// The value of `expression`, or a message saying why there is none.
pub(crate) fn evaluate(expression: &str) -> Result<f64, String> {
    let expr = expression.trim();
    if expr.is_empty() {
        return Err("the expression is empty".into());
    }
    if expr.chars().count() > MAX_EXPRESSION_CHARS {
        return Err(format!(
            "the expression is longer than {MAX_EXPRESSION_CHARS} characters"
        ));
    }
    let normalised = expr.replace("**", "^").replace('×', "*").replace('÷', "/");
    let parsed = FlatEx::<f64, CalcOps>::parse(&normalised)
        .map_err(|e| format!("cannot evaluate {expr:?}: {}", e.msg()))?;
    if !parsed.var_names().is_empty() {
        return Err(format!(
            "cannot evaluate {expr:?}: unknown name(s) {} (only numbers, operators, functions \
             such as sqrt and constants PI, E, TAU are understood)",
            parsed.var_names().join(", ")
        ));
    }
    let value = parsed
        .eval(&[])
        .map_err(|e| format!("cannot evaluate {expr:?}: {}", e.msg()))?;
    if !value.is_finite() {
        return Err(format!(
            "{expr:?} has no finite value (division by zero or overflow?)"
        ));
    }
    Ok(value)
}

/// Whole numbers without a fraction, others with up to 12 significant decimals.
pub(crate) fn format_number(value: f64) -> String {
    if value == value.trunc() && value.abs() < 1e15 {
        // `-0` reads oddly; `value + 0.0` turns it into `0`.
        return format!("{}", (value + 0.0) as i64);
    }
    let text = format!("{value:.12}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "0" || text == "-0" {
        // Tiny values would vanish at 12 decimals; show them in scientific notation.
        return format!("{value:e}");
    }
    text.to_owned()
}
