// Types of bench/install-size.js, for test/install-size.test.ts.
export const root: string;
export const TARGET_MB: number;
export const BASELINE: { mb: number; packages: number };
export interface Installed {
  /** The temp folder: the tarball and project/. */
  dir: string;
  project: string;
  packed: { filename: string; size: number; unpackedSize: number };
  /** npm install's stdout and stderr. */
  installOutput: string;
  /** MB (MiB) of the files' own bytes, and on disk (allocated blocks, as `du` counts). */
  mb: number;
  diskMb: number;
  packages: string[];
  largest: Array<{ name: string; mb: number }>;
}
export function packAndInstall(options?: { offline?: boolean }): Installed;
export function measure(nodeModules: string): Pick<Installed, "mb" | "diskMb" | "packages" | "largest">;
