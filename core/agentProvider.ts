/**
 * The AgentProvider contract: an AI agent implementation, resolved by name server-side.
 * Provider keys live in server config and never leave it.
 */
export interface AgentProvider {
  /** Human-readable description for listings. */
  readonly description?: string
}
