/**
 * A real engine with the REST plugin on a free port, plus helpers to seed a workspace and reach
 * it over HTTP with its API key, and to put a client online through the terminal hub.
 */
import type { EngineConfig, EngineOptions, Extension } from '../../../core/index.js'
import { RecordingLink, seedWorkspace, startTestEngine } from '../../../core/test/helpers.js'
import { API_PREFIX, restPlugin, type RestPlugin } from '../index.js'
import { Api } from './api.js'

/** Settings typed for the REST plugin plus `X`, the other extensions (the helper adds the plugin). */
type RestConfig<X extends ReadonlyArray<Extension>> = Omit<EngineConfig<readonly [typeof restPlugin, ...X]>, 'extensions'> & {
  readonly extensions?: X
}

export const startRestEngine = async <const X extends ReadonlyArray<Extension> = []>(
  config: RestConfig<X> = {} as RestConfig<X>,
  options: EngineOptions = {},
) => {
  const t = await startTestEngine({ ...config, extensions: [restPlugin, ...(config.extensions ?? [])] } as EngineConfig, options)
  const base = t.url(API_PREFIX)
  const workspace = (name = 'acme') => {
    const seed = seedWorkspace(t.engine, name)
    return { ...seed, api: new Api(base, seed.apiKey) }
  }
  /** Connect a client through the hub as a transport would, with a fresh token. */
  const connect = async (workspaceId: string, clientId: string, transport = 'test') => {
    const { security, terminals } = t.engine.host
    const issued = await security.tokens.issue(workspaceId, clientId, null)
    const identity = await security.authenticateTerminal({ token: issued.token })
    const link = new RecordingLink(transport)
    const session = terminals.open(identity, link)
    await link.event('session')
    return { link, session, jti: issued.jti }
  }
  return {
    ...t,
    base,
    anonymous: new Api(base, null),
    workspace,
    connect,
    rest: () => t.engine.host.resolve<RestPlugin>('plugin', 'rest'),
  }
}

export type RestEngine = Awaited<ReturnType<typeof startRestEngine>>
