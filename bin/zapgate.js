#!/usr/bin/env node
// The `zapgate` command: loads the TypeScript sources through tsx's loader, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
