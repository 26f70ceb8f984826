// Structural checks for infra/: Dockerfiles, compose.yaml and the Kubernetes manifests.
// Run with `bun test infra`. No Docker or cluster needed.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const INFRA = import.meta.dir;
const ROOT = join(INFRA, "..");
const K8S = join(INFRA, "k8s");
const DOCKER = join(INFRA, "docker");

type Obj = Record<string, any>;

const read = (path: string) => readFileSync(path, "utf8");

/** Parses a (possibly multi-document) YAML file into a list of documents. */
function parseDocs(path: string): Obj[] {
  const parsed = Bun.YAML.parse(read(path)) as unknown;
  const docs = Array.isArray(parsed) && /^---\s*$/m.test(read(path)) ? parsed : [parsed];
  return docs.filter((d): d is Obj => d !== null && typeof d === "object");
}

const SERVICES = {
  api: { port: 3000, portEnv: "API_PORT", live: "/api/health", ready: "/api/health/readiness", main: "services/api/src/main.ts" },
  worker: { port: 3200, portEnv: "WORKER_PORT", live: "/health", ready: "/health", main: "services/worker/src/main.ts" },
  "printer-poll": { port: 3100, portEnv: "PRINTER_POLL_PORT", live: "/health", ready: "/health", main: "services/printer-poll/src/main.ts" },
} as const;
type ServiceName = keyof typeof SERVICES;
const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];
const HEALTH_ROUTES = new Set<string>(["/api/health", "/api/health/readiness", "/api/health/fresh", "/health"]);

// ---------------------------------------------------------------------------------------------
// Kubernetes
// ---------------------------------------------------------------------------------------------

const kustomization = parseDocs(join(K8S, "kustomization.yaml"))[0]!;
const resourceFiles: string[] = kustomization.resources;
const k8sDocs = resourceFiles.flatMap((f) => parseDocs(join(K8S, f)).map((doc) => ({ file: f, doc })));
const ofKind = (kind: string) => k8sDocs.filter(({ doc }) => doc.kind === kind).map(({ doc }) => doc);
const deployments = ofKind("Deployment");
const secretTemplate = parseDocs(join(K8S, "secret.template.yaml"));
const configMap = ofKind("ConfigMap")[0]!;
const SECRET_NAME = secretTemplate[0]?.metadata?.name;
const CONFIGMAP_NAME = configMap?.metadata?.name;

