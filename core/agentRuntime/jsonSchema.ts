/**
 * JSON Schema of tool arguments, compiled with ajv: a tool's validator, or why its schema is not
 * usable. ajv (63 modules) loads at the first schema compiled, not with `hark/provider`: the CLI's
 * commands read the providers' descriptors and must not pay for it (cli/startup.test.ts).
 */
import { createRequire } from 'node:module'
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv'

let ajvInstance: AjvInstance | null = null
const ajv = (): AjvInstance => {
  if (ajvInstance === null) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv')
    ajvInstance = new Ajv({ strict: false, allErrors: false, validateSchema: true })
  }
  return ajvInstance
}
const validators = new WeakMap<object, ValidateFunction | string>()

/** The argument validator of `schema`, or why it is not valid JSON Schema. */
export const validatorOf = (schema: Readonly<Record<string, unknown>>): ValidateFunction | string => {
  let v = validators.get(schema)
  if (v === undefined) {
    try {
      v = ajv().compile(schema as Record<string, unknown>)
    } catch (e) {
      v = `its argument schema is not valid JSON Schema (${String((e as Error).message).slice(0, 160)})`
    }
    validators.set(schema, v)
  }
  return v
}
