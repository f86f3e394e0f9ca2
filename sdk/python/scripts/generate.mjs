// Generates src/hark_server/models.py — TypedDicts of every request, response, shared schema and
// webhook event — from the engine's OpenAPI document. `node scripts/generate.mjs --write` rewrites
// it; python.test.ts compares render() with the file, so a stale file fails the tests.
// Written here because no generator of typed Python models is reachable from the npm registry or
// Debian; it covers the JSON Schema the document uses (objects, arrays, unions with null, enum,
// const, $ref, anyOf) and refuses anything else.
import { readFile, writeFile } from 'node:fs/promises'

export const specUrl = new URL('../../../spec/openapi.json', import.meta.url)
export const outputUrl = new URL('../src/hark_server/models.py', import.meta.url)

const KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield'])
const RENAMES = {
  ErrorError: 'ErrorDetail',
  GetUsageResponseRecordsItem: 'UsageRecord',
  GetUsageResponseTotals: 'UsageTotals',
  ListAgentProvidersResponseProvidersItem: 'AgentProvider',
  ListWebhooksResponseWebhooksItem: 'WebhookEndpoint',
  ListWebhookDeliveriesResponseDeliveriesItem: 'WebhookDelivery',
  CreateWebhookResponse: 'WebhookEndpointWithSecret',
}
const pascal = (s) => s.replace(/(^|[._\-/ ]+)([a-zA-Z0-9])/g, (_, __, c) => c.toUpperCase())
const SKIPPED_KEYS = new Set(['description', 'example', 'examples', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'minProperties', 'default', 'title'])
const KNOWN_KEYS = new Set([...SKIPPED_KEYS, 'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', '$ref', 'anyOf'])

export const renderModels = (doc) => {
  const blocks = []
  const emitted = new Map() // structural key → class name
  const names = new Set()

  const unique = (name) => {
    let n = RENAMES[name] ?? name
    for (let i = 2; names.has(n); i++) n = `${name}${i}`
    names.add(n)
    return n
  }
  const literal = (v) => (v === null ? 'None' : typeof v === 'string' ? JSON.stringify(v) : typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v))
  const docstring = (text) => (text ? `    """${text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"')}"""\n` : '')

  /** The Python type of `schema`; named objects become TypedDicts called `name`. */
  const typeOf = (schema, name) => {
    for (const key of Object.keys(schema)) if (!KNOWN_KEYS.has(key)) throw new Error(`${name}: unsupported schema keyword ${key}`)
    if (schema.$ref) return schema.$ref.replace('#/components/schemas/', '')
    if ('const' in schema) return `Literal[${literal(schema.const)}]`
    if (schema.enum) return `Literal[${schema.enum.map(literal).join(', ')}]`
    if (schema.anyOf) return [...new Set(schema.anyOf.map((s, i) => typeOf(s, `${name}${i}`)))].join(' | ')
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
    if (types.length === 0) return 'Any'
    return types.map((t) => {
      if (t === 'string') return 'str'
      if (t === 'integer') return 'int'
      if (t === 'number') return 'float'
      if (t === 'boolean') return 'bool'
      if (t === 'null') return 'None'
      if (t === 'array') return `list[${schema.items ? typeOf(schema.items, `${name}Item`) : 'Any'}]`
      if (t === 'object') return objectType(schema, name)
      throw new Error(`${name}: unsupported type ${t}`)
    }).join(' | ')
  }

  const objectType = (schema, name) => {
    const props = Object.entries(schema.properties ?? {})
    if (props.length === 0) {
      const extra = schema.additionalProperties
      return `dict[str, ${extra && typeof extra === 'object' ? typeOf(extra, `${name}Value`) : 'Any'}]`
    }
    const key = JSON.stringify({ ...schema, description: undefined })
    if (emitted.has(key)) return emitted.get(key)
    const required = new Set(schema.required ?? [])
    const fields = props.map(([prop, s]) => {
      const t = typeOf(s, `${name}${pascal(prop)}`)
      return [prop, required.has(prop) ? t : `NotRequired[${t}]`, s.description]
    })
    const cls = unique(name)
    emitted.set(key, cls)
    const functional = fields.some(([prop]) => KEYWORDS.has(prop) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(prop))
    blocks.push(
      functional
        ? `${cls} = TypedDict(${JSON.stringify(cls)}, {\n${fields.map(([p, t]) => `    ${JSON.stringify(p)}: ${t},\n`).join('')}})\n${schema.description ? `"""${schema.description}"""\n` : ''}`
        : `class ${cls}(TypedDict):\n${docstring(schema.description)}${fields.map(([p, t, d]) => `    ${p}: ${t}\n${d ? docstring(d) : ''}`).join('') || '    pass\n'}`,
    )
    return cls
  }

  const alias = (name, type) => {
    if (type === name) return
    names.add(name)
    blocks.push(`${name} = ${type}\n`)
  }

  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    names.add(name)
    const key = JSON.stringify({ ...schema, $id: undefined, description: undefined })
    // Components keep their own names; a nested object named after them stays unique.
    names.delete(name)
    const t = objectType(schema, name)
    emitted.set(key, t)
  }

  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op?.operationId || method === 'head' || op.operationId === 'getOpenApiDocument') continue
      const base = pascal(op.operationId)
      const query = (op.parameters ?? []).filter((p) => p.in === 'query')
      if (query.length > 0) {
        typeOf({ type: 'object', properties: Object.fromEntries(query.map((p) => [p.name, { ...p.schema, description: p.description }])), required: query.filter((p) => p.required).map((p) => p.name), description: `Query of ${method.toUpperCase()} ${path}.` }, `${base}Query`)
      }
      const body = op.requestBody?.content?.['application/json']?.schema
      if (body) alias(`${base}Body`, typeOf(body, `${base}Body`))
      const ok = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status))?.[1]?.content?.['application/json']?.schema
      if (ok) alias(`${base}Response`, typeOf(ok, `${base}Response`))
    }
  }

  const events = []
  for (const [type, item] of Object.entries(doc.webhooks ?? {})) {
    const schema = item.post.requestBody.content['application/json'].schema
    events.push([type, typeOf({ ...schema, description: item.post.summary }, `${pascal(type)}Event`)])
  }
  blocks.push(`WebhookEvent = ${events.map(([, cls]) => cls).join(' | ')}\n"""Every event a webhook endpoint receives, told apart by its "type"."""\n`)
  blocks.push(`WEBHOOK_EVENT_TYPES: tuple[str, ...] = (\n${events.map(([t]) => `    ${JSON.stringify(t)},\n`).join('')})\n`)

  return `"""Types of the Hark REST API and its webhook events, generated from spec/openapi.json by
sdk/python/scripts/generate.mjs. Do not edit: run \`node sdk/python/scripts/generate.mjs --write\`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

${blocks.join('\n\n')}`
}

/** The file's text as the generator makes it from the document on disk now. */
export const render = async () => renderModels(JSON.parse(await readFile(specUrl, 'utf8')))

if (process.argv.includes('--write')) {
  await writeFile(outputUrl, await render())
  console.log(`wrote ${outputUrl.pathname}`)
}
