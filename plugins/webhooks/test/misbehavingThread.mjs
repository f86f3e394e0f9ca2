// A delivery thread that answers badly on purpose (deliveryThread.test.ts): what it does with a job
// depends on the job's event id. Plain JavaScript: a worker thread does not run TypeScript.
import { parentPort } from 'node:worker_threads'

/** `send` messages received (the `count` job answers with it as its latency). */
let messages = 0

parentPort.on('message', (message) => {
  if (message.t !== 'send') return
  messages++
  for (const job of message.jobs) answer(job)
})

const answer = (m) => {
  const done = (fields) => parentPort.postMessage({ t: 'done', outcomes: [{ id: m.id, ...fields }] })
  switch (m.eventId) {
    case 'not-an-object':
      parentPort.postMessage(42)
      parentPort.postMessage(null)
      return done({ result: 'success', status: 204, error: null, latencyMs: 3 })
    case 'unknown-result':
      return done({ result: 'delivered!', status: 200, error: null, latencyMs: 1 })
    case 'success-without-2xx':
      return done({ result: 'success', status: 500, error: null, latencyMs: 1 })
    case 'bad-latency':
      return done({ result: 'http_error', status: 500, error: 'HTTP 500', latencyMs: 'slow' })
    case 'huge-error':
      return done({ result: 'http_error', status: 500, error: 'x'.repeat(4 * 1024 * 1024), latencyMs: 2 })
    case 'unknown-id':
      parentPort.postMessage({ t: 'done', outcomes: [{ id: m.id + 1_000_000, result: 'success', status: 200, error: null, latencyMs: 1 }] })
      return done({ result: 'timeout', status: null, error: 'no complete answer within 10000 ms', latencyMs: 10_000 })
    case 'busy-loop':
      // Stuck: its event loop never turns again, so no timeout of its own can answer.
      for (;;);
    case 'crash':
      // An uncaught error ends the thread.
      setImmediate(() => {
        throw new Error('delivery thread crashed on purpose')
      })
      return
    case 'count':
      return done({ result: 'success', status: 200, error: null, latencyMs: messages })
    default:
      return done({ result: 'success', status: 200, error: null, latencyMs: 1 })
  }
}
