/**
 * Binding peers' UDP sockets inside `webrtc.portMin`–`portMax`. werift takes a range per
 * connection and scans it from its start, binding a probe socket on each port until one is free,
 * then binds the real one: two connections gathering at once may pick the same port, and the scan
 * grows with every peer. So within the range, peers are bound one at a time, and each scan starts
 * just after the port the previous peer got (wrapping to the start, and retrying over the whole
 * range when the tail is full). Without a range the OS picks ports and none of this applies.
 */
import { isHarkError } from '../../core/extension.js'

export class PortCursor {
  private next: number
  private tail: Promise<unknown> = Promise.resolve()

  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    this.next = min
  }

  /**
   * Run `bind` alone with the range werift should scan. `bind` reports the port it got, or throws
   * CapacityExceeded when the range it was given had none free.
   */
  exclusive<T extends { readonly port: number | null }>(bind: (range: [number, number]) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      // werift refuses a range whose ends are equal.
      const start = this.next < this.max ? this.next : this.min
      let result: T
      try {
        result = await bind([start, this.max])
      } catch (error) {
        if (start === this.min || !isHarkError(error) || error._tag !== 'CapacityExceeded') throw error
        result = await bind([this.min, this.max])
      }
      if (result.port !== null) this.next = result.port + 1
      return result
    }
    const result = this.tail.then(run)
    this.tail = result.catch(() => undefined)
    return result
  }
}
