/**
 * Test client of the REST API: real HTTP to a real engine, and every response checked against
 * the checked-in OpenAPI document (spec/openapi.json) with Ajv's JSON Schema 2020-12 dialect —
 * the status must be documented for the operation and the body must match its schema. A
 * response the document does not describe fails the test that received it.
 */
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import formatsPlugin from 'ajv-formats'
import { repoRoot } from '../../../core/test/helpers.js'

const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020

export const SPEC_FILE = join(repoRoot, 'spec/openapi.json')

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, unknown> }
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

/** Validates responses against the document; compiled validators are cached per (path, method, status). */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020
  private readonly cache = new Map<string, ValidateFunction>()
  private readonly templates: Array<{ template: string; regex: RegExp }>
  /** How many responses were checked (a test can assert it checked something). */
  checked = 0

  constructor(readonly doc: OpenApiDocument = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as OpenApiDocument) {
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }))
    this.ajv.addSchema(doc as object, 'openapi.json')
    // Static segments win over parameters, as in the router: fewest parameters first.
    const params = (template: string) => template.split('{').length
    this.templates = Object.keys(doc.paths)
      .sort((a, b) => params(a) - params(b))
      .map((template) => ({
        template,
        regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.cache.get(pointer)
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json#${pointer}` })
      this.cache.set(pointer, v)
    }
    return v
  }

  /** Throws when the response is not what the document says `method path` answers with `status`. */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
    this.checked++
    const pathname = path.split('?')[0]!
    const match = this.templates.find((t) => t.regex.test(pathname))
    const op = match ? this.doc.paths[match.template]![method.toLowerCase()] : undefined
    let pointer: string
    if (!op) {
      // Not an operation (unknown path, method or undecodable URL): it must be a documented error.
      if (status < 400) throw new Error(`${method} ${path} answered ${status} but is not in the OpenAPI document`)
      pointer = '/components/schemas/Error'
    } else {
      const response = op.responses[String(status)]
      if (!response) throw new Error(`${method} ${path}: status ${status} is not documented for this operation`)
      const schema = response.content?.['application/json']?.schema
      if (!schema) return
      pointer = `/paths/${escapePointer(match!.template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
    }
    if (!contentType?.startsWith('application/json')) {
      throw new Error(`${method} ${path}: ${status} has content-type ${contentType}, expected application/json`)
    }
    const validate = this.validator(pointer)
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} → ${status}: body does not match the OpenAPI document: ` +
          `${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      )
    }
  }
}

/** One validator per test process: every test file's responses go through it. */
export const openApi = new OpenApiResponseValidator()

// any: tests read response bodies field by field right after asserting them against the document.
type Json = any

export interface ApiResponse<T = Json> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
}

export interface CallOptions {
  /** A JSON value to send (serialized), or a raw string/Buffer sent as-is. */
  readonly body?: unknown
  readonly raw?: string | Buffer
  readonly headers?: Record<string, string>
  /** Leave out the Authorization header. */
  readonly anonymous?: boolean
}

/** A REST caller bound to a base URL and an API key. */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | null,
  ) {}

  withKey(apiKey: string | null): Api {
    return new Api(this.baseUrl, apiKey)
  }

  async call<T = Json>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {}
    if (this.apiKey && !options.anonymous) headers.authorization = `Bearer ${this.apiKey}`
    let payload: string | Buffer | undefined = options.raw
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body)
      headers['content-type'] = 'application/json'
    }
    Object.assign(headers, options.headers)
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload })
    const text = await res.text()
    const contentType = res.headers.get('content-type')
    const body = contentType?.startsWith('application/json') && text.length > 0 ? JSON.parse(text) : text
    openApi.check(method, new URL(this.baseUrl + path).pathname, res.status, contentType, body)
    return { status: res.status, headers: res.headers, body: body as T }
  }

  get<T = Json>(path: string, o?: CallOptions) {
    return this.call<T>('GET', path, o)
  }
  post<T = Json>(path: string, body?: unknown, o: CallOptions = {}) {
    return this.call<T>('POST', path, { ...o, body })
  }
  patch<T = Json>(path: string, body?: unknown, o: CallOptions = {}) {
    return this.call<T>('PATCH', path, { ...o, body })
  }
  put<T = Json>(path: string, body?: unknown, o: CallOptions = {}) {
    return this.call<T>('PUT', path, { ...o, body })
  }
  delete<T = Json>(path: string, o?: CallOptions) {
    return this.call<T>('DELETE', path, o)
  }

  /**
   * A request with a raw, unnormalized path (fetch would resolve "..", so this uses node:http),
   * checked against the document like every other response.
   */
  rawPath(method: string, rawPath: string): Promise<ApiResponse> {
    const url = new URL(this.baseUrl)
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname, port: url.port, method, path: rawPath,
          headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (d: string) => (text += d))
          res.on('end', () => {
            try {
              const contentType = res.headers['content-type'] ?? null
              const body = contentType?.startsWith('application/json') && text ? JSON.parse(text) : text
              openApi.check(method, rawPath, res.statusCode!, contentType, body)
              const headers = new Headers()
              for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v)
              resolve({ status: res.statusCode!, headers, body })
            } catch (e) {
              reject(e)
            }
          })
        },
      )
      req.on('error', reject)
      req.end()
    })
  }
}
