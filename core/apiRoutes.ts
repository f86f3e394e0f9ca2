/**
 * Resources other extensions add to the REST API. `/api/v1` belongs to one plugin (REST): its
 * scope authenticates API keys, rate-limits per workspace, validates requests, answers errors with
 * the envelope and writes the OpenAPI document. A plugin that serves a resource of its own there
 * (webhooks) adds it here in its constructor; the REST plugin registers every one inside its scope
 * when it registers itself, so the same rules and the same document cover them. Registration order
 * of the extensions does not matter: every extension is built before any plugin registers routes.
 */
import type { FastifyInstance } from 'fastify'

export interface ApiResource {
  /** Its name (for errors and logs): the plugin's. */
  readonly name: string
  /** Add its routes (relative to /api/v1) to the REST API's scope. */
  register(app: FastifyInstance): Promise<void> | void
  /** OpenAPI tags its operations use. */
  readonly tags?: ReadonlyArray<{ readonly name: string; readonly description: string }>
  /** Entries of the OpenAPI 3.1 top-level `webhooks` section: requests this resource makes to others. */
  readonly webhooks?: Readonly<Record<string, unknown>>
}

export class ApiRoutes {
  private resources: ReadonlyArray<ApiResource> = []

  /** Add a resource; returns the function that removes it. Two with one name are refused. */
  add(resource: ApiResource): () => void {
    if (this.resources.some((r) => r.name === resource.name)) throw new Error(`an API resource named "${resource.name}" is already added`)
    this.resources = [...this.resources, resource]
    return () => {
      this.resources = this.resources.filter((r) => r !== resource)
    }
  }

  /** Every resource added, in the order added. */
  list(): ReadonlyArray<ApiResource> {
    return this.resources
  }
}
