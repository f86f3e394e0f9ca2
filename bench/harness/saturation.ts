/**
 * Which side ran out of room in a measurement: the server (its core busy), the generator (its
 * cores busy, or it could not send at the rate asked), both, or neither. A ratio taken while the
 * generator saturated measures the generator, and the report says so.
 */

/** CPU share of a core at which a process counts as saturated. */
export const SATURATED_CPU_PERCENT = 90
/** Fraction of scheduled sends that may be missing before the generator counts as saturated. */
export const SEND_SHORTFALL_LIMIT = 0.02

export type Saturated = 'server' | 'generator' | 'both' | 'neither'

export interface SaturationInput {
  /** CPU of the server process(es), percent of one core. */
  readonly serverCpuPercent: number
  /** Cores the server may use (1 when pinned). */
  readonly serverCores: number
  /** CPU of all generator processes together, percent of one core. */
  readonly generatorCpuPercent: number
  /** Cores the generators may use. */
  readonly generatorCores: number
  /** 1 - sent / scheduled, when the load has a target rate; null for closed-loop loads. */
  readonly sendShortfall: number | null
  /** How busy the server's core was, by anyone (null when not pinned or unknown). */
  readonly serverCoreBusyPercent?: number | null
  /** How busy the generators' cores were on average, by anyone (null when not pinned or unknown). */
  readonly generatorCoresBusyPercent?: number | null
}

export const saturation = (s: SaturationInput): { side: Saturated; reasons: string[] } => {
  const reasons: string[] = []
  const serverOwn = s.serverCpuPercent >= SATURATED_CPU_PERCENT * Math.max(1, s.serverCores)
  // A core kept busy by other processes limits the server just as well: say who filled it.
  const serverCore = !serverOwn && (s.serverCoreBusyPercent ?? 0) >= SATURATED_CPU_PERCENT
  const serverFull = serverOwn || serverCore
  if (serverOwn) reasons.push(`server CPU ${s.serverCpuPercent.toFixed(0)}% of ${s.serverCores} core(s)`)
  if (serverCore) reasons.push(`server core ${s.serverCoreBusyPercent!.toFixed(0)}% busy, the server's own share ${s.serverCpuPercent.toFixed(0)}%`)
  const genOwn = s.generatorCores > 0 && s.generatorCpuPercent >= SATURATED_CPU_PERCENT * s.generatorCores
  const genCore = s.generatorCores > 0 && !genOwn && (s.generatorCoresBusyPercent ?? 0) >= SATURATED_CPU_PERCENT
  const genCpuFull = genOwn || genCore
  if (genOwn) reasons.push(`generator CPU ${s.generatorCpuPercent.toFixed(0)}% of ${s.generatorCores} core(s)`)
  if (genCore) reasons.push(`generator cores ${s.generatorCoresBusyPercent!.toFixed(0)}% busy, the generators' own share ${s.generatorCpuPercent.toFixed(0)}%`)
  const shortfall = s.sendShortfall !== null && s.sendShortfall > SEND_SHORTFALL_LIMIT
  if (shortfall) reasons.push(`generator sent ${((1 - s.sendShortfall!) * 100).toFixed(1)}% of the scheduled frames`)
  const gen = genCpuFull || shortfall
  const side: Saturated = serverFull && gen ? 'both' : serverFull ? 'server' : gen ? 'generator' : 'neither'
  return { side, reasons }
}
