/**
 * Rooms, live: who is in each occupied room, on which transport, who is speaking, and its agents.
 * Who is speaking comes with the rooms (the room actors' record, so a talk spurt that began before
 * the page opened shows) and follows the `speaking` live events after that. Join a room from
 * this browser over WebRTC with the microphone (an ephemeral client), and leave.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { get } from '../api'
import { useDebounced, useLive } from '../live'
import type { Room } from '../types'
import { joinRoom, type Joined } from '../webrtc'
import { Empty, ErrorText, Field, Link, PageTitle, useAction } from '../ui'
import { can, type PageProps } from './page'

const keyOf = (room: string, participantId: string) => `${room}\u0000${participantId}`

export const RoomsPage = ({ workspace, live }: PageProps) => {
  const ws = workspace.workspaceId
  const [rooms, setRooms] = useState<ReadonlyArray<Room> | null>(null)
  const [speaking, setSpeaking] = useState<ReadonlySet<string>>(new Set())
  const [joined, setJoined] = useState<Joined | null>(null)
  const [joinName, setJoinName] = useState('')
  const [note, setNote] = useState('')
  const load = useAction()
  const join = useAction()
  // Live speaking events, numbered: a reading of the rooms started before one arrived keeps what the event said.
  const heard = useRef({ count: 0, last: new Map<string, number>() })
  const refresh = () =>
    void load.run(async () => {
      const since = heard.current.count
      const fresh = (await get<{ rooms: Room[] }>(`/workspaces/${ws}/rooms`)).rooms
      setRooms(fresh)
      setSpeaking((now) => {
        const next = new Set<string>()
        for (const r of fresh) {
          for (const p of r.participants) {
            const key = keyOf(r.room, p.id)
            const newer = (heard.current.last.get(key) ?? -1) >= since
            if (newer ? now.has(key) : p.speaking) next.add(key)
          }
        }
        return next
      })
    })
  const soon = useDebounced(refresh)
  useEffect(refresh, [ws])
  // Leaving the page leaves the room.
  const current = useRef<Joined | null>(null)
  current.current = joined
  useEffect(() => () => void current.current?.leave(), [])
  useLive(live, (e) => {
    if (e.type === 'speaking') {
      const key = keyOf(e.room, e.participantId)
      heard.current.last.set(key, heard.current.count++)
      setSpeaking((s) => {
        const next = new Set(s)
        if (e.speaking) next.add(key)
        else next.delete(key)
        return next
      })
    } else if (e.type === 'room' || e.type === 'presence' || e.type === 'agent') soon()
  })
  const enter = (room: string) =>
    void join.run(async () => {
      await joined?.leave()
      setJoined(null)
      const j = await joinRoom(ws, room)
      j.session.on('reconnecting', () => setNote(`The connection to room ${room} dropped; reconnecting…`))
      j.session.on('reconnected', () => setNote(`This browser is back in room ${room} as ${j.clientId}.`))
      j.session.on('closed', (error) => {
        if (error === null) return
        setJoined(null)
        setNote(`The engine ended this browser’s session: ${error.message}.`)
      })
      setJoined(j)
      setNote(`This browser is in room ${room} as ${j.clientId}, with its microphone.`)
    })
  const leave = () =>
    void join.run(async () => {
      await joined?.leave()
      setJoined(null)
      setNote('This browser left the room.')
    })
  return (
    <>
      <PageTitle workspace={workspace.name}>Rooms</PageTitle>
      {can(workspace, 'operate') && (
        <section aria-labelledby="join-heading" class="panel">
          <h2 id="join-heading">Talk in a room from this browser</h2>
          {joined ? (
            <button type="button" class="secondary" onClick={leave}>
              Leave room {joined.room}
            </button>
          ) : (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault()
                if (joinName.trim()) enter(joinName.trim())
              }}
            >
              <Field label="Room" required value={joinName} onInput={(e) => setJoinName(e.currentTarget.value)} />
              <button type="submit" disabled={join.busy}>
                Join room
              </button>
            </form>
          )}
          <p role="status">{note}</p>
          <ErrorText error={join.error} />
        </section>
      )}
      <ErrorText error={load.error} />
      {rooms === null ? (
        <p>Loading…</p>
      ) : rooms.length === 0 ? (
        <Empty>
          <p>Nobody is in any room right now. A room opens when a terminal connects to it: each client enters the room it is mapped to.</p>
          <p>
            Map clients to rooms on <Link href={`/w/${ws}/clients`}>Clients</Link>
            {can(workspace, 'operate') ? ', or talk in a room from this browser above.' : '.'}
          </p>
        </Empty>
      ) : (
        <ul class="cards">
          {rooms.map((r) => (
            <li key={r.room} aria-labelledby={`room-${r.room}`}>
              <h2 id={`room-${r.room}`}>{r.room}</h2>
              <ul class="participants" aria-label={`In room ${r.room}`}>
                {r.participants.map((p) => {
                  const talking = speaking.has(keyOf(r.room, p.id))
                  return (
                    <li key={p.id} data-participant={p.id} data-speaking={talking ? 'true' : 'false'}>
                      <span class={`speaking ${talking ? 'on' : ''}`} aria-hidden="true" /> <span class="mono">{p.id}</span>{' '}
                      <span class="muted">
                        {p.kind === 'agent' ? 'agent' : p.transport}
                        {talking ? ' · speaking' : ''}
                      </span>
                    </li>
                  )
                })}
              </ul>
              {r.defaultAgent && <p class="hint">Default agent: {r.defaultAgent.presetId ?? 'platform default'}</p>}
              {can(workspace, 'operate') && !joined && (
                <button type="button" class="secondary small" onClick={() => enter(r.room)} disabled={join.busy}>
                  Join {r.room}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  )
}
