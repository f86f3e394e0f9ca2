/**
 * src/generated/openapi.ts is what openapi-typescript makes of spec/openapi.json today: a change
 * to the REST API that was not regenerated (`npm run generate -w @hark/server`) fails here.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { outputUrl, render } from '../scripts/generate.mjs'

describe('@hark/server generated types', () => {
  it('match spec/openapi.json', async () => {
    const committed = await readFile(outputUrl, 'utf8')
    const fresh = await render()
    expect(committed === fresh, 'sdk/server/src/generated/openapi.ts is stale: run npm run generate -w @hark/server').toBe(true)
  }, 60_000)
})
