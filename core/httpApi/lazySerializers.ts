/**
 * Response serializers compiled on first use. fastify builds every route's validators and
 * serializers when it readies its routes; for Hark's REST API and console that was ~0.4 s of CPU
 * per engine start once the modules were loaded (of ~0.55 s), on every start of every node and
 * test engine, for routes most of which a given run never calls. The serializers stay fastify's
 * own (fast-json-stringify, with the scope's shared schemas) and are built on the first response
 * of their route and status; the validators are deferred the same way (validation.ts).
 * The price: the first call of a route compiles its schemas (a few ms on the engine's thread),
 * and a schema fastify would have refused at start fails that call instead (every route is under test).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

const fastifySerializers = SerializerSelector()

/** fastify's `schemaController` option: its default serializers, each built on first use. */
export const lazySerializers: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      const compile = fastifySerializers(externalSchemas, options as Parameters<typeof fastifySerializers>[1])
      return (route: Parameters<typeof compile>[0]) => {
        let serialize: ReturnType<typeof compile> | undefined
        return (data: unknown) => (serialize ??= compile(route))(data)
      }
    },
  },
}
