import { describe, expect, it } from 'vitest'
import { CliError } from '../context.js'
import { MAX_NODES, parseNodeCount } from './nodeCount.js'
import { withoutNodesFlag } from './supervisor.js'

describe('--nodes', () => {
  it('takes a whole number from 1 to MAX_NODES; absent is 1 (the single process of today)', () => {
    expect(parseNodeCount(undefined)).toBe(1)
    expect(parseNodeCount('1')).toBe(1)
    expect(parseNodeCount('4')).toBe(4)
    expect(parseNodeCount(String(MAX_NODES))).toBe(MAX_NODES)
  })

  it('auto is the CPUs the process may use, at least 1', () => {
    expect(parseNodeCount('auto', () => 6)).toBe(6)
    expect(parseNodeCount('auto', () => 0)).toBe(1)
    expect(parseNodeCount('auto', () => 10_000)).toBe(MAX_NODES)
  })

  it.each(['0', 'abc', '-1', '1.5', '', ' 2', '2x', String(MAX_NODES + 1)])('refuses %j with a usage error (exit 2) that says what it takes', (raw) => {
    let error: unknown
    try {
      parseNodeCount(raw)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(2)
    expect((error as CliError).message).toBe(`--nodes takes a whole number from 1 to ${MAX_NODES}, or auto (the CPUs this process may use); got '${raw}'`)
  })

  it('is left off the command line the nodes are started with, in both spellings', () => {
    expect(withoutNodesFlag(['start', '--nodes', '2', '--data', 'd', '--nodes=auto', '--rest-port', '0'])).toEqual(['start', '--data', 'd', '--rest-port', '0'])
  })
})
