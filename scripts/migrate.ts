import { boot } from "./boot";

const { embedded } = await boot();
await embedded?.close();
console.log("The database schema is up to date.");
process.exit(0);
