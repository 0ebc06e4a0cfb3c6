import { startFakeDnsServer } from "@/tests/support/fake-dns-server";
const dns = await startFakeDnsServer({ "silent.bench.example": "silent" }, { a: ["93.184.215.14"] });
console.log(dns.resolver);
setInterval(() => undefined, 1 << 30);
