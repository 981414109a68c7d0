//! calculator and get_weather.

use super::Fixture;
use crate::tools::calculator::{evaluate, format_number};
use serde_json::json;

#[tokio::test]
async fn calculator_follows_precedence() {
    let fx = Fixture::new();
    assert_eq!(
        fx.ok("calculator", json!({"expression": "2+3*4"})).await,
        "2+3*4 = 14"
    );
    let out = fx
        .call("calculator", json!({"expression": "(2+3)*4"}))
        .await;
    assert_eq!(out.to_model_text(), "(2+3)*4 = 20");
    assert_eq!(out.structured_content.unwrap()["result"], 20.0);
}

#[test]
fn calculator_operators_functions_and_formatting() {
    let cases = [
        ("10-4-3", 3.0),
        ("2*3-8/4", 4.0),
        ("7/2", 3.5),
        ("2^10", 1024.0),
        ("2**3", 8.0),
        ("-3+5", 2.0),
        ("17 % 5", 2.0),
        ("6×7", 42.0),
        ("9÷3", 3.0),
        ("sqrt(16)+abs(-2)", 6.0),
        ("max(3, 8) - min(3, 8)", 5.0),
        ("1/3*3", 1.0),
        ("100/10/5", 2.0),
        ("2*(3+(4-1))", 12.0),
        // Right-associative powers, a leading minus below `^`, scientific notation.
        ("2^3^2", 512.0),
        ("-2^2", -4.0),
        ("1e3", 1000.0),
        ("2.5E-2", 0.025),
    ];
    for (expr, want) in cases {
        let got = evaluate(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert!((got - want).abs() < 1e-9, "{expr} = {got}, want {want}");
    }
    assert!((evaluate("PI").unwrap() - std::f64::consts::PI).abs() < 1e-12);
    assert_eq!(format_number(14.0), "14");
    assert_eq!(format_number(-0.0), "0");
    assert_eq!(format_number(3.5), "3.5");
    assert_eq!(format_number(1.0 / 3.0), "0.333333333333");
    assert_eq!(format_number(1e-20), "1e-20");
    assert_eq!(format_number(1e20), "100000000000000000000");
}

#[tokio::test]
async fn calculator_rejects_bad_expressions_without_panicking() {
    let fx = Fixture::new();
    for (expr, needle) in [
        ("2+", "cannot evaluate \"2+\""),
        ("", "the expression is empty"),
        ("x + 1", "unknown name \"x\" at position 1"),
        ("1/0", "no finite value"),
        ("sqrt(-1)", "no finite value"),
        ("rm -rf /", "cannot evaluate"),
    ] {
        let msg = fx.err("calculator", json!({"expression": expr})).await;
        assert!(msg.contains(needle), "{expr:?}: {msg}");
    }
    let long = "1+".repeat(600) + "1";
    let msg = fx.err("calculator", json!({"expression": long})).await;
    assert!(msg.contains("longer than 1000 characters"), "{msg}");
    // Garbage of many shapes: each must come back as a result, not a panic.
    // Each gets our own message naming the position or token, never a parser's internals.
    for junk in [
        "((((",
        "))",
        "2 3",
        "*",
        "()",
        "sin",
        "1e",
        "..5",
        "2^^3",
        "--",
        "%%",
        "1,2",
        "🙂",
        "1e3e",
        "max(1,2,3",
        "3!",
    ] {
        let msg = fx.err("calculator", json!({"expression": junk})).await;
        assert!(
            msg.starts_with(&format!("cannot evaluate {junk:?}: "))
                && (msg.contains(" at position ") || msg.contains("the end of the expression")),
            "{junk:?}: {msg}"
        );
        assert!(!msg.contains("node") && !msg.contains("violated"), "{msg}");
    }
}

#[tokio::test]
async fn weather_in_english_and_chinese() {
    let fx = Fixture::new();
    let en = fx.call("get_weather", json!({"city": "Beijing"})).await;
    assert!(!en.is_error);
    let text = en.to_model_text();
    assert!(text.starts_with("Beijing: sunny, 22°C"), "{text}");
    assert!(text.contains("not live"));
    let zh = fx.ok("get_weather", json!({"city": "北京"})).await;
    assert!(zh.starts_with("北京：晴，气温 22°C"), "{zh}");
    assert_eq!(
        en.structured_content.as_ref().unwrap()["temperature"],
        22,
        "same data in both languages"
    );
    assert!(fx
        .ok("get_weather", json!({"city": "上海市"}))
        .await
        .starts_with("上海："));
    assert!(fx
        .ok("get_weather", json!({"city": "  new york city "}))
        .await
        .starts_with("New York:"));
    assert!(fx
        .ok("get_weather", json!({"city": "TOKYO"}))
        .await
        .starts_with("Tokyo:"));
    assert!(fx
        .ok("get_weather", json!({"city": "Paris"}))
        .await
        .starts_with("Paris:"));
    assert!(fx
        .ok("get_weather", json!({"city": "伦敦"}))
        .await
        .starts_with("伦敦："));
    let f = fx
        .ok(
            "get_weather",
            json!({"city": "London", "unit": "fahrenheit"}),
        )
        .await;
    assert!(f.contains("55°F"), "13°C is 55°F: {f}");

    let msg = fx.err("get_weather", json!({"city": "Atlantis"})).await;
    assert!(msg.contains("no weather data for \"Atlantis\""), "{msg}");
    assert!(msg.contains("Beijing/北京"), "{msg}");
    let msg = fx.err("get_weather", json!({"city": "火星"})).await;
    assert!(msg.starts_with("没有“火星”的天气数据"), "{msg}");
    let msg = fx
        .err("get_weather", json!({"city": "Paris", "unit": "kelvin"}))
        .await;
    assert!(msg.contains("unit must be"), "{msg}");
}
