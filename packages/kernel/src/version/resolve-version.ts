/**
 * Version resolution for `GET /version` (spec 1-core-api, "Version record" and
 * section 4 "Version resolution").
 *
 * Chain, first non-empty wins:
 *  1. env `APP_VERSION` — used verbatim (trimmed) as `commit` when it is a full
 *     commit hash; `short` is its first 7 characters; branch `unknown`;
 *     `deployed_at` is env `DEPLOYED_AT` when it is an ISO 8601 timestamp
 *     (reported in UTC, `toISOString`), else null. A value that is no full
 *     hash (a release name, an abbreviated hash) falls through: the record's
 *     `commit` is "full commit hash, or the literal `unknown`".
 *  2. a commit file — `opts.versionFile`, else env `VERSION_FILE`, else
 *     `<repoDir>/REVISION`. Line 1 is the hash, line 2 the branch (missing or
 *     blank -> `unknown`). `deployed_at` is the file's modification time.
 *  3. a direct read of the git metadata under `<repoDir>/.git` (a directory,
 *     or a file `gitdir: <path>` as written for worktrees / submodules; a
 *     `commondir` file inside the git dir is honoured for worktrees). HEAD is
 *     read; `ref: refs/heads/x` is resolved via the loose ref file, else the
 *     `packed-refs` file (`#` and `^` lines skipped). A detached HEAD (raw
 *     hash) gives that hash with branch `unknown`.
 *     `deployed_at` is the modification time of the file the hash was actually
 *     read from: the loose ref file, or `packed-refs`, or HEAD when detached.
 *     (This approximates "when this checkout last moved"; `packed-refs` is
 *     shared by all packed refs, so its mtime may be later than the commit.)
 *  4. otherwise commit/short/branch `unknown` and `deployed_at` null.
 *
 * Hashes must be full: 40 (SHA-1) or 64 (SHA-256) hex characters, at every
 * step; an abbreviated, invalid or empty value falls through to the next step. No command is run (no
 * child_process), no database is touched, and every fs error is swallowed:
 * this function never throws.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export type VersionRecord = {
  app: string;
  commit: string;
  short: string;
  branch: string;
  environment: string;
  deployed_at: string | null;
};

export type ResolveVersionOptions = {
  app: string;
  environment: string;
  env: Record<string, string | undefined>;
  /** Commit file path; defaults to env `VERSION_FILE`, then `<repoDir>/REVISION`. */
  versionFile?: string;
  /** Repository / deploy root; defaults to `process.cwd()`. */
  repoDir?: string;
};

type Resolved = { commit: string; branch: string; deployed_at: string | null };

const UNKNOWN = "unknown";
/** A full commit hash: SHA-1 (40) or SHA-256 (64) hex digits. */
const HASH_RE = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;
/** ISO 8601 date and time with seconds optional, fraction optional, and a zone (`Z` or `±hh:mm`). */
const ISO_TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MAX_SYMREF_DEPTH = 5;

function isHash(value: string | undefined): value is string {
  return value !== undefined && HASH_RE.test(value);
}

/** `DEPLOYED_AT` as a UTC ISO 8601 timestamp, or null when it is not one (e.g. "last tuesday"). */
function isoTimestamp(value: string | undefined): string | null {
  const v = value?.trim();
  if (v === undefined || !ISO_TIMESTAMP_RE.test(v)) return null;
  // Date would roll 02-30 over to March and 24:00 to the next day: the fields must exist as written.
  const [y, mo, d, h, mi] = [v.slice(0, 4), v.slice(5, 7), v.slice(8, 10), v.slice(11, 13), v.slice(14, 16)].map(Number) as [number, number, number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d || h > 23 || mi > 59) return null;
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function mtimeIso(path: string): string | null {
  try {
    const t = statSync(path).mtime;
    return Number.isNaN(t.getTime()) ? null : t.toISOString();
  } catch {
    return null;
  }
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/, 1)[0] ?? "").trim();
}

// ---- step 1: environment -------------------------------------------------

function fromEnv(env: Record<string, string | undefined>): Resolved | undefined {
  const version = env.APP_VERSION?.trim();
  if (!isHash(version)) return undefined;
  return { commit: version, branch: UNKNOWN, deployed_at: isoTimestamp(env.DEPLOYED_AT) };
}

// ---- step 2: commit file -------------------------------------------------

function fromFile(path: string): Resolved | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  const lines = text.split(/\r?\n/);
  const hash = (lines[0] ?? "").trim();
  if (!isHash(hash)) return undefined;
  const branch = (lines[1] ?? "").trim();
  return {
    commit: hash,
    branch: branch === "" ? UNKNOWN : branch,
    deployed_at: mtimeIso(path),
  };
}

// ---- step 3: git metadata ------------------------------------------------

type GitDirs = { gitDir: string; commonDir: string };

