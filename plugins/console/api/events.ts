/**
 * GET /api/workspaces/{id}/events: the workspace's live feed as server-sent events (one named
 * event per change, its JSON in `data`), so pages update without polling. A comment line every
 * HEARTBEAT_MS keeps proxies from closing the stream and checks the session: once it has ended
 * (signed out, expired, the user disabled, no longer a member) the stream says `ended` and closes —
 * at once when the console itself ended it (LiveFeed.accessChanged), else at the next heartbeat.
 */
import type { FastifyInstance } from 'fastify'
import { membershipOf, signedInOf } from '../access.js'
import type { LiveEvent } from '../live.js'
import { SESSION_COOKIE } from '../sessions.js'
import type { ConsoleServices } from '../services.js'
import { SECURITY_HEADERS } from '../headers.js'

/** Real time, not the engine clock: it paces a socket, like every other I/O keepalive. */
export const HEARTBEAT_MS = 15_000

export const eventRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { live, sessions, storage } = services

  app.get('/events', { config: { access: 'read' } }, async (request, reply) => {
    const { workspaceId } = membershipOf(request)
    const { user } = signedInOf(request)
    const cookie = request.cookies[SESSION_COOKIE]
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    const write = (text: string) => {
      if (!res.writableEnded) res.write(text)
    }
    const send = (event: LiveEvent | { type: 'ready' } | { type: 'ended'; reason: string }) =>
      write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
    let unsubscribe = () => {}
    const stillAllowed = (): boolean => {
      try {
        return sessions.authenticate(cookie)?.user.userId === user.userId && storage.memberships.get(workspaceId, user.userId) !== null
      } catch {
        return false
      }
    }
    /** False once the stream ended because access did. */
    const check = (): boolean => {
      if (stillAllowed()) return true
      send({ type: 'ended', reason: 'session ended or membership removed' })
      finish()
      res.end()
      return false
    }
    const beat = setInterval(() => {
      if (check()) write(': keep-alive\n\n')
    }, HEARTBEAT_MS)
    const stopChecks = live.onAccessChange(check)
    const finish = () => {
      clearInterval(beat)
      stopChecks()
      unsubscribe()
    }
    request.raw.socket.on('close', finish)
    res.on('close', finish)
    // Reconnect after 2 s if the stream drops (EventSource does it by itself).
    write('retry: 2000\n\n')
    unsubscribe = live.subscribe(workspaceId, send)
    send({ type: 'ready' })
  })
}
