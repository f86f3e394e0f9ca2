/**
 * Checking recordings with an independent tool: opus-tools' `opusinfo` (validates the Ogg Opus
 * stream: pages, CRCs, granule positions, headers) and `opusdec` (decodes it), as Debian ships them
 * (.ci/system-deps installs them).
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface OpusInfo {
  /** Everything opusinfo printed (stdout and stderr). */
  readonly text: string
  /** Seconds of playback opusinfo reports. */
  readonly seconds: number
  /** Lines opusinfo marks WARNING or ERROR. */
  readonly problems: ReadonlyArray<string>
}

/** opusinfo on a file: its reported playback length and any warning or error it printed. */
export const opusinfo = async (path: string): Promise<OpusInfo> => {
  const { stdout, stderr } = await run('opusinfo', [path]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }))
  const text = `${stdout}\n${stderr}`
  // "Playback length: 1m:02.340s"
  const m = /Playback length:\s*(?:(\d+)h:)?(\d+)m:([\d.]+)s/.exec(text)
  const seconds = m ? Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) : Number.NaN
  const problems = text.split('\n').filter((l) => /WARNING|ERROR/i.test(l))
  return { text, seconds, problems }
}

/** opusdec to raw 16-bit PCM at 16 kHz: the samples (throws when it cannot decode). */
export const opusdec = async (path: string): Promise<Int16Array> => {
  const { stdout } = await run('opusdec', ['--quiet', '--no-dither', '--rate', '16000', path, '-'], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 })
  const b = stdout as Buffer
  return new Int16Array(b.buffer, b.byteOffset, b.byteLength >>> 1)
}
