// dist/THIRD_PARTY_NOTICES.txt: every dependency is bundled and none is installed with vap, so
// their copyright and permission notices travel in this file; the packages are those whose
// files esbuild bundled (its metafile's inputs).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A license file's name, as packages spell it. */
const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.[\w.-]+)?$/i;

/** The folder of the package an input belongs to: the part of its path up to its innermost node_modules/<name> (or @scope/name). */
export function packageDir(input) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'));
  return m ? m[1] : undefined;
}

/** Each bundled package once (name and version), with its license and the text of its license files. */
export function bundledPackages(root, inputs) {
  const dirs = new Set(inputs.map(packageDir).filter(Boolean));
  const byId = new Map();
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    // A folder below a package with a package.json of its own that only sets its module type (zod/v4/…) is the package above it.
    if (!pkg.name) continue;
    const id = `${pkg.name}@${pkg.version}`;
    if (byId.has(id)) continue;
    const files = readdirSync(join(root, dir))
      .filter((f) => LICENSE_FILE.test(f))
      .sort();
    const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? (pkg.licenses ?? []).map((l) => l.type).join(' OR ')) || 'not stated';
    byId.set(id, {
      name: pkg.name,
      version: pkg.version,
      license,
      repository: typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url,
      texts: files.map((f) => readFileSync(join(root, dir, f), 'utf8').trim()),
    });
  }
  return [...byId.values()].sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version) : a.name.localeCompare(b.name)));
}

export function noticesText(packages) {
  const rule = '-'.repeat(78);
  const head = [
    'Third-party software in vap',
    '',
    `vap's files in dist/ bundle the following ${packages.length} packages (npm), each under the license`,
    'named with it. Each license text below is the one the package ships; a package that ships',
    'none is listed with the license its package.json names.',
    '',
    ...packages.map((p) => `  ${p.name} ${p.version} (${p.license})`),
  ];
  const bodies = packages.map((p) =>
    [
      rule,
      `${p.name} ${p.version}`,
      `License: ${p.license}`,
      ...(p.repository ? [`Repository: ${p.repository}`] : []),
      '',
      ...(p.texts.length ? p.texts.flatMap((t) => [t, '']) : ['(the package ships no license file)', '']),
    ].join('\n'),
  );
  return `${[...head, '', ...bodies].join('\n').trimEnd()}\n`;
}
