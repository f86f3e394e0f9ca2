/**
 * Debian's Chromium for browser tests (`.ci/system-deps` installs it; HARK_TEST_CHROMIUM names
 * another), and the flags every test launches it with: headless, no background traffic (this
 * machine's network is closed), a fake microphone playing a WAV file, and the engine's
 * self-signed certificate accepted.
 */
export const CHROMIUM = process.env.HARK_TEST_CHROMIUM || '/usr/bin/chromium'

export const chromiumArgs = (fakeMicrophoneWav: string): string[] => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  `--use-file-for-fake-audio-capture=${fakeMicrophoneWav}`,
  '--allow-loopback-in-peer-connection',
  '--autoplay-policy=no-user-gesture-required',
  // The engine's certificate is self-signed (generated into its data dir).
  '--ignore-certificate-errors',
]
