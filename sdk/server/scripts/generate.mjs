// Generates src/generated/openapi.ts from the engine's OpenAPI document with openapi-typescript.
// `node scripts/generate.mjs --write` rewrites it (npm run generate); test/generated.test.ts
// compares render() with the file, so a stale file fails the tests.
import { readFile, writeFile } from 'node:fs/promises'
import openapiTS, { astToString } from 'openapi-typescript'

export const specUrl = new URL('../../../spec/openapi.json', import.meta.url)
export const outputUrl = new URL('../src/generated/openapi.ts', import.meta.url)

const header = `/**
 * Types of the Hark REST API and its webhook events, generated from spec/openapi.json by
 * openapi-typescript. Do not edit: run \`npm run generate -w @hark/server\`.
 */
`

/** The file's text as the generator makes it from the document on disk now. */
export const render = async () => {
  const document = JSON.parse(await readFile(specUrl, 'utf8'))
  return header + astToString(await openapiTS(document, { alphabetize: false }))
}

if (process.argv.includes('--write')) {
  await writeFile(outputUrl, await render())
  console.log(`wrote ${outputUrl.pathname}`)
}
