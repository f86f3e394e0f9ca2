/**
 * Validators and response serializers are compiled on first use, not when fastify readies the
 * routes (validation.ts, lazySchemas.ts): building one compiles nothing, its first call
 * compiles once, and what it then does is what the compiled one does.
 */
import { describe, expect, it } from 'vitest'
import { lazySerializers } from './lazySchemas.js'
import { validatorCompiler } from './validation.js'

// Strict Ajv refuses an unknown keyword when it compiles; fast-json-stringify a $ref to nowhere.
const notAjv = { type: 'object', properties: { a: { type: 'string', unknownKeyword: 1 } } }
const refToNowhere = { type: 'object', properties: { a: { $ref: 'nowhere#/x' } } }

const route = (schema: object, httpPart: string) => ({ schema, httpPart, method: 'POST', url: '/x' })
const buildSerializer = lazySerializers!.compilersFactory!.buildSerializer!

describe('schemas compiled on first use', () => {
  it('a validator compiles nothing until its first request, then checks as Ajv does', () => {
    const broken = validatorCompiler(route(notAjv, 'body'))
    expect(() => broken({ a: 'x' })).toThrow(/unknownKeyword/)

    const body = validatorCompiler(route({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, 'body'))
    expect(body({ n: 1 })).toBe(true)
    expect(body(undefined)).toMatchObject({ error: { validation: [{ keyword: 'required' }] } })
    expect(body({ n: 1, m: 2 })).toMatchObject({ error: { validation: [{ keyword: 'additionalProperties' }] } })
  })

  it('a query validator keeps coercing in place (fastify passes the parent) and refuses non-decimal integers', () => {
    const query = validatorCompiler(route({ type: 'object', properties: { limit: { type: 'integer' } } }, 'querystring')) as ((
      data: unknown,
      context?: { parentData: Record<string, unknown>; parentDataProperty: string },
    ) => unknown) & { schemaEnv?: unknown }
    expect(query.schemaEnv).toBeTruthy()
    const request = { query: { limit: '20' } as Record<string, unknown> }
    expect(query(request.query, { parentData: request, parentDataProperty: 'query' })).toBe(true)
    expect(request.query.limit).toBe(20)
    expect(query({ limit: '0x10' })).toMatchObject({ error: { validation: [{ keyword: 'type' }] } })
  })

  it("a response serializer is fastify's own, built on the first response", () => {
    const compile = buildSerializer({}, {})
    const broken = compile({ schema: refToNowhere, method: 'GET', url: '/x', httpStatus: '200' })
    expect(() => broken({ a: 1 })).toThrow()

    const serialize = compile({ schema: { type: 'object', properties: { a: { type: 'integer' } } }, method: 'GET', url: '/x', httpStatus: '200' })
    // fast-json-stringify writes only the declared properties, as the compiled serializer did.
    expect(serialize({ a: 1, secret: 's' })).toBe('{"a":1}')
    expect(serialize({ a: 2 })).toBe('{"a":2}')
  })

  it("shared schemas of the scope reach the serializer (a route's $ref)", () => {
    const compile = buildSerializer({ shared: { $id: 'shared', type: 'object', properties: { id: { type: 'string' } } } }, {})
    const serialize = compile({ schema: { $ref: 'shared#' }, method: 'GET', url: '/x', httpStatus: '200' })
    expect(serialize({ id: 'a', other: 1 })).toBe('{"id":"a"}')
  })
})
