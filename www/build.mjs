// Copies what the browser needs of the npm package (built by scripts/build-pkg into pkg/) into
// www/vendor/agentwire/, so www/ is a self-contained static site any static server can serve.
//
//   node build.mjs            uses ../pkg (or $AW_PKG_DIR)
//
// Only the files the package ships (its package.json "files") that a browser loads are copied:
// the Node entry point, type declarations and docs stay behind.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = resolve(process.env.AW_PKG_DIR ?? join(here, '..', 'pkg'));
const outDir = join(here, 'vendor', 'agentwire');

function die(message) {
  console.error(`www/build.mjs: ${message}`);
  process.exit(1);
}

if (!existsSync(join(pkgDir, 'package.json'))) {
  die(`no npm package at ${pkgDir}; run scripts/build-pkg first (or scripts/serve-www, which does)`);
}
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

/** Files under `dir`, as paths relative to the package. */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [relative(pkgDir, path)];
  });
}

// The package's "files" globs are simple (`*.js`, `lib/*.js`, names): match them directly.
const globs = (manifest.files ?? ['*']).map(
  (g) => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`),
);
const serverOnly = new Set(['node.js', 'server.js', 'workerd.js', 'README.md', 'package.json']);
const wanted = walk(pkgDir).filter(
  (f) => globs.some((g) => g.test(f)) && !serverOnly.has(f) && !f.endsWith('.d.ts') && /\.(m?js|wasm)$/.test(f),
);
for (const need of ['index.js', 'agentwire_bg.wasm', 'agentwire_mocks_bg.wasm']) {
  if (!wanted.includes(need)) die(`the package in ${pkgDir} has no ${need}; is it a browser build?`);
}

rmSync(outDir, { recursive: true, force: true });
for (const file of wanted) {
  mkdirSync(dirname(join(outDir, file)), { recursive: true });
  cpSync(join(pkgDir, file), join(outDir, file));
}
console.log(`www/build.mjs: copied ${wanted.length} files of agentwire ${manifest.version} from ${relative(process.cwd(), pkgDir) || '.'} to ${relative(process.cwd(), outDir)}`);
