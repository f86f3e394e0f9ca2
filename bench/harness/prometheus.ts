/**
 * Reading a server's Prometheus text exposition (Hark's /metrics on its REST port): the samples
 * of one metric with their labels, for figures a bench run takes before and after its load.
 */

export interface PromSample {
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of metric `name` (exact name; comment lines and other metrics are skipped). */
export const promSamples = (text: string, name: string): PromSample[] => {
  const out: PromSample[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line.startsWith(name) || line.startsWith('#')) continue
    const rest = line.slice(name.length)
    let labels: Record<string, string> = {}
    let valueText: string
    if (rest.startsWith('{')) {
      const close = rest.lastIndexOf('}')
      if (close < 0) continue
      labels = Object.fromEntries([...rest.slice(1, close).matchAll(LABEL)].map((m) => [m[1]!, m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))]))
      valueText = rest.slice(close + 1)
    } else if (rest.startsWith(' ')) {
      valueText = rest
    } else continue // another metric whose name starts with this one
    const value = Number(valueText.trim().split(/\s+/)[0])
    if (Number.isFinite(value)) out.push({ labels, value })
  }
  return out
}

/** GET `url` and return its body, or null when it does not answer 200 within `timeoutMs`. */
export const scrape = async (url: string, timeoutMs = 5000): Promise<string | null> => {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    return r.status === 200 ? await r.text() : null
  } catch {
    return null
  }
}
