/**
 * Request validation for Hark's JSON APIs (REST, console). Fastify's default Ajv silently strips unknown fields and
 * coerces body types; the API instead rejects both, so bodies get a strict Ajv (no coercion, no
 * removal) and only the query string and path parameters (always strings on the wire) are coerced.
 * Coercion would read `1e2`, `0x10`, `+5` or ` 5` as numbers: an integer parameter must be written
 * as plain decimal digits (an optional minus, no leading zeros) before it is coerced.
 * A failed check becomes a ValidationFailed naming the field.
 */
import { Ajv, type ErrorObject } from 'ajv'
import formatsPlugin from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { ValidationFailed } from '../errors.js'

// ajv-formats ships CommonJS whose default export TypeScript sees as the module namespace.
const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv

const make = (coerceTypes: boolean) =>
  addFormats(
    new Ajv({
      coerceTypes,
      useDefaults: true,
      removeAdditional: false,
      allErrors: false,
      unicodeRegExp: true,
      strict: true,
      strictTypes: false,
      allowUnionTypes: true,
    }),
  )

const strict = make(false)
const coercing = make(true)

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/

/** Names of the properties a query or params schema declares as integers. */
const integerProperties = (schema: unknown): string[] => {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}
  return Object.entries(properties)
    .filter(([, p]) => p.type === 'integer' || (Array.isArray(p.type) && p.type.includes('integer')))
    .map(([name]) => name)
}

const notDecimal = (name: string): ErrorObject => ({
  keyword: 'type',
  instancePath: `/${name}`,
  schemaPath: `#/properties/${name}/type`,
  params: { type: 'integer' },
  message: 'must be integer',
})

/** Strings-on-the-wire parts: integers are checked as written, then everything is coerced and validated. */
const compileCoercing = (schema: object) => {
  const validate = coercing.compile(schema)
  const integers = integerProperties(schema)
  return (data: unknown, context?: Parameters<typeof validate>[1]) => {
    const values = (data ?? {}) as Record<string, unknown>
    const bad = integers.find((name) => typeof values[name] === 'string' && !DECIMAL_INTEGER.test(values[name]))
    if (bad !== undefined) return { error: Object.assign(new Error('validation failed'), { validation: [notDecimal(bad)] }) }
    return validate(data, context) ? true : { error: Object.assign(new Error('validation failed'), { validation: validate.errors }) }
  }
}

/** What a compiled validator is; fastify gives the context (the data's parent) to one with a schemaEnv. */
type Check = ReturnType<typeof compileCoercing>

/**
 * A request without a body is checked as `{}`: optional-only bodies may be left out, and a
 * required field is reported by name rather than as "body must be object".
 */
const compileBody = (schema: object) => {
  const validate = strict.compile(schema)
  return (data: unknown) => {
    const ok = validate(data === undefined || data === null ? {} : data)
    return ok ? true : { error: Object.assign(new Error('validation failed'), { validation: validate.errors }) }
  }
}

/** Compile a small schema on each Ajv (lazySchemas.ts, warmSchemaCompilers: the first compile is the dear one). */
export const warmValidators = (): void => {
  const schema = {
    type: 'object',
    properties: { at: { type: 'string', pattern: '^[0-9]', format: 'date-time' }, n: { type: 'integer', minimum: 0 }, e: { enum: ['x', 'y'] } },
    required: ['at'],
    additionalProperties: false,
  }
  compileBody(schema)({ at: '2026-01-01T00:00:00.000Z', n: 1 })
  compileCoercing(schema)({ at: '2026-01-01T00:00:00.000Z', n: '1' })
}

/**
 * Each validator is compiled by Ajv on its first request, not when fastify readies the routes:
 * compiling every route's schemas was most of an engine's start once its modules are loaded
 * (lazySchemas.ts says more).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const compile: (schema: object) => Check = httpPart === 'body' ? compileBody : compileCoercing
  let validate: Check | undefined
  const check: Check = (data, context) => (validate ??= compile(schema as object))(data, context)
  // fastify hands a function with a schemaEnv (as Ajv's have) the parent of the data, so coercion
  // may replace it; it only asks whether there is one.
  return httpPart === 'body' ? check : Object.assign(check, { schemaEnv: true })
}

const where: Record<string, string> = { body: 'field ', querystring: 'query parameter ', params: 'path parameter ' }

/** Turn an Ajv error into one ValidationFailed that names the field and what was wrong. */
export const validationFailure = (errors: ReadonlyArray<ErrorObject>, context: string | undefined): ValidationFailed => {
  const e = errors[0]
  const prefix = where[context ?? 'body'] ?? ''
  if (!e) return new ValidationFailed({ field: '(request)', message: 'invalid request' })
  const path = e.instancePath.split('/').filter(Boolean).join('.')
  const params = e.params as Record<string, unknown>
  if (e.keyword === 'additionalProperties') {
    const field = [path, String(params.additionalProperty)].filter(Boolean).join('.')
    return new ValidationFailed({ field, message: `unknown ${prefix}${field}` })
  }
  if (e.keyword === 'required') {
    const field = [path, String(params.missingProperty)].filter(Boolean).join('.')
    return new ValidationFailed({ field, message: `${prefix}${field} is required` })
  }
  const field = path || (context === 'body' ? 'body' : '(request)')
  if (!path && context === 'body' && e.keyword === 'type') {
    return new ValidationFailed({ field: 'body', message: 'body must be a JSON object' })
  }
  if (!path && context === 'body' && e.keyword === 'minProperties') {
    return new ValidationFailed({ field: 'body', message: 'body must set at least one field' })
  }
  const detail =
    e.keyword === 'type' ? `must be ${String(params.type).replace(',', ' or ')}`
    : e.keyword === 'pattern' ? 'has characters or a form that is not allowed'
    : e.keyword === 'enum' ? `must be one of ${(params.allowedValues as unknown[]).join(', ')}`
    : (e.message ?? 'is invalid')
  return new ValidationFailed({ field, message: `${prefix}${field} ${detail}` })
}
