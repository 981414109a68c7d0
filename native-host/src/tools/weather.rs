//! `get_weather`: canned, offline weather for a handful of cities, for demos and tests.
//!
//! The data is fixed on purpose: runs are reproducible and need no network. Cities can be named
//! in English or Chinese; the answer comes in the language of the question.

use super::args::Args;
use super::{BuiltinTool, ToolContext, RISK_READ};
use agentwire::content::ToolOutput;
use async_trait::async_trait;
use serde_json::{json, Value};

struct City {
    en: &'static str,
    zh: &'static str,
    /// Extra accepted spellings, lower-case.
    aliases: &'static [&'static str],
    condition_en: &'static str,
    condition_zh: &'static str,
    temp_c: i32,
    humidity: u32,
    wind_kph: u32,
}

const CITIES: &[City] = &[
    City {
        en: "Beijing",
        zh: "北京",
        aliases: &["peking"],
        condition_en: "sunny",
        condition_zh: "晴",
        temp_c: 22,
        humidity: 35,
        wind_kph: 12,
    },
    City {
        en: "Shanghai",
        zh: "上海",
        aliases: &[],
        condition_en: "light rain",
        condition_zh: "小雨",
        temp_c: 19,
        humidity: 82,
        wind_kph: 18,
    },
    City {
        en: "Guangzhou",
        zh: "广州",
        aliases: &["canton"],
        condition_en: "humid and cloudy",
        condition_zh: "多云，潮湿",
        temp_c: 28,
        humidity: 88,
        wind_kph: 9,
    },
    City {
        en: "Paris",
        zh: "巴黎",
        aliases: &[],
        condition_en: "partly cloudy",
        condition_zh: "多云",
        temp_c: 16,
        humidity: 60,
        wind_kph: 14,
    },
    City {
        en: "London",
        zh: "伦敦",
        aliases: &[],
        condition_en: "overcast with drizzle",
        condition_zh: "阴，有毛毛雨",
        temp_c: 13,
        humidity: 78,
        wind_kph: 20,
    },
    City {
        en: "New York",
        zh: "纽约",
        aliases: &["new york city", "nyc", "ny"],
        condition_en: "clear",
        condition_zh: "晴朗",
        temp_c: 18,
        humidity: 50,
        wind_kph: 16,
    },
    City {
        en: "Tokyo",
        zh: "东京",
        aliases: &["東京"],
        condition_en: "cloudy",
        condition_zh: "阴",
        temp_c: 20,
        humidity: 65,
        wind_kph: 11,
    },
    City {
        en: "Sydney",
        zh: "悉尼",
        aliases: &[],
        condition_en: "windy and sunny",
        condition_zh: "晴，有风",
        temp_c: 24,
        humidity: 55,
        wind_kph: 30,
    },
];

/// Returns canned weather for a city.
pub(crate) struct GetWeather;

#[async_trait]
impl BuiltinTool for GetWeather {
    fn name(&self) -> &'static str {
        "get_weather"
    }
    fn description(&self) -> &'static str {
        "Get the current weather for a city (canned demo data, offline; not a live forecast). \
         Accepts English or Chinese city names, e.g. 'Beijing' or '北京'."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name in English or Chinese"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit (default celsius)"}
            },
            "required": ["city"]
        })
    }
    fn risk(&self) -> &'static str {
        RISK_READ
    }
    async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        weather(args).unwrap_or_else(ToolOutput::error)
    }
}

fn find_city(query: &str) -> Option<&'static City> {
    let q = query.trim();
    let q = q.strip_suffix('市').unwrap_or(q).trim();
    let lower = q.to_lowercase();
    let lower = lower.strip_suffix(" city").unwrap_or(&lower);
    CITIES
        .iter()
        .find(|c| c.en.to_lowercase() == lower || c.zh == q || c.aliases.contains(&lower))
}

fn weather(args: Value) -> Result<ToolOutput, String> {
    let args = Args::new(args)?;
    let query = args.string("city")?;
    let fahrenheit = match args.opt_string("unit")?.as_deref() {
        None | Some("celsius") | Some("c") => false,
        Some("fahrenheit") | Some("f") => true,
        Some(other) => {
            return Err(format!(
                "unit must be \"celsius\" or \"fahrenheit\", got {other:?}"
            ))
        }
    };
    // Answer in Chinese when the question used Chinese characters.
    let chinese = query
        .chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    let Some(city) = find_city(&query) else {
        let known: Vec<String> = CITIES
            .iter()
            .map(|c| format!("{}/{}", c.en, c.zh))
            .collect();
        return Err(if chinese {
            format!(
                "没有“{}”的天气数据。可查询的城市：{}",
                query.trim(),
                known.join("、")
            )
        } else {
            format!(
                "no weather data for {:?}; known cities: {}",
                query.trim(),
                known.join(", ")
            )
        });
    };
    let (temp, unit) = if fahrenheit {
        (city.temp_c * 9 / 5 + 32, "°F")
    } else {
        (city.temp_c, "°C")
    };
    let text = if chinese {
        format!(
            "{}：{}，气温 {temp}{unit}，湿度 {}%，风速 {} 公里/小时（演示数据，非实时）",
            city.zh, city.condition_zh, city.humidity, city.wind_kph
        )
    } else {
        format!(
            "{}: {}, {temp}{unit}, humidity {}%, wind {} km/h (canned demo data, not live)",
            city.en, city.condition_en, city.humidity, city.wind_kph
        )
    };
    let mut out = ToolOutput::text(text);
    out.structured_content = Some(json!({
        "city": city.en,
        "city_zh": city.zh,
        "condition": city.condition_en,
        "temperature": temp,
        "unit": if fahrenheit { "fahrenheit" } else { "celsius" },
        "humidity_percent": city.humidity,
        "wind_kph": city.wind_kph,
        "source": "canned",
    }));
    Ok(out)
}
