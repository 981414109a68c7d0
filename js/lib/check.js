// Argument checking for the public API: every complaint names the function, the argument and
// what was expected, and says what was given instead.

/** A short description of a value for error messages: `a string "x"`, `an array`, `null`... */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `a string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `the number ${value}`;
    case 'object':
      return 'an object';
    case 'undefined':
      return 'undefined';
    default:
      return `a ${typeof value}`;
  }
}

/** Throws a TypeError `where: message`. */
export function fail(where, message) {
  throw new TypeError(`${where}: ${message}`);
}

export function isPlainObject(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` must be an object (or undefined, read as `{}`) whose keys are all in `allowed`. */
export function options(where, value, allowed, what = 'options') {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(where, `${what} must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(where, `unknown option "${key}" in ${what} (known: ${allowed.join(', ')})`);
    }
  }
  return value;
}

export function nonEmptyString(where, name, value) {
  if (value === undefined) fail(where, `"${name}" is required (a non-empty string)`);
  if (typeof value !== 'string' || value.length === 0) {
    fail(where, `"${name}" must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

export function optionalString(where, name, value) {
  if (value !== undefined && typeof value !== 'string') {
    fail(where, `"${name}" must be a string, got ${describe(value)}`);
  }
  return value;
}

export function optionalFunction(where, name, value) {
  if (value !== undefined && typeof value !== 'function') {
    fail(where, `"${name}" must be a function, got ${describe(value)}`);
  }
  return value;
}

/** A whole number ≥ `min` (or undefined). */
export function optionalCount(where, name, value, min = 0) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(where, `"${name}" must be a whole number of at least ${min}, got ${describe(value)}`);
  }
  return value;
}

export function optionalStrings(where, name, value) {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    fail(where, `"${name}" must be an array of strings, got ${describe(value)}`);
  }
  return value;
}

/** The message of whatever was thrown. */
export function messageOf(error) {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
