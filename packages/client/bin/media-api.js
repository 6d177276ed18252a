#!/usr/bin/env node
// The `media-api` command: runs the built command line (dist/, made by `npm install` through the
// root postinstall, or by `npm run client:build`). This file is committed so that npm links the
// command on a fresh clone, before anything is built.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("media-api is not built yet: run `npm run client:build` at the repository root.\n");
  process.exit(2);
}
await import(cli.href);
