/**
 * The OTA and activation endpoints a xiaozhi-esp32 device calls on boot, on the REST port, at the
 * paths the firmware derives from its `ota_url` (spec/xiaozhi.md, OTA and activation):
 *
 *   POST /xiaozhi/ota/           Device-Id, Client-Id headers, the board's JSON as body
 *     → server_time, firmware (the device's own version: no update), and either `websocket`
 *       {url, token} for a device bound to a client, or `activation` {code, message, challenge}
 *   POST /xiaozhi/ota/activate   → 202 while nobody claimed the code, 200 once the device is bound
 *
 * The body is read leniently (some boards send JSON the parser would refuse): only the firmware
 * version and a few board fields are kept. Requests are limited per client IP, in windows of the
 * engine's clock. The plugin reads the `xiaozhi.*` settings the xiaozhi transport declares: it is
 * registered with it (index.ts).
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  clockedRateLimitStore,
  errorEnvelope,
  inject,
  injectable,
  isHarkError,
  NotFound,
  randomBase62,
  RateLimited,
  ServerShuttingDown,
  services,
  ValidationFailed,
  wireCodesOf,
  type ClockShape,
  type EnginePlugin,
  type Listeners,
  type Logger,
  type SecurityShape,
  type Settings,
} from '../../core/extension.js'
import { xiaozhiSettings, type XiaozhiSettings } from './settings.js'
import { PLAIN_LISTENER } from './transport.js'

export const OTA_PATH = '/xiaozhi/ota/'
export const ACTIVATE_PATH = '/xiaozhi/ota/activate'
/** Largest body read (the board JSON with its partition table is a few KiB). */
const MAX_BODY_BYTES = 64 * 1024
/** OTA requests per client IP per minute. */
export const OTA_REQUESTS_PER_MINUTE = 120
/** The device kind: what a client created by a claim is. */
export const DEVICE_KIND = 'xiaozhi'

const isObject = (u: unknown): u is Record<string, unknown> => u !== null && typeof u === 'object' && !Array.isArray(u)
const text = (u: unknown, max = 64): string | null => (typeof u === 'string' && u.length > 0 ? u.slice(0, max) : null)

/** One header value; a header sent twice is refused. */
const oneHeader = (request: FastifyRequest, name: string): string | null => {
  const value = request.headers[name]
  if (Array.isArray(value)) throw new ValidationFailed({ field: name, message: `${name} header sent more than once` })
  return typeof value === 'string' && value.length > 0 ? value : null
}

/** What the firmware says about itself in the OTA body (GetSystemInfoJson). */
const boardInfo = (raw: string): { version: string; info: Record<string, unknown> } => {
  let body: unknown = null
  try {
    body = JSON.parse(raw)
  } catch {
    // The board JSON of some boards is not valid JSON; the headers are what identifies a device.
  }
  if (!isObject(body)) return { version: '', info: {} }
  const application = isObject(body.application) ? body.application : {}
  const board = isObject(body.board) ? body.board : {}
  const version = text(application.version, 32) ?? ''
  const info = {
    firmware: version || null,
    board: text(board.type) ?? text(board.name),
    chip: text(body.chip_model_name, 32),
    language: text(body.language, 16),
  }
  return { version, info }
}

const deviceIds = (request: FastifyRequest) => {
  const deviceId = oneHeader(request, 'device-id')
  if (deviceId === null) throw new ValidationFailed({ field: 'Device-Id', message: 'the Device-Id header (the device MAC address) is required' })
  // Firmware before v1.2.1 sends no Client-Id: its MAC stands for the install instance.
  return { deviceId, instanceId: oneHeader(request, 'client-id') ?? deviceId }
}

/** The host name the device reached us by (the Host header), for the WebSocket URL. */
const requestHost = (request: FastifyRequest, fallback: string): string => {
  const host = request.headers.host
  if (typeof host !== 'string' || host.length === 0) return fallback
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!
}

