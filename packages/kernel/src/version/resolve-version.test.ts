import { afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveVersion } from "./index.ts";
import type { VersionRecord } from "./index.ts";

const HASH_A = "0123456789abcdef0123456789abcdef01234567";
const HASH_B = "fedcba9876543210fedcba9876543210fedcba98";
const HASH_C = "aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd";

const T_FILE = new Date("2024-03-04T05:06:07.000Z");
const T_REF = new Date("2023-01-02T03:04:05.000Z");
const T_PACKED = new Date("2022-06-07T08:09:10.000Z");
const T_HEAD = new Date("2021-11-12T13:14:15.000Z");

const dirs: string[] = [];

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "resolve-version-"));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (dirs.length > 0) {
    const d = dirs.pop();
    if (d !== undefined) fs.rmSync(d, { recursive: true, force: true });
  }
});

function write(file: string, content: string, mtime?: Date): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtime !== undefined) fs.utimesSync(file, mtime, mtime);
}

/** A fake `.git` dir with HEAD -> refs/heads/<branch> and a loose ref. */
function looseRepo(repo: string, branch: string, hash: string): void {
  write(path.join(repo, ".git", "HEAD"), `ref: refs/heads/${branch}\n`, T_HEAD);
  write(path.join(repo, ".git", "refs", "heads", ...branch.split("/")), `${hash}\n`, T_REF);
}

function base(): Pick<VersionRecord, "app" | "environment"> {
  return { app: "api", environment: "test" };
}

