import { Elysia, t } from 'elysia';
import { resolveVersion } from '@pos/kernel';
import type { ApiDeps } from '../../context.ts';

export const VersionRecord = t.Object({
  app: t.String(),
  commit: t.String(),
  short: t.String(),
  branch: t.String(),
  environment: t.String(),
  deployed_at: t.Nullable(t.String()),
});

/** GET /version at the address root: public, no middleware, always 200 (spec 1 "Version record"). */
export function versionRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'version' }).get(
    '/version',
    () =>
      resolveVersion({
        app: 'ordering-platform-api',
        environment: deps.env,
        env: { APP_VERSION: deps.config.APP_VERSION, VERSION_FILE: deps.config.VERSION_FILE },
        repoDir: deps.repoDir,
      }),
    { response: { 200: VersionRecord }, detail: { summary: 'Version record', tags: ['Public'] } },
  );
}
