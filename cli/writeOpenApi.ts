/**
 * Regenerates spec/openapi.json from the route schemas: starts an engine with the REST plugin on
 * a temporary data dir and a free port, fetches GET /api/v1/openapi.json and writes it, formatted.
 * Run with `npm run spec:openapi` after changing a route.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEngine } from '../core/engine.js'
import { webhooksPlugin } from '../plugins/webhooks/index.js'
import { API_PREFIX, restPlugin } from '../plugins/rest/index.js'

/** The document as served by an engine at default settings. */
export const renderOpenApiDocument = async (): Promise<string> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hark-openapi-'))
  const engine = createEngine({
    dataDir,
    log: { level: 'silent' },
    rest: { port: 0 },
    extensions: [restPlugin, webhooksPlugin],
  })
  try {
    await engine.start()
    const res = await fetch(`http://127.0.0.1:${engine.ports.rest}${API_PREFIX}/openapi.json`)
    if (!res.ok) throw new Error(`GET openapi.json answered ${res.status}`)
    return `${JSON.stringify(await res.json(), null, 2)}\n`
  } finally {
    await engine.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  // dist/cli/writeOpenApi.js → the repository root is two folders up.
  const file = fileURLToPath(new URL('../../spec/openapi.json', import.meta.url))
  writeFileSync(file, await renderOpenApiDocument())
  process.stdout.write(`wrote ${file}\n`)
}
