/**
 * Agent presets ("saved agents") as the REST API and the CLI manage them: checked input, one
 * record per workspace and presetId, and the public view. The config is stored as given (after
 * validation against the provider's schema); provider defaults apply at dispatch, so a preset
 * follows a provider's improved defaults unless it pinned a value.
 */
import { Conflict, NotFound, ValidationFailed } from '../errors.js'
import { isUniqueViolation } from '../storage/db.js'
import type { AgentPresetRecord, PresetRecordSetting } from '../storage/agentPresets.js'
import type { StorageShape } from '../storage/storage.js'

/** presetId: 1-64 of letters, digits, ".", "_", "-", starting with a letter or digit; "default" is reserved. */
export const PRESET_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'
const presetIdRe = new RegExp(PRESET_ID_PATTERN)
/** presetIds that name something else. */
const RESERVED = new Set(['default'])

/** Check a provider name and a config for a preset (throws ValidationFailed); the engine or the CLI supplies it. */
export type PresetValidator = (provider: string, config: Readonly<Record<string, unknown>>) => void

export interface PresetInput {
  readonly presetId: string
  readonly name?: string | null
  readonly provider: string
  readonly config?: Readonly<Record<string, unknown>> | null
  readonly record?: PresetRecordSetting | null
}

export interface PresetPatch {
  readonly name?: string | null
  readonly provider?: string
  readonly config?: Readonly<Record<string, unknown>> | null
  readonly record?: PresetRecordSetting | null
}

export interface PresetView {
  readonly presetId: string
  readonly name: string | null
  readonly provider: string
  readonly config: Readonly<Record<string, unknown>>
  /** Its agents' conversations are recorded with these tracks (spec/records.md); null: not by the preset. */
  readonly record: PresetRecordSetting | null
  readonly createdAt: string
  readonly updatedAt: string
}

export const presetView = (p: AgentPresetRecord): PresetView => ({
  presetId: p.presetId,
  name: p.name,
  provider: p.provider,
  config: p.config,
  record: p.record ?? null,
  createdAt: new Date(p.createdAt).toISOString(),
  updatedAt: new Date(p.updatedAt).toISOString(),
})

/** The form of a presetId (a dispatch naming one checks this; a preset being created, the reserved names too). */
export const checkPresetIdForm = (presetId: string): void => {
  if (!presetIdRe.test(presetId)) throw new ValidationFailed({ field: 'presetId', message: `presetId must match ${PRESET_ID_PATTERN}` })
}

export const checkPresetId = (presetId: string): void => {
  checkPresetIdForm(presetId)
  if (RESERVED.has(presetId)) throw new ValidationFailed({ field: 'presetId', message: `presetId ${presetId} is reserved` })
}

const checkConfig = (config: unknown): Readonly<Record<string, unknown>> => {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object' || Array.isArray(config)) throw new ValidationFailed({ field: 'config', message: 'config must be an object' })
  return config as Record<string, unknown>
}

/** What `record` may be: null, or `{tracks}` with one of the recording track settings (the REST schema says so too; the CLI comes here). */
export const RECORD_TRACKS = ['mixed', 'per-participant', 'both'] as const

export const checkRecord = (record: unknown): PresetRecordSetting | null => {
  if (record === undefined || record === null) return null
  const bad = (message: string) => new ValidationFailed({ field: 'record', message })
  if (typeof record !== 'object' || Array.isArray(record)) throw bad('record must be an object {tracks} or null')
  const keys = Object.keys(record)
  const extra = keys.find((k) => k !== 'tracks')
  if (extra !== undefined) throw bad(`record has an unknown field ${extra}: only tracks`)
  const tracks = (record as { tracks?: unknown }).tracks
  if (!(RECORD_TRACKS as ReadonlyArray<unknown>).includes(tracks)) {
    throw bad(`record.tracks must be one of ${RECORD_TRACKS.join(', ')}`)
  }
  return { tracks: tracks as PresetRecordSetting['tracks'] }
}

export const createPreset = (
  storage: StorageShape,
  validate: PresetValidator,
  workspaceId: string,
  input: PresetInput,
  now: number,
): PresetView => {
  checkPresetId(input.presetId)
  const config = checkConfig(input.config)
  const recordSetting = checkRecord(input.record)
  validate(input.provider, config)
  const record: AgentPresetRecord = {
    workspaceId, presetId: input.presetId, name: input.name ?? null, provider: input.provider, config, record: recordSetting,
    createdAt: now, updatedAt: now,
  }
  try {
    storage.agentPresets.insert(record)
  } catch (e) {
    if (isUniqueViolation((e as { cause?: unknown }).cause)) {
      throw new Conflict({ message: `agent preset ${input.presetId} already exists in this workspace` })
    }
    throw e
  }
  return presetView(record)
}

export const getPreset = (storage: StorageShape, workspaceId: string, presetId: string): PresetView => {
  const p = storage.agentPresets.get(workspaceId, presetId)
  if (!p) throw new NotFound({ message: `no agent preset ${presetId} in this workspace` })
  return presetView(p)
}

/** Update a preset; a new provider or config is validated as a whole (the config as it will be). */
export const updatePreset = (
  storage: StorageShape,
  validate: PresetValidator,
  workspaceId: string,
  presetId: string,
  patch: PresetPatch,
  now: number,
): PresetView =>
  storage.transaction(() => {
    const current = storage.agentPresets.get(workspaceId, presetId)
    if (!current) throw new NotFound({ message: `no agent preset ${presetId} in this workspace` })
    const config = patch.config !== undefined ? checkConfig(patch.config) : current.config
    const provider = patch.provider ?? current.provider
    const record = patch.record !== undefined ? checkRecord(patch.record) : undefined
    if (patch.config !== undefined || patch.provider !== undefined) validate(provider, config)
    const updated = storage.agentPresets.update(workspaceId, presetId, { name: patch.name, provider, config, record }, now)
    return presetView(updated!)
  })

export const deletePreset = (storage: StorageShape, workspaceId: string, presetId: string): { presetId: string; deleted: true } => {
  if (!storage.agentPresets.delete(workspaceId, presetId)) {
    throw new NotFound({ message: `no agent preset ${presetId} in this workspace` })
  }
  return { presetId, deleted: true }
}
