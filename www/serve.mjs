// A tiny static file server for www/: GET and HEAD only, correct MIME types (including
// application/wasm, which WebAssembly.instantiateStreaming requires), no directory listings,
// nothing outside the served folder. Binds 127.0.0.1 only.
//
//   node serve.mjs [PORT] [ROOT]     PORT defaults to 8080 ($PORT), ROOT to this folder
//
// Also usable from tests: `startServer({ port: 0 })` resolves to { server, url }.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/** The file for a request path inside `root`, or null (outside the root, or no such file). */
function resolvePath(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  let file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    if (statSync(file).isDirectory()) file = join(file, 'index.html');
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Starts the server; resolves once it listens. */
export function startServer({ port = 8080, root = HERE, host = '127.0.0.1', log = false } = {}) {
  const base = resolve(root);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const file = resolvePath(base, req.url ?? '/');
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      if (log) console.log(`404 ${req.url}`);
      return;
    }
    const { size } = statSync(file);
    res.writeHead(200, {
      'content-type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': size,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
    if (log) console.log(`200 ${req.url}`);
  });
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolveListen({ server, url: `http://${host}:${actual}/` });
    });
  });
}

// Run directly: serve until interrupted.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve.mjs: the port must be a number from 0 to 65535, got "${process.argv[2]}"`);
    process.exit(2);
  }
  const root = process.argv[3] ?? HERE;
  startServer({ port, root }).then(
    ({ url }) => console.log(`Serving ${resolve(root)} at ${url} (Ctrl+C to stop)`),
    (error) => {
      console.error(`serve.mjs: cannot listen on 127.0.0.1:${port}: ${error.message}`);
      process.exit(1);
    },
  );
}
