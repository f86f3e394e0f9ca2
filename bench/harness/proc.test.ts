import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, writeSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cpuPercent, parseCoreStats, parseIo, parseMachineStat, parseStat, parseStatus, parseThreadStat, readCpuSeconds, readMemory, readSyscalls, readThreads } from './proc.js'

describe('/proc readers', () => {
  it('reads utime and stime after the last parenthesis, whatever the command name holds', () => {
    const line = '4242 (we ird) (name)) S 1 4242 4242 0 -1 4194560 500 0 0 0 1234 567 0 0 20 0 11 0 100 0 0'
    expect(parseStat(line)).toEqual({ utime: 1234, stime: 567 })
  })

  it('reads a thread’s CPU ticks and nice value, and every thread of this process', () => {
    const line = '4243 (we ird) (name)) S 1 4242 4242 0 -1 4194560 500 0 0 0 1234 567 0 0 30 10 11 0 100 0 0'
    expect(parseThreadStat(line)).toEqual({ ticks: 1801, nice: 10 })
    const threads = readThreads(process.pid)
    // The main thread's id is the process id.
    expect(threads.get(process.pid)).toMatchObject({ ticks: expect.any(Number), nice: expect.any(Number) })
    expect(readThreads(2 ** 22 + 1).size).toBe(0)
  })

  it('rejects a line it cannot read', () => {
    expect(() => parseStat('garbage')).toThrow()
  })

  it('reads VmRSS and VmHWM in bytes', () => {
    const text = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t11\n'
    expect(parseStatus(text)).toEqual({ rssBytes: 102400 * 1024, hwmBytes: 204800 * 1024 })
  })

  it('reads the read and write system calls of /proc/<pid>/io', () => {
    const text = 'rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 3\nread_bytes: 0\nwrite_bytes: 0\n'
    expect(parseIo(text)).toEqual({ reads: 10, writes: 3 })
  })

  it('counts this process\'s own writes', () => {
    const devNull = openSync('/dev/null', 'w')
    const before = readSyscalls(process.pid)!
    for (let i = 0; i < 5; i++) writeSync(devNull, 'x')
    const after = readSyscalls(process.pid)!
    closeSync(devNull)
    expect(after.writes - before.writes).toBeGreaterThanOrEqual(5)
  })

  it('sums the busy columns of the machine line of /proc/stat', () => {
    const text = 'cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 50 2 25 500 10 1 1 3 0 0\n'
    // busy = user + nice + system + irq + softirq + steal; total adds idle and iowait
    expect(parseMachineStat(text)).toEqual({ busy: 167, total: 1187 })
    expect(parseCoreStats(text)).toEqual(new Map([[0, { busy: 82, total: 592 }]]))
  })

  it('turns CPU seconds over wall seconds into % of one core', () => {
    expect(cpuPercent(1.5, 2)).toBe(75)
    expect(cpuPercent(1, 0)).toBe(0)
  })

  it('reads this process, and nothing for a process that is gone', async () => {
    expect(readCpuSeconds(process.pid)).toBeGreaterThan(0)
    expect(readMemory(process.pid)!.rssBytes).toBeGreaterThan(1024 * 1024)
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    const pid = child.pid!
    await once(child, 'exit')
    expect(readCpuSeconds(pid)).toBeNull()
    expect(readMemory(pid)).toBeNull()
  })
})