describe("resolveVersion", () => {
  test("1. env APP_VERSION (a full hash, trimmed) wins over commit file and git", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), `${HASH_B}\nmain\n`, T_FILE);
    looseRepo(repo, "main", HASH_C);
    const r = resolveVersion({ ...base(), env: { APP_VERSION: ` ${HASH_A}\n` }, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_A,
      short: "0123456",
      branch: "unknown",
      environment: "test",
      deployed_at: null,
    });
  });

  test("1a. a SHA-256 APP_VERSION is a full hash; DEPLOYED_AT in ISO 8601 is reported in UTC", () => {
    const sha256 = "ab".repeat(32);
    const r = resolveVersion({ ...base(), env: { APP_VERSION: sha256, DEPLOYED_AT: "2025-01-01T01:00:00+01:00" }, repoDir: tmp() });
    expect(r).toEqual({
      app: "api",
      commit: sha256,
      short: "ababab" + "a",
      branch: "unknown",
      environment: "test",
      deployed_at: "2025-01-01T00:00:00.000Z",
    });
  });

  test("1b. a DEPLOYED_AT that is no ISO 8601 timestamp (or no real date) is null", () => {
    for (const deployed of ["last tuesday", "2025-01-01", "2025-02-30T00:00:00Z", "2025-01-01T24:00:00Z", "1735689600"]) {
      const r = resolveVersion({ ...base(), env: { APP_VERSION: HASH_A, DEPLOYED_AT: deployed }, repoDir: tmp() });
      expect(r.deployed_at).toBeNull();
    }
  });

  test("1d. an APP_VERSION that is no full hash (release name, abbreviated hash) falls through", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), `${HASH_B}\nmain\n`, T_FILE);
    for (const version of [" release-2026.11 ", "v1.2.3-rc.1", "abcdef1"]) {
      const r = resolveVersion({ ...base(), env: { APP_VERSION: version, DEPLOYED_AT: "2025-01-01T00:00:00Z" }, repoDir: repo });
      expect(r).toEqual({ app: "api", commit: HASH_B, short: "fedcba9", branch: "main", environment: "test", deployed_at: T_FILE.toISOString() });
    }
    expect(resolveVersion({ ...base(), env: { APP_VERSION: "release-2026.11", DEPLOYED_AT: "last tuesday" }, repoDir: tmp() })).toEqual({
      app: "api",
      commit: "unknown",
      short: "unknown",
      branch: "unknown",
      environment: "test",
      deployed_at: null,
    });
  });

  test("2d. an abbreviated hash in the commit file falls through (to git, else unknown)", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), "abcdef1\nmain\n", T_FILE);
    fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
    expect(resolveVersion({ ...base(), env: {}, repoDir: repo }).commit).toBe("unknown");
    looseRepo(repo, "main", HASH_C);
    expect(resolveVersion({ ...base(), env: {}, repoDir: repo }).commit).toBe(HASH_C);
  });

  test("1c. empty APP_VERSION falls through", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), `${HASH_B}\n`, T_FILE);
    const r = resolveVersion({ ...base(), env: { APP_VERSION: "  " }, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_B,
      short: "fedcba9",
      branch: "unknown",
      environment: "test",
      deployed_at: T_FILE.toISOString(),
    });
  });

  test("2. commit file wins over git; deployed_at is the file mtime", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), `${HASH_B}\nrelease/2024-03\n`, T_FILE);
    looseRepo(repo, "main", HASH_C);
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_B,
      short: "fedcba9",
      branch: "release/2024-03",
      environment: "test",
      deployed_at: "2024-03-04T05:06:07.000Z",
    });
  });

  test("2b. VERSION_FILE env and opts.versionFile select the file; blank branch -> unknown", () => {
    const repo = tmp();
    const other = tmp();
    const envFile = path.join(other, "from-env.txt");
    const optFile = path.join(other, "from-opts.txt");
    write(envFile, `${HASH_A}\n\n`, T_FILE);
    write(optFile, `${HASH_B}\r\nstaging\r\n`, T_REF);

    expect(resolveVersion({ ...base(), env: { VERSION_FILE: envFile }, repoDir: repo })).toEqual({
      app: "api",
      commit: HASH_A,
      short: "0123456",
      branch: "unknown",
      environment: "test",
      deployed_at: T_FILE.toISOString(),
    });
    expect(
      resolveVersion({ ...base(), env: { VERSION_FILE: envFile }, versionFile: optFile, repoDir: repo }),
    ).toEqual({
      app: "api",
      commit: HASH_B,
      short: "fedcba9",
      branch: "staging",
      environment: "test",
      deployed_at: T_REF.toISOString(),
    });
  });

  test("2c. invalid commit file falls through to git", () => {
    const repo = tmp();
    write(path.join(repo, "REVISION"), "not-a-hash\nmain\n", T_FILE);
    looseRepo(repo, "main", HASH_C);
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_C,
      short: "aaaaaaa",
      branch: "main",
      environment: "test",
      deployed_at: T_REF.toISOString(),
    });
  });

  test("3a. git loose ref; deployed_at is the loose ref mtime", () => {
    const repo = tmp();
    looseRepo(repo, "feature/x", HASH_A);
    // packed-refs has a different (stale) value: loose must win.
    write(path.join(repo, ".git", "packed-refs"), `${HASH_B} refs/heads/feature/x\n`, T_PACKED);
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_A,
      short: "0123456",
      branch: "feature/x",
      environment: "test",
      deployed_at: "2023-01-02T03:04:05.000Z",
    });
  });

  test("3b. git packed refs (skips # and ^ lines); deployed_at is packed-refs mtime", () => {
    const repo = tmp();
    write(path.join(repo, ".git", "HEAD"), "ref: refs/heads/main\n", T_HEAD);
    fs.mkdirSync(path.join(repo, ".git", "refs", "heads"), { recursive: true });
    write(
      path.join(repo, ".git", "packed-refs"),
      [
        "# pack-refs with: peeled fully-peeled sorted ",
        `${HASH_C} refs/heads/develop`,
        `${HASH_B} refs/heads/main`,
        `^${HASH_A}`,
        `${HASH_A} refs/tags/v1`,
        "",
      ].join("\n"),
      T_PACKED,
    );
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_B,
      short: "fedcba9",
      branch: "main",
      environment: "test",
      deployed_at: "2022-06-07T08:09:10.000Z",
    });
  });

  test("3c. detached HEAD gives the hash with branch unknown; deployed_at is HEAD mtime", () => {
    const repo = tmp();
    write(path.join(repo, ".git", "HEAD"), `${HASH_C}\n`, T_HEAD);
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_C,
      short: "aaaaaaa",
      branch: "unknown",
      environment: "test",
      deployed_at: "2021-11-12T13:14:15.000Z",
    });
  });

  test("3d. .git file (gitdir: <path>) pointing elsewhere, relative and absolute", () => {
    const repo = tmp();
    const store = tmp();
    const realGit = path.join(store, "real.git");
    write(path.join(realGit, "HEAD"), "ref: refs/heads/trunk\n", T_HEAD);
    write(path.join(realGit, "refs", "heads", "trunk"), `${HASH_A}\n`, T_REF);

    write(path.join(repo, ".git"), `gitdir: ${realGit}\n`);
    const expected = {
      app: "api",
      commit: HASH_A,
      short: "0123456",
      branch: "trunk",
      environment: "test",
      deployed_at: T_REF.toISOString(),
    };
    expect(resolveVersion({ ...base(), env: {}, repoDir: repo })).toEqual(expected);

    write(path.join(repo, ".git"), `gitdir: ${path.relative(repo, realGit)}\n`);
    expect(resolveVersion({ ...base(), env: {}, repoDir: repo })).toEqual(expected);
  });

  test("3e. worktree gitdir with commondir resolves refs in the common dir", () => {
    const repo = tmp();
    const main = tmp();
    const common = path.join(main, ".git");
    const wt = path.join(common, "worktrees", "wt1");
    write(path.join(common, "HEAD"), "ref: refs/heads/main\n");
    write(path.join(common, "packed-refs"), `${HASH_B} refs/heads/hotfix\n`, T_PACKED);
    write(path.join(wt, "HEAD"), "ref: refs/heads/hotfix\n", T_HEAD);
    write(path.join(wt, "commondir"), "../..\n");
    write(path.join(repo, ".git"), `gitdir: ${wt}\n`);
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: HASH_B,
      short: "fedcba9",
      branch: "hotfix",
      environment: "test",
      deployed_at: T_PACKED.toISOString(),
    });
  });

  test("4. nothing found -> all unknown and deployed_at null", () => {
    const repo = tmp();
    const r = resolveVersion({ ...base(), env: {}, repoDir: repo });
    expect(r).toEqual({
      app: "api",
      commit: "unknown",
      short: "unknown",
      branch: "unknown",
      environment: "test",
      deployed_at: null,
    });
  });

  test("4b. corrupt HEAD falls through to unknown without throwing", () => {
    const repo = tmp();
    write(path.join(repo, ".git", "HEAD"), "\u0000garbage not a ref\n", T_HEAD);
    write(path.join(repo, ".git", "packed-refs"), `${HASH_B} refs/heads/main\n`, T_PACKED);
    expect(() => resolveVersion({ ...base(), env: {}, repoDir: repo })).not.toThrow();
    expect(resolveVersion({ ...base(), env: {}, repoDir: repo })).toEqual({
      app: "api",
      commit: "unknown",
      short: "unknown",
      branch: "unknown",
      environment: "test",
      deployed_at: null,
    });
  });

  test("4c. dangling ref, invalid loose ref, path-escaping ref and unreadable paths -> unknown", () => {
    const unknown = {
      app: "api",
      commit: "unknown",
      short: "unknown",
      branch: "unknown",
      environment: "test",
      deployed_at: null,
    };
    // HEAD points to a branch that exists nowhere.
    const a = tmp();
    write(path.join(a, ".git", "HEAD"), "ref: refs/heads/ghost\n");
    expect(resolveVersion({ ...base(), env: {}, repoDir: a })).toEqual(unknown);

    // Loose ref holds a non-hash; short hex (< 7) is rejected too.
    const b = tmp();
    write(path.join(b, ".git", "HEAD"), "ref: refs/heads/main\n");
    write(path.join(b, ".git", "refs", "heads", "main"), "abc12\n");
    expect(resolveVersion({ ...base(), env: {}, repoDir: b })).toEqual(unknown);

    // Ref escaping the git dir is refused.
    const c = tmp();
    write(path.join(c, "outside"), `${HASH_A}\n`);
    write(path.join(c, ".git", "HEAD"), "ref: refs/../../outside\n");
    expect(resolveVersion({ ...base(), env: {}, repoDir: c })).toEqual(unknown);

    // REVISION is a directory, .git file without gitdir, repoDir missing.
    const d = tmp();
    fs.mkdirSync(path.join(d, "REVISION"));
    write(path.join(d, ".git"), "nonsense\n");
    expect(resolveVersion({ ...base(), env: {}, repoDir: d })).toEqual(unknown);
    expect(
      resolveVersion({ ...base(), env: {}, repoDir: path.join(d, "does", "not", "exist") }),
    ).toEqual(unknown);
  });
});
