/**
 * GET /api/workspaces/{id}/events: the workspace's live feed as server-sent events (one named
 * event per change, its JSON in `data`), so pages update without polling. The stream ends with
 * `ended` once its session or its membership has: when its session would expire unused (a timer
 * on the engine's clock at the session's idle or absolute limit, whichever is first; the stream
 * itself is not a use), and when sessions end or memberships go (the `user.accessChanged` change,
 * heard at once from this process and at the next change poll from the CLI; LiveFeed.accessChanged).
 * A comment line every HEARTBEAT_MS keeps proxies from closing an idle stream. A tool call's detail
 * (name, arguments, result) reaches only streams whose user may read conversations' text.
 */
import type { FastifyInstance } from 'fastify'
import type { Timer } from '../../../core/extension.js'
import { allows } from '../../../core/people/roles.js'
import { membershipOf, signedInOf } from '../access.js'
import { SECURITY_HEADERS } from '../headers.js'
import type { LiveEvent } from '../live.js'
import { SESSION_COOKIE, type SignedIn } from '../sessions.js'
import type { ConsoleServices } from '../services.js'

/** Real time, not the engine clock: it paces a socket, like every other I/O keepalive. */
export const HEARTBEAT_MS = 15_000

export const eventRoutes = (services: ConsoleServices) => async (app: FastifyInstance) => {
  const { live, sessions, storage, clock } = services

  app.get('/events', { config: { access: 'read' } }, async (request, reply) => {
    const { workspaceId } = membershipOf(request)
    const { user, session } = signedInOf(request)
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
    let expiry: Timer | undefined
    let done = false
    /** The stream's session and membership as they are now; null once either is gone. */
    const stillAllowed = (): SignedIn | null => {
      try {
        const now = sessions.authenticate(cookie, { touch: false })
        return now?.user.userId === user.userId && storage.memberships.get(workspaceId, user.userId) !== null ? now : null
      } catch {
        return null
      }
    }
    /** Look again: end the stream if access is gone, else wait for the session's (maybe later) end. */
    const check = (): void => {
      if (done) return
      const allowed = stillAllowed()
      if (allowed) return expireAt(sessions.endsAt(allowed.session))
      send({ type: 'ended', reason: 'session ended or membership removed' })
      finish()
      res.end()
    }
    const expireAt = (at: number) => {
      clock.clearTimeout(expiry)
      expiry = clock.setTimeout(check, at - clock.now())
    }
    const beat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS)
    const stopChecks = live.onAccessChange(check)
    const finish = () => {
      done = true
      clearInterval(beat)
      clock.clearTimeout(expiry)
      stopChecks()
      unsubscribe()
    }
    request.raw.socket.on('close', finish)
    res.on('close', finish)
    // Reconnect after 2 s if the stream drops (EventSource does it by itself).
    write('retry: 2000\n\n')
    /** A tool call's detail is conversation text: for those who may read it now (not a viewer). */
    const mayReadText = (): boolean => {
      try {
        const membership = storage.memberships.get(workspaceId, user.userId)
        return membership !== null && allows(membership.role, 'operate')
      } catch {
        return false
      }
    }
    unsubscribe = live.subscribe(workspaceId, (e) => {
      if (e.type === 'tool_call' && e.detail && !mayReadText()) {
        const { detail: _withheld, ...rest } = e
        send(rest)
      } else send(e)
    })
    expireAt(sessions.endsAt(session))
    send({ type: 'ready' })
  })
}
