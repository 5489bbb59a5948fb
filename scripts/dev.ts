// `npm run dev -- <args>`: runs the CLI from source with tsx, no build needed.
import { main } from '../src/main.js';

process.exitCode = await main(process.argv.slice(2));