function locateGitDirs(repoDir: string): GitDirs | undefined {
  const dotGit = join(repoDir, ".git");
  let gitDir: string;
  try {
    const st = statSync(dotGit);
    if (st.isDirectory()) {
      gitDir = dotGit;
    } else if (st.isFile()) {
      const text = readText(dotGit);
      if (text === undefined) return undefined;
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
      const target = m?.[1];
      if (target === undefined || target === "") return undefined;
      gitDir = isAbsolute(target) ? target : resolve(repoDir, target);
    } else {
      return undefined;
    }
  } catch {
    return undefined;
  }

  let commonDir = gitDir;
  const common = readText(join(gitDir, "commondir"));
  if (common !== undefined) {
    const c = firstLine(common);
    if (c !== "") commonDir = isAbsolute(c) ? c : resolve(gitDir, c);
  }
  return { gitDir, commonDir };
}

/** Ref names must stay inside the git dir. */
function isSafeRefName(ref: string): boolean {
  return (
    ref.startsWith("refs/") &&
    !ref.includes("..") &&
    !ref.includes("\\") &&
    !ref.includes("\0") &&
    !ref.endsWith("/")
  );
}

type RefHit = { hash: string; file: string };

function lookupPacked(dirs: GitDirs, ref: string): RefHit | undefined {
  const candidates = dirs.commonDir === dirs.gitDir ? [dirs.gitDir] : [dirs.commonDir, dirs.gitDir];
  for (const dir of candidates) {
    const file = join(dir, "packed-refs");
    const text = readText(file);
    if (text === undefined) continue;
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#") || line.startsWith("^")) continue;
      const parts = line.split(/\s+/);
      const hash = parts[0];
      const name = parts[1];
      if (name === ref && isHash(hash)) return { hash, file };
    }
  }
  return undefined;
}

function resolveRef(dirs: GitDirs, ref: string, depth: number): RefHit | undefined {
  if (depth > MAX_SYMREF_DEPTH || !isSafeRefName(ref)) return undefined;
  // Loose ref: per-worktree dir first, then the common dir.
  const looseDirs = dirs.commonDir === dirs.gitDir ? [dirs.gitDir] : [dirs.gitDir, dirs.commonDir];
  for (const dir of looseDirs) {
    const file = join(dir, ref);
    const text = readText(file);
    if (text === undefined) continue;
    const line = firstLine(text);
    if (isHash(line)) return { hash: line, file };
    const sym = /^ref:\s*(\S+)$/.exec(line);
    if (sym?.[1] !== undefined) {
      const hit = resolveRef(dirs, sym[1], depth + 1);
      if (hit !== undefined) return hit;
    }
  }
  return lookupPacked(dirs, ref);
}

function fromGit(repoDir: string): Resolved | undefined {
  const dirs = locateGitDirs(repoDir);
  if (dirs === undefined) return undefined;
  const headFile = join(dirs.gitDir, "HEAD");
  const headText = readText(headFile);
  if (headText === undefined) return undefined;
  const head = firstLine(headText);

  if (isHash(head)) {
    // Detached HEAD.
    return { commit: head, branch: UNKNOWN, deployed_at: mtimeIso(headFile) };
  }

  const m = /^ref:\s*(\S+)$/.exec(head);
  const ref = m?.[1];
  if (ref === undefined) return undefined;
  const hit = resolveRef(dirs, ref, 0);
  if (hit === undefined) return undefined;
  const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
  return {
    commit: hit.hash,
    branch: branch === "" ? UNKNOWN : branch,
    deployed_at: mtimeIso(hit.file),
  };
}

// ---- chain ---------------------------------------------------------------

function attempt(step: () => Resolved | undefined): Resolved | undefined {
  try {
    return step();
  } catch {
    return undefined;
  }
}

export function resolveVersion(opts: ResolveVersionOptions): VersionRecord {
  const env = opts.env ?? {};
  let repoDir: string;
  try {
    repoDir = nonEmpty(opts.repoDir) ?? process.cwd();
  } catch {
    repoDir = ".";
  }
  const versionFile =
    nonEmpty(opts.versionFile) ?? nonEmpty(env.VERSION_FILE) ?? join(repoDir, "REVISION");

  const found =
    attempt(() => fromEnv(env)) ??
    attempt(() => fromFile(versionFile)) ??
    attempt(() => fromGit(repoDir));

  if (found === undefined) {
    return {
      app: opts.app,
      commit: UNKNOWN,
      short: UNKNOWN,
      branch: UNKNOWN,
      environment: opts.environment,
      deployed_at: null,
    };
  }
  return {
    app: opts.app,
    commit: found.commit,
    short: found.commit.slice(0, 7),
    branch: found.branch,
    environment: opts.environment,
    deployed_at: found.deployed_at,
  };
}
