#!/usr/bin/env node
// The hark command: the compiled CLI (npm ci builds it through the prepare script).
// Its modules load with V8's young generation held at its initial size (cli/commands/start.ts,
// START_V8_FLAGS: an idle engine kept what start grew it to); so the CLI is imported after that.
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--semi-space-growth-factor=1')
await import('../dist/cli/main.js')
