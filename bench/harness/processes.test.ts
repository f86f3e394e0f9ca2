import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { benchModule } from './paths.js'
import { ProcessGroup, liveProcesses } from './processes.js'

const isGone = (pid: number) => {
  try {
    process.kill(pid, 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** First line a child prints on stdout (the stream keeps flowing, so its end can still be awaited). */
const firstLine = (stream: NodeJS.ReadableStream): Promise<string> =>
  new Promise((resolve) => {
    let buf = ''
    const onData = (chunk: Buffer | string) => {
      buf += String(chunk)
      const i = buf.indexOf('\n')
      if (i >= 0) {
        stream.off('data', onData)
        resolve(buf.slice(0, i))
      }
    }
    stream.on('data', onData)
    stream.once('end', () => resolve(buf))
  })

describe('process cleanup', () => {
  it('stops every member of a group by PID and sees each exit', async () => {
    const group = new ProcessGroup()
    const a = group.spawn({ name: 'a', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60000)'] })
    const b = group.spawn({ name: 'b', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60000)'] })
    expect(liveProcesses()).toEqual(expect.arrayContaining([a, b]))
    await group.stopAll()
    expect(await a.exited).toEqual({ code: null, signal: 'SIGTERM' })
    expect(await b.exited).toEqual({ code: null, signal: 'SIGTERM' })
    expect(group.running).toEqual([])
    expect(isGone(a.pid) && isGone(b.pid)).toBe(true)
  })

  it('SIGKILLs a process that ignores SIGTERM once the grace period is over', async () => {
    const group = new ProcessGroup()
    const stubborn = group.spawn({
      name: 'stubborn',
      command: process.execPath,
      args: ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setTimeout(() => {}, 60000)"],
      captureStdout: true,
    })
    expect(await firstLine(stubborn.child.stdout!)).toBe('ready')
    const exit = await stubborn.stop(100)
    expect(exit.signal).toBe('SIGKILL')
  })

  it.each(['SIGTERM', 'SIGINT'] as const)('leaves no child behind when the runner gets %s', async (signal) => {
    // cleanupCheck starts a dummy child writing to the same stdout pipe; the pipe ends only once
    // both have exited, so waiting for its end waits for the child's exit (no sleeping).
    const runner = spawn(process.execPath, [benchModule('harness/cleanupCheck')], { stdio: ['ignore', 'pipe', 'pipe'] })
    const ended = once(runner.stdout, 'end')
    const line = await firstLine(runner.stdout)
    const childPid = Number(/^child (\d+)$/.exec(line)?.[1])
    expect(childPid).toBeGreaterThan(0)
    expect(isGone(childPid)).toBe(false)
    runner.kill(signal)
    const [code] = (await once(runner, 'exit')) as [number | null]
    expect(code).toBe(signal === 'SIGINT' ? 130 : 143)
    await ended
    expect(isGone(childPid)).toBe(true)
  })
})
