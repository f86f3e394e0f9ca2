/** The role table's names, as the server uses them (core/people/roles.ts). */
export type Role = 'admin' | 'developer' | 'viewer'
export type Permission = 'apiKeys' | 'devicePasswords' | 'administer' | 'operate' | 'read'

export interface Client {
  readonly clientId: string
  readonly name: string | null
  readonly kind: string | null
  readonly room: string | null
  readonly ephemeral: boolean
  readonly expiresAt: string | null
  readonly createdAt: string
  readonly status: 'online' | 'offline'
  readonly connection: { readonly transport: string; readonly connectedAt: string; readonly room: string | null } | null
}

export interface Agent {
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly name: string | null
  readonly provider: string
  readonly presetId: string | null
  readonly origin: string
  readonly state: string
  readonly reason: string | null
  readonly startedAt: string
}

export interface Participant {
  readonly id: string
  readonly kind: 'terminal' | 'agent'
  readonly name: string | null
  readonly transport: string | null
  /** Talking now, as the room actor had it when the view was read; `speaking` live events follow. */
  readonly speaking: boolean
}

export interface Room {
  readonly room: string
  readonly participants: ReadonlyArray<Participant>
  readonly agents: ReadonlyArray<Agent>
  readonly defaultAgent: { readonly presetId: string | null; readonly overrides: Record<string, unknown> | null; readonly stopDelaySeconds: number | null } | null
}

export interface Preset {
  readonly presetId: string
  readonly name: string | null
  readonly provider: string
  readonly config: Record<string, unknown>
}

export interface Provider {
  readonly name: string
  readonly description: string | null
  readonly configSchema: JsonSchema
}

export interface JsonSchema {
  readonly type?: string | ReadonlyArray<string>
  readonly title?: string
  readonly description?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
  readonly default?: unknown
  readonly minimum?: number
  readonly maximum?: number
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly items?: JsonSchema
}

/** An agent run's conversation (spec/records.md). */
export interface Transcript {
  readonly agentId: string
  readonly room: string
  readonly identity: string
  readonly provider: string
  readonly presetId: string | null
  readonly startedAt: string
  readonly endedAt: string | null
  readonly turns: number
}

export interface TranscriptTurn {
  readonly seq: number
  readonly kind: 'speech' | 'tool_call'
  readonly role: 'user' | 'agent'
  readonly speaker: string
  readonly clientId: string | null
  readonly text: string | null
  readonly startedAt: string
  readonly endedAt: string
  readonly interrupted: boolean
  readonly interruptedBy: string | null
  readonly tool: { readonly name: string; readonly source: string | null; readonly arguments: unknown; readonly result: unknown; readonly error: string | null; readonly latencyMs: number | null } | null
}

export interface TranscriptPage extends Transcript {
  readonly textHidden: boolean
  readonly items: ReadonlyArray<TranscriptTurn>
  readonly nextCursor: string | null
}
