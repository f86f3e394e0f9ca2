// Module hooks of importTrace.mjs (they run on Node's loader thread): post every resolved URL.
let port

export const initialize = (data) => {
  port = data.port
}

export const resolve = async (specifier, context, next) => {
  const resolved = await next(specifier, context)
  port.postMessage(resolved.url)
  return resolved
}
