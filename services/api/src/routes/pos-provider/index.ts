import { Elysia, t } from 'elysia';
import { posProviderOptions, selectPosProvider } from '@pos/core/pos/select-provider';
import { providerStaging } from '@pos/core/identity/features';
import { logActivity } from '@pos/core/activity/log-activity';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { allLocations, permission } from '../../plugins/guards.ts';

const tags = ['Register administration'];

/** Spec 2 gating: the provider list and `POST /back-office/pos/select-provider` (no first-party-pos gate). */
export function posProviderRoutes(deps: ApiDeps) {
  const staged = providerStaging(deps.config, deps.env);
  return new Elysia({ name: 'pos-provider', prefix: '/back-office/pos' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/provider-options', async ({ tenant }) => ({ data: await posProviderOptions(deps.db, tenant.merchant, staged) }), {
      response: { 200: t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String() })) }) },
      detail: { tags, summary: 'Register providers this merchant may select' },
    })
    .post(
      '/select-provider',
      async ({ tenant, body, auth }) => {
        const r = await selectPosProvider(deps.db, tenant.merchant, body.provider, staged);
        await logActivity(tenant.db, { userId: auth.userId, action: 'selected', subject: 'pos_provider', properties: { provider: body.provider } });
        return { status: 'success' as const, ...r };
      },
      {
        // Merchant-wide: it turns the register on or off at every location, so it needs every location too.
        transform: [permission('EDIT_IN_HOUSE_CHANNEL'), allLocations()],
        body: t.Object({ provider: t.Nullable(t.String({ minLength: 1, maxLength: 64 })) }),
        response: { 200: t.Object({ status: t.Literal('success'), pos_provider: t.Nullable(t.String()) }) },
        detail: { tags, summary: 'Select the register provider (writes the pos_provider marker); permission EDIT_IN_HOUSE_CHANNEL at every location' },
      },
    );
}
