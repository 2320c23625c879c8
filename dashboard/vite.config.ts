import path from 'node:path';
import { defineConfig } from 'vite';

/**
 * The dashboard's build: served by the api at /dashboard/ (src/dashboard/), so every asset URL
 * starts there; Preact's JSX through esbuild, no Babel. Everything is bundled: no CDN.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true },
  server: { fs: { allow: [path.resolve(import.meta.dirname, '..')] } },
});
