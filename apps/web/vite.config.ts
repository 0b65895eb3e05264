// The page is static files (`vite build` → dist/), with relative URLs so that it works from any folder
// of any static host. Workspace packages are bundled from their TypeScript sources (the `source` export
// condition, as the tests use them), so the page needs no build of the packages first.
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';

/**
 * The dev server only: its live-reload client talks to the server over a WebSocket and injects the CSS
 * as <style> elements, which the page's policy forbids. The built page keeps the strict policy; in the
 * dev server the worker is also loaded from its own URL (not a blob:), so it runs without a policy.
 */
function devPolicy(): Plugin {
  return {
    name: 'x-web-dev-policy',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html.replace(/(http-equiv="Content-Security-Policy"\s+content="[^"]*)/, (csp) =>
        csp
          .replace("connect-src 'none'", "connect-src 'self' ws: wss:")
          .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
      ),
  };
}

export default defineConfig({
  base: './',
  resolve: {
    conditions: ['source', ...defaultClientConditions],
  },
  // One file: the worker runs from a blob: URL, from which chunks could not be loaded. The worker holds the
  // key derivation worker of @x/tcrypt the same way (`?worker&inline` in ./src/worker.ts); its code is
  // minified without `compress`, which would fold Vite's fallback `encodeURIComponent(jsContent)` (the
  // data: URL for where Blob is missing) into a second, percent-encoded copy of that worker (≈300 kB).
  worker: {
    format: 'es',
    rolldownOptions: { output: { codeSplitting: false, minify: { compress: false, mangle: true } } },
  },
  // One script of about 870 kB (the worker, with every format and kernel and the KDF worker, is inside it): expected.
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  plugins: [devPolicy()],
});
