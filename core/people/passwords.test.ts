/**
 * The decoy hash a sign-in for nobody verifies against is a constant (core/people/passwords.ts):
 * it must cost what a user's hash costs, so its parameters are the ones hashPassword uses.
 */
import { describe, expect, it } from 'vitest'
import { ARGON2_OPTIONS, DECOY_HASH, hashPassword, verifyDecoy, verifyPassword } from './passwords.js'

/** m, t and p of an encoded argon2id hash. */
const params = (encoded: string) => {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(encoded)
  if (!m) throw new Error(`not an argon2id hash: ${encoded}`)
  return { memoryCost: Number(m[1]), timeCost: Number(m[2]), parallelism: Number(m[3]) }
}

describe('console passwords', () => {
  it("the decoy hash has hashPassword's parameters (argon2id, ARGON2_OPTIONS), as a user's hash made now has", async () => {
    const { memoryCost, timeCost, parallelism } = ARGON2_OPTIONS
    expect(params(DECOY_HASH)).toEqual({ memoryCost, timeCost, parallelism })
    const made = await hashPassword('a password of a user')
    expect(params(made)).toEqual(params(DECOY_HASH))
    expect(await verifyPassword(made, 'a password of a user')).toBe(true)
  })

  it('verifyDecoy checks the password against the decoy and answers false', async () => {
    expect(await verifyDecoy('')).toBe(false)
    expect(await verifyDecoy('any password at all')).toBe(false)
    // The decoy is a well-formed hash (a malformed one would be refused at once, costing nothing).
    expect(await verifyPassword(DECOY_HASH, 'not its password')).toBe(false)
  })
})
