/**
 * werift, loaded by the first WebRTC offer rather than with the transport: it brings ~250 modules
 * (@peculiar/x509, asn1js, @noble/*, …), and an engine with WebRTC on that never sees a peer pays
 * neither their start-up CPU nor their memory (issue 39, a lighter process). cli/startup.test.ts
 * checks that `hark start` does not load it.
 */
export type Werift = typeof import('werift')

let loading: Promise<Werift> | undefined

/** The werift module (imported once, on the first call). */
export const loadWerift = (): Promise<Werift> => (loading ??= import('werift'))
