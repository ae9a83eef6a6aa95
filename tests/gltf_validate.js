#!/usr/bin/env node
// Validates glTF files with the Khronos glTF validator (npm package
// gltf-validator). Usage:
//   node gltf_validate.js [--validator DIR] FILE...
// DIR is a node_modules tree that holds gltf-validator (default: the
// GLTF_VALIDATOR_MODULES environment variable, then node's own lookup).
// Prints every error and warning (infos only as a count) and exits 1 when
// any file has an error or a warning, 2 when the validator cannot be
// loaded, 0 otherwise. External resources (a .bin beside a .gltf, images)
// are read from the file's directory.
'use strict';

const fs = require('fs');
const path = require('path');

let args = process.argv.slice(2);
let modules = process.env.GLTF_VALIDATOR_MODULES || '';
if (args[0] === '--validator') {
    modules = args[1];
    args = args.slice(2);
}
if (args.length === 0) {
    console.error('usage: gltf_validate.js [--validator DIR] FILE...');
    process.exit(2);
}

let validator;
try {
    validator = require(modules ? path.resolve(modules, 'gltf-validator') : 'gltf-validator');
} catch (e) {
    console.error(`gltf_validate: cannot load gltf-validator${modules ? ' from ' + modules : ''}: ${e.message}`);
    process.exit(2);
}

async function validate(file) {
    const data = fs.readFileSync(file);
    const dir = path.dirname(path.resolve(file));
    const report = await validator.validateBytes(new Uint8Array(data), {
        uri: path.basename(file),
        maxIssues: 0, // no limit
        externalResourceFunction: (uri) =>
            new Promise((resolve, reject) => {
                fs.readFile(path.resolve(dir, decodeURIComponent(uri)), (err, bytes) => {
                    if (err) reject(err.toString());
                    else resolve(new Uint8Array(bytes));
                });
            }),
    });
    const issues = report.issues;
    const bad = issues.messages.filter((m) => m.severity <= 1); // 0 error, 1 warning
    for (const m of bad) {
        const kind = m.severity === 0 ? 'error' : 'warning';
        console.log(`${file}: ${kind}: ${m.code}: ${m.message}${m.pointer ? ' (' + m.pointer + ')' : ''}`);
    }
    console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
                `${issues.numInfos} infos, ${issues.numHints} hints`);
    return bad.length === 0;
}

(async () => {
    let ok = true;
    for (const file of args) {
        try {
            if (!(await validate(file))) ok = false;
        } catch (e) {
            console.log(`${file}: error: the validator failed: ${e}`);
            ok = false;
        }
    }
    process.exit(ok ? 0 : 1);
})();
