/**
 * A WAV file of a steady sine (16-bit mono PCM): what the test browser's fake microphone plays
 * (`--use-file-for-fake-audio-capture`, looped), so the audio that reaches the room is known.
 */
import { writeFileSync } from 'node:fs'

export const writeToneWav = (path: string, hz: number, seconds = 2, sampleRate = 48_000, amplitude = 8000): void => {
  const samples = Math.round(seconds * sampleRate)
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate)), i * 2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVE', 8, 'ascii')
  header.write('fmt ', 12, 'ascii')
  header.writeUInt32LE(16, 16) // fmt chunk size
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * 2, 28) // byte rate
  header.writeUInt16LE(2, 32) // block align
  header.writeUInt16LE(16, 34) // bits per sample
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(data.length, 40)
  writeFileSync(path, Buffer.concat([header, data]))
}