describe("kubernetes manifests", () => {
  test("kustomization lists existing files and every yaml except the secret template", () => {
    expect(kustomization.kind).toBe("Kustomization");
    for (const f of resourceFiles) expect(existsSync(join(K8S, f))).toBe(true);
    const yamls = readdirSync(K8S).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    const expected = yamls.filter((f) => f !== "secret.template.yaml").sort();
    expect([...resourceFiles].sort()).toEqual(expected);
    expect(resourceFiles).not.toContain("secret.template.yaml");
  });

  test("has namespace, ConfigMap, migration Job, HPA for the api, a Deployment and Service per service", () => {
    expect(ofKind("Namespace")).toHaveLength(1);
    expect(ofKind("ConfigMap")).toHaveLength(1);
    const jobs = ofKind("Job");
    expect(jobs).toHaveLength(1);
    const jobContainer = jobs[0]!.spec.template.spec.containers[0];
    expect(jobContainer.command.join(" ")).toContain("packages/db/src/cli/migrate.ts");
    expect(jobs[0]!.spec.template.spec.securityContext.runAsNonRoot).toBe(true);

    const hpas = ofKind("HorizontalPodAutoscaler");
    expect(hpas).toHaveLength(1);
    expect(hpas[0]!.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name: "pos-api" });
    expect(hpas[0]!.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const api = deployments.find((d) => d.metadata.name === "pos-api")!;
    expect(api.spec.replicas).toBeUndefined(); // the HPA owns the replica count

    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICE_NAMES.map((n) => `pos-${n}`).sort());
    const services = ofKind("Service");
    for (const name of SERVICE_NAMES) {
      const dep = deployments.find((d) => d.metadata.name === `pos-${name}`)!;
      const svc = services.find((s) => s.metadata.name === `pos-${name}`);
      expect(svc).toBeDefined();
      // Service selects the Deployment's pods and reaches the container port.
      const podLabels = dep.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(svc!.spec.selector)) expect(podLabels[k]).toBe(v);
      expect(dep.spec.selector.matchLabels).toEqual(svc!.spec.selector);
      expect(svc!.spec.ports[0].port).toBe(SERVICES[name].port);
      const c = dep.spec.template.spec.containers[0];
      expect(c.ports.find((p: Obj) => p.name === svc!.spec.ports[0].targetPort)?.containerPort).toBe(SERVICES[name].port);
    }
  });

  describe.each(SERVICE_NAMES)("Deployment pos-%s", (name) => {
    const dep = () => deployments.find((d) => d.metadata.name === `pos-${name}`)!;
    const container = () => dep().spec.template.spec.containers[0];

    test("readiness and liveness probes hit health routes", () => {
      const c = container();
      for (const probe of [c.readinessProbe, c.livenessProbe]) {
        expect(probe?.httpGet).toBeDefined();
        expect(HEALTH_ROUTES.has(probe.httpGet.path)).toBe(true);
        const port = probe.httpGet.port;
        const resolved = typeof port === "number" ? port : c.ports.find((p: Obj) => p.name === port)?.containerPort;
        expect(resolved).toBe(SERVICES[name].port);
      }
      expect(c.readinessProbe.httpGet.path).toBe(SERVICES[name].ready);
      expect(c.livenessProbe.httpGet.path).toBe(SERVICES[name].live);
    });

    test("runs as non-root", () => {
      const pod = dep().spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(container().securityContext.allowPrivilegeEscalation).toBe(false);
      expect(container().securityContext.runAsUser ?? pod.securityContext.runAsUser).not.toBe(0);
    });

    test("takes env from the ConfigMap and the Secret", () => {
      const envFrom: Obj[] = container().envFrom;
      expect(envFrom.map((e) => e.configMapRef?.name).filter(Boolean)).toEqual([CONFIGMAP_NAME]);
      expect(envFrom.map((e) => e.secretRef?.name).filter(Boolean)).toEqual([SECRET_NAME]);
    });

    test("declares resource requests and limits and uses the service image", () => {
      const r = container().resources;
      expect(r.requests.cpu).toBeDefined();
      expect(r.requests.memory).toBeDefined();
      expect(r.limits.memory).toBeDefined();
      expect(container().image).toStartWith(`pos/${name}:`);
    });
  });

  test("the api writes uploads to a shared claim mounted at the image's OBJECT_STORE_DIR (its root file system is read-only)", () => {
    const api = deployments.find((d) => d.metadata.name === "pos-api")!;
    const mount = api.spec.template.spec.containers[0].volumeMounts.find((m: Obj) => m.mountPath === "/var/lib/pos/objects");
    expect(mount).toBeDefined();
    const volume = api.spec.template.spec.volumes.find((v: Obj) => v.name === mount.name);
    const claims = ofKind("PersistentVolumeClaim");
    expect(claims.map((c) => c.metadata.name)).toContain(volume.persistentVolumeClaim.claimName);
    // Several replicas (the HPA) read and write the same files.
    expect(claims.find((c) => c.metadata.name === volume.persistentVolumeClaim.claimName)!.spec.accessModes).toEqual(["ReadWriteMany"]);
    expect(read(join(import.meta.dir, "docker", "Dockerfile.api"))).toContain("ENV OBJECT_STORE_DIR=/var/lib/pos/objects");
  });

  test("ConfigMap carries no secret keys; the port variables match the containers", () => {
    const data: Obj = configMap.data;
    for (const key of ["DATABASE_URL", "REDIS_URL", "JWT_SECRET", "DEVICE_API_KEY", "PIN_PEPPER", "FISCAL_MASTER_KEY", "FISCAL_SIGNING_KEYS"]) {
      expect(data[key]).toBeUndefined();
    }
    for (const name of SERVICE_NAMES) expect(data[SERVICES[name].portEnv]).toBe(String(SERVICES[name].port));
    expect(data.VERSION_FILE).toBe("/app/REVISION");
  });

  test("the Secret is a template with placeholder values only", () => {
    expect(secretTemplate).toHaveLength(1);
    const secret = secretTemplate[0]!;
    expect(secret.kind).toBe("Secret");
    expect(read(join(K8S, "secret.template.yaml"))).toMatch(/TEMPLATE.*PLACEHOLDER/);
    expect(secret.data).toBeUndefined(); // no base64 blobs
    const values = Object.entries(secret.stringData as Obj);
    expect(values.map(([k]) => k).sort()).toEqual(
      ["DATABASE_URL", "DEVICE_API_KEY", "FISCAL_MASTER_KEY", "JWT_SECRET", "PIN_PEPPER", "REDIS_URL"].sort(),
    );
    for (const [key, value] of values) {
      expect(typeof value).toBe("string");
      expect(value).toContain("REPLACE_ME");
      // With the placeholders removed, nothing secret-like may remain: no long random-looking runs.
      const rest = (value as string).replace(/REPLACE_ME(_[A-Z]+)?/g, "");
      expect({ key, tokens: rest.match(/[A-Za-z0-9+/=_-]{16,}/g) ?? [] }).toEqual({ key, tokens: [] });
      if (key.endsWith("_URL")) {
        const url = new URL(value as string);
        expect(url.password === "" || url.password.startsWith("REPLACE_ME")).toBe(true);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Dockerfiles
// ---------------------------------------------------------------------------------------------

/** Dockerfile instructions with line continuations joined and comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n")
    .replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

const workspaceManifests = ["packages", "services"].flatMap((dir) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, dir, d.name, "package.json")))
    .map((d) => `${dir}/${d.name}/package.json`),
);

describe.each(SERVICE_NAMES)("Dockerfile.%s", (name) => {
  const path = join(DOCKER, `Dockerfile.${name}`);
  const ins = () => instructions(read(path));
  const svc = SERVICES[name];

  test("is multi-stage on a pinned oven/bun 1.x minor", () => {
    const froms = ins().filter((i) => i.op === "FROM");
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const bunVersion = ins().find((i) => i.op === "ARG" && i.args.startsWith("BUN_VERSION="))?.args.split("=")[1];
    expect(bunVersion).toMatch(/^1\.\d+(\.\d+)?$/);
    for (const f of froms) expect(f.args).toMatch(/^oven\/bun:\$\{BUN_VERSION\}/);
    expect(ins().some((i) => i.op === "COPY" && i.args.startsWith("--from=deps"))).toBe(true);
  });

  test("installs production deps from the frozen lockfile with every workspace manifest", () => {
    const all = ins();
    const run = all.find((i) => i.op === "RUN" && i.args.includes("bun install"));
    expect(run?.args).toContain("--frozen-lockfile");
    expect(run?.args).toContain("--production");
    const beforeInstall = all.slice(0, all.indexOf(run!));
    const copied = beforeInstall.filter((i) => i.op === "COPY").map((i) => i.args);
    expect(copied.some((c) => c.includes("bun.lock") && c.includes("package.json"))).toBe(true);
    for (const m of workspaceManifests) expect(copied.some((c) => c.startsWith(`${m} `))).toBe(true);
  });

  test("runs as a non-root USER in the final stage", () => {
    const all = ins();
    const lastFrom = all.map((i) => i.op).lastIndexOf("FROM");
    const users = all.slice(lastFrom).filter((i) => i.op === "USER");
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(":")[0];
    expect(["", "0", "root"]).not.toContain(user);
  });

  test("has a bun-based HEALTHCHECK on the health route, EXPOSE and CMD", () => {
    const hc = ins().find((i) => i.op === "HEALTHCHECK");
    expect(hc).toBeDefined();
    expect(hc!.args).toContain("CMD bun -e");
    expect(hc!.args).toContain(`'${svc.live}'`);
    expect(hc!.args).toContain(`process.env.${svc.portEnv}||${svc.port}`);
    expect(hc!.args).toContain("process.exit(r.ok?0:1)");
    expect(ins().find((i) => i.op === "EXPOSE")?.args).toBe(String(svc.port));
    expect(ins().find((i) => i.op === "CMD")?.args).toBe(`["bun", "${svc.main}"]`);
  });

  test("writes GIT_COMMIT and GIT_BRANCH to /app/REVISION and sets VERSION_FILE", () => {
    const all = ins();
    expect(all.some((i) => i.op === "ARG" && i.args.startsWith("GIT_COMMIT"))).toBe(true);
    expect(all.some((i) => i.op === "ARG" && i.args.startsWith("GIT_BRANCH"))).toBe(true);
    const run = all.find((i) => i.op === "RUN" && i.args.includes("/app/REVISION"));
    expect(run?.args).toMatch(/printf '%s\\n%s\\n' "\$\{GIT_COMMIT\}" "\$\{GIT_BRANCH\}" > \/app\/REVISION/);
    expect(all.some((i) => i.op === "ENV" && i.args.includes("VERSION_FILE=/app/REVISION"))).toBe(true);
  });

  test("its .dockerignore copy matches infra/docker/.dockerignore and excludes secrets and node_modules", () => {
    const base = read(join(DOCKER, ".dockerignore"));
    expect(read(join(DOCKER, `Dockerfile.${name}.dockerignore`))).toBe(base);
    const rules = base.split("\n").map((l) => l.trim());
    for (const r of ["**/node_modules", ".env", ".env.*", ".git", ".data"]) expect(rules).toContain(r);
  });
});

