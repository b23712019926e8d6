/** What a bake returns: the three files, and the command line's `--json` summary. */
export interface BakeResult {
  /** NAME.vat.json, parsed. */
  description: Record<string, unknown>;
  /** NAME.vat.json as written. */
  descriptionBytes: Uint8Array;
  /** NAME.vat.ktx2. */
  texture: Uint8Array;
  /** NAME.rest.glb. */
  restMesh: Uint8Array;
  /** `vatbake bake --json`'s summary (sizes, clips, slots, warnings). */
  report: Record<string, unknown>;
}

/**
 * Options: `name` names the model's files (default "model"); every other key is a flag
 * of `vatbake bake`, camelCased (`zstdLevel: 19` is `--zstd-level 19`, `smallest: true`
 * is `--smallest`, an array repeats the flag).
 */
export interface BakeOptions {
  name?: string;
  [flag: string]: string | number | boolean | Array<string | number> | undefined;
}

/** An error of the bake, with the command line's exit code and kind. */
export declare class BakeError extends Error {
  /** The exit code: 2 usage, 3 input, 4 output, … (docs/CLI.md). */
  code: number;
  /** "usage", "input", "output", …, as `--json` reports it. */
  kind?: string;
  /** The file the error is about, when there is one. */
  file: string | null;
}

/** Bakes a .glb (or self-contained .gltf) from its bytes; throws a BakeError. */
export declare function bake(inputBytes: Uint8Array, options?: BakeOptions): BakeResult;

/** Runs `vatbake ARGS…` (the command line) and returns its exit code. */
export declare function run(
  args: string[],
  options?: { cwd?: string; stdin?: number; stdout?: number; stderr?: number },
): number;