interface OtaDeps {
  readonly engineSettings: Settings
  readonly settings: XiaozhiSettings
  readonly security: SecurityShape
  readonly listeners: Listeners
  readonly clock: ClockShape
  readonly log: Logger
}

@injectable()
export class XiaozhiOta implements EnginePlugin {
  private readonly deps: OtaDeps

  constructor(
    @inject(services.settings) engineSettings: Settings,
    @inject(xiaozhiSettings.key) settings: XiaozhiSettings,
    @inject(services.security) security: SecurityShape,
    @inject(services.listeners) listeners: Listeners,
    @inject(services.clock) clock: ClockShape,
    @inject(services.log) log: Logger,
  ) {
    this.deps = { engineSettings, settings, security, listeners, clock, log }
  }

  register(app: FastifyInstance): Promise<void> {
    return otaRoutes(this.deps)(app)
  }
}

const otaRoutes = ({ engineSettings, settings, security, listeners, clock, log }: OtaDeps) => async (app: FastifyInstance) => {
  // Any content type, read as text: the device's JSON is parsed leniently above.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => done(null, body))
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const e = error as { statusCode?: number; code?: string }
    const domain = isHarkError(error)
      ? error
      : e.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? new ValidationFailed({ field: 'body', message: `body larger than ${MAX_BODY_BYTES} bytes` })
        : error
    const status = wireCodesOf(domain).http
    if (status >= 500) log.error({ err: error, url: request.url }, 'xiaozhi OTA request failed')
    return reply.code(status).type('application/json; charset=utf-8').send(errorEnvelope(domain))
  })
  await app.register(rateLimit, {
    max: OTA_REQUESTS_PER_MINUTE,
    timeWindow: 60_000,
    store: clockedRateLimitStore(clock),
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(context.ttl / 1000))
      return new RateLimited({ message: `rate limit exceeded, retry in ${retryAfterSeconds} s`, retryAfterSeconds })
    },
  })

  const websocketUrl = (request: FastifyRequest): string => {
    if (settings.websocketUrl !== null) return settings.websocketUrl
    const name = requestHost(request, engineSettings.host)
    const plain = settings.plainPort === null ? null : listeners.port(PLAIN_LISTENER)
    if (plain !== null) return `ws://${name}:${plain}${settings.path}`
    const gateway = listeners.port('gateway')
    if (gateway === null) throw new ServerShuttingDown({ message: 'the WebSocket listener is not up' })
    return `wss://${name}:${gateway}${settings.path}`
  }

  const ota = async (request: FastifyRequest) => {
    const { deviceId, instanceId } = deviceIds(request)
    const { version, info } = boardInfo(typeof request.body === 'string' ? request.body : '')
    const answer = security.deviceEnrollment.announce({ deviceId, instanceId, kind: DEVICE_KIND, info })
    const common = {
      server_time: { timestamp: clock.now(), timezone_offset: 0 },
      // The device's own version and no URL: never an update.
      firmware: { version, url: '' },
    }
    if (answer.state === 'bound') {
      return { ...common, websocket: { url: websocketUrl(request), token: answer.devicePassword } }
    }
    return {
      ...common,
      activation: {
        code: answer.code,
        message: `Add this device to Hark with code ${answer.code}`,
        // The firmware polls …/activate only when a challenge is present; Hark checks no signature.
        challenge: randomBase62(16),
        timeout_ms: 30_000,
      },
    }
  }
  app.post(OTA_PATH, ota)
  app.get(OTA_PATH, ota)
  app.post(OTA_PATH.slice(0, -1), ota)

  app.post(ACTIVATE_PATH, async (request, reply) => {
    const { deviceId, instanceId } = deviceIds(request)
    const status = security.deviceEnrollment.status(deviceId, instanceId)
    if (status === 'bound') return { status: 'activated' }
    if (status === 'pending') return reply.code(202).send({ status: 'waiting', message: 'waiting for the code to be claimed' })
    throw new NotFound({ message: 'no activation is pending for this device: ask the OTA endpoint for a code' })
  })
}
