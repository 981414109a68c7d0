// The page's own tools, written in JS and registered with `agent.registerTool`. The mock model
// knows how to call both ("calculate 2+3*4", "weather in Paris").
//
// - `calculator` only computes, so its risk is `read`: it runs without asking.
// - `get_weather` asks api.open-meteo.com (free, no key), so its risk is `network`: the
//   permission gate asks before each call, and declining means no request leaves the page.

/** Open-Meteo's endpoints (CORS-enabled, no key). */
export const GEOCODING_URL = 'https://geocoding-api.open-meteo.com/v1/search';
export const FORECAST_URL = 'https://api.open-meteo.com/v1/forecast';

/** The page's tool definitions, in the shape `createAgent({ tools })` takes. */
export function pageTools() {
  return [
    {
      name: 'calculator',
      description: 'Evaluates an arithmetic expression: + - * / ^ (power), % (modulo, or percent after a number), parentheses, decimals.',
      inputSchema: {
        type: 'object',
        properties: { expression: { type: 'string', description: 'For example "2+3*4" or "(1.5+2)^2"' } },
        required: ['expression'],
      },
      risk: 'read',
      execute: ({ expression }) => {
        if (typeof expression !== 'string') throw new Error('"expression" must be a string');
        return { expression, result: formatNumber(evaluate(expression)) };
      },
    },
    {
      name: 'get_weather',
      description: 'Current weather for a city, from open-meteo.com (a network request).',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name, e.g. "Paris" or "北京"' } },
        required: ['city'],
      },
      risk: 'network',
      execute: ({ city }, { signal }) => weather(city, signal),
    },
  ];
}

// ---- calculator ----

/** Evaluates an arithmetic expression with a small recursive-descent parser (no `eval`). */
export function evaluate(source) {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (value) => {
    if (tokens[pos] === value) {
      pos += 1;
      return true;
    }
    return false;
  };
  // sum := product (('+' | '-') product)*
  const sum = () => {
    let value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('-')) value -= product();
      else return value;
    }
  };
  // product := unary (('*' | '/' | '%') unary)*
  const product = () => {
    let value = unary();
    for (;;) {
      if (take('*')) value *= unary();
      else if (take('/')) {
        const d = unary();
        if (d === 0) throw new Error('division by zero');
        value /= d;
      } else if (take('%')) value %= unary();
      else return value;
    }
  };
  // unary := ('-' | '+') unary | power   (so -2^2 is -(2^2), as in mathematics)
  const unary = () => {
    if (take('-')) return -unary();
    if (take('+')) return unary();
    return power();
  };
  // power := atom ('^' unary)?   (right-associative: 2^3^2 is 2^9)
  const power = () => {
    const base = atom();
    return take('^') ? base ** unary() : base;
  };
  // atom := number '%'? | '(' sum ')'
  const atom = () => {
    const t = peek();
    if (typeof t === 'number') {
      pos += 1;
      // "50%" is a percentage when no operand follows the sign.
      const next = tokens[pos + 1];
      if (tokens[pos] === '%' && (next === undefined || (typeof next !== 'number' && next !== '('))) {
        pos += 1;
        return t / 100;
      }
      return t;
    }
    if (take('(')) {
      const value = sum();
      if (!take(')')) throw new Error('missing ")"');
      return value;
    }
    throw new Error(t === undefined ? 'the expression ends too early' : `unexpected "${t}"`);
  };
  if (!tokens.length) throw new Error('empty expression');
  const value = sum();
  if (pos < tokens.length) throw new Error(`unexpected "${tokens[pos]}"`);
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number');
  return value;
}

function tokenize(source) {
  const text = source.replace(/×/g, '*').replace(/÷/g, '/').replace(/（/g, '(').replace(/）/g, ')').replace(/\*\*/g, '^');
  const tokens = [];
  const re = /\s*(?:(\d+(?:\.\d*)?|\.\d+)|([-+*/%^()]))/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) {
      const rest = text.slice(at).trim();
      if (rest) throw new Error(`unexpected "${rest[0]}" in the expression`);
      break;
    }
    tokens.push(m[1] !== undefined ? Number(m[1]) : m[2]);
    at = re.lastIndex;
  }
  return tokens;
}

function formatNumber(value) {
  // 0.1+0.2 prints as 0.3, not 0.30000000000000004.
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}

// ---- weather ----

const WMO = {
  0: 'clear sky', 1: 'mainly clear', 2: 'partly cloudy', 3: 'overcast', 45: 'fog', 48: 'rime fog',
  51: 'light drizzle', 53: 'drizzle', 55: 'dense drizzle', 56: 'freezing drizzle', 57: 'freezing drizzle',
  61: 'light rain', 63: 'rain', 65: 'heavy rain', 66: 'freezing rain', 67: 'freezing rain',
  71: 'light snow', 73: 'snow', 75: 'heavy snow', 77: 'snow grains', 80: 'rain showers',
  81: 'rain showers', 82: 'violent rain showers', 85: 'snow showers', 86: 'heavy snow showers',
  95: 'thunderstorm', 96: 'thunderstorm with hail', 99: 'thunderstorm with heavy hail',
};

async function getJson(url, signal) {
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    throw new Error(`could not reach ${new URL(url).host} (${error?.message ?? error}); is the network up?`);
  }
  if (!response.ok) throw new Error(`${new URL(url).host} answered HTTP ${response.status}`);
  return response.json();
}

async function weather(city, signal) {
  if (typeof city !== 'string' || !city.trim()) throw new Error('"city" must be a non-empty string');
  const language = /[\u3400-\u9fff]/.test(city) ? 'zh' : 'en';
  const geo = new URL(GEOCODING_URL);
  geo.search = new URLSearchParams({ name: city.trim(), count: '1', language, format: 'json' });
  const place = (await getJson(geo, signal)).results?.[0];
  if (!place) throw new Error(`no place called "${city}" was found`);
  const forecast = new URL(FORECAST_URL);
  forecast.search = new URLSearchParams({
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    current: 'temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m',
    timezone: 'auto',
  });
  const data = await getJson(forecast, signal);
  const now = data.current ?? {};
  const units = data.current_units ?? {};
  const withUnit = (key) => (now[key] === undefined ? undefined : `${now[key]} ${units[key] ?? ''}`.trim());
  return {
    city: place.name,
    country: place.country,
    conditions: WMO[now.weather_code] ?? `WMO code ${now.weather_code}`,
    temperature: withUnit('temperature_2m'),
    humidity: withUnit('relative_humidity_2m'),
    wind: withUnit('wind_speed_10m'),
    observed: now.time,
    source: 'open-meteo.com',
  };
}