// ---------------------------------------------------------------------------------------------
// Compose
// ---------------------------------------------------------------------------------------------

describe("compose.yaml", () => {
  const compose = parseDocs(join(INFRA, "compose.yaml"))[0]!;
  const services: Obj = compose.services;

  test("has postgres 16, redis 7, migrate, api, worker, printer-poll", () => {
    for (const s of ["postgres", "redis", "migrate", ...SERVICE_NAMES]) expect(services[s]).toBeDefined();
    expect(services.postgres.image).toBe("postgres:16");
    expect(services.redis.image).toBe("redis:7");
  });

  test("the api keeps uploads in a named volume at the image's OBJECT_STORE_DIR", () => {
    expect(services.api.volumes).toContain("objects:/var/lib/pos/objects");
    expect(Object.keys(compose.volumes)).toContain("objects");
  });

  test("every long-running service has a healthcheck", () => {
    for (const s of ["postgres", "redis", ...SERVICE_NAMES]) expect(services[s].healthcheck?.test).toBeDefined();
    expect(services.api.healthcheck.test.join(" ")).toContain("/api/health/readiness");
  });

  test("migrate is one-shot and runs after postgres; the app services wait for it", () => {
    expect(services.migrate.command.join(" ")).toContain("packages/db/src/cli/migrate.ts");
    expect(services.migrate.restart).toBe("no");
    expect(services.migrate.depends_on.postgres.condition).toBe("service_healthy");
    for (const s of SERVICE_NAMES) {
      expect(services[s].depends_on).toMatchObject({
        postgres: { condition: "service_healthy" },
        redis: { condition: "service_healthy" },
        migrate: { condition: "service_completed_successfully" },
      });
    }
  });

  test("builds from the repo root with the service Dockerfile and reads ../.env plus defaults", () => {
    for (const s of [...SERVICE_NAMES, "migrate"]) {
      const svc = services[s];
      const dockerfile = s === "migrate" ? "Dockerfile.api" : `Dockerfile.${s}`;
      expect(svc.build).toMatchObject({ context: "..", dockerfile: `infra/docker/${dockerfile}` });
      expect(existsSync(join(INFRA, svc.build.context, svc.build.dockerfile))).toBe(true);
      expect(typeof svc.build.args.GIT_COMMIT).toBe("string");
      expect(typeof svc.build.args.GIT_BRANCH).toBe("string");
      const files = svc.env_file.map((e: Obj | string) => (typeof e === "string" ? e : e.path));
      expect(files).toEqual(["./compose.env", "../.env"]);
      expect(existsSync(join(INFRA, "compose.env"))).toBe(true);
      expect(svc.environment.DATABASE_URL).toContain("@postgres:5432/");
      expect(svc.environment.REDIS_URL).toBe("redis://redis:6379");
    }
    for (const s of SERVICE_NAMES) {
      expect(services[s].ports.some((p: string) => p.endsWith(`:${SERVICES[s].port}`))).toBe(true);
    }
  });
});
