/**
 * Build of the console's single-page app: Preact through Vite, JSX compiled by Oxc, everything
 * bundled into dist/plugins/console/bundle (shipped in the package; the engine serves it, no CDN).
 * The build ends by printing the bundle's gzipped size against the 200 KB goal.
 */
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const GOAL_BYTES = 200 * 1024

/** Print the gzipped size of everything the browser downloads. */
const reportGzippedSize = (): Plugin => ({
  name: 'hark-console-size',
  apply: 'build',
  writeBundle(_options, bundle) {
    let total = 0
    let files = 0
    for (const item of Object.values(bundle)) {
      const source = item.type === 'chunk' ? item.code : item.source
      total += gzipSync(typeof source === 'string' ? Buffer.from(source) : Buffer.from(source)).length
      files++
    }
    const kb = (total / 1024).toFixed(1)
    const verdict = total <= GOAL_BYTES ? 'within' : 'OVER'
    process.stdout.write(`console bundle: ${files} files, ${kb} KB gzipped (${verdict} the ${GOAL_BYTES / 1024} KB goal)\n`)
  },
})

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/plugins/console/bundle', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  plugins: [reportGzippedSize()],
})
