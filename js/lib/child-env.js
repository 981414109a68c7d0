// The environment agentwire gives the processes it starts in Node (stdio MCP servers, command
// hooks): the short list the CLI gives them, so the host's secrets (a model key, a token in
// `process.env`) reach no child that did not ask for them by name.

/** What a child inherits of the host's environment: the CLI's list (native-host INHERITED_ENV). */
export const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'TZ'];

/** The inherited part of `process.env`, as a new object the caller adds its own variables to. */
export function inheritedEnv() {
  const env = {};
  for (const key of INHERITED_ENV) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}
