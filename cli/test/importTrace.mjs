// A preload for a traced process (`node --import <this file>`): at exit it writes the file URL of
// every module the process loaded, one a line, to $IMPORT_TRACE_FILE. ES modules are seen by a
// resolve hook (importTraceHooks.mjs, on the loader thread, which posts each URL here); CommonJS
// ones, required from anywhere, are read from require.cache. The trace is the main thread's: a
// worker thread (which runs this preload too) only adds its id to $IMPORT_TRACE_FILE.workers.
import { appendFileSync, writeFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { isMainThread, MessageChannel, receiveMessageOnPort, threadId } from 'node:worker_threads'

if (isMainThread) {
  const { port1, port2 } = new MessageChannel()
  register('./importTraceHooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] })
  const require = createRequire(import.meta.url)

  process.on('exit', () => {
    const seen = new Set(Object.keys(require.cache).map((file) => pathToFileURL(file).href))
    // Drained without the event loop: the hooks posted each URL before its module was loaded.
    for (let m = receiveMessageOnPort(port1); m !== undefined; m = receiveMessageOnPort(port1)) seen.add(m.message)
    writeFileSync(process.env.IMPORT_TRACE_FILE, [...seen].join('\n') + '\n')
  })
} else {
  appendFileSync(`${process.env.IMPORT_TRACE_FILE}.workers`, `${threadId}\n`)
}
