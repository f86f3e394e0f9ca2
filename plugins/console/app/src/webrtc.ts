/**
 * Joining a room from this browser: the console makes an ephemeral client of the room (kind
 * `console`) and hands back its token and the gateway's port; the browser then joins through
 * @hark/client over WebRTC like any page (microphone, data channel `hark`, the room's mixed audio
 * played back, reconnection). Leaving ends the session and stops the microphone.
 */
import { connect, type Session } from '@hark/client'
import { post } from './api'

export interface Joined {
  readonly clientId: string
  readonly room: string
  /** Its events (`session.on(…)`), state and typed errors. */
  readonly session: Session
  leave(): Promise<void>
}

interface JoinAnswer {
  readonly token: string
  readonly clientId: string
  readonly room: string
  readonly gateway: { readonly port: number | null }
}

export const joinRoom = async (workspaceId: string, room: string): Promise<Joined> => {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot use a microphone here.')
  const j = await post<JoinAnswer>(`/workspaces/${workspaceId}/rooms/${encodeURIComponent(room)}/join`)
  if (j.gateway.port === null) throw new Error('The engine has no gateway listening.')
  const session = await connect({ url: `https://${location.hostname}:${j.gateway.port}`, token: j.token, transport: 'webrtc' })
  return { clientId: j.clientId, room: j.room, session, leave: () => session.close() }
}
