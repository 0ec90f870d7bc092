// Direct entry (`node --import tsx simnet/src/main.ts [...]`), used by the density bench's child process.
import { runSimnetCli } from './cli.js';

process.exitCode = await runSimnetCli(process.argv.slice(2));
