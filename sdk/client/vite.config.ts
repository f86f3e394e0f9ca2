/**
 * The browser bundle of @hark/client as a bundler makes it (Vite, minified, ES modules): the entry
 * with the WebRTC path, and the WebCodecs path as the separate chunk a WebSocket session in a
 * browser loads. `npm run size -w @hark/client` builds it into dist-browser/ and prints both sizes
 * gzipped against the 25 KB goal for the entry.
 */
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const GOAL_BYTES = 25 * 1024

const reportGzippedSize = (): Plugin => ({
  name: 'hark-client-size',
  apply: 'build',
  writeBundle(_options, bundle) {
    for (const item of Object.values(bundle)) {
      if (item.type !== 'chunk') continue
      const gz = gzipSync(Buffer.from(item.code)).length
      const what = item.isEntry ? `entry (goal ${GOAL_BYTES / 1024} KB: ${gz <= GOAL_BYTES ? 'within' : 'OVER'})` : 'lazy chunk'
      process.stdout.write(`@hark/client ${item.fileName}: ${(item.code.length / 1024).toFixed(1)} KB minified, ${(gz / 1024).toFixed(1)} KB gzipped — ${what}\n`)
    }
  },
})

export default defineConfig({
  logLevel: 'warn',
  build: {
    lib: { entry: fileURLToPath(new URL('./src/index.ts', import.meta.url)), formats: ['es'], fileName: 'hark-client' },
    outDir: fileURLToPath(new URL('./dist-browser', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    reportCompressedSize: false,
  },
  plugins: [reportGzippedSize()],
})
