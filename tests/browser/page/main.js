// The page's entry: `index.html?modules=harness,players` imports ./harness.js, then
// ./players.js, in that order, and sets window.pageReady once all have run (each module
// installs its window.<name> API at its top level). Default: the harness alone.
const names = (new URLSearchParams(location.search).get('modules') ?? 'harness').split(',');
for (const name of names) {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`index.html: no page module named "${name}"`);
  await import(`./${name}.js`);
}
window.pageReady = true;
