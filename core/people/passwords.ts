/**
 * Console passwords: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), through
 * @node-rs/argon2 (native, hashes on libuv's thread pool, never blocks the event loop). A sign-in
 * for an unknown email still verifies, against a hash of a random password made once, so it
 * takes as long as a wrong password.
 */
import type { Options } from '@node-rs/argon2'
import { ValidationFailed } from '../errors.js'

/** The native binding loads on the first hash, not with every CLI command that never hashes. */
const argon2 = () => import('@node-rs/argon2')

/** OWASP Password Storage Cheat Sheet, argon2id: m=19456 KiB, t=2, p=1. */
export const ARGON2_OPTIONS: Options = {
  // Algorithm.Argon2id: the package's enum is a const enum, which isolatedModules cannot import.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
}

export const PASSWORD_MIN_LENGTH = 10
/** argon2 accepts any length; a bound keeps a megabyte "password" from costing a hash of it. */
export const PASSWORD_MAX_LENGTH = 256

/** Refuse a password the policy does not allow (length in characters, no control characters). */
export const checkPasswordPolicy = (password: unknown, field = 'password'): string => {
  if (typeof password !== 'string') throw new ValidationFailed({ field, message: `${field} must be a string` })
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new ValidationFailed({ field, message: `${field} must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long` })
  }
  if (/[\u0000-\u001f\u007f]/.test(password)) throw new ValidationFailed({ field, message: `${field} must not contain control characters` })
  return password
}

export const hashPassword = async (password: string): Promise<string> => (await argon2()).hash(password, ARGON2_OPTIONS)

/** True when `password` matches `passwordHash`; a malformed hash is a mismatch, never a throw. */
export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> => {
  try {
    return await (await argon2()).verify(passwordHash, password)
  } catch {
    return false
  }
}

/**
 * What a sign-in for nobody verifies against: the argon2id hash, with ARGON2_OPTIONS, of a random
 * password nobody kept (made once with hashPassword; passwords.test checks its parameters are
 * ARGON2_OPTIONS', so it costs what a user's does). A constant, not a hash each engine makes at
 * start (issue 39: the console's start hashed and verified one, ~4.5 MB of RSS and the native
 * binding loaded before any sign-in). Finding its password would change nothing: verifyDecoy
 * answers false whatever the check says.
 */
export const DECOY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$D9W5X3+X7WdRBR1Tnpgvnw$rKNf+0uwFgP+RBoCKdCnlm8VRBlAK2af9vPAU+VmpIc'

/** Spend the time of one verification for nobody (an unknown email, a disabled account). */
export const verifyDecoy = async (password: string): Promise<false> => {
  await verifyPassword(DECOY_HASH, password)
  return false
}
