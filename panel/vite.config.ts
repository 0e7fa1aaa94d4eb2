/**
 * Builds the web panel into panel/dist (never committed): `npm run build:panel`, run by `npm install` / `npm ci`
 * through the `prepare` script, so vite and the panel's libraries are regular dependencies (a production
 * `npm ci --omit=dev` must end with a working panel too). The server serves panel/dist at `/`.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  // Preact's automatic JSX runtime: no React, no extra plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Hashed file names under /assets/ are cached for a year by the server; index.html is revalidated.
    assetsDir: 'assets',
    sourcemap: false,
  },
});
