// Lets a child process run the project's TypeScript straight from src/ (Node 20 cannot strip
// types): `node --import ./ts-loader.mjs entry.ts`. Uses rolldown's oxc transform, which vite
// already brings; relative `.js` specifiers resolve to the `.ts` file beside them.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
