export { resolveVersion } from "./resolve-version.ts";
export type { ResolveVersionOptions, VersionRecord } from "./resolve-version.ts";
