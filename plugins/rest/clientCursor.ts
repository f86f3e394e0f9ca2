/**
 * The opaque pagination cursor of GET /api/v1/clients: the last clientId of a page, base64url
 * encoded so callers do not build it themselves (its form may change; its meaning will not).
 */
import { ValidationFailed } from '../../core/errors.js'
import { ANY_CLIENT_ID_PATTERN } from './schemas.js'

const anyClientId = new RegExp(ANY_CLIENT_ID_PATTERN)

export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,200}$'

export const encodeCursor = (lastClientId: string): string => Buffer.from(lastClientId, 'utf8').toString('base64url')

export const decodeCursor = (cursor: string): string => {
  const clientId = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!anyClientId.test(clientId)) throw new ValidationFailed({ field: 'cursor', message: 'query parameter cursor is not a cursor this API returned' })
  return clientId
}
