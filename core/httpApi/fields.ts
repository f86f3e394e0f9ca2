/**
 * JSON Schema fragments of the domain's identifiers and values (core/naming.ts's rules), for the
 * request schemas of every JSON API: the REST API and the console's.
 */
import { PRESET_ID_PATTERN } from '../agentRuntime/presets.js'
import { ANY_CLIENT_ID_PATTERN, CLIENT_ID_PATTERN, JTI_PATTERN, KIND_PATTERN, NAME_PATTERN, ROOM_PATTERN } from '../naming.js'

export const clientId = { type: 'string', pattern: CLIENT_ID_PATTERN, minLength: 1, maxLength: 128 } as const
export const anyClientId = { type: 'string', pattern: ANY_CLIENT_ID_PATTERN, minLength: 1, maxLength: 128 } as const
export const room = { type: 'string', pattern: ROOM_PATTERN, minLength: 1, maxLength: 128 } as const
export const kind = { type: 'string', pattern: KIND_PATTERN, minLength: 1, maxLength: 32 } as const
export const name = { type: 'string', pattern: NAME_PATTERN, minLength: 1, maxLength: 200 } as const
export const jti = { type: 'string', pattern: JTI_PATTERN, minLength: 26, maxLength: 26 } as const

/** agentId: `ag_` + 16 base62 (core/agentRuntime/dispatcher.ts). */
export const AGENT_ID_PATTERN = '^ag_[0-9A-Za-z]{16}$'

export const agentId = { type: 'string', pattern: AGENT_ID_PATTERN, minLength: 19, maxLength: 19 } as const
export const presetId = { type: 'string', pattern: PRESET_ID_PATTERN, minLength: 1, maxLength: 64 } as const
export const providerName = { type: 'string', pattern: '^[a-z][a-z0-9-]{0,31}$', minLength: 1, maxLength: 32 } as const
/** A provider config or overrides: an object whose fields the provider's schema decides. */
export const configObject = {
  type: 'object',
  additionalProperties: true,
  description: "Fields of the provider's config schema (GET /agent-providers); never keys or endpoints.",
} as const

/** A preset's `record`: its agents' conversations recorded (spec/records.md#recordings), or null. */
export const presetRecord = {
  type: ['object', 'null'],
  description: 'Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset.',
  properties: { tracks: { type: 'string', enum: ['mixed', 'per-participant', 'both'] } },
  required: ['tracks'],
  additionalProperties: false,
} as const

export const AGENT_STATES = ['starting', 'running', 'stopping', 'stopped', 'failed'] as const

/** A schema's type widened to accept null as well (a PATCH clearing a field). */
export const nullable = <S extends { type: string }>(s: S) => ({ ...s, type: [s.type, 'null'] })

/** The body of a room's settings (PUT …/rooms/{room}): its default agent, or null to clear it. */
export const roomSettingsBody = {
  type: 'object',
  properties: {
    defaultAgent: {
      type: ['object', 'null'],
      properties: {
        presetId: { ...presetId, type: ['string', 'null'] },
        overrides: { ...configObject, type: ['object', 'null'] },
        stopDelaySeconds: { type: ['integer', 'null'], minimum: 0, maximum: 86_400 },
      },
      additionalProperties: false,
    },
  },
  required: ['defaultAgent'],
  additionalProperties: false,
} as const
