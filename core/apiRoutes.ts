/**
 * Resources other extensions add to the REST API. `/api/v1` belongs to one plugin (REST): its
 * scope authenticates API keys, rate-limits per workspace, validates requests, answers errors with
 * the envelope and writes the OpenAPI document. A plugin that serves a resource of its own there
 * (webhooks) adds it here in its constructor; the REST plugin registers every one inside its scope
 * when it registers itself, so the same rules and the same document cover them, and hands it the
 * scope's view (`ApiScope`): who calls each request, and the error responses the document
 * describes. Registration order of the extensions does not matter: every extension is built
 * before any plugin registers routes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ChangeAuthor } from './storage/changes.js'

/** Who calls an authenticated route of the REST API. */
export interface ApiCaller {
  /** The workspace the request's API key belongs to: the route reads and writes in it only. */
  readonly workspaceId: string
  /** Who makes the changes the request causes (its API key), for the change feed. */
  readonly author: ChangeAuthor
}

/** Error statuses a route adds to the ones every route of the API may answer. */
export type ApiErrorStatus = 400 | 404 | 409 | 413 | 415 | 502 | 503

/** What the REST plugin hands a resource registered inside its scope. */
export interface ApiScope {
  /**
   * The caller of a request to one of the resource's routes: every route takes an API key unless
   * its options say `config: { public: true }`, and a request without a valid one is refused
   * before its handler runs. Throws when called for a public route.
   */
  caller(request: FastifyRequest): ApiCaller
  /**
   * OpenAPI responses of the errors every route may answer (401, 408, 429, 431, 500, 503) and of
   * `extra`, described as the rest of the document describes them.
   */
  errorResponses(...extra: ApiErrorStatus[]): Record<number, object>
  /** The errors of a route that takes a JSON body (400, 413, 415). */
  readonly bodyErrors: ReadonlyArray<ApiErrorStatus>
}

export interface ApiResource {
  /** Its name (for errors and logs): the plugin's. */
  readonly name: string
  /** Add its routes (relative to /api/v1) to the REST API's scope; `api` tells who calls each. */
  register(app: FastifyInstance, api: ApiScope): Promise<void> | void
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
