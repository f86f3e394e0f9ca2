/**
 * Time claims of client tokens a workspace secret signed but Hark did not mint the way it does
 * (another node, a tool holding the secret): `nbf` is honoured on the engine clock, and an `iat`
 * further ahead of it than TOKEN_IAT_LEEWAY_SECONDS is refused. Plus the one Bearer header reader.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { SignJWT, type JWTPayload } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../clock.js'
import { newJti } from '../ids.js'
import { tempDir } from '../test/helpers.js'
import { openStorage, type StorageShape } from '../storage/storage.js'
import { parseBearer } from './bearer.js'
import { TOKEN_IAT_LEEWAY_SECONDS } from './clientTokens.js'
import { makeMasterKey } from './masterKey.js'
import { makeSecurity, type SecurityShape } from './security.js'

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0)
const S0 = T0 / 1000

let dir: ReturnType<typeof tempDir>
let storage: StorageShape
let clock: ManualClock
let security: SecurityShape
let workspaceId: string
let sign: (claims: JWTPayload) => Promise<string>

beforeEach(() => {
  dir = tempDir()
  storage = openStorage(join(dir.path, 'hark.db'))
  clock = new ManualClock(T0)
  const masterKey = makeMasterKey(randomBytes(32))
  security = makeSecurity(storage, masterKey, clock, { secretGraceSeconds: 3600 })
  workspaceId = security.createWorkspace('acme').workspaceId
  const [secret] = storage.signingSecrets.live(workspaceId, clock.now())
  const raw = masterKey.open('signing-secret', secret!.secretEnc)
  sign = (claims) =>
    new SignJWT({ iss: workspaceId, sub: 'dev-1', aud: 'service-client', jti: newJti(clock.now()), ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: secret!.kid })
      .sign(raw)
})
afterEach(() => {
  storage.close()
  dir.remove()
})

describe('token time claims', () => {
  it('honour nbf: refused before it, accepted from that second on', async () => {
    const token = await sign({ iat: S0, nbf: S0 + 30 })
    await expect(security.tokens.verify(token)).rejects.toMatchObject({ _tag: 'TokenInvalid', message: 'token not valid yet (nbf)' })
    clock.advance(29_999)
    await expect(security.tokens.verify(token)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    clock.advance(1)
    await expect(security.tokens.verify(token)).resolves.toMatchObject({ clientId: 'dev-1' })
    await expect(security.tokens.verify(await sign({ nbf: S0 - 5 }))).resolves.toMatchObject({ clientId: 'dev-1' })
  })

  it('refuse an iat further in the future than the leeway, and a malformed nbf or iat', async () => {
    const ahead = await sign({ iat: S0 + TOKEN_IAT_LEEWAY_SECONDS + 1 })
    await expect(security.tokens.verify(ahead)).rejects.toMatchObject({ _tag: 'TokenInvalid', message: 'token issued in the future (iat)' })
    await expect(security.tokens.verify(await sign({ iat: S0 + 10 * 365 * 86_400 }))).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    // Within the leeway (clocks of several nodes differ a little) and in the past: accepted.
    await expect(security.tokens.verify(await sign({ iat: S0 + TOKEN_IAT_LEEWAY_SECONDS }))).resolves.toBeTruthy()
    await expect(security.tokens.verify(await sign({ iat: S0 - 86_400 }))).resolves.toBeTruthy()
    // The same token becomes acceptable once the engine clock has caught up.
    clock.advance(1000)
    await expect(security.tokens.verify(ahead)).resolves.toBeTruthy()
    // Claims of the wrong type on purpose: jose's types would not let them be signed.
    for (const claims of [{ nbf: 'soon' }, { iat: 'now' }, { nbf: null }] as unknown as JWTPayload[]) {
      await expect(security.tokens.verify(await sign(claims)), JSON.stringify(claims)).rejects.toMatchObject({ _tag: 'TokenInvalid' })
    }
  })
})

describe('the Bearer header reader (every listener)', () => {
  it('takes the scheme in any case, one or more spaces, and a token68', () => {
    for (const value of ['Bearer abc.DEF-_~+/=', 'bearer abc', 'BEARER abc', 'bEaReR   abc', 'Bearer abc  ']) {
      expect(parseBearer(value), value).toBe(value.trim().split(/ +/)[1])
    }
  })

  it('refuses other schemes, no credential, and characters outside token68', () => {
    for (const value of ['', 'Bearer', 'Bearer ', 'Basic abc', 'Bearerabc', ' Bearer abc', 'Bearer a b', 'Bearer a=b', 'Bearer a,b', 'Bearer\tabc', 'Bearer "abc"']) {
      expect(parseBearer(value), JSON.stringify(value)).toBeNull()
    }
  })
})
