// For the client's unit tests (client/test/): protocol.js imports msgpack by the path the server
// serves it at (/vendor/msgpack@VERSION/, the version installed: a protocol.js naming another
// fails here); here that path is the npm package's ES module build in client/node_modules
// (`make test` installs it). Imported first by each test file, before it imports the client's
// modules. It lives outside client/test/, where `node --test` would run it as a test.

import { readFileSync } from "node:fs";
import { register } from "node:module";

const PACKAGE = new URL("../node_modules/@msgpack/msgpack/", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", PACKAGE), "utf8"));
const VENDOR = `/vendor/msgpack@${version}/`;
const BUILD = new URL("dist.esm/", PACKAGE).href;
const HOOKS = `export function resolve(specifier, context, next) {
  const vendored = specifier.startsWith(${JSON.stringify(VENDOR)});
  return next(vendored ? ${JSON.stringify(BUILD)} + specifier.slice(${VENDOR.length}) : specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
