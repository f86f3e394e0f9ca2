import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import formatsPlugin from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../core/test/helpers.js'
import { WEBHOOK_EVENT_TYPES, webhookEventSpecs } from '../../core/webhooks/events.js'

const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020
const markdown = readFileSync(join(repoRoot, 'spec/webhooks.md'), 'utf8')
const openapi = JSON.parse(readFileSync(join(repoRoot, 'spec/openapi.json'), 'utf8')) as {
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>
}

/** The JSON block under the `### \`type\`` heading of spec/webhooks.md. */
const exampleOf = (type: string): unknown => {
  const section = markdown.split(/^### /m).find((s) => s.startsWith(`\`${type}\`\n`))
  const json = section && /```json\n([\s\S]*?)\n```/.exec(section)
  if (!json) throw new Error(`spec/webhooks.md has no example of ${type}`)
  return JSON.parse(json[1]!)
}

describe('spec/webhooks.md and the OpenAPI webhooks section', () => {
  it('document every event type, and every example is a body the schema accepts with the catalog’s data', () => {
    expect(Object.keys(openapi.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES])
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
    for (const type of WEBHOOK_EVENT_TYPES) {
      const example = exampleOf(type) as { type: string; data: unknown }
      const validate = ajv.compile(openapi.webhooks[type]!.post.requestBody.content['application/json'].schema)
      expect(validate(example), `${type}: ${ajv.errorsText(validate.errors)}`).toBe(true)
      expect(example.type).toBe(type)
      expect(example.data).toEqual(webhookEventSpecs[type].example)
    }
  })
})
