/**
 * Tools for the realtime session (Realtime API function calling): the allowed tools go in the
 * session's `tools` (a `session.update` again whenever the room's tools change); each call the
 * model makes (`response.function_call_arguments.done`) is carried out through the agent's
 * ToolRunner and answered with a `conversation.item.create` of type `function_call_output`; once
 * the response is done and every call answered, `response.create` asks the model to go on — with
 * `tool_choice: "none"` after `maxToolRounds` rounds in one turn, so it must answer.
 */
import type { ToolConfig, ToolRunner } from '../../core/provider.js'

export interface FunctionCallDone {
  readonly call_id?: string
  readonly name?: string
  readonly arguments?: string
}

export class RealtimeTools {
  private calls: Array<Promise<void>> = []
  private rounds = 0

  constructor(
    private readonly runner: ToolRunner,
    private readonly config: () => ToolConfig,
    private readonly send: (event: Record<string, unknown>) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** The session's `tools` and `tool_choice` (nothing when the agent may call no tool). */
  sessionFields(): Record<string, unknown> {
    if (!this.config().tools) return {}
    return { tools: this.runner.functions().map((f) => ({ type: 'function', ...f })), tool_choice: 'auto' }
  }

  /** A new turn (the room spoke): the round count starts again. */
  newTurn(): void {
    this.rounds = 0
  }

  /** The model finished a call's arguments: carry it out now, answer it when it returns. */
  callDone(event: FunctionCallDone): void {
    if (typeof event.call_id !== 'string' || typeof event.name !== 'string') return
    const callId = event.call_id
    this.calls.push(
      this.runner.call(event.name, event.arguments ?? '', this.signal).then((outcome) => {
        if (this.signal.aborted) return
        this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output: outcome.output } })
      }),
    )
  }

  /** A response ended: when it held calls, wait for their answers, then let the model go on. */
  async responseDone(output: ReadonlyArray<{ readonly type?: string }> | undefined, completed: boolean): Promise<void> {
    const calls = this.calls
    this.calls = []
    if (calls.length === 0 || !output?.some((o) => o.type === 'function_call')) return
    await Promise.all(calls)
    if (this.signal.aborted || !completed) return
    const last = ++this.rounds >= this.config().maxToolRounds
    this.send({ type: 'response.create', ...(last ? { response: { tool_choice: 'none' } } : {}) })
  }
}
