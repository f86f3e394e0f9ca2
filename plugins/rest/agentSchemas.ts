/**
 * JSON Schemas of the agent resources (agents, presets, room settings, providers): identifier
 * patterns and the shared response schemas, added to the REST scope like schemas.ts's and listed
 * under components.schemas of the OpenAPI document. spec/agents.md gives the rules behind them.
 */
import { AGENT_ID_PATTERN, AGENT_STATES, agentId, configObject, presetId, providerName } from '../../core/httpApi/fields.js'

export { AGENT_ID_PATTERN, AGENT_STATES, agentId, configObject, presetId, providerName }

const isoOrNull = { type: ['string', 'null'], format: 'date-time' } as const

/** A preset's `record`: its agents' conversations recorded (spec/records.md#recordings), or null. */
export const presetRecord = {
  type: ['object', 'null'],
  description: 'Record the room while an agent of this preset is in it, with these tracks (spec/records.md); null: not by the preset.',
  properties: { tracks: { type: 'string', enum: ['mixed', 'per-participant', 'both'] } },
  required: ['tracks'],
  additionalProperties: false,
} as const

export const agentSharedSchemas = [
  {
    $id: 'Agent',
    description: 'An agent dispatched into a room (spec/agents.md).',
    type: 'object',
    properties: {
      agentId: { type: 'string' },
      room: { type: 'string' },
      identity: { type: 'string', description: 'Participant id in the room: agent@<presetId>, or agent@default.' },
      name: { type: ['string', 'null'], description: 'Participant name: the preset name, else the provider name.' },
      provider: { type: 'string' },
      presetId: { type: ['string', 'null'], description: 'null for the platform default agent.' },
      origin: { type: 'string', enum: ['api', 'default'], description: 'Dispatched by POST /agents, or as the room default agent.' },
      state: { type: 'string', enum: [...AGENT_STATES] },
      reason: { type: ['string', 'null'], description: 'Why it stopped or failed; null while it runs.' },
      startedAt: { type: 'string', format: 'date-time' },
      endedAt: isoOrNull,
    },
    required: ['agentId', 'room', 'identity', 'name', 'provider', 'presetId', 'origin', 'state', 'reason', 'startedAt', 'endedAt'],
    additionalProperties: false,
  },
  {
    $id: 'AgentPreset',
    description: 'A saved agent: a provider and the config a dispatch starts from.',
    type: 'object',
    properties: {
      presetId: { type: 'string' },
      name: { type: ['string', 'null'] },
      provider: { type: 'string' },
      config: { type: 'object', additionalProperties: true, description: 'As stored; the provider schema defaults apply at dispatch.' },
      record: presetRecord,
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
    required: ['presetId', 'name', 'provider', 'config', 'record', 'createdAt', 'updatedAt'],
    additionalProperties: false,
  },
  {
    $id: 'DefaultAgent',
    description: 'The agent a room starts with its first terminal and stops after its last.',
    type: 'object',
    properties: {
      presetId: { type: ['string', 'null'], description: 'null: the platform default agent.' },
      overrides: { type: ['object', 'null'], additionalProperties: true },
      stopDelaySeconds: { type: ['integer', 'null'], description: 'null: the engine setting agents.defaultAgentStopDelaySeconds.' },
    },
    required: ['presetId', 'overrides', 'stopDelaySeconds'],
    additionalProperties: false,
  },
] as const
