/**
 * Agent configs nest at most MAX_JSON_DEPTH levels wherever they arrive from (REST, the CLI's
 * --agent-config, an embedder calling the dispatcher): deeper ones are a ValidationFailed naming
 * the field, never a stack overflow in the secret-field scan or the merge.
 */
import * as Schema from 'effect/Schema'
import { describe, expect, it } from 'vitest'
import type { AgentProvider } from '../agentProvider.js'
import { MAX_JSON_DEPTH } from '../jsonDepth.js'
import { findSecretField, mergeConfig, validateAgentConfig } from './agentConfig.js'

const open: AgentProvider = {
  configSchema: Schema.Record(Schema.String, Schema.Unknown),
  start: () => {
    throw new Error('never started here')
  },
}

/** `levels` nested objects: `{"a":{"a":…{}}}`. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < levels; i++) value = { a: value }
  return value
}

const tooDeep = (field: string) => expect.objectContaining({
  _tag: 'ValidationFailed',
  field,
  message: `${field} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
})

describe('agent config depth', () => {
  it('refuses a 4000-level config or overrides as ValidationFailed, not a stack overflow', () => {
    const deep = nested(4000)
    expect(() => validateAgentConfig('open', open, deep, 'config')).toThrow(tooDeep('config'))
    expect(() => validateAgentConfig('open', open, { x: 1 }, 'overrides', deep)).toThrow(tooDeep('overrides'))
    expect(() => findSecretField(deep)).toThrow(expect.objectContaining({ _tag: 'ValidationFailed' }))
    expect(() => mergeConfig(deep, deep)).toThrow(tooDeep('overrides'))
  })

  it('takes 32 levels and refuses 33', () => {
    expect(validateAgentConfig('open', open, nested(MAX_JSON_DEPTH), 'config')).toEqual(nested(MAX_JSON_DEPTH))
    expect(() => validateAgentConfig('open', open, nested(MAX_JSON_DEPTH + 1), 'config')).toThrow(tooDeep('config'))
    expect(findSecretField(nested(MAX_JSON_DEPTH))).toBeNull()
    expect(mergeConfig(nested(MAX_JSON_DEPTH), nested(MAX_JSON_DEPTH))).toEqual(nested(MAX_JSON_DEPTH))
  })
})
