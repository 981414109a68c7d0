//! `calculator`: arithmetic on f64 (the evaluator is [`super::arith`]).

use super::args::Args;
use super::{BuiltinTool, ToolContext, RISK_READ};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use serde_json::{json, Value};

/// Longer expressions are refused rather than parsed.
const MAX_EXPRESSION_CHARS: usize = 1000;

/// Evaluates arithmetic expressions.
pub(crate) struct Calculator;

#[async_trait]
impl BuiltinTool for Calculator {
    fn name(&self) -> &'static str {
        "calculator"
    }
    fn description(&self) -> &'static str {
        "Evaluate an arithmetic expression exactly as written, e.g. '2+3*4' or \
         'sqrt(2)^2 + sin(PI/2)'. Operators: + - * / % ^ (also ** × ÷; ^ is right-associative \
         and binds tighter than a leading minus: -2^2 = -4), parentheses, numbers such as 1.5e3; \
         functions: sqrt cbrt abs exp ln log2 log10 sin cos tan asin acos atan sinh cosh tanh \
         floor ceil round min max; constants PI E TAU."
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
    let value = super::arith::eval(expr).map_err(|e| format!("cannot evaluate {expr:?}: {e}"))?;
    if !value.is_finite() {
        return Err(format!(
            "{expr:?} has no finite value (division by zero, overflow, or outside a function's \
             domain such as sqrt(-1))"
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
