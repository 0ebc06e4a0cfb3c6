import { log } from "@/lib/log";
import { boot } from "@/server/boot";

const { embedded } = await boot();
await embedded?.close();
log().info("the database schema is up to date");
process.exit(0);
