// A Vite plugin that bakes `import fox from './Fox.glb?vat'` at build time: the three
// files become assets of the build, and the import is their URLs with the parsed
// description. Options are `vatbake bake`'s flags, camelCased (the package's bake()).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export default function vatbake(options = {}) {
  const { bake } = require(options.package || 'vatbake');
  const { package: _, ...flags } = options;
  return {
    name: 'vatbake',
    enforce: 'pre',
    async load(id) {
      const [file, query] = id.split('?');
      if (query !== 'vat' || !/\.(glb|gltf)$/.test(file)) return null;
      this.addWatchFile(file);
      const name = path.basename(file).replace(/\.(glb|gltf)$/, '');
      let result;
      try {
        result = bake(fs.readFileSync(file), { ...flags, name });
      } catch (e) {
        this.error(`vatbake: ${file}: ${e.message} (exit code ${e.code})`);
      }
      const emit = (fileName, source) => this.emitFile({ type: 'asset', fileName: `vat/${fileName}`, source });
      const refs = {
        description: emit(`${name}.vat.json`, result.descriptionBytes),
        texture: emit(`${name}.vat.ktx2`, result.texture),
        restMesh: emit(`${name}.rest.glb`, result.restMesh),
      };
      const url = (ref) => `import.meta.ROLLUP_FILE_URL_${ref}`;
      return [
        `export const description = ${JSON.stringify(result.description)};`,
        `export const descriptionUrl = ${url(refs.description)};`,
        `export const textureUrl = ${url(refs.texture)};`,
        `export const restMeshUrl = ${url(refs.restMesh)};`,
        `export default { description, descriptionUrl, textureUrl, restMeshUrl };`,
      ].join('\n');
    },
  };
}
