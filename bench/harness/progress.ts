/**
 * The progress bar on stderr (cli-progress): runs done out of runs planned, and what runs now
 * (scenario, side, round, phase). Off the terminal it prints a line every few seconds instead.
 */
import cliProgress from 'cli-progress'

export interface Progress {
  /** Plan `total` runs (more may be added, e.g. by a sweep). */
  start(total: number): void
  addToTotal(n: number): void
  /** What runs now. */
  at(what: string): void
  /** What the current run is doing. */
  phase(text: string): void
  /** One run finished. */
  tick(): void
  stop(): void
}

export const noProgress: Progress = { start() {}, addToTotal() {}, at() {}, phase() {}, tick() {}, stop() {} }

export const progressBar = (stream: NodeJS.WriteStream = process.stderr): Progress => {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'bench [{bar}] {value}/{total} runs | {duration_formatted} | {what} · {phase}',
      barsize: 24,
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 5000,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  )
  let total = 0
  let value = 0
  let running = false
  const payload = { what: '', phase: '' }
  return {
    start(n) {
      total = n
      bar.start(Math.max(1, total), 0, payload)
      running = true
    },
    addToTotal(n) {
      total += n
      if (running) bar.setTotal(Math.max(1, total))
    },
    at(what) {
      payload.what = what
      payload.phase = ''
      if (running) bar.update(payload)
    },
    phase(text) {
      payload.phase = text
      if (running) bar.update(payload)
    },
    tick() {
      value++
      if (running) bar.update(value, payload)
    },
    stop() {
      if (running) bar.stop()
      running = false
    },
  }
}
